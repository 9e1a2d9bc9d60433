/**
 * Session binding (§5.5, §6b) on the built CLI and a real daemon process: a question raised by a call in session A
 * is listed and answered from A, refused to session B (and to a bare shell) with a message naming --all, and seen
 * and answered by an operator with --all; over the daemon's socket, REST callers are bound the same way (?all=1).
 * The calls run the built CLI; `elicit` and `task` run `mcpx` as a function beside them, a client of the same daemon.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { socketFetch } from '../../src/surfaces/daemon/client.js';
import { daemonPaths, readDaemonState } from '../../src/surfaces/daemon/paths.js';
import { runCli } from '../cli/helpers/run-cli.js';
import { fixtureEcho, stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let home: string;
let cwd: string;
let env: Record<string, string>;

function mcpx(args: string[], session?: string): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd, env: { ...env, ...(session ? { MCPX_SESSION_ID: session } : {}) }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** `mcpx <args>` as a function in `session` (the command, not the process, is what binds a session). */
function mcpxInProcess(args: string[], session?: string): Promise<Run> {
  return runCli(args, { cwd, env: { ...env, ...(session ? { MCPX_SESSION_ID: session } : {}) } });
}

/** A call in `session` that stops at the fixture's confirm question: its question id and task. */
async function ask(session: string): Promise<{ id: string; task: string }> {
  const called = await mcpx(['call', 'fx.ask_confirm', '--elicit=return', '--json'], session);
  expect(called.code, called.stderr).toBe(75);
  const { inputRequired } = JSON.parse(called.stdout) as { inputRequired: { task: string; questions: Array<{ id: string }> } };
  return { id: inputRequired.questions[0]!.id, task: inputRequired.task };
}

const ids = (run: Run): string[] =>
  (JSON.parse(run.stdout) as { elicitations: Array<{ id: string }> }).elicitations.map((e) => e.id);

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpx-sessions-'));
  cwd = join(home, 'work');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'mcpx.json'), JSON.stringify({ mcpServers: { fx: stdioFixture('legacy-v1') } }));
  env = { PATH: process.env.PATH ?? '', HOME: home, MCPX_CONFIG_DIR: join(home, 'config'), MCPX_STATE_DIR: join(home, 'state') };
});
afterAll(async () => {
  await mcpx(['daemon', 'stop']);
});

describe('session binding through the daemon', () => {
  it('lists and answers a question only from its own session; another session is refused and told about --all', async () => {
    const a = await ask('ses-a');

    expect(ids(await mcpxInProcess(['elicit', 'list', '--json'], 'ses-a'))).toEqual([a.id]);
    expect(ids(await mcpxInProcess(['elicit', 'list', '--json'], 'ses-b'))).toEqual([]);
    // A bare shell is in its own session (the config + cwd fingerprint), not in ses-a.
    expect(ids(await mcpxInProcess(['elicit', 'list', '--json']))).toEqual([]);
    const hinted = await mcpxInProcess(['elicit', 'list'], 'ses-b');
    expect(hinted.stdout).toBe('No questions are waiting.\n');
    expect(hinted.stderr).toContain('1 question waits in other sessions; an operator sees them with: mcpx elicit list --all');

    const refused = await mcpxInProcess(['elicit', 'answer', a.id, 'confirm=true'], 'ses-b');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('ELICITATION_FORBIDDEN');
    expect(refused.stderr).toContain(`mcpx elicit answer|decline|cancel --all ${a.id}`);
    expect((await mcpxInProcess(['elicit', 'decline', a.id])).stderr).toContain('ELICITATION_FORBIDDEN');

    const answered = await mcpxInProcess(['elicit', 'answer', a.id, 'confirm=true', '--json'], 'ses-a');
    expect(answered.code, answered.stderr).toBe(0);
    expect(JSON.parse(answered.stdout).answer).toMatchObject({ action: 'accept', by: 'cli', session: 'ses-a' });
    const result = await mcpxInProcess(['task', 'result', a.task, '--json'], 'ses-a');
    expect(result.code, result.stderr).toBe(0);
    expect(fixtureEcho(JSON.parse(result.stdout)).received.confirm).toMatchObject({
      action: 'accept',
      content: { confirm: true },
    });
  });

  it('lets an operator see and answer every session with --all', async () => {
    const a = await ask('ses-a');
    const b = await ask('ses-b');
    expect(ids(await mcpxInProcess(['elicit', 'list', '--json'], 'ses-b'))).toEqual([b.id]);
    const everything = ids(await mcpxInProcess(['elicit', 'list', '--all', '--json']));
    expect(everything).toEqual(expect.arrayContaining([a.id, b.id]));

    const declined = await mcpxInProcess(['elicit', 'decline', '--all', a.id, '--json']);
    expect(declined.code, declined.stderr).toBe(0);
    expect(JSON.parse(declined.stdout).answer).toMatchObject({ action: 'decline', by: 'cli' });
    const cancelled = await mcpxInProcess(['elicit', 'cancel', b.id, '--all'], 'ses-a');
    expect(cancelled.code, cancelled.stderr).toBe(0);
    for (const [task, action] of [
      [a.task, 'decline'],
      [b.task, 'cancel'],
    ] as const) {
      // Each task is its session's, as its question was: read here as the operator.
      const result = await mcpxInProcess(['task', 'result', task, '--all', '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(fixtureEcho(JSON.parse(result.stdout)).received.confirm?.action).toBe(action);
    }
  });

  it('binds REST callers on the socket to their session; ?all=1 is the operator', async () => {
    const a = await ask('ses-c');
    const state = readDaemonState(daemonPaths(env, join(cwd, 'mcpx.json')));
    expect(state).toBeDefined();
    const client = socketFetch(state!.socket);
    try {
      const as = (session: string) => ({ headers: { 'x-mcpx-session': session } });
      const listed = async (path: string, session: string) =>
        ((await (await client.fetch(path, as(session))).json()) as { elicitations: Array<{ id: string }> }).elicitations.map(
          (e) => e.id,
        );
      expect(await listed('/v1/elicit', 'ses-c')).toEqual([a.id]);
      expect(await listed('/v1/elicit', 'ses-d')).toEqual([]);
      expect(await listed('/v1/elicit?all=1', 'ses-d')).toContain(a.id);

      const other = await client.fetch(`/v1/elicit/${a.id}`, as('ses-d'));
      expect(other.status).toBe(403);
      expect(((await other.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'ELICITATION_FORBIDDEN',
        message: expect.stringContaining('REST: ?all=1'),
      });
      expect((await client.fetch(`/v1/elicit/${a.id}?all=1`, as('ses-d'))).status).toBe(200);

      const post = (path: string, session: string) =>
        client.fetch(path, {
          method: 'POST',
          headers: { 'x-mcpx-session': session, 'content-type': 'application/json' },
          body: '{}',
        });
      expect((await post(`/v1/elicit/${a.id}/cancel`, 'ses-d')).status).toBe(403);
      // Refused, so nothing was recorded: the question still waits for its own session.
      expect(await listed('/v1/elicit', 'ses-c')).toEqual([a.id]);
      expect((await post(`/v1/elicit/${a.id}/cancel?all=1`, 'ses-d')).status).toBe(200);
    } finally {
      client.close();
    }
  });
});
