/**
 * What is checked before or around a request, on every surface: an unknown prompt or resource is named with its
 * close matches (as an unknown tool is), and arguments that miss a tool's input schema are refused with the field
 * before anything is sent, in `mcpx run` scripts and in the Node API as in `mcpx call`. The built CLI and the built
 * package, against the fixture servers (legacy v1 SDK and modern).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-checked-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOME: dir,
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
};
const servers = { legacy: stdioFixture('legacy-v1'), modern: { ...stdioFixture('dual-era'), era: 'modern' as const } };

function mcpx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [cli, ...args], { cwd: dir, env }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: servers }));
});
afterAll(async () => void (await mcpx(['daemon', 'stop'])));

describe('an unknown prompt or resource', () => {
  it('is named with the close matches, in both eras', async () => {
    for (const server of ['legacy', 'modern']) {
      const prompt = await mcpx(['prompt', 'get', server, 'ask_promt', '--json']);
      expect(prompt.code, prompt.stderr).toBe(1);
      const promptError = (JSON.parse(prompt.stdout) as { error: { code: string; message: string } }).error;
      expect(promptError.code, server).toBe('PROMPT_NOT_FOUND');
      expect(promptError.message).toContain(`${server} has no prompt named "ask_promt"; did you mean ask_prompt?`);
      expect(promptError.message).toContain(`mcpx prompt list ${server}`);

      const read = await mcpx(['resource', 'read', server, 'mcpx-fixture://asc']);
      expect(read.code, read.stderr).toBe(1);
      expect(read.stderr).toContain(`mcpx: ${server} has no resource "mcpx-fixture://asc"; did you mean mcpx-fixture://ask`);
      expect(read.stderr).toContain(`mcpx resource list ${server}`);
      expect(read.stderr).toContain('[RESOURCE_NOT_FOUND]');
    }
  });

  it('that exists but fails keeps the server error', async () => {
    const prompt = await mcpx(['prompt', 'get', 'modern', 'ask_prompt', '--arg', 'topic=x', '--elicit', 'error', '--json']);
    expect(prompt.code).toBe(1);
    expect(prompt.stdout).not.toContain('PROMPT_NOT_FOUND');
  });
});

describe('arguments that miss the input schema', () => {
  it('are refused with the field before sending, in an mcpx run script', async () => {
    writeFileSync(
      join(dir, 'bad-args.ts'),
      `let refused = {};
try {
  await tools.modern.sleep({ ms: 'soon' });
} catch (error) {
  refused = { name: error.name, code: error.code, message: error.message };
}
export default refused;
`,
    );
    const run = await mcpx(['run', 'bad-args.ts']);
    expect(run.code, run.stderr).toBe(0);
    const refused = JSON.parse(run.stdout) as { name: string; code: string; message: string };
    expect(refused.code).toBe('ARGUMENTS_INVALID');
    expect(refused.message).toContain('the arguments of modern.sleep do not match its input schema');
    expect(refused.message).toMatch(/ms/);
  });

  it('are refused with the field before sending, in the Node API with checkCalls', async () => {
    const { createMcpx } = (await import(
      pathToFileURL(join(root, 'dist', 'index.js')).href
    )) as typeof import('../../src/index.js');
    const host = await createMcpx({ config: { mcpServers: servers }, cwd: dir, env, checkCalls: true });
    try {
      const refused = await host.callTool('modern', 'sleep', { ms: 'soon' }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'ARGUMENTS_INVALID', data: { server: 'modern', tool: 'sleep' } });
      expect((refused as Error).message).toContain('the arguments of modern.sleep do not match its input schema');
      const unknown = await host.callTool('modern', 'slep', {}).catch((error: unknown) => error);
      expect(unknown).toMatchObject({ code: 'TOOL_NOT_FOUND' });
      expect((unknown as Error).message).toContain('did you mean sleep?');
      const fine = await host.callTool('modern', 'no_ask', { text: 'hi' });
      expect(fine.status).toBe('complete');
    } finally {
      await host.close();
    }
  });
});
