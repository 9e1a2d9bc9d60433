/**
 * Odd results (issue #33, item 10): a tool result nested thousands deep is reported as what it is, at once (not as a
 * timeout, nor as the store being unavailable), and a script whose default export cannot be JSON fails clearly
 * (non-zero exit) instead of printing `[object Object]`. Through the built CLI, on a raw stdio fixture server.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';

const root = resolve(import.meta.dirname, '..', '..');
const deepServer = join(root, 'test', 'fixtures', 'servers', 'deep-result.mjs');

function mcpx(args: string[], dir: string, stdin = ''): Promise<CliRun> {
  // The daemon's app runs inside the command (MCPX_DAEMON=inline): no daemon process is left behind.
  const env = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: join(dir, 'state'), MCPX_DAEMON: 'inline' };
  return runCli(args, { cwd: dir, env, stdin, timeoutMs: 90_000 });
}

function deepConfig(depth: number): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-odd-'));
  const config = join(dir, 'mcpx.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { deep: { command: process.execPath, args: [deepServer], env: { DEPTH: String(depth) } } } }),
  );
  return { dir, config };
}

describe('a tool result nested 5,000 deep', () => {
  it('fails the call saying the result is nested too deep (mcpx call)', async () => {
    const { dir, config } = deepConfig(5000);
    const ran = await mcpx(['call', 'deep.deep', '--config', config], dir);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('deep.deep returned a result nested more than 1000 levels deep');
    expect(ran.stderr).toContain('[CALL_FAILED]');
    expect(ran.stderr).not.toContain('did not answer');
    expect(ran.stderr).not.toContain('STORE_UNAVAILABLE');
  });

  it('fails the script with the same words (mcpx exec)', async () => {
    const { dir, config } = deepConfig(5000);
    const script =
      'try { await tools.deep.deep({}); } catch (error) { console.log("caught: " + error.message); }\nexport default "done";';
    const ran = await mcpx(['exec', '-', '--config', config], dir, script);
    expect(ran.stderr).toContain('caught: deep.deep returned a result nested more than 1000 levels deep');
    expect(ran.code).toBe(0);
  });

  it('passes a result nested 200 deep as it came', async () => {
    const { dir, config } = deepConfig(200);
    const ran = await mcpx(['call', 'deep.deep', '--json', '--config', config], dir);
    expect(ran.code).toBe(0);
    let node = (JSON.parse(ran.stdout) as { structuredContent: { nested: Record<string, unknown> } }).structuredContent.nested;
    let depth = 0;
    while ('a' in node) {
      node = node.a as Record<string, unknown>;
      depth += 1;
    }
    expect(depth).toBe(200);
    expect(node).toEqual({ leaf: true });
  });
});

describe('a script whose default export cannot be JSON', () => {
  it('exits 1 naming the cycle instead of printing [object Object] (mcpx exec)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-odd-'));
    const ran = await mcpx(['exec', 'const a: any = { name: "a" }; a.self = a; export default a;'], dir);
    expect(ran.code).toBe(1);
    expect(ran.stdout).not.toContain('[object Object]');
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain("the script's default export cannot be returned as JSON");
    expect(ran.stderr).toMatch(/circular|cycl/i);
  });

  it('exits 1 for a BigInt export too, and still prints plain data as before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-odd-'));
    const big = await mcpx(['exec', 'export default { n: 10n };'], dir);
    expect(big.code).toBe(1);
    expect(big.stderr).toContain("the script's default export cannot be returned as JSON");
    const plain = await mcpx(['exec', 'export default { list: [1, "two", { three: true }], none: null };'], dir);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual({ list: [1, 'two', { three: true }], none: null });
  });

  it('reports a CPU-limit overrun while the export is made, never a success (mcpx run)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-odd-'));
    const file = join(dir, 'slow-export.ts');
    // toJSON runs inside the export's serialisation, past the CPU limit.
    writeFileSync(file, 'export default { toJSON() { for (;;) {} } };\n');
    const ran = await mcpx(['run', file, '--cpu-limit', '200ms'], dir);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('more than 200 ms of CPU time');
    expect(ran.stderr).toContain('[SCRIPT_TIMEOUT]');
  });
});
