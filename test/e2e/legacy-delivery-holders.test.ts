/**
 * Every process that holds a legacy call (the call is an open connection there) writes the delivery receipt when
 * it passes an answer on, not only the daemon: `mcpx serve` and an app built with createMcpx on a store. An answer
 * from the CLI to a question of theirs is delivered while they live (the CLI says so, the receipt reads delivered,
 * the call completes with it); answered after the serve holding the call was SIGKILLed, it is refused with
 * ELICITATION_ABANDONED, never recorded, and the question shows abandoned. SQLite (the holder judged by its pid)
 * and Redis (by its lease, MCPX_LEASE_MS), with the built CLI, real fixture servers and a real redis-server.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreUrl } from '../../src/broker/store-url.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { createMcpx } from '../../src/mcpx.js';
import { fixtureEcho, stdioFixture } from '../helpers/fixture-servers.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { ownedServe, serveSetup, textOf, type ServeSetup } from '../helpers/serve.js';

const SESSION = { MCPX_SESSION_ID: 'holders-test' };
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

const stores = [
  ['SQLite', () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'mcpx-holders-')), 'store.sqlite')}`],
  ['Redis', () => `${redis.url}/5`],
] as const;

/** The receipt the holder wrote for a question, read from the store as any process would. */
async function receiptOf(url: string, id: string): Promise<unknown> {
  const store = await openStoreUrl(url);
  try {
    return ((await store.keyv.get(`r:${id}`)) as { receipt?: string } | undefined)?.receipt;
  } finally {
    await store.close();
  }
}

async function answersOf(url: string, id: string): Promise<string[]> {
  const store = await openStoreUrl(url);
  try {
    return (await store.readEvents()).filter((e) => e.elicit === id).map((e) => e.kind);
  } finally {
    await store.close();
  }
}

for (const [name, storeUrl] of stores) {
  describe(`a legacy question held by mcpx serve on ${name}`, () => {
    let setup: ServeSetup;
    let url: string;
    beforeAll(() => {
      url = storeUrl();
      setup = serveSetup({ legacy: stdioFixture('legacy-v1') }, { ...SESSION, MCPX_STORE_URL: url, MCPX_LEASE_MS: '1000' });
    });

    async function ask(title: string) {
      const serve = await ownedServe(setup, SESSION);
      const first = textOf(await serve.client.callTool('ask_form', { title }));
      const id = /elc-[0-9a-f]{16}/.exec(first)?.[0];
      const task = /tsk-[0-9a-f]{16}/.exec(first)?.[0];
      expect(id, first).toBeDefined();
      return { serve, id: id!, task: task! };
    }

    it('is delivered while the serve lives: the CLI says so, and the call gets the answer', async () => {
      const { serve, id, task } = await ask('lives');
      try {
        const answered = await setup.cli(['elicit', 'answer', id, '{"repo":"acme/lives"}']);
        expect(answered.code, answered.stderr).toBe(0);
        expect(answered.stderr).toContain('the answer was delivered to the call that asked');
        expect(await receiptOf(url, id)).toBe('delivered');
        const result = await serve.client.callTool('mcpx_call_result', { task, waitSeconds: 20 });
        expect(result.isError, textOf(result)).toBeFalsy();
        expect((result.structuredContent as { received?: { details?: unknown } }).received?.details).toMatchObject({
          action: 'accept',
          content: expect.objectContaining({ repo: 'acme/lives' }),
        });
      } finally {
        await serve.client.close();
      }
    });

    it('is refused with ELICITATION_ABANDONED once the serve holding the call was SIGKILLed, and never recorded', async () => {
      const { serve, id } = await ask('killed');
      await serve.kill();
      const refused = await setup.cli(['elicit', 'answer', id, '{"repo":"acme/late"}']);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toContain('ELICITATION_ABANDONED');
      expect(refused.stderr).toContain(`question ${id} was abandoned`);
      expect(await receiptOf(url, id)).toBe('undelivered');
      const listed = await setup.cli(['elicit', 'list', '--state', 'abandoned', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(id);
      const kinds = await answersOf(url, id);
      expect(kinds).not.toContain('elicit.answered');
      expect(kinds).toContain('elicit.abandoned');
      // A second answer is refused too.
      expect((await setup.cli(['elicit', 'answer', id, '{"repo":"acme/again"}'])).code).toBe(1);
    });
  });

  describe(`a legacy question held by a createMcpx app on ${name}`, () => {
    it('is answered from the CLI and delivered: the receipt is written and the call completes in the app', async () => {
      const url = storeUrl();
      const setup = serveSetup({}, { ...SESSION, MCPX_STORE_URL: url });
      const app = await createMcpx({
        config: { mcpServers: { old: { ...stdioFixture('legacy-v1'), era: 'legacy' } } },
        store: url,
        eraCache: createMemoryEraCache(),
        env: { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-holders-app-')) },
      });
      try {
        const outcome = await app.callTool('old', 'ask_form', { title: 'from the app' });
        expect(outcome.status).toBe('input-required');
        if (outcome.status !== 'input-required') return;
        const id = outcome.questions[0]!.id;
        const answered = await setup.cli(['elicit', 'answer', id, '{"repo":"acme/app"}', '--all']);
        expect(answered.code, answered.stderr).toBe(0);
        expect(answered.stderr).toContain('the answer was delivered to the call that asked');
        expect(await receiptOf(url, id)).toBe('delivered');
        const done = await app.result(outcome.task!);
        expect(done.status).toBe('complete');
        if (done.status !== 'complete') return;
        expect(fixtureEcho(done.result as never).received.details).toMatchObject({
          action: 'accept',
          content: { repo: 'acme/app' },
        });
      } finally {
        await app.close();
      }
    });
  });
}
