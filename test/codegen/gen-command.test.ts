import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/surfaces/cli/main.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { captureIO, type CliRun } from '../cli/helpers/run-cli.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function run(argv: string[], cwd: string, state: string): Promise<CliRun> {
  const c = captureIO({ env: { ...process.env, MCPX_STATE_DIR: state }, cwd });
  const code = await main(argv, c.io);
  return { code, stdout: c.out(), stderr: c.err() };
}

describe('mcpx gen', () => {
  it('writes a client, skips an unchanged server, and --check tells fresh from stale', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-gen-'));
    writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: { 'fx-dual': stdioFixture('dual-era') } }));
    const state = join(dir, 'state');

    const first = await run(['gen', '--out', 'gen'], dir, state);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`wrote ${join(dir, 'gen', 'fx-dual.ts')} (8 tools)`);
    const module = readFileSync(join(dir, 'gen', 'fx-dual.ts'), 'utf8');
    expect(module).toContain('export function createFxDualTools(mcpx: ToolCaller, server = "fx-dual"): FxDualTools');
    expect(module).toContain('from "mcpx"');
    const mtime = statSync(join(dir, 'gen', 'fx-dual.ts')).mtimeMs;

    const second = await run(['gen', '--out', 'gen'], dir, state);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('unchanged, 2 file(s)');
    expect(statSync(join(dir, 'gen', 'fx-dual.ts')).mtimeMs).toBe(mtime);

    expect((await run(['gen', '--out', 'gen', '--check'], dir, state)).code).toBe(0);
    writeFileSync(
      join(dir, 'gen', 'fx-dual.ts'),
      module.replace(/mcpx-schema-hash: [0-9a-f]{64}/, `mcpx-schema-hash: ${'0'.repeat(64)}`),
    );
    const stale = await run(['gen', '--out', 'gen', '--check'], dir, state);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`stale: ${join(dir, 'gen', 'fx-dual.ts')} (schemas changed)`);
    expect(stale.stderr).toContain('1 of 2 generated file(s) are stale');

    const regenerated = await run(['gen', '--out', 'gen'], dir, state);
    expect(regenerated.stdout).toContain(`wrote ${join(dir, 'gen', 'fx-dual.ts')}`);
    expect(regenerated.stdout).toContain(`unchanged ${join(dir, 'gen', 'index.ts')}`);
    expect(readFileSync(join(dir, 'gen', 'fx-dual.ts'), 'utf8')).toBe(module);
  });

  it('writes script declarations with --types-only, and --check fails when they are missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-gen-'));
    writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: { fx: stdioFixture('legacy-v1') } }));
    const state = join(dir, 'state');
    const missing = await run(['gen', '--types-only', '--check', '--out', 'types'], dir, state);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('(missing or not generated)');
    const written = await run(['gen', '--types-only', '--out', 'types'], dir, state);
    expect(written.code).toBe(0);
    const text = readFileSync(join(dir, 'types', 'mcpx-env.d.ts'), 'utf8');
    expect(text).toContain('declare const tools: McpxTools.Servers;');
    expect(text).toContain('readonly fx: Fx.Tools;');
    expect(text).toContain('declare function onElicit(');
  });

  it('fails with a clear message for a server that is not configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-gen-'));
    writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: { fx: stdioFixture('dual-era') } }));
    const result = await run(['gen', 'nope', '--out', 'gen'], dir, join(dir, 'state'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/nope/);
  });

  // The npm servers are pinned, so their committed clients must match; our own fixture servers change as the
  // project grows (their clients are regenerated with the same command, see docs/codegen.md).
  it('finds the committed clients of the npm servers up to date (regenerate with the command in docs/codegen.md)', async () => {
    const state = mkdtempSync(join(tmpdir(), 'mcpx-gen-state-'));
    const config = ['--config', 'test/fixtures/codegen-servers.json'];
    const client = await run(
      [
        'gen',
        'everything',
        'filesystem',
        'memory',
        ...config,
        '--out',
        'test/fixtures/generated/client',
        '--runtime-import',
        '../../../../src/index.js',
        '--check',
      ],
      root,
      state,
    );
    expect(client.stderr).toBe('');
    expect(client.code).toBe(0);
  });
});
