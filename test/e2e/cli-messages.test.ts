/**
 * Messages that say what happened and what to do, on the built CLI: a script out of memory says so (never
 * `Error: null`); `elicit answer` says what it did; a different MCPX_ELICIT_TTL_MS than the running daemon's is
 * called out; `daemon status` says where the bearer token is, or that there is no port.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpx-cli-messages-'));
const config = join(dir, 'mcpx.json');
writeFileSync(
  config,
  JSON.stringify({
    mcpServers: { legacy: { command: 'node', args: [join(root, 'examples', 'servers', 'legacy-v1.mjs'), '--stdio'] } },
  }),
);
const baseEnv = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: join(dir, 'state') };

function mcpx(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: dir, env: { ...baseEnv, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

afterAll(async () => {
  await mcpx(['daemon', 'stop', '--config', config]);
});

describe('CLI messages (built CLI)', () => {
  it('says a script that grows a string or an array ran out of memory, never "Error: null"', async () => {
    const scripts = [
      "let s = 'x'.repeat(1e6); while (true) s = s + s.slice(0, 1e6) + '!';",
      "const parts = []; const s = 'x'.repeat(1 << 20); for (;;) parts.push(s + parts.length);",
      'const a = []; while (true) a.push({ x: 1 });',
    ];
    for (const script of scripts) {
      const run = await mcpx(['exec', script, '--config', config]);
      expect(run.code, script).toBe(1);
      expect(run.stderr, script).toContain('the script ran out of memory');
      expect(run.stderr, script).toContain('--memory-limit');
      expect(run.stderr, script).not.toContain('null');
    }
    const doubling = await mcpx(['exec', "let s = 'ab'.repeat(1e5); while (true) s = s + s;", '--config', config]);
    expect(doubling.stderr).toContain('the script built a string longer than the sandbox allows');
  });

  it("says what elicit answer did, applies the caller's TTL in the running daemon, and where the token is", async () => {
    const call = await mcpx(['call', 'legacy.ask_form', 'title=messages', '--config', config]);
    expect(call.code, call.stderr).toBe(75);
    const id = /elc-[0-9a-f]+/.exec(call.stdout)?.[0];
    expect(id).toBeDefined();

    const answer = await mcpx(['elicit', 'answer', id!, 'repo=acme/site', '--config', config]);
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout).toBe('');
    expect(answer.stderr).toContain(`mcpx: accepted ${id} with {"repo":"acme/site",`);

    const declined = await mcpx(['call', 'legacy.ask_form', 'title=again', '--config', config], { MCPX_ELICIT_TTL_MS: '5000' });
    expect(declined.stderr).not.toContain('is not applied');
    const second = /elc-[0-9a-f]+/.exec(declined.stdout)?.[0];
    const listed = await mcpx(['elicit', 'list', '--json', '--config', config]);
    const asked = (
      JSON.parse(listed.stdout) as { elicitations: Array<{ id: string; createdAt: number; expiresAt: number }> }
    ).elicitations.find((q) => q.id === second);
    expect(asked!.expiresAt - asked!.createdAt).toBeLessThanOrEqual(5000);
    const decline = await mcpx(['elicit', 'decline', second!, '--config', config]);
    expect(decline.stderr).toContain(`mcpx: declined ${second}`);

    const status = await mcpx(['daemon', 'status', '--config', config]);
    expect(status.stdout).toContain('port     none: the socket only (mcpx daemon start --port 0');
  });
});
