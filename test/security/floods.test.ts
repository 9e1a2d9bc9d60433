/**
 * Floods (issue #33, item 7): a script's ask() loop, a server that keeps asking within one call, and a huge REST
 * body are each stopped at a documented bound with a clear error, instead of opening questions (or buffering bytes)
 * without end. The script and the server go through the built CLI; the REST body through the daemon's app in-process.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, type StoreBroker } from '../../src/broker/index.js';
import { McpxError } from '../../src/errors.js';
import { createTaskRunner, type TaskRunner } from '../../src/tasks/runner.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import { createApp, DEFAULT_MAX_BODY_BYTES } from '../../src/surfaces/http/app.js';
import { runCli, type CliRun } from '../helpers/cli-run.js';

const root = resolve(import.meta.dirname, '..', '..');
const floodsServer = join(root, 'test', 'fixtures', 'servers', 'floods.mjs');
const modernServer = join(root, 'test', 'fixtures', 'servers', 'floods-modern.mjs');

function mcpx(args: string[], dir: string, stdin = ''): Promise<CliRun> {
  // The daemon's app runs inside the command (MCPX_DAEMON=inline): no daemon process is left behind.
  const env = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: join(dir, 'state'), MCPX_DAEMON: 'inline' };
  return runCli(args, { cwd: dir, env, stdin, timeoutMs: 120_000 });
}

function writeConfig(dir: string, elicit: Record<string, unknown>, env: Record<string, string> = {}): string {
  const path = join(dir, 'mcpx.json');
  const server = (file: string) => ({ command: process.execPath, args: [file], env });
  writeFileSync(
    path,
    JSON.stringify({ mcpServers: { floods: server(floodsServer), modern: server(modernServer) }, elicit }, null, 2),
  );
  return path;
}

/** The questions opened in the store, from the audit log. */
async function openedQuestions(dir: string): Promise<number> {
  const log = await mcpx(['log', '--json', '--limit', '5000'], dir);
  return log.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { kind: string })
    .filter((event) => event.kind === 'elicit.open').length;
}

// Each ask() is a real question (opened in the store, declined by the policy), and the loop would go on for 300.
const askLoop = `
let n = 0;
for (let i = 0; i < 300; i++) {
  const answer = await ask('Question ' + i + '?');
  n += 1;
  console.log('answered ' + n + ' ' + answer.action);
}
export default n;
`;

describe('a script ask() loop (mcpx exec)', () => {
  it('stops at the default bound of 200 questions per run with an error naming it and how to raise it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-floods-'));
    const config = writeConfig(dir, { mode: 'decline' });
    const ran = await mcpx(['exec', '-', '--config', config], dir, askLoop);
    expect(ran.code).toBe(1);
    const answered = ran.stderr.split('\n').filter((line) => line.startsWith('answered '));
    expect(answered).toHaveLength(200);
    expect(answered.at(-1)).toBe('answered 200 decline');
    expect(ran.stderr).toContain('more than 200 questions in one run');
    expect(ran.stderr).toContain('maxQuestionsPerRun');
    expect(ran.stdout).toBe('');
  });

  it('stops at the bound the config sets (elicit.maxQuestionsPerRun)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-floods-'));
    const config = writeConfig(dir, { mode: 'decline', maxQuestionsPerRun: 3 });
    const ran = await mcpx(['exec', '-', '--config', config], dir, askLoop);
    expect(ran.code).toBe(1);
    expect(ran.stderr.split('\n').filter((line) => line.startsWith('answered '))).toEqual([
      'answered 1 decline',
      'answered 2 decline',
      'answered 3 decline',
    ]);
    expect(ran.stderr).toContain('more than 3 questions in one run');
  });

  it('refuses a bound that is not a positive whole number, naming the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-floods-'));
    const config = writeConfig(dir, { maxQuestionsPerRun: 0 });
    const ran = await mcpx(['exec', 'export default 1', '--config', config], dir);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain('elicit.maxQuestionsPerRun');
  });
});

describe('a server that keeps asking within one call (mcpx call)', () => {
  it('is stopped at the default bound of 50 questions per call; the question past it is answered cancel, never shown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-floods-'));
    const asked = join(dir, 'asked.log');
    const config = writeConfig(dir, { mode: 'decline' }, { ASK_LIMIT: '120', ASKED: asked });
    const ran = await mcpx(['call', 'floods.ask_forever', '--config', config], dir);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('floods.ask_forever asked more than 50 questions in one call');
    expect(ran.stderr).toContain('maxQuestionsPerCall');
    expect(ran.stderr).toContain('[QUESTION_LIMIT]');
    const lines = readFileSync(asked, 'utf8').trim().split('\n');
    // 50 questions declined by the policy; the 51st was answered cancel (nobody chose), and the call ended there.
    expect(lines.filter((line) => line.endsWith(' decline'))).toHaveLength(50);
    expect(lines).toContain('51 cancel');
    expect(lines).not.toContain('52 asked');
    // Only the 50 questions within the bound were ever opened in the store.
    expect(await openedQuestions(dir)).toBe(50);
  });

  it('is stopped at the bound the config sets (elicit.maxQuestionsPerCall)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-floods-'));
    const asked = join(dir, 'asked.log');
    const config = writeConfig(dir, { mode: 'decline', maxQuestionsPerCall: 2 }, { ASK_LIMIT: '10', ASKED: asked });
    const ran = await mcpx(['call', 'floods.ask_forever', '--config', config], dir);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('asked more than 2 questions in one call');
    expect(readFileSync(asked, 'utf8').trim().split('\n')).toEqual([
      '1 asked',
      '1 decline',
      '2 asked',
      '2 decline',
      '3 asked',
      '3 cancel',
    ]);
  });
});

describe('a modern server that asks too many questions in one call (mcpx call)', () => {
  it('is stopped before a round of 60 questions is asked: none is opened, nothing is sent back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-floods-'));
    const asked = join(dir, 'asked.log');
    const config = writeConfig(dir, { mode: 'decline' }, { ASK_COUNT: '60', ROUNDS: '1', ASKED: asked });
    const ran = await mcpx(['call', 'modern.ask_many', '--config', config], dir);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('modern.ask_many asked more than 50 questions in one call');
    expect(ran.stderr).toContain('[QUESTION_LIMIT]');
    expect(readFileSync(asked, 'utf8').trim().split('\n')).toEqual(['round 1 asked 60']);
    expect(await openedQuestions(dir)).toBe(0);
  });

  it('counts the questions of every round: 30 and 30 is past 50', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-floods-'));
    const asked = join(dir, 'asked.log');
    const config = writeConfig(dir, { mode: 'decline' }, { ASK_COUNT: '30', ROUNDS: '2', ASKED: asked });
    const ran = await mcpx(['call', 'modern.ask_many', '--config', config], dir);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('asked more than 50 questions in one call');
    expect(readFileSync(asked, 'utf8').trim().split('\n')).toEqual(['round 1 asked 30', 'round 2 asked 30']);
    expect(await openedQuestions(dir)).toBe(30);
  });

  it('completes as before within the bound', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-floods-'));
    const config = writeConfig(dir, { mode: 'decline' }, { ASK_COUNT: '20', ROUNDS: '2' });
    const ran = await mcpx(['call', 'modern.ask_many', '--config', config], dir);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('received 20 answers');
  });
});

describe("the daemon's REST body limit", () => {
  let broker: StoreBroker;
  let tasks: TaskRunner;
  let started: number;
  beforeEach(() => {
    broker = createBroker({ allowAnySession: true, ttlMs: 120_000 });
    started = 0;
    tasks = createTaskRunner({
      broker,
      store: createTaskStore(broker.store.keyv),
      host: () => {
        started += 1;
        return Promise.reject(new McpxError('SERVER_NOT_FOUND', 'no host in this test'));
      },
    });
  });
  afterEach(async () => {
    await tasks.close();
    await broker.close();
  });

  const app = (maxBodyBytes?: number): ReturnType<typeof createApp> =>
    createApp({
      broker,
      tasks,
      info: { pid: 1, version: '0.1.0', startedAt: 0 },
      defaultSession: 's1',
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
    });
  const bigBody = (bytes: number): string => JSON.stringify({ text: 'x'.repeat(bytes) });

  it('answers 413 with a JSON error past 1 MiB by default, and starts no call', async () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1024 * 1024);
    const response = await app().request('/v1/call/fx/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bigBody(2 * 1024 * 1024),
    });
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { code: string; message: string; data: { limit: number } } };
    expect(body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(body.error.message).toContain('1048576 bytes');
    expect(body.error.message).toContain('MCPX_DAEMON_MAX_BODY');
    expect(body.error.data.limit).toBe(1048576);
    expect(started).toBe(0);
  });

  it('stops reading a streamed body (no Content-Length) once it passes the limit', async () => {
    let pulled = 0;
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"text":"'));
      },
      pull(controller) {
        pulled += 1;
        // 50 MB if read to the end.
        if (pulled > 800) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await app(256 * 1024).request('/v1/call/fx/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    // 256 KiB is 4 chunks of 64 KiB: the reader stopped right after the limit, far from the 800 on offer.
    expect(pulled).toBeLessThan(10);
    expect(started).toBe(0);
  });

  it('takes a body under the limit as before', async () => {
    const response = await app().request('/v1/call/fx/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bigBody(1000),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('SERVER_NOT_FOUND');
    expect(started).toBe(1);
  });
});
