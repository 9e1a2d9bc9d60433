/**
 * `mcpx serve` for tests: the built CLI (dist/cli.js) over stdio, in a fresh state dir, with the fixture servers
 * as its upstreams; clients on both SDKs (v1 = legacy era, v2 = legacy or modern), each with or without
 * elicitation declared. Answers are scripted per question.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const root = resolve(import.meta.dirname, '..', '..');
export const CLI = join(root, 'dist', 'cli.js');
/**
 * How long a CLI run or a client call may take before the helper gives up on it: a patience, not a figure under test.
 * The suite runs four files at a time on two cores, so it is the test timeout's, not what one file alone needs.
 */
const PATIENCE_MS = 60_000;

export type Answer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };
export interface Asked {
  message: string;
  requestedSchema?: Record<string, unknown>;
  mode?: string;
  url?: string;
}
/** Answers one forwarded question; records what was asked. */
export type Answerer = (asked: Asked) => Answer;

export interface ServeSetup {
  dir: string;
  env: Record<string, string>;
  configPath: string;
  /** Runs the built CLI once (another process, same state). */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

export function serveSetup(servers: Record<string, unknown>, extraEnv: Record<string, string> = {}): ServeSetup {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsup)`);
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-serve-'));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: servers }, null, 2));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    MCPX_STATE_DIR: join(dir, 'state'),
    MCPX_CONFIG_DIR: join(dir, 'config'),
    MCPX_DAEMON: 'inline',
    ...extraEnv,
  };
  return {
    dir,
    env,
    configPath,
    cli: (args) =>
      new Promise((done) => {
        execFile(process.execPath, [CLI, ...args], { cwd: dir, env, timeout: PATIENCE_MS }, (error, stdout, stderr) => {
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
        });
      }),
  };
}

export interface TestClient {
  asked: Asked[];
  listTools(): Promise<Array<{ name: string; description?: string | undefined; inputSchema: unknown; annotations?: unknown }>>;
  callTool(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** v2 only: one raw request (no auto-fulfil), for hand-made retries. */
  request?(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

const serveArgs = (setup: ServeSetup, servers: string[]): string[] => [CLI, 'serve', '--config', setup.configPath, ...servers];

/** How a stdio client transport (either SDK's) spawns `mcpx serve` on the setup: the built CLI, stderr piped. */
export function stdioServe(setup: ServeSetup): {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stderr: 'pipe';
} {
  return { command: process.execPath, args: serveArgs(setup, []), env: setup.env, cwd: setup.dir, stderr: 'pipe' };
}

/** The v1 SDK client: legacy era only, like most hosts today. */
export async function v1Client(
  setup: ServeSetup,
  options: { answer?: Answerer; servers?: string[]; url?: boolean } = {},
): Promise<TestClient> {
  const asked: Asked[] = [];
  const client = new V1Client(
    { name: 'v1-test', version: '1.0.0' },
    { capabilities: options.answer ? { elicitation: options.url ? { form: {}, url: {} } : {} } : {} },
  );
  if (options.answer) {
    const answer = options.answer;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as unknown as Asked;
      asked.push(params);
      return answer(params);
    });
  }
  await client.connect(
    new V1Stdio({
      command: process.execPath,
      args: serveArgs(setup, options.servers ?? []),
      env: setup.env,
      cwd: setup.dir,
      stderr: 'pipe',
    }),
  );
  return {
    asked,
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: PATIENCE_MS })) as Record<string, unknown>,
    close: () => client.close(),
  };
}

/** The v2 SDK client, in the era asked for. Modern questions are answered by the SDK's auto-fulfil driver (or by hand with `request`). */
export async function v2Client(
  setup: ServeSetup,
  options: { era: 'legacy' | 'modern'; answer?: Answerer; servers?: string[]; autoFulfill?: boolean; url?: boolean },
): Promise<TestClient> {
  const asked: Asked[] = [];
  const client = new V2Client(
    { name: 'v2-test', version: '1.0.0' },
    {
      capabilities: options.answer ? { elicitation: { form: {}, ...(options.url ? { url: {} } : {}) } } : {},
      versionNegotiation: { mode: options.era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
      inputRequired: { autoFulfill: options.autoFulfill ?? true },
    },
  );
  if (options.answer) {
    const answer = options.answer;
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as unknown as Asked;
      asked.push(params);
      return answer(params) as never;
    });
  }
  await client.connect(
    new V2Stdio({
      command: process.execPath,
      args: serveArgs(setup, options.servers ?? []),
      env: setup.env,
      cwd: setup.dir,
      stderr: 'pipe',
    }),
  );
  return {
    asked,
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args }, { timeout: PATIENCE_MS })) as unknown as Record<string, unknown>,
    request: async (method, params) =>
      (await client.request(
        { method, params } as never,
        { allowInputRequired: true, timeout: PATIENCE_MS } as never,
      )) as unknown as Record<string, unknown>,
    close: () => client.close(),
  };
}

/** What the fixture server received for one question key (`accept` | `decline` | `cancel`, with content). */
export function received(
  result: Record<string, unknown>,
  key: string,
): { action: string; content?: Record<string, unknown> } | undefined {
  const structured = result.structuredContent as
    { received?: Record<string, { action: string; content?: Record<string, unknown> }> } | undefined;
  return structured?.received?.[key];
}

export function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }> | undefined;
  return (content ?? []).map((c) => c.text ?? '').join('\n');
}

/** Content that fits the fixture's questions: the form (repo) or the confirmation. */
export function fitting(asked: Asked): Record<string, unknown> {
  const properties = (asked.requestedSchema?.properties ?? {}) as Record<string, unknown>;
  return 'repo' in properties ? { repo: 'me/thing' } : { confirm: true };
}

export interface HttpServeProcess {
  url: string;
  stderr: () => string;
  close(): Promise<void>;
}

/** The flags and variable that say how a serve authenticates its callers. */
const AUTH_CHOSEN = ['--host', '--token-file', '--no-auth'];

/**
 * `mcpx serve --http` as a child process; resolves with the URL it prints. A test that does not say how callers
 * authenticate (--token-file, --no-auth, MCPX_SERVE_TOKEN, or a --host off loopback, where a token is required) is
 * not about it: its serve gets --no-auth, on loopback.
 */
export async function startHttpServe(
  setup: ServeSetup,
  extraArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<HttpServeProcess> {
  const { spawn } = await import('node:child_process');
  const authChosen = extraArgs.some((arg) => AUTH_CHOSEN.includes(arg)) || 'MCPX_SERVE_TOKEN' in extraEnv;
  const args = [CLI, 'serve', '--config', setup.configPath, '--http', ...extraArgs, ...(authChosen ? [] : ['--no-auth'])];
  const child = spawn(process.execPath, args, {
    cwd: setup.dir,
    env: { ...setup.env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolveUrl(out.split('\n')[0]!.trim());
    });
    child.once('exit', (code) => reject(new Error(`mcpx serve --http exited (${code}): ${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** A v1 (legacy) or v2 (legacy or modern) client over Streamable HTTP. */
export async function httpClient(
  url: string,
  options: { sdk: 'v1' | 'v2'; era?: 'legacy' | 'modern'; answer?: Answerer; headers?: Record<string, string> },
): Promise<TestClient> {
  const asked: Asked[] = [];
  const requestInit = options.headers ? { headers: options.headers } : undefined;
  if (options.sdk === 'v1') {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new V1Client(
      { name: 'v1-http', version: '1.0.0' },
      { capabilities: options.answer ? { elicitation: {} } : {} },
    );
    if (options.answer) {
      const answer = options.answer;
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params as unknown as Asked);
        return answer(request.params as unknown as Asked);
      });
    }
    await client.connect(new StreamableHTTPClientTransport(new URL(url), requestInit ? { requestInit } : {}));
    return {
      asked,
      listTools: async () => (await client.listTools()).tools,
      callTool: async (name, args = {}) =>
        (await client.callTool({ name, arguments: args }, undefined, { timeout: PATIENCE_MS })) as Record<string, unknown>,
      close: () => client.close(),
    };
  }
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new V2Client(
    { name: 'v2-http', version: '1.0.0' },
    {
      capabilities: options.answer ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: options.era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
    },
  );
  if (options.answer) {
    const answer = options.answer;
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params as unknown as Asked);
      return answer(request.params as unknown as Asked) as never;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url), requestInit ? { requestInit } : {}));
  return {
    asked,
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args }, { timeout: PATIENCE_MS })) as unknown as Record<string, unknown>,
    request: async (method, params) =>
      (await client.request(
        { method, params } as never,
        { allowInputRequired: true, timeout: PATIENCE_MS } as never,
      )) as unknown as Record<string, unknown>,
    close: () => client.close(),
  };
}

/** One raw 2026-07-28 POST (the envelope in `_meta`, the SEP-2243 headers); the JSON-RPC answer, from JSON or SSE. */
export async function modernPost(
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: { version?: string; capabilities?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<{
  status: number;
  body: { result?: Record<string, any>; error?: { code: number; message: string; data?: Record<string, any> } };
}> {
  const version = options.version ?? '2026-07-28';
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': version,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
        },
      },
    }),
  });
  const text = await response.text();
  const json = text.trim().startsWith('{')
    ? text
    : (text
        .split('\n')
        .find((line) => line.startsWith('data:'))
        ?.slice(5) ?? '{}');
  return { status: response.status, body: JSON.parse(json) };
}

/** The conformance fixture (examples/servers/conformance.mjs): a v2 server, both eras, over Streamable HTTP. */
export async function startConformanceFixture(): Promise<{ url: string; stop(): void }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [join(root, 'examples', 'servers', 'conformance.mjs'), '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) done(out.split('\n')[0]!.trim());
    });
    child.once('exit', (code) => fail(new Error(`the conformance fixture exited (${code})`)));
  });
  return { url, stop: () => void child.kill('SIGTERM') };
}

export interface OwnedServe {
  client: TestClient;
  /** Closes serve's stdin, as a host does when it is done, and resolves with the exit code serve then exits with. */
  endStdin(): Promise<number | null>;
  /** SIGKILLs serve (nothing of it runs on) and resolves once it is reaped, so its pid reads as gone. */
  kill(): Promise<void>;
}

/**
 * `mcpx serve` over stdio as a child process this test owns, with a v1 client (no elicitation) on its pipes: the
 * test, not the SDK's transport, decides when stdin closes, and waits for serve to exit on its own.
 */
export async function ownedServe(setup: ServeSetup, extraEnv: Record<string, string> = {}): Promise<OwnedServe> {
  const { spawn } = await import('node:child_process');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const child = spawn(process.execPath, serveArgs(setup, []), {
    cwd: setup.dir,
    env: { ...setup.env, ...extraEnv },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const client = new V1Client({ name: 'v1-owned', version: '1.0.0' }, { capabilities: {} });
  // A line-delimited JSON-RPC transport over the child's pipes (the stdio framing is the same in both directions).
  await client.connect(new StdioServerTransport(child.stdout, child.stdin));
  return {
    client: {
      asked: [],
      listTools: async () => (await client.listTools()).tools,
      callTool: async (name, args = {}) =>
        (await client.callTool({ name, arguments: args }, undefined, { timeout: PATIENCE_MS })) as Record<string, unknown>,
      close: async () => {
        child.stdin.end();
        await exited;
      },
    },
    endStdin: async () => {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`mcpx serve exited ${code}: ${stderr}`);
      return code;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
