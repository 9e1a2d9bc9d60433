/**
 * The §5.1 transcript, run on the built CLI (`node dist/cli.js`), each step a separate process: a call that asks
 * exits 75 with the message; another process answers (accept, decline, cancel) or the deadline passes; a third
 * collects the call's real result. On a legacy server (v1 SDK) and a modern one (2026-07-28).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  pid: number;
}

function mcpx(args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [cli, ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr, pid: child.pid! });
      },
    );
  });
}

interface Setup {
  env: Record<string, string>;
  cwd: string;
  run: (args: string[], extraEnv?: Record<string, string>) => Promise<Run>;
}

function setup(extraEnv: Record<string, string> = {}): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-'));
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify(
      { mcpServers: { modern: { ...stdioFixture('dual-era'), era: 'modern' }, legacy: stdioFixture('legacy-v1') } },
      null,
      2,
    ),
  );
  const env = { MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir, ...extraEnv };
  return { env, cwd: dir, run: (args, more = {}) => mcpx(args, { ...env, ...more }, dir) };
}

const setups: Setup[] = [];
/** One config (and so one daemon) serves the tests on both servers; the short-TTL tests need a daemon of their own. */
let shared: Setup;
let shortTtl: Setup;
beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run test:e2e builds, or npx tsup)`);
  shared = setup();
  shortTtl = setup({ MCPX_ELICIT_TTL_MS: '2000' });
  setups.push(shared, shortTtl);
});
afterAll(async () => {
  await Promise.all(setups.map((s) => s.run(['daemon', 'stop'])));
});

/** The ids the §5.1 message names. */
function idsIn(text: string): { elicit: string; task: string } {
  const elicit = /mcpx elicit answer (elc-[0-9a-f]{16})/.exec(text)?.[1];
  const task = /mcpx task result (tsk-[0-9a-f]{16})/.exec(text)?.[1];
  if (!elicit || !task) throw new Error(`no ids in:\n${text}`);
  return { elicit, task };
}

function received(result: Run): Record<string, { action: string; content?: Record<string, unknown> }> {
  return (
    JSON.parse(result.stdout) as {
      structuredContent: { received: Record<string, { action: string; content?: Record<string, unknown> }> };
    }
  ).structuredContent.received;
}

for (const server of ['legacy', 'modern'] as const) {
  describe(`the §5.1 transcript on the ${server} server`, () => {
    it('exits 75 with the message, is answered from another process, and task result prints the real result', async () => {
      const s = shared;
      const call = await s.run(['call', `${server}.ask_form`, 'title=x']);
      expect(call.code, call.stderr).toBe(75);
      expect(call.stdout).toMatch(
        new RegExp(`^mcpx: ${server}\\.ask_form is waiting for input and nothing here can answer it\\.\\n\\n`),
      );
      expect(call.stdout).toMatch(
        /\n {2}asks {5}\S.*\n {2}schema {3}\{.*"required":\["repo"\].*\}\n {2}expires {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d) \((1m5\ds|2m0s) from now\)\n {2}answer {3}MCPX_SESSION_ID=fp-[0-9a-f]{16} mcpx elicit answer elc-[0-9a-f]{16} '\{"repo":"\.\.\."\}' --config \/\S+\/mcpx\.json\n {11}MCPX_SESSION_ID=fp-[0-9a-f]{16} mcpx elicit decline elc-[0-9a-f]{16} --config \/\S+\/mcpx\.json \| MCPX_SESSION_ID=fp-[0-9a-f]{16} mcpx elicit cancel elc-[0-9a-f]{16} --config \/\S+\/mcpx\.json\n\nThe call keeps running until it is answered or expires; collect its result with: MCPX_SESSION_ID=fp-[0-9a-f]{16} mcpx task result tsk-[0-9a-f]{16} --config \/\S+\/mcpx\.json\n$/,
      );
      const { elicit, task } = idsIn(call.stdout);

      const list = await s.run(['elicit', 'list']);
      expect(list.stdout).toContain(elicit);

      const bad = await s.run(['elicit', 'answer', elicit, '{"repo":"x"}']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('ANSWER_INVALID');

      const answer = await s.run(['elicit', 'answer', elicit, '{"repo":"me/thing"}']);
      expect(answer, answer.stderr).toMatchObject({ code: 0, stdout: '' });

      const result = await s.run(['task', 'result', task, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(received(result).details).toEqual({
        action: 'accept',
        content: { repo: 'me/thing', private: false, priority: 'normal' },
      });

      const log = await s.run(['log', '--chain', elicit]);
      expect(log.stdout).toMatch(/elicit\.open/);
      expect(log.stdout).toMatch(/elicit\.answered .*action=accept/);
      // §6b: the answer names the process that answered (the CLI), not the daemon that relayed it.
      expect(log.stdout).toMatch(new RegExp(`elicit\\.answered .*by=cli.* pid=${answer.pid}\\b`));
      expect(log.stdout).toMatch(/elicit\.resumed/);
    });

    it('carries a decline, and then a cancel, to the server as themselves', async () => {
      const s = shared;
      for (const action of ['decline', 'cancel'] as const) {
        const call = await s.run(['call', `${server}.ask_form`]);
        expect(call.code, call.stderr).toBe(75);
        const { elicit, task } = idsIn(call.stdout);
        expect((await s.run(['elicit', action, elicit])).code).toBe(0);
        const result = await s.run(['task', 'result', task, '--json']);
        expect(result.code, result.stderr).toBe(0);
        expect(received(result).details).toEqual({ action });
      }
    });

    it('answers cancel when the deadline passes', async () => {
      const s = shortTtl;
      const call = await s.run(['call', `${server}.ask_form`]);
      expect(call.code, call.stderr).toBe(75);
      expect(call.stdout).toMatch(/\((1|2)s from now\)/);
      const { elicit, task } = idsIn(call.stdout);
      const result = await s.run(['task', 'result', task, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(received(result).details).toEqual({ action: 'cancel' });
      const late = await s.run(['elicit', 'answer', elicit, '{"repo":"me/late"}']);
      expect(late.code).toBe(1);
      expect(late.stderr).toMatch(/ELICITATION_EXPIRED|ELICITATION_ALREADY_ANSWERED/);
    });

    it('puts {"inputRequired": ...} on stdout with --json, and a call that asks nothing just prints its result', async () => {
      const s = shared;
      const call = await s.run(['call', `${server}.ask_form`, '--json']);
      expect(call.code, call.stderr).toBe(75);
      const { inputRequired } = JSON.parse(call.stdout) as {
        inputRequired: {
          callId: string;
          task: string;
          server: string;
          tool: string;
          questions: Array<{ id: string }>;
          text: string;
        };
      };
      expect(inputRequired).toMatchObject({ server, tool: 'ask_form' });
      expect(inputRequired.callId).toMatch(/^cal-[0-9a-f]{16}$/);
      expect(inputRequired.questions).toHaveLength(1);
      expect(inputRequired.text).toContain(`mcpx elicit answer ${inputRequired.questions[0]!.id}`);
      await s.run(['elicit', 'cancel', inputRequired.questions[0]!.id]);

      const plain = await s.run(['call', `${server}.no_ask`, 'text=hello']);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toContain('hello');
    });
  });
}

describe('mcpx call --elicit policy modes (built CLI)', () => {
  it('declines with --elicit=decline and fails with --elicit=error', async () => {
    const s = shared;
    const declined = await s.run(['call', 'modern.ask_form', '--elicit=decline', '--json']);
    expect(declined.code, declined.stderr).toBe(0);
    expect(received(declined).details).toEqual({ action: 'decline' });

    const auto = await s.run(['call', 'legacy.ask_form', '--elicit=auto', '--json']);
    expect(auto.code, auto.stderr).toBe(0);
    expect(received(auto).details).toEqual({ action: 'cancel' });

    const refused = await s.run(['call', 'modern.ask_form', '--elicit=error']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('ELICITATION_REFUSED');
  });
});

describe('mcpx call and the daemon', () => {
  it('starts a daemon when the state file names one that is gone, and the call goes through', async () => {
    const s = setup();
    setups.push(s);
    const paths = daemonPaths(s.env, join(s.cwd, 'mcpx.json'));
    mkdirSync(s.env.MCPX_STATE_DIR!, { recursive: true });
    // A live pid (this test runner) but no socket: what a crashed daemon whose pid was reused leaves behind.
    writeFileSync(
      paths.state,
      JSON.stringify({ pid: process.pid, version: 'gone', startedAt: 0, socket: join(s.cwd, 'no-such.sock') }),
    );
    const call = await s.run(['call', 'modern.no_ask', 'text=after a crash']);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('after a crash');
    const status = await s.run(['daemon', 'status', '--json']);
    expect((JSON.parse(status.stdout) as { running: boolean; pid: number }).pid).not.toBe(process.pid);
  });

  it('says the call cannot outlive the command when the daemon runs inline (MCPX_DAEMON=inline)', async () => {
    const s = setup({ MCPX_DAEMON: 'inline' });
    setups.push(s);
    const call = await s.run(['call', 'legacy.ask_form']);
    expect(call.code, call.stderr).toBe(75);
    expect(call.stdout).toContain('mcpx: legacy.ask_form is waiting for input and nothing here can answer it.');
    expect(call.stdout).toContain('daemon.inline');
    expect(call.stdout).not.toContain('mcpx task result');
    const status = await s.run(['daemon', 'status', '--json']);
    expect((JSON.parse(status.stdout) as { running: boolean }).running).toBe(false);
  });

  it('refuses an answer to a modern question of an inline run that exited: nothing could deliver it', async () => {
    const s = setup({ MCPX_DAEMON: 'inline' });
    setups.push(s);
    const call = await s.run(['call', 'modern.ask_form', '--json']);
    expect(call.code, call.stderr).toBe(75);
    const [question] = (JSON.parse(call.stdout) as { inputRequired: { questions: Array<{ id: string; era: string }> } })
      .inputRequired.questions;
    expect(question!.era).toBe('modern');
    // No daemon holds the call and none will resume an inline run's: the answer is refused, not swallowed.
    const answer = await s.run(['elicit', 'answer', question!.id, '{"repo":"me/thing"}']);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('ELICITATION_ABANDONED');
    const abandoned = await s.run(['elicit', 'list', '--state', 'abandoned', '--json']);
    expect(abandoned.stdout).toContain(question!.id);
  });
});
