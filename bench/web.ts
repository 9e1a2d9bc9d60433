/**
 * The web inbox: time from a question opening (the broker's `elicit.open`, stamped with the wall clock) to its row
 * on the page in Debian's chromium (a MutationObserver stamps the row with the page's wall clock), through a real
 * call to a fixture server, the daemon's event stream, the page's EventSource and its fetch of the question.
 */
import type { BrokerEvent } from '../src/broker/types.js';
import { launchChromium, startInboxDaemon } from '../test/helpers/web-inbox.js';
import type { BenchFigure, BenchSuite } from './index.js';

const ROUNDS = Number(process.env.BENCH_WEB_ROUNDS ?? 40);
const WARMUP = 5;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const run: BenchSuite = async () => {
  const [daemon, browser] = await Promise.all([startInboxDaemon(), launchChromium()]);
  try {
    const page = await browser.newPage();
    await page.goto(`${daemon.base}${await daemon.signInPath()}`);
    await page.locator('#inbox').waitFor();
    await page.waitForFunction(() => (globalThis as any).document.getElementById('live').textContent === 'live');
    // Page-side code reaches the DOM through `globalThis`: the bench is type-checked without the DOM library.
    await page.evaluate(() => {
      const g = globalThis as any;
      g.__rowSeen = {};
      new g.MutationObserver((records: any[]) => {
        const at = Date.now();
        for (const record of records)
          for (const node of record.addedNodes) if (node.dataset?.id) g.__rowSeen[node.dataset.id] ??= at;
      }).observe(g.document.getElementById('questions'), { childList: true });
    });
    const opened = new Map<string, number>();
    const unsubscribe = daemon.broker.subscribe((event: BrokerEvent) => {
      if (event.kind === 'elicit.open' && event.elicit) opened.set(event.elicit, event.at);
    });
    const samples: number[] = [];
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const { body } = await daemon.rest('/v1/call/modern/ask_confirm', { method: 'POST', body: {} });
      const id: string = body.inputRequired.questions[0].id;
      const seenAt = (await (await page.waitForFunction((q) => (globalThis as any).__rowSeen[q], id)).jsonValue()) as number;
      if (round >= WARMUP) samples.push(seenAt - opened.get(id)!);
      await daemon.rest(`/v1/elicit/${id}/cancel`, { method: 'POST' });
      await daemon.rest(`/v1/tasks/${body.inputRequired.task}?wait=10`);
    }
    unsubscribe();
    const note = `${ROUNDS} questions, one at a time; wall clocks of node and chromium, ms resolution; loaded shared machine`;
    const figures: BenchFigure[] = [
      {
        suite: 'web',
        name: 'question opened -> row on the page: p50',
        value: percentile(samples, 50),
        unit: 'ms',
        target: 'p50 < 100 ms',
        note,
      },
      { suite: 'web', name: 'question opened -> row on the page: p90', value: percentile(samples, 90), unit: 'ms' },
      { suite: 'web', name: 'question opened -> row on the page: max', value: Math.max(...samples), unit: 'ms' },
    ];
    return figures;
  } finally {
    await browser.cleanup();
    await daemon.close();
  }
};
