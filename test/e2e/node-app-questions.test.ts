/**
 * The docs/client.md recipe, run as a user runs it (`node examples/node-app-questions/run.mjs`, which checks its own
 * output): a Node app whose questions live in its own SQLite file, then in Redis, answered from the built CLI and
 * over REST on a daemon, the calls resuming in the app.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis.js';

const root = resolve(import.meta.dirname, '..', '..');
const example = join(root, 'examples', 'node-app-questions', 'run.mjs');

function runExample(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [example, ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 },
      (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

describe('examples/node-app-questions', () => {
  it("keeps the app's questions in its own SQLite file, answered from the CLI and REST", async () => {
    const result = await runExample([]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('ok: questions lived in a SQLite file');
    expect(result.code).toBe(0);
  });

  it('keeps them in Redis the same way', async () => {
    const result = await runExample([redis.url]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('ok: questions lived in Redis');
    expect(result.code).toBe(0);
  });
});
