/**
 * `mcpx serve` when things go wrong: an upstream that will not start, one that dies while its question waits,
 * and bad arguments. Each gets a clear result naming the server; the other servers keep working.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { serveSetup, textOf, v1Client, type ServeSetup, type TestClient } from '../helpers/serve.js';

let setup: ServeSetup;
let client: TestClient;
let spawnLog: string;
beforeAll(async () => {
  // The serve and the CLI that lists from another process are in one session (a CLI sees only its own session's).
  setup = serveSetup({}, { MCPX_SESSION_ID: 'serve-faults-test' });
  spawnLog = join(setup.dir, 'spawns.log');
  writeFileSync(spawnLog, '');
  writeFileSync(
    setup.configPath,
    JSON.stringify({
      mcpServers: {
        legacy: stdioFixture('legacy-v1', { MCPX_FIXTURE_SPAWN_LOG: spawnLog }),
        broken: { command: process.execPath, args: [join(setup.dir, 'no-such-server.mjs')] },
      },
    }),
  );
  client = await v1Client(setup);
});
afterAll(() => client?.close());

describe('mcpx serve faults', () => {
  it('lists the tools of the servers that started, and names the one that did not when it is called', async () => {
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toContain('legacy__ask_form');
    expect(names.some((n) => n.startsWith('broken__'))).toBe(false);
    const result = await client.callTool('broken__anything');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^mcpx: broken\.anything failed \(CONNECT_FAILED\): the server could not be started/);
  });

  it("passes the upstream's own refusal of bad arguments back as a tool error", async () => {
    const result = await client.callTool('legacy__sleep', { ms: 'soon' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/ms/);
  });

  it('fails the call clearly and abandons its question when the upstream dies while the question waits', async () => {
    const first = await client.callTool('legacy__ask_form', { title: 'd' });
    const id = /elc-[0-9a-f]{16}/.exec(textOf(first))![0];
    const task = /tsk-[0-9a-f]{16}/.exec(textOf(first))![0];
    const pid = Number(readFileSync(spawnLog, 'utf8').trim().split('\n').at(-1)!.split(' ')[1]);
    process.kill(pid, 'SIGKILL');
    const result = await client.callTool('mcpx_call_result', { task, waitSeconds: 20 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^mcpx: legacy\.ask_form failed/);
    const listed = await setup.cli(['elicit', 'list', '--state', 'abandoned', '--json']);
    expect(listed.stdout).toContain(id);
  });
});
