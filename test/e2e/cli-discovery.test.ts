/**
 * Discovery on the built CLI (`node dist/cli.js`), each step a separate process: `mcpx list` (servers with status
 * and era), `mcpx list <server>` (signatures, --json, --schema), without a daemon (connected directly) and over a
 * running daemon's warm connections; and `mcpx call` naming an unknown server or tool with its close matches and
 * refusing bad arguments with the field and the expectation, before anything reaches the server. Beside the warm
 * daemon (a process of its own), the commands run as functions (main with captured IO), clients of that daemon.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/helpers/run-cli.js';
import { spawnLog, stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-discovery-'));
  const spawns = spawnLog();
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({
      mcpServers: {
        fx: { ...stdioFixture('dual-era', spawns.env), era: 'modern' },
        old: stdioFixture('legacy-v1'),
        every: { command: process.execPath, args: [everything, 'stdio'] },
        broken: { command: join(dir, 'no-such-server') },
      },
    }),
  );
  const env = {
    PATH: process.env.PATH ?? '',
    MCPX_STATE_DIR: join(dir, 'state'),
    MCPX_CONFIG_DIR: join(dir, 'config'),
    HOME: dir,
  };
  const run = (args: string[]): Promise<Run> =>
    new Promise((done) => {
      execFile(process.execPath, [cli, ...args], { cwd: dir, env, timeout: 60_000 }, (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      });
    });
  // `mcpx <args>` as a function; a daemon it starts is the built one.
  const daemon = JSON.stringify([process.execPath, cli, 'daemon', 'run']);
  const runInProcess = (args: string[]): Promise<Run> => runCli(args, { cwd: dir, env: { ...env, MCPX_DAEMON_COMMAND: daemon } });
  return { dir, env, run, runInProcess, spawns };
}

const direct = setup();
const warm = setup();

afterAll(async () => {
  await warm.run(['daemon', 'stop']);
  await direct.run(['daemon', 'stop']);
});

async function expectServerList(run: (args: string[]) => Promise<Run>, all: boolean): Promise<void> {
  const listed = await run(['list']);
  // "broken" cannot be reached: the listing fails (exit 1), naming it, and still lists the others.
  expect(listed.code, listed.stderr).toBe(1);
  expect(listed.stderr).toContain('could not reach broken');
  expect(listed.stdout).toMatch(/^fx\s+connected\s+2026-07-28$/m);
  expect(listed.stdout).toMatch(/^old\s+connected\s+2025-11-25$/m);
  expect(listed.stdout).toMatch(/^every\s+connected\s+2025-11-25$/m);
  expect(listed.stdout).toMatch(/^broken\s+failed: cannot connect to server "broken"/m);
  if (!all) return;

  const json = JSON.parse((await run(['list', '--json'])).stdout) as { servers: Array<Record<string, unknown>> };
  expect(json.servers.map((s) => [s.server, s.status, s.era])).toEqual([
    ['fx', 'connected', 'modern'],
    ['old', 'connected', 'legacy'],
    ['every', 'connected', 'legacy'],
    ['broken', 'failed', undefined],
  ]);
}

async function expectToolList(run: (args: string[]) => Promise<Run>, all: boolean): Promise<void> {
  const listed = await run(['list', 'every']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(/^every \(2025-11-25\): \d+ tools$/m);
  expect(listed.stdout).toContain('  get-sum(a: number, b: number)\n    Returns the sum of two numbers\n      a  First number\n');
  expect(listed.stdout).toContain('  echo(message: string)\n');
  expect(listed.stdout).toMatch(/get-annotated-message\(messageType: "error" \| "success" \| "debug", includeImage\?: boolean\)/);

  const unknown = await run(['list', 'evry']);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('mcpx: no server named "evry"; did you mean every?');
  if (!all) return;

  const fx = await run(['list', 'fx']);
  expect(fx.stdout).toContain('  no_ask(text?: string)\n    Never asks: echoes its text.\n');
  expect(fx.stdout).toContain('  sleep(ms: integer)\n');

  const json = JSON.parse((await run(['list', 'fx', '--json'])).stdout) as { server: string; tools: Array<{ name: string }> };
  expect(json.server).toBe('fx');
  expect(json.tools.map((t) => t.name)).toContain('ask_form');

  const schema = await run(['list', 'fx', '--schema']);
  expect(schema.stdout).toMatch(/sleep\(ms: integer\)[\s\S]*input schema: \{[\s\S]*"required": \[\s*"ms"\s*\]/);
}

describe('mcpx list (built CLI)', () => {
  it('lists servers and tools connected directly when no daemon runs, and starts none', async () => {
    await expectServerList(direct.run, false);
    await expectToolList(direct.run, false);
    const status = await direct.run(['daemon', 'status']);
    expect(status.stdout + status.stderr).toMatch(/no daemon|not running/i);
    // Each listing starts the server afresh: nothing is kept between processes.
    expect((await direct.run(['list', 'fx'])).code).toBe(0);
    expect(direct.spawns.count()).toBe(2);
  });

  it("lists over a running daemon's warm connections: the server starts once for every listing", async () => {
    const started = await warm.run(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    await expectServerList(warm.runInProcess, true);
    await expectToolList(warm.runInProcess, true);
    expect(warm.spawns.count()).toBe(1);
  });
  it('stops quietly when the reader closes the pipe early (mcpx list every --schema | head)', async () => {
    const child = spawn(process.execPath, [cli, 'list', 'every', '--schema'], { cwd: direct.dir, env: direct.env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read one chunk, then close the pipe as `head` does; the rest of the listing meets a closed pipe.
    await new Promise<void>((done) => child.stdout.once('data', () => done()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });
});

describe('mcpx call names what is wrong (built CLI)', () => {
  it('says an unknown server or tool with the close matches, and bad arguments by field, before sending', async () => {
    const server = await warm.runInProcess(['call', 'evry.echo', 'message=hi']);
    expect(server.code).toBe(1);
    expect(server.stderr).toContain('mcpx: no server named "evry"; did you mean every?');

    const tool = await warm.runInProcess(['call', 'every.ecko', 'message=hi']);
    expect(tool.code).toBe(1);
    expect(tool.stderr).toContain('mcpx: every has no tool named "ecko"; did you mean echo?');
    expect(tool.stderr).toContain('mcpx list every');

    const wrongType = await warm.runInProcess(['call', 'every.get-sum', 'a=1', 'b=two']);
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toContain('b: expected number, got string');
    expect(wrongType.stderr).not.toContain('-32602');

    const missing = await warm.runInProcess(['call', 'fx.sleep', '--json']);
    expect(missing.code).toBe(1);
    const error = (JSON.parse(missing.stdout) as { error: { code: string; issues: Array<{ field: string; message: string }> } })
      .error;
    expect(error.code).toBe('ARGUMENTS_INVALID');
    expect(error.issues).toEqual([
      expect.objectContaining({ field: 'ms', message: 'ms: expected a value (required), got nothing' }),
    ]);

    const fine = await warm.runInProcess(['call', 'every.get-sum', 'a=2', 'b=3']);
    expect(fine.code, fine.stderr).toBe(0);
    expect(fine.stdout).toContain('5');
  });
});

describe('mcpx prompt and mcpx resource (built CLI)', () => {
  it('lists, gets and reads on server-everything; binary content is described and written with --out', async () => {
    const prompts = await warm.runInProcess(['prompt', 'list', 'every']);
    expect(prompts.code, prompts.stderr).toBe(0);
    expect(prompts.stdout).toContain('  args-prompt(city, state?)\n');

    const got = await warm.runInProcess(['prompt', 'get', 'every', 'args-prompt', '--arg', 'city=Paris']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain("[user]\nWhat's weather in Paris?");

    const resources = await warm.runInProcess(['resource', 'list', 'every']);
    expect(resources.stdout).toMatch(
      /^ {2}demo:\/\/resource\/static\/document\/features\.md {2}features\.md \(text\/markdown\)$/m,
    );
    expect(resources.stdout).toContain('demo://resource/dynamic/blob/{resourceId}');

    const blob = await warm.runInProcess(['resource', 'read', 'every', 'demo://resource/dynamic/blob/1']);
    expect(blob.code, blob.stderr).toBe(0);
    expect(blob.stdout).toMatch(
      /binary, [\w/-]+, \d+ bytes; write it with: mcpx resource read every demo:\/\/resource\/dynamic\/blob\/1 --out <file>/,
    );
    const file = join(warm.dir, 'blob.bin');
    const written = await warm.runInProcess(['resource', 'read', 'every', 'demo://resource/dynamic/blob/1', '--out', file]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toMatch(new RegExp(`wrote (\\d+) bytes of demo://resource/dynamic/blob/1 to ${file}`));
    expect(statSync(file).size).toBe(Number(/wrote (\d+) bytes/.exec(written.stderr)![1]));

    const unknown = await warm.runInProcess(['prompt', 'get', 'evry', 'args-prompt']);
    expect(unknown.stderr).toContain('no server named "evry"; did you mean every?');
  });

  it('a prompt or resource that asks exits 75 headless with the question, and resumes once answered', async () => {
    for (const [args, answer] of [
      [['prompt', 'get', 'fx', 'ask_prompt', 'topic=site'], ['repo=acme/site']],
      [['resource', 'read', 'old', 'mcpx-fixture://ask'], ['confirm=true']],
    ] as const) {
      const asked = await warm.run([...args]);
      expect(asked.code, asked.stderr).toBe(75);
      const id = /elc-[0-9a-f]{16}/.exec(asked.stdout)?.[0];
      const task = /tsk-[0-9a-f]{16}/.exec(asked.stdout)?.[0];
      expect(id && task, asked.stdout).toBeTruthy();
      const answered = await warm.runInProcess(['elicit', 'answer', id!, ...answer]);
      expect(answered.code, answered.stderr).toBe(0);
      const result = await warm.runInProcess(['task', 'result', task!, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('accept');
    }
  });
});
