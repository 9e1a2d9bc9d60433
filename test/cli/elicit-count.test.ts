/** `mcpx elicit count`: the badge text, nothing when nothing waits, --json and --session, read from the state file. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBroker, defaultSqlitePath, openSqliteStore } from '../../src/broker/index.js';
import { runCli } from './helpers/run-cli.js';

describe('mcpx elicit count', () => {
  it('prints nothing when nothing waits, then "mcpx: N waiting", and {"waiting": N} with --json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-badge-'));
    const env = { HOME: dir, MCPX_STATE_DIR: join(dir, 'state') };
    const none = await runCli(['elicit', 'count'], { cwd: dir, env });
    expect(none).toEqual({ code: 0, stdout: '', stderr: '' });

    const store = await openSqliteStore(defaultSqlitePath(env));
    const broker = createBroker({ store, allowAnySession: true });
    try {
      for (const session of ['s-a', 's-b']) {
        await broker.openRequest({
          trace: 'cal-0000000000000001',
          session,
          sessionSource: 'explicit',
          server: 'fx',
          tool: 'ask_form',
          mode: 'form',
          message: 'Which repository?',
          era: 'legacy',
        });
      }
    } finally {
      await broker.close();
      await store.close();
    }
    expect(await runCli(['elicit', 'count'], { cwd: dir, env })).toMatchObject({ code: 0, stdout: 'mcpx: 2 waiting\n' });
    expect(JSON.parse((await runCli(['elicit', 'count', '--json'], { cwd: dir, env })).stdout)).toEqual({ waiting: 2 });
    expect((await runCli(['elicit', 'count', '--session', 's-b'], { cwd: dir, env })).stdout).toBe('mcpx: 1 waiting\n');
  });

  it('refuses arguments with a usage error', async () => {
    const run = await runCli(['elicit', 'count', 'elc-0000000000000000'], {
      cwd: tmpdir(),
      env: { MCPX_STATE_DIR: join(tmpdir(), 'nowhere') },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('count takes no arguments');
  });
});
