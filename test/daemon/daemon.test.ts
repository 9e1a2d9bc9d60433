import { mkdtempSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, openRedisStore, openSqliteStore } from '../../src/broker/index.js';
import { runDaemon, type RunningDaemon } from '../../src/surfaces/daemon/daemon.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import { socketFetch } from '../../src/surfaces/daemon/client.js';
import { daemonPaths, readDaemonState } from '../../src/surfaces/daemon/paths.js';
import { openDaemonParts } from '../../src/surfaces/daemon/daemon-wiring.js';
import { fixtureEcho, stdioFixture } from '../helpers/fixture-servers.js';
import { startRedis } from '../helpers/redis.js';
import { readSse } from '../http/helpers.js';

interface Setup {
  env: Record<string, string> & { MCPX_STATE_DIR: string };
  cwd: string;
  configPath: string;
}

function setup(): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-daemon-'));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: { fx: stdioFixture('dual-era'), old: stdioFixture('legacy-v1') } }));
  return { env: { MCPX_STATE_DIR: join(dir, 'state'), PATH: process.env.PATH ?? '' }, cwd: dir, configPath };
}

function start(s: Setup, extra: { port?: number; idleMs?: number } = {}): Promise<RunningDaemon> {
  return runDaemon({
    paths: daemonPaths(s.env, s.configPath),
    version: '0.1.0-test',
    openParts: () => openDaemonParts({ env: s.env, cwd: s.cwd, configPath: s.configPath, version: '0.1.0-test' }),
    idleMs: extra.idleMs ?? 0,
    ...(extra.port !== undefined ? { port: extra.port } : {}),
  });
}

const post = (body?: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

describe('daemon', () => {
  let s: Setup;
  let daemon: RunningDaemon | undefined;
  let client: ReturnType<typeof socketFetch>;

  beforeEach(async () => {
    s = setup();
    daemon = await start(s, { port: 0 });
    client = socketFetch(daemon.state.socket);
  });
  afterEach(async () => {
    client.close();
    await daemon?.stop('test over');
  });

  it('listens on a unix socket only its user can open, and writes its state 0600', () => {
    const paths = daemonPaths(s.env, s.configPath);
    expect(daemon!.state.socket).toBe(paths.socket);
    expect(statSync(paths.socket).mode & 0o777).toBe(0o600);
    expect(statSync(paths.state).mode & 0o777).toBe(0o600);
    expect(readDaemonState(paths)).toMatchObject({ pid: process.pid, socket: paths.socket, port: daemon!.state.port });
    expect(readDaemonState(paths)?.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('runs a call that asks over the socket: 202, answer, then the task holds the real result (modern)', async () => {
    const response = await client.fetch('/v1/call/fx/ask_form', post({ title: 'bug' }));
    expect(response.status).toBe(202);
    const body = (await response.json()) as {
      status: string;
      inputRequired: {
        task: string;
        callId: string;
        questions: Array<{ id: string; era: string; task: string; timeLeftMs: number }>;
        text: string;
      };
    };
    const [question] = body.inputRequired.questions;
    expect(response.headers.get('location')).toBe(`/v1/elicit/${question!.id}`);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(100);
    expect(question).toMatchObject({ era: 'modern', task: body.inputRequired.task });
    expect(body.inputRequired.text).toContain(`mcpx task result ${body.inputRequired.task}`);

    const answered = await client.fetch(
      `/v1/elicit/${question!.id}/accept`,
      post({ content: { repo: 'me/thing', priority: 'high' } }),
    );
    expect(answered.status).toBe(200);
    const task = (await (await client.fetch(`/v1/tasks/${body.inputRequired.task}?wait=20`)).json()) as {
      task: { state: string; result: { structuredContent?: unknown } };
    };
    expect(task.task.state).toBe('complete');
    expect(fixtureEcho(task.task.result).received.details).toEqual({
      action: 'accept',
      content: { repo: 'me/thing', private: false, priority: 'high' },
    });
  });

  it('holds a legacy call open while its question waits, and delivers decline', async () => {
    const response = await client.fetch('/v1/call/old/ask_confirm', post({}));
    expect(response.status).toBe(202);
    const body = (await response.json()) as { inputRequired: { task: string; questions: Array<{ id: string; era: string }> } };
    expect(body.inputRequired.questions[0]!.era).toBe('legacy');
    expect((await client.fetch(`/v1/elicit/${body.inputRequired.questions[0]!.id}/decline`, post())).status).toBe(200);
    const task = (await (await client.fetch(`/v1/tasks/${body.inputRequired.task}?wait=20`)).json()) as {
      task: { state: string; result: { structuredContent?: unknown } };
    };
    expect(fixtureEcho(task.task.result).received.confirm?.action).toBe('decline');
  });

  it('answers 200 with the result when the call asks nothing', async () => {
    const response = await client.fetch('/v1/call/fx/no_ask', post({ text: 'hello' }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; task: string; result: { structuredContent?: unknown } };
    expect(body.status).toBe('complete');
    expect(JSON.stringify(body.result)).toContain('hello');
  });

  it('answers 404 for a server the config does not name', async () => {
    const response = await client.fetch('/v1/call/nope/x', post({}));
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('SERVER_NOT_FOUND');
  });

  it('streams elicit.open and elicit.answered over the socket', async () => {
    const events = readSse(await client.fetch('/v1/events'));
    expect((await events.next()).event).toBe('ready');
    const body = (await (await client.fetch('/v1/call/fx/ask_confirm', post({}))).json()) as {
      inputRequired: { questions: Array<{ id: string }> };
    };
    const id = body.inputRequired.questions[0]!.id;
    await client.fetch(`/v1/elicit/${id}/cancel`, post());
    const seen: Array<{ event: string; elicit?: string | undefined }> = [];
    while (!seen.some((e) => e.event === 'elicit.answered')) {
      const next = await events.next();
      seen.push({ event: next.event, elicit: (JSON.parse(next.data) as { elicit?: string }).elicit });
    }
    expect(seen.filter((e) => e.elicit === id).map((e) => e.event)).toEqual(['elicit.open', 'elicit.answered']);
    await events.close();
  });

  it('serves the loopback port only with the bearer token', async () => {
    const { port, token } = daemon!.state;
    const refused = await fetch(`http://127.0.0.1:${port}/v1/health`);
    expect(refused.status).toBe(401);
    const health = await fetch(`http://127.0.0.1:${port}/v1/health`, { headers: { authorization: `Bearer ${token}` } });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ pid: process.pid, version: '0.1.0-test' });
    const call = await fetch(`http://127.0.0.1:${port}/v1/call/fx/no_ask`, {
      ...post({ text: 'tcp' }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
    expect(call.status).toBe(200);
  });

  it('refuses a second daemon for the same config while one runs', async () => {
    await expect(start(s)).rejects.toMatchObject({ code: 'DAEMON_UNAVAILABLE', data: { pid: process.pid } });
  });

  it('resumes a modern call after a restart, and abandons a legacy one', async () => {
    const modern = (await (await client.fetch('/v1/call/fx/ask_form', post({}))).json()) as {
      inputRequired: { task: string; questions: Array<{ id: string }> };
    };
    const legacy = (await (await client.fetch('/v1/call/old/ask_form', post({}))).json()) as {
      inputRequired: { task: string; questions: Array<{ id: string }> };
    };
    client.close();
    await daemon!.stop('restart');
    expect(existsSync(daemonPaths(s.env, s.configPath).socket)).toBe(false);

    daemon = await start(s);
    client = socketFetch(daemon.state.socket);
    const legacyQuestion = (await (await client.fetch(`/v1/elicit/${legacy.inputRequired.questions[0]!.id}`)).json()) as {
      elicitation: { state: string };
    };
    expect(legacyQuestion.elicitation.state).toBe('abandoned');
    expect((await client.fetch(`/v1/elicit/${legacy.inputRequired.questions[0]!.id}/decline`, post())).status).toBe(410);

    expect(
      (await client.fetch(`/v1/elicit/${modern.inputRequired.questions[0]!.id}/accept`, post({ content: { repo: 'me/after' } })))
        .status,
    ).toBe(200);
    const task = (await (await client.fetch(`/v1/tasks/${modern.inputRequired.task}?wait=20`)).json()) as {
      task: { state: string; pid: number; result: { structuredContent?: unknown } };
    };
    expect(task.task.state).toBe('complete');
    expect(fixtureEcho(task.task.result).received.details?.content).toMatchObject({ repo: 'me/after' });
  });
});

describe('daemon stores', () => {
  it('completes a held call answered by another process straight through the SQLite file', async () => {
    const s = setup();
    const daemon = await start(s);
    const client = socketFetch(daemon.state.socket);
    try {
      const body = (await (await client.fetch('/v1/call/old/ask_form', post({}))).json()) as {
        inputRequired: { task: string; questions: Array<{ id: string }> };
      };
      // A second broker over the same file: what `mcpx elicit answer` does when it cannot reach the daemon.
      const store = await openSqliteStore(join(s.env.MCPX_STATE_DIR, 'mcpx.sqlite'));
      const elsewhere = createBroker({ store, allowAnySession: true });
      await elsewhere.respond({
        id: body.inputRequired.questions[0]!.id,
        action: 'accept',
        content: { repo: 'me/file' },
        by: 'cli',
      });
      await elsewhere.close();
      await store.close();
      const task = (await (await client.fetch(`/v1/tasks/${body.inputRequired.task}?wait=20`)).json()) as {
        task: { state: string; result: { structuredContent?: unknown } };
      };
      expect(fixtureEcho(task.task.result).received.details?.content).toMatchObject({ repo: 'me/file' });
    } finally {
      client.close();
      await daemon.stop();
    }
  });

  it('keeps questions and tasks in Redis when MCPX_STORE_URL names one', async () => {
    const redis = await startRedis();
    const s = setup();
    s.env.MCPX_STORE_URL = redis.url;
    const daemon = await start(s);
    const client = socketFetch(daemon.state.socket);
    try {
      const body = (await (await client.fetch('/v1/call/fx/ask_confirm', post({}))).json()) as {
        inputRequired: { task: string; questions: Array<{ id: string }> };
      };
      expect(existsSync(join(s.env.MCPX_STATE_DIR, 'mcpx.sqlite'))).toBe(false);
      expect((await client.fetch(`/v1/elicit/${body.inputRequired.questions[0]!.id}/decline`, post())).status).toBe(200);
      const task = (await (await client.fetch(`/v1/tasks/${body.inputRequired.task}?wait=20`)).json()) as {
        task: { state: string; result: { structuredContent?: unknown } };
      };
      expect(fixtureEcho(task.task.result).received.confirm?.action).toBe('decline');
      // The record is in Redis: another process reads it there.
      const store = await openRedisStore(redis.url);
      expect(await createTaskStore(store.keyv).get(body.inputRequired.task)).toMatchObject({ state: 'complete' });
      await store.close();
    } finally {
      client.close();
      await daemon.stop();
      await redis.stop();
    }
  });
});

describe('daemon with server-everything (v1 from npm, legacy)', () => {
  it('holds its 13-field form open: 422 names the bad field, then a valid answer completes the call', async () => {
    const s = setup();
    const everything = join(
      dirname(fileURLToPath(import.meta.url)),
      '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
    );
    writeFileSync(
      s.configPath,
      JSON.stringify({ mcpServers: { every: { command: process.execPath, args: [everything, 'stdio'] } } }),
    );
    const daemon = await start(s);
    const client = socketFetch(daemon.state.socket);
    try {
      const response = await client.fetch('/v1/call/every/trigger-elicitation-request', post({}));
      expect(response.status).toBe(202);
      const body = (await response.json()) as {
        inputRequired: {
          task: string;
          questions: Array<{ id: string; era: string; requestedSchema: { properties: Record<string, unknown> } }>;
        };
      };
      const [question] = body.inputRequired.questions;
      expect(question!.era).toBe('legacy');
      expect(Object.keys(question!.requestedSchema.properties)).toHaveLength(13);
      const bad = await client.fetch(`/v1/elicit/${question!.id}/accept`, post({ content: { name: 5 } }));
      expect(bad.status).toBe(422);
      expect(((await bad.json()) as { error: { data: { issues: Array<{ field: string }> } } }).error.data.issues[0]!.field).toBe(
        'name',
      );
      expect((await client.fetch(`/v1/elicit/${question!.id}/accept`, post({ content: { name: 'Ada' } }))).status).toBe(200);
      const task = (await (await client.fetch(`/v1/tasks/${body.inputRequired.task}?wait=30`)).json()) as {
        task: { state: string; result: unknown };
      };
      expect(task.task.state).toBe('complete');
      expect(JSON.stringify(task.task.result)).toContain('Name: Ada');
    } finally {
      client.close();
      await daemon.stop();
    }
  });
});

describe('daemon config', () => {
  it('picks up an edited config (a new server, a new policy rule) without a restart', async () => {
    const s = setup();
    const daemon = await start(s);
    const client = socketFetch(daemon.state.socket);
    try {
      expect((await client.fetch('/v1/call/fx/no_ask', post({}))).status).toBe(200);
      expect((await client.fetch('/v1/call/fy/no_ask', post({}))).status).toBe(404);
      writeFileSync(
        s.configPath,
        JSON.stringify({
          mcpServers: { fx: stdioFixture('dual-era'), fy: stdioFixture('dual-era') },
          elicit: { rules: [{ match: { server: 'fy', tool: 'ask_confirm' }, action: 'decline' }] },
        }),
      );
      expect((await client.fetch('/v1/call/fy/no_ask', post({ text: 'new' }))).status).toBe(200);
      const declined = (await (await client.fetch('/v1/call/fy/ask_confirm', post({}))).json()) as {
        result: { structuredContent?: unknown };
      };
      expect(fixtureEcho(declined.result).received.confirm?.action).toBe('decline');
    } finally {
      client.close();
      await daemon.stop();
    }
  });
});

describe('daemon policy', () => {
  it('answers from the config policy before anyone is asked, and the call completes at once', async () => {
    const s = setup();
    writeFileSync(
      s.configPath,
      JSON.stringify({
        mcpServers: { fx: stdioFixture('dual-era') },
        elicit: {
          rules: [{ match: { server: 'fx', tool: 'ask_confirm' }, action: 'decline', because: 'never confirm in tests' }],
        },
      }),
    );
    const daemon = await start(s);
    const client = socketFetch(daemon.state.socket);
    try {
      const response = await client.fetch('/v1/call/fx/ask_confirm', post({}));
      expect(response.status).toBe(200);
      const body = (await response.json()) as { result: { structuredContent?: unknown } };
      expect(fixtureEcho(body.result).received.confirm?.action).toBe('decline');
      // Another tool still stops at its question.
      expect((await client.fetch('/v1/call/fx/ask_form', post({}))).status).toBe(202);
    } finally {
      client.close();
      await daemon.stop();
    }
  });
});

describe('daemon idle stop', () => {
  it('stops by itself when nothing is in flight, and removes its socket and state', async () => {
    const s = setup();
    const daemon = await start(s, { idleMs: 200 });
    const paths = daemonPaths(s.env, s.configPath);
    expect(existsSync(paths.socket)).toBe(true);
    await daemon.stopped;
    expect(existsSync(paths.socket)).toBe(false);
    expect(existsSync(paths.state)).toBe(false);
    expect(existsSync(paths.lock)).toBe(false);
  });
});
