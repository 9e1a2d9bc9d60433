/**
 * MCPX_ELICIT_TTL_MS reaches a daemon that is already running: the built CLI sends it with each call, and the
 * call's questions get that deadline (legacy and modern servers; prompts and resource reads too), while a call without it keeps the daemon's; the
 * config's elicit.ttl wins over it, as in `mcpx run`. The deadlines are read with `mcpx elicit list` run as a function,
 * a client of the same daemon.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/helpers/run-cli.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-daemon-ttl-'));
const baseEnv = {
  PATH: process.env.PATH ?? '',
  HOME: dir,
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
};

function mcpx(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [cli, ...args], { cwd: dir, env: { ...baseEnv, ...env } }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** The deadline the daemon gave the question a call stopped at, in ms after it was opened. */
async function ttlOfQuestionIn(stdout: string, ...listArgs: string[]): Promise<number> {
  const id = /elc-[0-9a-f]{16}/.exec(stdout)?.[0];
  const listed = await runCli(['elicit', 'list', '--json', ...listArgs], { cwd: dir, env: baseEnv });
  const question = (
    JSON.parse(listed.stdout) as { elicitations: Array<{ id: string; createdAt: number; expiresAt: number }> }
  ).elicitations.find((q) => q.id === id);
  if (!question) throw new Error(`${id} is not listed: ${listed.stdout}`);
  return question.expiresAt - question.createdAt;
}

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({ mcpServers: { legacy: stdioFixture('legacy-v1'), modern: { ...stdioFixture('dual-era'), era: 'modern' } } }),
  );
});
afterAll(async () => void (await mcpx(['daemon', 'stop'])));

describe('the TTL of a call to a running daemon', () => {
  it("applies the caller's MCPX_ELICIT_TTL_MS, per call, in both eras", async () => {
    const first = await mcpx(['call', 'legacy.ask_form']); // starts the daemon with the default TTL
    expect(first.code, first.stderr).toBe(75);
    expect(await ttlOfQuestionIn(first.stdout)).toBeGreaterThan(100_000);

    for (const server of ['legacy', 'modern']) {
      const short = await mcpx(['call', `${server}.ask_form`], { MCPX_ELICIT_TTL_MS: '9000' });
      expect(short.code, short.stderr).toBe(75);
      expect(short.stderr).toBe('');
      const ttl = await ttlOfQuestionIn(short.stdout);
      expect(ttl, server).toBeLessThanOrEqual(9000);
      expect(ttl, server).toBeGreaterThan(1000);
    }

    const again = await mcpx(['call', 'modern.ask_form']);
    expect(await ttlOfQuestionIn(again.stdout)).toBeGreaterThan(100_000);
  });

  it('applies it to mcpx prompt get and mcpx resource read as to a call, in both eras', async () => {
    for (const server of ['legacy', 'modern']) {
      const prompt = await mcpx(['prompt', 'get', server, 'ask_prompt'], { MCPX_ELICIT_TTL_MS: '9000' });
      expect(prompt.code, prompt.stderr).toBe(75);
      const promptTtl = await ttlOfQuestionIn(prompt.stdout);
      expect(promptTtl, server).toBeLessThanOrEqual(9000);
      expect(promptTtl, server).toBeGreaterThan(1000);

      const read = await mcpx(['resource', 'read', server, 'mcpx-fixture://ask'], { MCPX_ELICIT_TTL_MS: '8000' });
      expect(read.code, read.stderr).toBe(75);
      const readTtl = await ttlOfQuestionIn(read.stdout);
      expect(readTtl, server).toBeLessThanOrEqual(8000);
      expect(readTtl, server).toBeGreaterThan(1000);
    }
    // Without it, the daemon's own deadline stands.
    const plain = await mcpx(['prompt', 'get', 'modern', 'ask_prompt']);
    expect(plain.code, plain.stderr).toBe(75);
    expect(await ttlOfQuestionIn(plain.stdout)).toBeGreaterThan(100_000);
  });

  it("keeps the config's elicit.ttl over the caller's", async () => {
    const own = join(dir, 'own-ttl');
    mkdirSync(own);
    writeFileSync(
      join(own, 'mcpx.json'),
      JSON.stringify({ elicit: { ttl: '45s' }, mcpServers: { legacy: stdioFixture('legacy-v1') } }),
    );
    const call = await mcpx(['call', 'legacy.ask_form', '--config', join(own, 'mcpx.json')], { MCPX_ELICIT_TTL_MS: '9000' });
    expect(call.code, call.stderr).toBe(75);
    const ttl = await ttlOfQuestionIn(call.stdout, '--config', join(own, 'mcpx.json'));
    expect(ttl).toBeGreaterThan(9000);
    expect(ttl).toBeLessThanOrEqual(45_000);
    await mcpx(['daemon', 'stop', '--config', join(own, 'mcpx.json')]);
  });

  it('refuses a TTL that is not a positive number before calling', async () => {
    const bad = await mcpx(['call', 'legacy.ask_form'], { MCPX_ELICIT_TTL_MS: 'soon' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('MCPX_ELICIT_TTL_MS must be a positive number of milliseconds, got "soon"');
  });
});
