import { describe, expect, it } from 'vitest';
import { createBroker, createManualClock, cursorAfter } from '../../src/broker/index.js';
import { isMcpxError } from '../../src/errors.js';

const ask = {
  trace: 'cal-00000000000000d1',
  server: 's',
  tool: 't',
  mode: 'form' as const,
  message: 'ok?',
  era: 'legacy' as const,
};

describe('paged pending listing', () => {
  it('walks every pending question once, in order, a page at a time, even when one is answered between pages', async () => {
    const clock = createManualClock();
    const broker = createBroker({ session: 's1', clock });
    const opened: string[] = [];
    for (let i = 0; i < 7; i++) {
      opened.push((await broker.openRequest(ask)).id);
      if (i % 2) clock.advance(1);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await broker.pending({ limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.map((e) => e.id));
      // The last question (the last page's only one) is answered after the first page: it must not be walked.
      if (seen.length === 3)
        expect((await broker.respond({ id: opened[6]!, action: 'cancel', by: 'cli' })).action).toBe('cancel');
      if (page.length < 3) break;
      cursor = cursorAfter(page.at(-1)!);
    }
    const everything = (await broker.pending({ state: ['pending', 'answered'] })).map((e) => e.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(everything.filter((id) => seen.includes(id)));
    expect([...seen].sort()).toEqual(opened.slice(0, 6).sort());
    const bad = await broker.pending({ cursor: 'nonsense' }).catch((e: unknown) => e);
    expect(isMcpxError(bad, 'CONFIG_INVALID')).toBe(true);
    await broker.close();
  });
});
