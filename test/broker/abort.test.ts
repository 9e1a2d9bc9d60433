import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBroker, openSqliteStore } from '../../src/broker/index.js';

describe('awaitAnswer aborted before its first read returns', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  // vitest fails the run on an unhandled rejection, so this guards the abort race the pipeline hits.
  it('rejects the caller with the abort reason and leaves no unhandled rejection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-abort-'));
    dirs.push(dir);
    const broker = createBroker({ store: await openSqliteStore(join(dir, 'store.sqlite')) });
    try {
      for (let round = 0; round < 10; round++) {
        const request = await broker.openRequest({
          trace: 'cal-0000000000000001',
          server: 'fixture',
          tool: 'ask_form',
          mode: 'form',
          message: 'Which repository?',
          era: 'modern',
          requestedSchema: { type: 'object', properties: { repo: { type: 'string' } } },
        });
        const controller = new AbortController();
        const waiting = broker.awaitAnswer(request.id, { signal: controller.signal });
        controller.abort();
        await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
        expect((await broker.get(request.id))?.state).toBe('pending');
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await broker.close();
    }
  });
});
