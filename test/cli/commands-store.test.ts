/**
 * The elicit, task and log commands with no daemon running: they read and answer through the state store
 * (a real SQLite file in a temp MCPX_STATE_DIR), as a second process would.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreBroker } from '../../src/broker/broker.js';
import { newCallId, newTaskId } from '../../src/ids.js';
import { closeStoreBroker, openStoreBroker } from '../../src/surfaces/backend/store-backend.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import type { TaskRecord } from '../../src/tasks/types.js';
import { runCli, startCli } from './helpers/run-cli.js';

let env: Record<string, string>;
let cwd: string;
let broker: StoreBroker;

beforeEach(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-cli-store-'));
  // The CLI answers the questions of its own session: the one these questions are raised in.
  env = {
    MCPX_STATE_DIR: join(dir, 'state'),
    MCPX_CONFIG_DIR: join(dir, 'config'),
    HOME: dir,
    MCPX_SESSION_ID: 'ses-store-test',
  };
  cwd = dir;
  broker = await openStoreBroker(env);
});
afterEach(async () => closeStoreBroker(broker));

const cli = (argv: string[], stdin?: string) => runCli(argv, { env, cwd, ...(stdin === undefined ? {} : { stdin }) });

async function ask(trace = newCallId()) {
  return broker.openRequest({
    trace,
    server: 'github',
    tool: 'create_issue',
    mode: 'form',
    message: 'Which repository should this go in?',
    requestedSchema: {
      type: 'object',
      properties: { repo: { type: 'string', description: 'owner/name', minLength: 3 } },
      required: ['repo'],
    },
    era: 'legacy',
    ttlMs: 120_000,
    session: 'ses-store-test',
  });
}

describe('mcpx elicit (no daemon)', () => {
  it('lists what is waiting with time left, and as JSON', async () => {
    const q = await ask();
    const listed = await cli(['elicit', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${q.id}\\s+github\\.create_issue\\s+form\\s+(1m5\\ds|2m0s)\\s+Which repository`));
    const json = await cli(['elicit', 'list', '--json']);
    const { elicitations } = JSON.parse(json.stdout) as { elicitations: Array<{ id: string; timeLeftMs: number }> };
    expect(elicitations.map((e) => e.id)).toEqual([q.id]);
    expect(elicitations[0]!.timeLeftMs).toBeGreaterThan(100_000);
  });

  it('refuses invalid content with the issues and leaves the question waiting', async () => {
    const q = await ask();
    const bad = await cli(['elicit', 'answer', q.id, '{"repo":"ab"}']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('ANSWER_INVALID');
    expect(bad.stderr).toMatch(/repo: .*at least 3 characters/);
    expect(await broker.lookup(q.id)).toBeUndefined();
    expect((await cli(['elicit', 'list'])).stdout).toContain(q.id);
  });

  it('accepts with key=value content, records the CLI as the answerer, and refuses a second answer', async () => {
    const q = await ask();
    const ok = await cli(['elicit', 'answer', q.id, 'repo=me/thing']);
    expect(ok).toMatchObject({ code: 0, stdout: '' });
    expect(await broker.lookup(q.id)).toMatchObject({ action: 'accept', content: { repo: 'me/thing' }, by: 'cli' });
    const again = await cli(['elicit', 'decline', q.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('ELICITATION_ALREADY_ANSWERED');
    expect((await cli(['elicit', 'list'])).stdout).toBe('No questions are waiting.\n');
  });

  it("refuses another session's question and shows it only to an operator with --all", async () => {
    const theirs = await broker.openRequest({
      trace: newCallId(),
      server: 'github',
      tool: 'create_issue',
      mode: 'form',
      message: 'Ship it?',
      era: 'legacy',
      session: 'ses-other',
    });
    const listed = await cli(['elicit', 'list']);
    expect(listed.stdout).toBe('No questions are waiting.\n');
    expect(listed.stderr).toContain('1 question waits in other sessions; an operator sees them with: mcpx elicit list --all');
    const refused = await cli(['elicit', 'decline', theirs.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('ELICITATION_FORBIDDEN');
    expect(refused.stderr).toContain(`--all ${theirs.id}`);
    expect(await broker.lookup(theirs.id)).toBeUndefined();
    expect((await cli(['elicit', 'list', '--all'])).stdout).toContain(theirs.id);
    expect((await cli(['elicit', 'decline', '--all', theirs.id])).code).toBe(0);
    expect(await broker.lookup(theirs.id)).toMatchObject({ action: 'decline', by: 'cli', session: 'ses-store-test' });
  });

  it('keeps decline and cancel apart', async () => {
    const a = await ask();
    const b = await ask();
    expect((await cli(['elicit', 'decline', a.id])).code).toBe(0);
    expect((await cli(['elicit', 'cancel', b.id])).code).toBe(0);
    expect((await broker.lookup(a.id))?.action).toBe('decline');
    expect((await broker.lookup(b.id))?.action).toBe('cancel');
  });

  it('reads answer content from stdin with -', async () => {
    const q = await ask();
    expect((await cli(['elicit', 'answer', q.id, '-'], '{"repo":"me/piped"}')).code).toBe(0);
    expect((await broker.lookup(q.id))?.content).toEqual({ repo: 'me/piped' });
  });

  it('says what is wrong with an unknown or malformed id', async () => {
    const unknown = await cli(['elicit', 'answer', 'elc-0000000000000000', 'repo=x']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('ELICITATION_NOT_FOUND');
    const malformed = await cli(['elicit', 'cancel', 'elc-12']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('expected a question id like elc-');
  });

  it('watches the store and prints questions as they are asked', async () => {
    const watching = startCli(['elicit', 'watch', '--json', '--count', '2', '--kinds', 'elicit.open,elicit.answered'], {
      env,
      cwd,
    });
    await watching.stderrShows('watching for questions (no daemon: reading the store)');
    const q = await ask();
    await broker.respond({ id: q.id, action: 'decline', by: 'http' });
    const run = await watching.done;
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; elicit: string; action?: string });
    expect(events.map((e) => [e.kind, e.elicit])).toEqual([
      ['elicit.open', q.id],
      ['elicit.answered', q.id],
    ]);
    expect(events[1]!.action).toBe('decline');
  });
});

describe('mcpx task (no daemon)', () => {
  const record = (over: Partial<TaskRecord>): TaskRecord => ({
    id: newTaskId(),
    callId: newCallId(),
    server: 'github',
    tool: 'create_issue',
    arguments: {},
    session: 'ses-store-test',
    state: 'complete',
    questions: [],
    waitingOn: [],
    pid: 1,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    ...over,
  });

  it('prints the result of a finished call, and its JSON with --json', async () => {
    const task = record({ result: { content: [{ type: 'text', text: 'issue #7 created' }] } });
    await createTaskStore(broker.store.keyv).put(task);
    expect(await cli(['task', 'result', task.id])).toEqual({ code: 0, stdout: 'issue #7 created\n', stderr: '' });
    const json = await cli(['task', 'result', task.id, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(task.result);
  });

  it('exits 1 with the error of a failed call', async () => {
    const task = record({ state: 'failed', error: { code: 'CALL_FAILED', message: 'server went away' } });
    await createTaskStore(broker.store.keyv).put(task);
    const run = await cli(['task', 'result', task.id]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('server went away');
  });

  it('says a daemon is needed to finish a call still waiting', async () => {
    const task = record({ state: 'input-required', waitingOn: ['elc-0000000000000001'] });
    await createTaskStore(broker.store.keyv).put(task);
    const run = await cli(['task', 'result', task.id]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no daemon is running to finish it');
  });

  it('refuses an unknown task', async () => {
    const run = await cli(['task', 'result', 'tsk-0000000000000000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('TASK_NOT_FOUND');
  });
});

describe('mcpx log (no daemon)', () => {
  it('prints the audit trail and walks a resumed call back to the call that asked', async () => {
    const asking = newCallId();
    const resumed = newCallId();
    const q = await ask(asking);
    await broker.respond({ id: q.id, action: 'accept', content: { repo: 'me/thing' }, by: 'cli' });
    await broker.recordResumed({ elicit: q.id, trace: resumed, parent: asking });
    const unrelated = await ask();

    const all = await cli(['log']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(new RegExp(`elicit\\.open\\s+trace=${asking} elicit=${q.id} call=github\\.create_issue`));
    expect(all.stdout).toMatch(new RegExp(`elicit\\.answered\\s+.*elicit=${q.id}.*action=accept by=cli.*answeredAfterMs=\\d+`));

    const chain = await cli(['log', '--chain', resumed, '--json']);
    const events = chain.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; trace?: string; parent?: string; elicit?: string });
    expect(events.map((e) => e.kind)).toEqual(['elicit.open', 'elicit.answered', 'elicit.resumed']);
    expect(events[0]!.trace).toBe(asking);
    expect(events[2]).toMatchObject({ trace: resumed, parent: asking, elicit: q.id });
    expect(chain.stdout).not.toContain(unrelated.id);
  });

  it('says so when nothing mentions the id', async () => {
    const run = await cli(['log', '--chain', 'cal-0000000000000000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('nothing in the audit log mentions cal-0000000000000000');
  });
});

describe('mcpx', () => {
  it('prints its version from package.json', async () => {
    const run = await cli(['--version']);
    expect(run).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it("shows a command's help, and exits 2 on an unknown command or option", async () => {
    expect((await cli(['help', 'call'])).stdout).toContain('--elicit <mode>');
    expect((await cli(['elicit', '--help'])).stdout).toContain('watch');
    const unknown = await cli(['nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "nope"');
    const badFlag = await cli(['call', 'a.b', '--elicit=maybe']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--elicit takes prompt | return | auto | decline | error');
  });
});
