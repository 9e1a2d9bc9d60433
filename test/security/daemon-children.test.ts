/**
 * #33 item 10: `kill -9` of the daemon left its upstream stdio server running. server-everything (v1 SDK) does
 * not watch its stdin's end, and its elicitation tool keeps it alive for that request's 10-minute timeout, so the
 * end of its stdin alone does not stop it. A daemon killed while that tool waits on a question must take its
 * servers with it: every process it had started is gone within a bounded wait. Through the built CLI, which
 * starts the daemon as any command does on first need.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';
import { processAlive as alive } from '../../src/local/process-alive.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

const mcpx = (args: string[], cwd: string, env: Record<string, string>): Promise<CliRun> =>
  runCli(args, { cwd, env, timeoutMs: 60_000 });

/** The processes whose parent is `pid`, with their command lines (Linux /proc). */
function childrenOf(pid: number): Array<{ pid: number; command: string }> {
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The field after the parenthesised name: state, then the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid)
        found.push({ pid: Number(entry), command: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      // Gone while read.
    }
  }
  return found;
}

async function goneWithin(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return pids.filter(alive);
}

describe.runIf(process.platform === 'linux')('a daemon killed with SIGKILL', () => {
  const left: number[] = [];
  afterEach(() => {
    // Only what this test started, by pid: a failed run must not leave servers behind for the next.
    for (const pid of left.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('takes its stdio server (server-everything, waiting on a question) with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-orphans-'));
    const configPath = join(dir, 'mcpx.json');
    writeFileSync(
      configPath,
      JSON.stringify({ mcpServers: { every: { command: process.execPath, args: [everything, 'stdio'] } } }),
    );
    const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state') };

    const call = await mcpx(['call', 'every.trigger-elicitation-request', '--elicit=return', '--config', configPath], dir, env);
    expect(call.code, call.stderr).toBe(75);
    const stateFile = readdirSync(env.MCPX_STATE_DIR).find((name) => /^daemon-[0-9a-f]{16}\.json$/.test(name))!;
    const daemon = (JSON.parse(readFileSync(join(env.MCPX_STATE_DIR, stateFile), 'utf8')) as { pid: number }).pid;
    const children = childrenOf(daemon);
    const server = children.find((c) => c.command.includes(everything));
    expect(server, JSON.stringify(children)).toBeDefined();
    left.push(daemon, ...children.map((c) => c.pid));

    process.kill(daemon, 'SIGKILL');
    expect(await goneWithin([daemon], 10_000)).toEqual([]);
    // The server's stdin ended with the daemon, but it waits on its question's 10-minute timeout: only mcpx stops it.
    const survivors = await goneWithin(
      children.map((c) => c.pid),
      15_000,
    );
    expect(survivors.map((pid) => children.find((c) => c.pid === pid)!.command)).toEqual([]);
  });
});
