/**
 * `mcpx serve` (the built CLI, over stdio and Streamable HTTP): a call's progress and log messages after a round of
 * questions. A modern client (v2, 2026-07-28) answers by re-sending the call, a new request with its own progress
 * token and level: the resumed call's notifications go to that retry. A legacy client (v1) is asked mid-call with
 * elicitation/create: they go on to its one request. The upstream is the progress fixture over HTTP (a real v2
 * server), spoken legacy (`l`: the broker holds its open call) and modern (`m`: mcpx re-sends it with the answer);
 * after the answer it logs at info, then reports progress.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveSetup, startHttpServe, stdioServe, type HttpServeProcess, type ServeSetup } from '../helpers/serve.js';

const FIXTURE = join(resolve(import.meta.dirname, '..'), 'fixtures', 'servers', 'progress.mjs');
const ARGS = { steps: 2, everyMs: 5, ask: true, log: 'answered' };
type Logged = { level: string; data: unknown };
type Progressed = { token: unknown; progress: number; total?: number | undefined };
/**
 * Progress is read off the wire by token, not through the SDKs' `onprogress`: both SDK clients drop a progress
 * notification that reaches them in the same read as its request's response (their Protocol dispatches the
 * notification a microtask later, after the response has removed the handler: typescript-sdk#2580), which a
 * loaded machine makes likely however well ordered the wire is.
 */
const progressOf = (params: { progressToken: unknown; progress: number; total?: number | undefined }): Progressed => ({
  token: params.progressToken,
  progress: params.progress,
  total: params.total,
});

let fixture: ChildProcess;
let setup: ServeSetup;
let http: HttpServeProcess;
beforeAll(async () => {
  fixture = spawn(process.execPath, [FIXTURE, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    fixture.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) done(out.split('\n')[0]!.trim());
    });
    fixture.once('exit', (code) => fail(new Error(`the progress fixture exited (${code})`)));
  });
  setup = serveSetup({ l: { url, era: 'legacy' }, m: { url, era: 'modern' } });
  http = await startHttpServe(setup);
});
afterAll(async () => {
  await http?.close();
  fixture?.kill('SIGTERM');
});

describe.each(['stdio', 'http'] as const)('mcpx serve over %s: notifications after a round of questions', (wire) => {
  it.each(['l', 'm'] as const)(
    'a modern client gets them on its retry, under its token and at its level (%s upstream)',
    async (upstream) => {
      const client = new Client(
        { name: 'v2', version: '1.0.0' },
        {
          capabilities: { elicitation: { form: {} } },
          versionNegotiation: { mode: { pin: '2026-07-28' } },
          inputRequired: { autoFulfill: false },
        },
      );
      const logs: Logged[] = [];
      client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params as Logged));
      const progress: Progressed[] = [];
      client.setNotificationHandler('notifications/progress', (n) => void progress.push(progressOf(n.params)));
      await client.connect(
        wire === 'stdio' ? new StdioClientTransport(stdioServe(setup)) : new StreamableHTTPClientTransport(new URL(http.url)),
      );
      try {
        const name = `${upstream}__progress`;
        const asked = (await client.request(
          // The first request wants only errors: the log at info after the answer is the retry's to have.
          {
            method: 'tools/call',
            params: { name, arguments: ARGS, _meta: { [LOG_LEVEL_META_KEY]: 'error', progressToken: 'first' } },
          } as never,
          { allowInputRequired: true, timeout: 30_000 } as never,
        )) as unknown as { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
        expect(asked.resultType).toBe('input_required');
        // A modern upstream's key is kept; a legacy upstream's question is keyed by its id.
        const keys = Object.keys(asked.inputRequests);
        expect(keys).toHaveLength(1);
        const result = (await client.request(
          {
            method: 'tools/call',
            params: {
              name,
              arguments: ARGS,
              inputResponses: { [keys[0]!]: { action: 'accept', content: { confirm: true } } },
              requestState: asked.requestState,
              _meta: { [LOG_LEVEL_META_KEY]: 'info', progressToken: 'retry' },
            },
          } as never,
          { allowInputRequired: true, timeout: 30_000 } as never,
        )) as unknown as { structuredContent: { text: string } };
        expect(result.structuredContent.text).toBe('2 steps');
        // All under the retry's token: none under the first request's.
        await vi.waitFor(() =>
          expect(progress).toEqual([
            { token: 'retry', progress: 1, total: 2 },
            { token: 'retry', progress: 2, total: 2 },
          ]),
        );
        await vi.waitFor(() => expect(logs).toEqual([{ level: 'info', data: 'answered' }]));
      } finally {
        await client.close();
      }
    },
  );

  it.each(['l', 'm'] as const)(
    'a legacy client (v1) gets them on its one request through the round (%s upstream)',
    async (upstream) => {
      const client = new V1Client({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      const logs: Logged[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params as Logged));
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: true } }));
      const progress: Progressed[] = [];
      client.setNotificationHandler(ProgressNotificationSchema, (n) => void progress.push(progressOf(n.params)));
      await client.connect(wire === 'stdio' ? new V1Stdio(stdioServe(setup)) : new V1Http(new URL(http.url)));
      try {
        await client.setLoggingLevel('info');
        const result = await client.callTool(
          { name: `${upstream}__progress`, arguments: ARGS, _meta: { progressToken: 'call' } },
          undefined,
          { timeout: 30_000 },
        );
        expect((result.structuredContent as { text: string }).text).toBe('2 steps');
        await vi.waitFor(() =>
          expect(progress).toEqual([
            { token: 'call', progress: 1, total: 2 },
            { token: 'call', progress: 2, total: 2 },
          ]),
        );
        await vi.waitFor(() => expect(logs).toEqual([{ level: 'info', data: 'answered' }]));
      } finally {
        await client.close();
      }
    },
  );
});
