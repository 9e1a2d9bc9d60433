/**
 * `mcpx serve` (the built CLI, over stdio and Streamable HTTP) in front of a legacy upstream that reports progress
 * while its question waits. A modern client's request ends with input_required, and its retry comes later: the
 * progress sent in between is kept for that retry, never sent on the request that is over. The upstream writes
 * every tick it sends to a file, so the test knows exactly what must arrive.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveSetup, startHttpServe, stdioServe, type HttpServeProcess, type ServeSetup } from '../helpers/serve.js';

const FIXTURE = join(resolve(import.meta.dirname, '..'), 'fixtures', 'servers', 'waits-with-progress.mjs');

type Asked = { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
type Tick = { progress: number; message?: string | undefined };

let setup: ServeSetup;
let http: HttpServeProcess;
let ticksFile: string;
beforeAll(async () => {
  setup = serveSetup({});
  ticksFile = join(setup.dir, 'ticks');
  writeFileSync(
    setup.configPath,
    JSON.stringify({ mcpServers: { w: { command: process.execPath, args: [FIXTURE], env: { TICKS: ticksFile } } } }),
  );
  http = await startHttpServe(setup);
});
afterAll(async () => {
  await http?.close();
});

/** The progress values the upstream sent while question `round` waited, in order. */
function sent(round: number): number[] {
  let text: string;
  try {
    text = readFileSync(ticksFile, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${round} `))
    .map((line) => Number(line.split(' ')[1]));
}

const ofRound = (ticks: Tick[], round: number): number[] =>
  ticks.filter((t) => t.message === `waiting for answer ${round}`).map((t) => t.progress);

describe.each(['stdio', 'http'] as const)('mcpx serve over %s: progress while a question waits', (wire) => {
  it('goes to the modern client’s retry, none lost between the input_required and the retry', async () => {
    writeFileSync(ticksFile, '');
    const client = new Client(
      { name: 'v2', version: '1.0.0' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
      },
    );
    const requests: Tick[][] = [[], [], []];
    // Progress read off the wire by token, not through onprogress: the SDK client drops a notification that arrives
    // in the same read as its request's response (typescript-sdk#2580), which a loaded machine makes likely.
    client.setNotificationHandler('notifications/progress', ({ params }) => {
      const n = Number(String(params.progressToken).slice('request-'.length));
      requests[n]?.push({ progress: params.progress, message: params.message });
    });
    await client.connect(
      wire === 'stdio' ? new StdioClientTransport(stdioServe(setup)) : new StreamableHTTPClientTransport(new URL(http.url)),
    );
    const call = (n: number, extra: Record<string, unknown> = {}) =>
      client.request(
        {
          method: 'tools/call',
          params: { name: 'approve_twice', arguments: {}, ...extra, _meta: { progressToken: `request-${n}` } },
        } as never,
        { allowInputRequired: true, timeout: 30_000 } as never,
      ) as unknown as Promise<Asked & { structuredContent?: { received: unknown[] } }>;
    const retry = async (n: number, asked: Asked) => {
      // The question waits with no request open until the upstream has sent three more ticks.
      const before = sent(n).length;
      await vi.waitFor(() => expect(sent(n).length).toBeGreaterThanOrEqual(before + 3), { timeout: 10_000 });
      const [key] = Object.keys(asked.inputRequests);
      return call(n, {
        inputResponses: { [key!]: { action: 'accept', content: { ok: true } } },
        requestState: asked.requestState,
      });
    };
    try {
      const first = await call(0);
      expect(first.resultType).toBe('input_required');
      const second = await retry(1, first);
      expect(second.resultType).toBe('input_required');
      const done = await retry(2, second);
      expect(done.structuredContent?.received).toEqual([
        { action: 'accept', content: { ok: true } },
        { action: 'accept', content: { ok: true } },
      ]);
      for (const round of [1, 2]) {
        // Every tick of the round reached the request open then, or the retry after: the first request or
        // retry until its input_required, the next retry after.
        await vi.waitFor(() =>
          expect([...ofRound(requests[round - 1]!, round), ...ofRound(requests[round]!, round)]).toEqual(sent(round)),
        );
        expect(ofRound(requests[round]!, round).length).toBeGreaterThanOrEqual(3);
      }
    } finally {
      await client.close();
    }
  });
});
