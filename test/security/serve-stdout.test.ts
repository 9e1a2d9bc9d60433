/**
 * `mcpx serve` over stdio: stdout is the wire, and nothing but JSON-RPC may reach it. The built CLI serves two
 * tools-only upstreams (one legacy, one modern; neither declares prompts or resources, which is where the bundled
 * client once printed "does not advertise prompts capability" to stdout), driven by a v1 SDK client, a v2 client
 * (legacy and modern) and a raw reader; every line serve writes is read beside the client and must parse as a
 * JSON-RPC message, across start, several rounds and questions.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioServerTransport as V2Lines } from '@modelcontextprotocol/server/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport as V1Lines } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleToStderr } from '../../src/surfaces/cli/console-to-stderr.js';
import { CLI, received, serveSetup, textOf, type ServeSetup } from '../helpers/serve.js';

const FIXTURE = resolve(import.meta.dirname, '..', 'fixtures', 'servers', 'hostile.mjs');
const upstream = (era: 'legacy' | 'modern') => ({ command: process.execPath, args: [FIXTURE, '--stdio'], era });

let setup: ServeSetup;
beforeAll(() => {
  setup = serveSetup({ legacy: upstream('legacy'), modern: upstream('modern') }, { MCPX_SESSION_ID: 'serve-stdout-test' });
});

/** `mcpx serve` as a child whose stdout is read line by line here, beside whatever client reads it too. */
interface Served {
  child: ChildProcessWithoutNullStreams;
  /** Every complete stdout line so far. */
  lines: string[];
  stderr(): string;
  stop(): Promise<void>;
}

function startServe(): Served {
  const child = spawn(process.execPath, [CLI, 'serve', '--config', setup.configPath], {
    cwd: setup.dir,
    env: setup.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    child,
    lines,
    stderr: () => stderr,
    stop: async () => {
      child.stdin.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      if (partial) lines.push(partial);
    },
  };
}

/** The lines that are not one JSON-RPC 2.0 message each. */
function notJsonRpc(lines: string[]): string[] {
  return lines.filter((line) => {
    try {
      const message = JSON.parse(line) as { jsonrpc?: unknown };
      return message === null || typeof message !== 'object' || message.jsonrpc !== '2.0';
    } catch {
      return true;
    }
  });
}

const confirmAnswer = { action: 'accept', content: { confirm: true } } as const;

describe('mcpx serve over stdio writes nothing but JSON-RPC to stdout', () => {
  const served: Served[] = [];
  afterAll(async () => {
    await Promise.all(served.map((s) => s.stop()));
  });

  it('with a v1 SDK client (legacy), across start, rounds and forwarded questions', { timeout: 60_000 }, async () => {
    const serve = startServe();
    served.push(serve);
    const client = new V1Client({ name: 'v1-wire', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked += 1;
      return confirmAnswer;
    });
    await client.connect(new V1Lines(serve.child.stdout, serve.child.stdin));
    for (let round = 0; round < 3; round++) {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['legacy__no_ask', 'modern__ask_confirm']));
      for (const server of ['legacy', 'modern']) {
        await client.callTool({ name: `${server}__no_ask`, arguments: {} });
        const result = (await client.callTool({ name: `${server}__ask_confirm`, arguments: {} }, undefined, {
          timeout: 30_000,
        })) as Record<string, unknown>;
        expect(received(result, 'confirm')).toEqual(confirmAnswer);
      }
    }
    await client.close();
    await serve.stop();
    expect(asked).toBe(6);
    expect(serve.lines.length).toBeGreaterThan(10);
    expect(notJsonRpc(serve.lines), serve.stderr()).toEqual([]);
    expect(serve.stderr()).not.toContain('does not advertise');
    expect(errors.map(String)).toEqual([]);
  });

  it.each(['legacy', 'modern'] as const)(
    'with a v2 client (%s era), across start, rounds and forwarded questions',
    { timeout: 60_000 },
    async (era) => {
      const serve = startServe();
      served.push(serve);
      const client = new V2Client(
        { name: 'v2-wire', version: '1.0.0' },
        {
          capabilities: { elicitation: { form: {} } },
          versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
          inputRequired: { autoFulfill: true },
        },
      );
      const errors: Error[] = [];
      client.onerror = (error) => errors.push(error);
      let asked = 0;
      client.setRequestHandler('elicitation/create', async () => {
        asked += 1;
        return confirmAnswer as never;
      });
      await client.connect(new V2Lines(serve.child.stdout, serve.child.stdin));
      for (let round = 0; round < 3; round++) {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(['legacy__no_ask', 'modern__ask_confirm']));
        for (const server of ['legacy', 'modern']) {
          await client.callTool({ name: `${server}__no_ask`, arguments: {} });
          const result = (await client.callTool(
            { name: `${server}__ask_confirm`, arguments: {} },
            { timeout: 30_000 },
          )) as unknown as Record<string, unknown>;
          expect(received(result, 'confirm')).toEqual(confirmAnswer);
        }
      }
      await client.close();
      await serve.stop();
      expect(asked).toBe(6);
      expect(serve.lines.length).toBeGreaterThan(10);
      expect(notJsonRpc(serve.lines), serve.stderr()).toEqual([]);
      // Only what an upstream declares is asked for: the SDK's note on an undeclared listing is not even on stderr.
      expect(serve.stderr()).not.toContain('does not advertise');
      expect(serve.stderr()).not.toContain('does not advertise');
      expect(errors.map(String)).toEqual([]);
    },
  );

  it(
    'read raw: a client that cannot be asked, a question answered through the mcpx_elicit_* tools',
    { timeout: 60_000 },
    async () => {
      const serve = startServe();
      served.push(serve);
      const replies = new Map<number, Record<string, unknown>>();
      let scanned = 0;
      const reply = async (id: number): Promise<Record<string, unknown>> => {
        for (;;) {
          for (; scanned < serve.lines.length; scanned++) {
            try {
              const message = JSON.parse(serve.lines[scanned]!) as { id?: number; result?: Record<string, unknown> };
              if (typeof message.id === 'number' && message.result) replies.set(message.id, message.result);
            } catch {
              // not JSON: counted below
            }
          }
          if (replies.has(id)) return replies.get(id)!;
          if (serve.child.exitCode !== null) throw new Error(`mcpx serve exited: ${serve.stderr()}`);
          await new Promise((done) => setTimeout(done, 20));
        }
      };
      let nextId = 1;
      const send = (method: string, params?: Record<string, unknown>): number => {
        const id = nextId++;
        serve.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
        return id;
      };
      await reply(
        send('initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw-reader', version: '1.0.0' },
        }),
      );
      serve.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      for (let round = 0; round < 2; round++) {
        await reply(send('tools/list'));
        for (const server of ['legacy', 'modern']) {
          await reply(send('tools/call', { name: `${server}__no_ask`, arguments: {} }));
          const waiting = await reply(send('tools/call', { name: `${server}__ask_confirm`, arguments: {} }));
          const stop = (waiting._meta as Record<string, { task: string; questions: Array<{ id: string }> }>)[
            'io.mcpx/inputRequired'
          ]!;
          expect(stop.questions).toHaveLength(1);
          await reply(send('tools/call', { name: 'mcpx_elicit_list', arguments: {} }));
          const answered = await reply(
            send('tools/call', {
              name: 'mcpx_elicit_answer',
              arguments: { id: stop.questions[0]!.id, action: 'accept', content: { confirm: true }, waitSeconds: 20 },
            }),
          );
          expect(received(answered, 'confirm'), textOf(answered)).toEqual(confirmAnswer);
        }
      }
      await serve.stop();
      expect(serve.lines.length).toBeGreaterThan(10);
      expect(notJsonRpc(serve.lines), serve.stderr()).toEqual([]);
      expect(serve.stderr()).not.toContain('does not advertise');
    },
  );
});

describe("serve's console", () => {
  it('sends every console method a library may call to stderr, none to stdout', () => {
    const saved = { ...console };
    const stderr = new PassThrough();
    let written = '';
    stderr.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const stdoutWrite = process.stdout.write;
    let onStdout = '';
    process.stdout.write = ((chunk: string | Uint8Array) => {
      onStdout += String(chunk);
      return true;
    }) as typeof process.stdout.write;
    try {
      consoleToStderr(stderr);
      console.log('log line');
      console.info('info line');
      console.debug('debug line');
      console.warn('warn line');
      console.table([{ table: 'row' }]);
      console.dir({ dir: 'object' });
    } finally {
      process.stdout.write = stdoutWrite;
      Object.assign(console, saved);
    }
    expect(onStdout).toBe('');
    for (const text of ['log line', 'info line', 'debug line', 'warn line', 'row', "dir: 'object'"])
      expect(written).toContain(text);
  });
});
