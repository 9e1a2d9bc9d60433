/**
 * mcpx adapting itself: the daemon's own REST API, read through its /openapi.json by an OpenAPI adapter. Reads
 * (the server list) run without a question; a call through `POST /v1/call/{server}/{tool}` is a write, confirmed
 * first, and reaches the daemon only after accept.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import { runDaemon, type RunningDaemon } from '../../src/surfaces/daemon/daemon.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { openDaemonParts } from '../../src/surfaces/daemon/daemon-wiring.js';
import type { Question } from '../../src/types.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

let daemon: RunningDaemon;
let mcpx: Mcpx;
const asked: Question[] = [];
let answer: 'accept' | 'decline' = 'accept';

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-self-'));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: { fx: stdioFixture('dual-era') } }));
  const env = { MCPX_STATE_DIR: join(dir, 'state'), PATH: process.env.PATH ?? '' };
  daemon = await runDaemon({
    paths: daemonPaths(env, configPath),
    version: '0.1.0-test',
    openParts: () => openDaemonParts({ env, cwd: dir, configPath, version: '0.1.0-test' }),
    idleMs: 0,
    port: 0,
  });
  mcpx = await createMcpx({
    config: {
      mcpServers: {
        self: {
          openapi: `http://127.0.0.1:${daemon.state.port}/openapi.json`,
          headers: { authorization: `Bearer ${daemon.state.token}` },
          methods: ['all'],
          confirm: ['POST'],
        },
      },
    } as never,
    env: {},
    eraCache: createMemoryEraCache(),
    onElicit: async (question) => {
      asked.push(question);
      return answer === 'accept' ? { action: 'accept', content: {} } : { action: 'decline' };
    },
  });
});

afterAll(async () => {
  await mcpx?.close();
  await daemon?.stop('test over');
});

describe('the daemon REST API as an OpenAPI adapter', () => {
  it('turns the daemon routes into tools', async () => {
    const names = (await mcpx.listTools('self')).map((t) => t.name);
    expect(names.length).toBeGreaterThan(5);
    expect(names.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n))).toBe(true);
  });

  it('reads the server list without a question', async () => {
    const tools = await mcpx.listTools('self');
    const list = tools.find((t) => t.description?.includes('GET /v1/servers.'))!;
    expect(list).toBeDefined();
    const outcome = await mcpx.callTool('self', list.name, {});
    expect(outcome.status).toBe('complete');
    if (outcome.status !== 'complete') return;
    expect(outcome.result.isError).toBeFalsy();
    expect(JSON.stringify(outcome.result.content)).toContain('fx');
    expect(asked).toEqual([]);
  });

  it('confirms a call through POST /v1/call/{server}/{tool}: declined it never reaches the daemon, accepted it runs', async () => {
    const tools = await mcpx.listTools('self');
    const call = tools.find((t) => t.description?.includes('POST /v1/call/{server}/{tool}.'))!;
    expect(call).toBeDefined();
    const args = { server: 'fx', tool: 'no_ask', body: { text: 'through the adapter' } };
    // Every call the daemon starts, seen at its task runner.
    const started: string[] = [];
    const { runner } = daemon.core;
    const start = runner.start.bind(runner);
    runner.start = (input) => (started.push(`${input.server}.${input.tool}`), start(input));
    answer = 'decline';
    const declined = await mcpx.callTool('self', call.name, args);
    expect(declined.status === 'complete' && declined.result.isError).toBe(true);
    expect(asked.at(-1)?.message).toBe('POST /v1/call/fx/no_ask with {"text":"through the adapter"}: proceed?');
    expect(started).toEqual([]);
    answer = 'accept';
    const accepted = await mcpx.callTool('self', call.name, args);
    expect(accepted.status).toBe('complete');
    if (accepted.status !== 'complete') return;
    expect(accepted.result.isError).toBeFalsy();
    expect(JSON.stringify(accepted.result.content)).toContain('through the adapter');
    expect(asked).toHaveLength(2);
    expect(started).toEqual(['fx.no_ask']);
  });
});
