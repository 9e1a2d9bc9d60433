/**
 * A config as people write it, and its mistakes, through the built CLI: JSONC is read; a syntax error names the
 * file, line and column and calls it a config; every problem is listed once, the policy's beside the servers';
 * `--json` errors are JSON; a bad config starts no daemon; `mcpx exec` (as `mcpx run`) keeps the config's TTL.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const legacyServer = join(root, 'examples', 'servers', 'legacy-v1.mjs');
const fixtureServer = join(root, 'examples', 'servers', 'dual-era.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function mcpx(args: string[], stateDir: string): Promise<Run> {
  const env = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: stateDir };
  return new Promise((done) => {
    execFile(process.execPath, [cli, ...args], { cwd: root, env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

function scratch(): { dir: string; state: string; write(name: string, text: string): string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-config-errors-'));
  return {
    dir,
    state: join(dir, 'state'),
    write(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('config errors (built CLI)', () => {
  it('reads a config with comments and trailing commas, as VS Code writes .mcp.json', async () => {
    const s = scratch();
    const config = s.write(
      '.mcp.json',
      `{
  // the fixture server
  "mcpServers": {
    "fixture": { "command": "node", "args": [${JSON.stringify(fixtureServer)}, "--stdio"], }, /* trailing comma */
  },
}
`,
    );
    const run = await mcpx(
      [
        'exec',
        "const r = await tools.fixture.no_ask({ text: 'jsonc ok' }); export default r.content[0].text",
        '--config',
        config,
      ],
      s.state,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toContain('jsonc ok');
  });

  it('names the file, line and column of a syntax error and calls it a config, not a policy', async () => {
    const s = scratch();
    const config = s.write('mcpx.json', '{\n  "mcpServers": {\n    "a": { "command": "x" ]\n}\n');
    const run = await mcpx(['call', 'a.b', '--config', config], s.state);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`config file ${config}`);
    expect(run.stderr).toContain('line 3, column 27');
    expect(run.stderr).not.toContain('policy');
  });

  it("lists every problem once, and a bad elicit block does not hide the servers' problems", async () => {
    const s = scratch();
    const config = s.write(
      'mcpx.json',
      JSON.stringify({ mcpServers: { a: { command: 5 }, b: { url: 7 } }, elicit: { mode: 'sometimes' } }),
    );
    const run = await mcpx(['call', 'a.b', '--config', config], s.state);
    expect(run.code).toBe(1);
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines.filter((line) => line.includes('server "a"'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('server "b"'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('elicit.mode'))).toHaveLength(1);
    expect(run.stderr).toContain('expected "ask", "auto", "decline" or "error"');
    expect(run.stderr).not.toMatch(/(\S+): \1/);
  });

  it('prints the error as JSON on stdout with --json', async () => {
    const s = scratch();
    const config = s.write('mcpx.json', JSON.stringify({ mcpServers: { a: { command: 5 } } }));
    const run = await mcpx(['call', 'a.b', '--config', config, '--json'], s.state);
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; issues: Array<{ field: string }>; exit: number } };
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((issue) => issue.field)).toEqual(['mcpServers.a.command']);
    expect(error.exit).toBe(1);
  });

  it('starts no daemon for a config with a schema error', async () => {
    const s = scratch();
    const config = s.write('mcpx.json', JSON.stringify({ mcpServers: { fixture: { command: 'node', args: fixtureServer } } }));
    const run = await mcpx(['call', 'fixture.no_ask', 'text=hi', '--config', config], s.state);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('CONFIG_INVALID');
    const states = existsSync(s.state) ? readdirSync(s.state).filter((name) => /^daemon-.*\.json$/.test(name)) : [];
    const running = states
      .map((name) => JSON.parse(readFileSync(join(s.state, name), 'utf8')) as { pid: number })
      .filter((state) => isAlive(state.pid));
    for (const state of running) process.kill(state.pid);
    expect(running).toEqual([]);
  });

  it("keeps the config's TTL on a question a script leaves open", async () => {
    const s = scratch();
    const config = s.write(
      'mcpx.json',
      JSON.stringify({ mcpServers: { legacy: { command: 'node', args: [legacyServer, '--stdio'] } }, elicit: { ttl: '2h' } }),
    );
    const run = await mcpx(
      ['exec', "await tools.legacy.ask_form({ title: 'ttl' })", '--config', config, '--elicit=return'],
      s.state,
    );
    expect(run.code).toBe(75);
    expect(run.stdout).toContain('(2h0m0s from now)');
  });
});
