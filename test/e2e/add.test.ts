/**
 * Issue 38: `mcpx add` writes a working server entry into the config in use, keeping the file's comments; a
 * credential the server needs (`--env KEY` without a value) is written as `{"ask": ..., "secret": true}`, so the
 * first use asks for it (exit 75, mcpx's own question) instead of starting the server without it. A name in use is
 * refused unless --force; with no config file, ./mcpx.json is created. Built CLI processes, real fixture servers.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup, type ServeSetup } from '../helpers/serve.js';

const root = resolve(import.meta.dirname, '..', '..');
const dualEra = join(root, 'examples', 'servers', 'dual-era.mjs');
const needsToken = join(root, 'test', 'fixtures', 'servers', 'needs-token.mjs');

const COMMENTED = `// the servers of this project
{
  "mcpServers": {
    "other": { "command": "true" } // kept as written
  }
}
`;

describe('mcpx add', () => {
  let setup: ServeSetup;
  beforeAll(() => {
    // A real daemon for the first use's question (not inline: it holds the question after the call exits).
    setup = serveSetup({}, { MCPX_SESSION_ID: 'add-e2e', MCPX_SECRET_STORE: 'file', MCPX_DAEMON: '' });
    writeFileSync(setup.configPath, COMMENTED);
  });
  afterAll(async () => {
    await setup.cli(['daemon', 'stop']);
  });

  it('writes a working entry and keeps the comments; a name in use is refused unless --force', async () => {
    const added = await setup.cli(['add', 'dual', '--', process.execPath, dualEra]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`added server "dual"`);
    const text = readFileSync(setup.configPath, 'utf8');
    expect(text).toContain('// the servers of this project');
    expect(text).toContain('"other": { "command": "true" }, // kept as written');
    expect(parse(text).mcpServers.dual).toEqual({ command: process.execPath, args: [dualEra] });

    const listed = await setup.cli(['list', 'dual', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { tools: unknown[] }).tools.length).toBeGreaterThan(0);

    const again = await setup.cli(['add', 'dual', '--', 'elsewhere']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('SERVER_EXISTS');
    expect(readFileSync(setup.configPath, 'utf8')).toBe(text);
    const forced = await setup.cli(['add', 'dual', '--force', '--era', 'modern', '--', process.execPath, dualEra]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(parse(readFileSync(setup.configPath, 'utf8')).mcpServers.dual).toEqual({
      command: process.execPath,
      args: [dualEra],
      era: 'modern',
    });
  });

  it('writes a needed credential as asked at first use, and the first call asks for it', async () => {
    const added = await setup.cli([
      'add',
      'tok',
      '--env',
      'FIXTURE_TOKEN',
      '--env',
      'MODE=plain',
      '--',
      process.execPath,
      needsToken,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('asks for FIXTURE_TOKEN at first use');
    expect(parse(readFileSync(setup.configPath, 'utf8')).mcpServers.tok.env).toEqual({
      FIXTURE_TOKEN: { ask: 'FIXTURE_TOKEN', secret: true },
      MODE: 'plain',
    });
    const call = await setup.cli(['call', 'tok.whoami']);
    expect(call.code, call.stdout + call.stderr).toBe(75);
    expect(call.stdout).toContain('the environment variable FIXTURE_TOKEN');
    const id = /mcpx elicit answer (elc-[0-9a-f]{16})/.exec(call.stdout)?.[1];
    const shown = await setup.cli(['elicit', 'list', '--json']);
    const pending = (JSON.parse(shown.stdout) as { elicitations: Array<{ id: string; asker?: string }> }).elicitations;
    expect(pending.find((q) => q.id === id)).toMatchObject({ asker: 'mcpx' });
    // mcpx doctor asks for it too, rather than only report it.
    const doctor = await setup.cli(['doctor', 'tok']);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(75);
    expect(doctor.stdout).toMatch(/mcpx elicit answer elc-[0-9a-f]{16}/);
    expect(doctor.stdout).toContain('the environment variable FIXTURE_TOKEN');
  });

  it('creates ./mcpx.json where no config is found, and an http server asks for its header', async () => {
    const dir = join(setup.dir, 'fresh');
    mkdirSync(dir);
    const named = join(dir, 'named.json');
    const written = await setup.cli(['add', 'plain', '--config', named, '--', 'true']);
    expect(written.code, written.stderr).toBe(0);
    expect(parse(readFileSync(named, 'utf8'))).toEqual({ mcpServers: { plain: { command: 'true' } } });
    // Run where no config is found (HOME is the directory, so the search stops there): ./mcpx.json is created.
    const created = await new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
      execFile(
        process.execPath,
        [join(root, 'dist', 'cli.js'), 'add', 'remote', 'https://example.com/mcp', '--header', 'Authorization'],
        { cwd: dir, env: { ...setup.env, HOME: dir }, timeout: 60_000 },
        (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`created ${join(dir, 'mcpx.json')}`);
    expect(parse(readFileSync(join(dir, 'mcpx.json'), 'utf8'))).toEqual({
      mcpServers: {
        remote: { url: 'https://example.com/mcp', headers: { Authorization: { ask: 'Authorization', secret: true } } },
      },
    });
  });
});
