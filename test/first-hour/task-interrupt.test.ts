/**
 * Ctrl-C on `mcpx call` of a tool the server runs as an MCP task, with the call held in the command itself
 * (MCPX_DAEMON=inline): the call ends with the command, and the server hears `tasks/cancel` (the fixture's
 * hold_task writes "cancelled <taskId>" once its task is cancelled), in both eras.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli-run.js';

const fixtures = resolve(import.meta.dirname, '..', 'fixtures', 'servers');
const dir = mkdtempSync(join(tmpdir(), 'mcpx-task-interrupt-'));
writeFileSync(
  join(dir, 'mcpx.json'),
  JSON.stringify({
    mcpServers: {
      tasks: { command: process.execPath, args: [join(fixtures, 'tasks.mjs')] },
      modern: { command: process.execPath, args: [join(fixtures, 'tasks-modern.mjs')] },
    },
  }),
);
const env = {
  PATH: process.env.PATH ?? '',
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
  MCPX_DAEMON: 'inline',
  HOME: dir,
};

describe.each(['tasks', 'modern'])('Ctrl-C on mcpx call of an MCP task (%s)', (server) => {
  it('exits 130 and cancels the task at the server', async () => {
    const started = join(dir, `${server}.started`);
    const marker = join(dir, `${server}.cancelled`);
    const call = spawn(process.execPath, [CLI, 'call', `${server}.hold_task`, `marker=${marker}`, `started=${started}`], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    call.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => call.once('exit', (code) => done(code)));
    // The whole line: the file exists a moment before its line is written, and a Ctrl-C that early (under load) came
    // before the call knew its task.
    const startedLine = (): string => (existsSync(started) ? readFileSync(started, 'utf8') : '');
    await expect.poll(() => /^started \S+\n/.test(startedLine()), { timeout: 30_000 }).toBe(true);
    const taskId = startedLine()
      .trim()
      .replace(/^started /, '');

    call.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    await expect
      .poll(() => existsSync(marker) && readFileSync(marker, 'utf8'), { timeout: 10_000 })
      .toBe(`cancelled ${taskId}\n`);
  }, 60_000);
});
