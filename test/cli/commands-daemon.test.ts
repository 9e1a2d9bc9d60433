/**
 * The CLI commands against a real daemon (served in this process on its unix socket, over the real state store
 * and the fixture servers over stdio): the commands find it as they would in production, by its state file.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { runDaemon, type RunningDaemon } from '../../src/surfaces/daemon/daemon.js';
import { openDaemonParts } from '../../src/surfaces/daemon/daemon-wiring.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { runCli, startCli } from './helpers/run-cli.js';

let env: Record<string, string>;
let cwd: string;
let daemon: RunningDaemon;

beforeEach(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'mcpx-cli-daemon-'));
  const configPath = join(cwd, 'mcpx.json');
  // One rule (modern.ask_confirm is confirmed), to tell the config's policy from the mode a call asks for.
  const elicit = { rules: [{ match: { server: 'modern', tool: 'ask_confirm', field: 'confirm' }, action: 'accept' }] };
  writeFileSync(
    configPath,
    JSON.stringify({
      mcpServers: { modern: { ...stdioFixture('dual-era'), era: 'modern' }, legacy: stdioFixture('legacy-v1') },
      elicit,
    }),
  );
  env = { MCPX_STATE_DIR: join(cwd, 'state'), MCPX_CONFIG_DIR: join(cwd, 'config'), HOME: cwd };
  daemon = await runDaemon({
    paths: daemonPaths(env, configPath),
    openParts: () => openDaemonParts({ env, cwd, configPath, version: 'test' }),
    version: 'test',
    idleMs: 0,
  });
});
afterEach(async () => daemon.stop('test over'));

const cli = (argv: string[]) => runCli(argv, { env, cwd });
const idOf = (text: string, kind: 'elc' | 'tsk') => new RegExp(`(${kind}-[0-9a-f]{16})`).exec(text)?.[1] as string;
const received = (stdout: string) =>
  (JSON.parse(stdout) as { structuredContent: { received: Record<string, unknown>; rounds?: number } }).structuredContent;

describe('mcpx call through the daemon', () => {
  for (const server of ['legacy', 'modern'] as const) {
    it(`returns the ${server} server's question with exit 75, and the call finishes once it is answered`, async () => {
      const call = await cli(['call', `${server}.ask_form`, 'title=x']);
      expect(call.code, call.stderr).toBe(75);
      expect(call.stdout).toContain(`mcpx: ${server}.ask_form is waiting for input and nothing here can answer it.`);
      const elicit = idOf(call.stdout, 'elc');
      const task = idOf(call.stdout.split('mcpx task result ')[1] ?? '', 'tsk');

      const list = await cli(['elicit', 'list', '--json']);
      expect((JSON.parse(list.stdout) as { elicitations: Array<{ id: string; task: string }> }).elicitations).toMatchObject([
        { id: elicit, task },
      ]);

      expect((await cli(['elicit', 'answer', elicit, 'repo=me/thing', 'priority=high'])).code).toBe(0);
      // Answered through the daemon's REST routes, but by the CLI: the audit log says so.
      expect((await cli(['log', '--chain', elicit])).stdout).toMatch(/elicit\.answered .*action=accept by=cli/);
      const result = await cli(['task', 'result', task, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(received(result.stdout).received.details).toEqual({
        action: 'accept',
        content: { repo: 'me/thing', private: false, priority: 'high' },
      });
    });
  }

  it('puts the input-required document on stdout with --json', async () => {
    const call = await cli(['call', 'modern.ask_two', '--json']);
    expect(call.code).toBe(75);
    const { inputRequired } = JSON.parse(call.stdout) as {
      inputRequired: {
        server: string;
        tool: string;
        task: string;
        questions: Array<{ id: string; expiresAt: number }>;
        text: string;
      };
    };
    expect(inputRequired).toMatchObject({ server: 'modern', tool: 'ask_two' });
    expect(inputRequired.questions).toHaveLength(2);
    for (const q of inputRequired.questions) expect(inputRequired.text).toContain(`mcpx elicit decline ${q.id}`);
    expect(inputRequired.text).toContain(`mcpx task result ${inputRequired.task}`);
  });

  it('declines every question with --elicit=decline, across both questions of a round', async () => {
    const call = await cli(['call', 'legacy.ask_two', '--elicit=decline', '--json']);
    expect(call.code, call.stderr).toBe(0);
    expect(received(call.stdout).received).toEqual({ details: { action: 'decline' }, confirm: { action: 'decline' } });
  });

  it('declines under --elicit=decline even where a config rule would answer (the daemon skips the rules), and the rule answers otherwise', async () => {
    const declined = await cli(['call', 'modern.ask_confirm', '--elicit=decline', '--json']);
    expect(declined.code, declined.stderr).toBe(0);
    expect(received(declined.stdout).received.confirm).toEqual({ action: 'decline' });
    const ruled = await cli(['call', 'modern.ask_confirm', '--json']);
    expect(ruled.code, ruled.stderr).toBe(0);
    expect(received(ruled.stdout).received.confirm).toEqual({ action: 'accept', content: { confirm: true } });
    const answers = (await cli(['log', '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; action?: string; by?: string })
      .filter((e) => e.kind === 'elicit.answered');
    expect(answers.map((e) => [e.action, e.by])).toEqual([
      ['decline', 'policy'],
      ['accept', 'policy'],
    ]);
  });

  it('cancels a question no policy rule answers with --elicit=auto', async () => {
    const call = await cli(['call', 'modern.ask_form', '--elicit=auto', '--json']);
    expect(call.code, call.stderr).toBe(0);
    expect(received(call.stdout).received.details).toEqual({ action: 'cancel' });
  });

  it('fails with ELICITATION_REFUSED under --elicit=error, and every question of the round is cancelled', async () => {
    const call = await cli(['call', 'modern.ask_two', '--elicit=error']);
    expect(call.code).toBe(1);
    expect(call.stderr).toContain('ELICITATION_REFUSED');
    const elicit = idOf(call.stderr, 'elc');
    const log = await cli(['log', '--chain', elicit, '--json']);
    const answered = log.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; action?: string; by?: string })
      .find((e) => e.kind === 'elicit.answered');
    expect(answered?.action).toBe('cancel');
    // The daemon refused it (policy error mode), not the command afterwards.
    expect(answered?.by).toBe('policy');
    expect((await cli(['elicit', 'list'])).stdout).toBe('No questions are waiting.\n');
  });

  it('prints the result of a call that asks nothing, and exits 1 for an unknown server', async () => {
    const ok = await cli(['call', 'modern.no_ask', 'text=hello there']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('hello there');
    const missing = await cli(['call', 'nowhere.tool']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nowhere/);
  });
});

describe('mcpx call with calls sharing a legacy server', () => {
  it('marks a question it cannot tie to one call as ambiguous, in the message and the list', async () => {
    const [a, b] = await Promise.all([cli(['call', 'legacy.ask_confirm']), cli(['call', 'legacy.ask_confirm'])]);
    expect([a.code, b.code]).toEqual([75, 75]);
    expect(`${a.stdout}${b.stdout}`).toContain('(ambiguous)');
    expect((await cli(['elicit', 'list'])).stdout).toContain('(ambiguous)');
    // Cancel what each call waits on until both finish. Both calls may have been shown the same ambiguous
    // question (it was reported to the other call too), and the second question then comes after both exited.
    for (const run of [a, b]) {
      const task = idOf(run.stdout.split('mcpx task result ')[1] ?? '', 'tsk');
      let waitingOn = [...new Set(run.stdout.match(/elc-[0-9a-f]{16}/g) ?? [])];
      for (;;) {
        for (const id of waitingOn) await cli(['elicit', 'cancel', id]);
        const result = await cli(['task', 'result', task, '--timeout', '1']);
        if (result.code !== 75) {
          expect(result.code, result.stderr).toBe(0);
          break;
        }
        waitingOn = result.stderr.match(/elc-[0-9a-f]{16}/g) ?? [];
      }
    }
  });
});

describe('mcpx elicit watch through the daemon', () => {
  it('follows the event stream: a question opened and answered', async () => {
    const watching = startCli(['elicit', 'watch', '--json', '--count', '2', '--kinds', 'elicit.open,elicit.answered'], {
      env,
      cwd,
    });
    await watching.stderrShows('watching for questions (daemon events)');
    const call = await cli(['call', 'legacy.ask_confirm']);
    expect(call.code).toBe(75);
    const elicit = idOf(call.stdout, 'elc');
    expect((await cli(['elicit', 'cancel', elicit])).code).toBe(0);
    const run = await watching.done;
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; elicit: string; action?: string });
    expect(events.map((e) => [e.kind, e.elicit])).toEqual([
      ['elicit.open', elicit],
      ['elicit.answered', elicit],
    ]);
    expect(events[1]!.action).toBe('cancel');
  });
});
