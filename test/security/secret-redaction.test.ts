/**
 * Secrets stay out of messages and the store (issue #33, item 4), on the built CLI as a user runs it. A stdio server
 * whose `args` carry `${MYTOKEN}`, and one whose `env` is an asked credential already in the secret store, both fail
 * to start and write what they were given to stderr. `mcpx call` and `mcpx list`, in text and `--json`, show the
 * config's `${MYTOKEN}` and a placeholder for the stored credential, never either value; the SQLite state file (the
 * task records, the audit trail) and every other file the daemon wrote hold neither.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { McpxError } from '../../src/errors.js';
import { createMcpx } from '../../src/mcpx.js';
import { openSecretStore } from '../../src/secrets/index.js';
import { runCli } from '../helpers/cli-run.js';

const token = `tok-${randomBytes(12).toString('hex')}`;
const stored = `kept-${randomBytes(12).toString('hex')}`;

interface Run {
  code: number;
  out: string;
}

let home: string;
let stateDir: string;
let run: (args: string[]) => Promise<Run>;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpx-redaction-'));
  const configDir = join(home, 'config');
  stateDir = join(home, 'state');
  const cwd = join(home, 'work');
  for (const dir of [configDir, stateDir, cwd]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  // A server that refuses its credentials out loud: both on stderr, then exit before any MCP.
  const refuser = join(home, 'refuser.mjs');
  writeFileSync(
    refuser,
    `process.stderr.write('refused ' + process.argv.slice(2).join(' ') + ' env=' + (process.env.ASKED_TOKEN ?? '') + '\\n');\nprocess.exit(3);\n`,
  );
  writeFileSync(
    join(configDir, 'mcpx.json'),
    JSON.stringify({
      mcpServers: {
        leaky: { command: process.execPath, args: [refuser, '--token=${MYTOKEN}'] },
        asked: { command: process.execPath, args: [refuser], env: { ASKED_TOKEN: { ask: 'API token', secret: true } } },
      },
    }),
  );
  // The asked credential is already in the file secret store, as a past answer would have left it.
  writeFileSync(join(stateDir, 'secrets.json'), JSON.stringify({ 'credential:asked': { 'env.ASKED_TOKEN': stored } }), {
    mode: 0o600,
  });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MCPX_CONFIG_DIR: configDir,
    MCPX_STATE_DIR: stateDir,
    MCPX_SECRET_STORE: 'file',
    MYTOKEN: token,
  };
  run = async (args) => {
    const { code, stdout, stderr } = await runCli(args, { cwd, env, timeoutMs: 60_000 });
    return { code, out: `${stdout}\n${stderr}` };
  };
});

afterAll(async () => {
  await run(['daemon', 'stop']);
});

function expectClean(text: string): void {
  expect(text).not.toContain(token);
  expect(text).not.toContain(stored);
}

describe('a secret in a failing server’s command line, env and stderr', () => {
  it('mcpx call shows the config’s ${MYTOKEN}, never the value, in text and --json', async () => {
    const text = await run(['call', 'leaky.anything']);
    expect(text.code).not.toBe(0);
    expect(text.out).toContain('CONNECT_FAILED');
    expect(text.out).toContain('--token=${MYTOKEN}');
    expectClean(text.out);

    const json = await run(['call', 'leaky.anything', '--json']);
    const body = JSON.parse(json.out.trim().split('\n\n')[0]!) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('CONNECT_FAILED');
    // The stderr tail is kept in the message, with the value replaced there too.
    expect(body.error.message).toMatch(/refused --token=\$\{MYTOKEN\}/);
    expectClean(json.out);
  });

  it('a value from the secret store never shows, even when the server prints it', async () => {
    for (const args of [
      ['call', 'asked.anything'],
      ['call', 'asked.anything', '--json'],
    ]) {
      const result = await run(args);
      expect(result.out).toContain('CONNECT_FAILED');
      expect(result.out).toContain('[secret env.ASKED_TOKEN]');
      expectClean(result.out);
    }
  });

  it('mcpx list names the failures without the values', async () => {
    const text = await run(['list']);
    expect(text.out).toMatch(/leaky\s+failed/);
    expectClean(text.out);
    const json = await run(['list', '--json']);
    const body = JSON.parse(json.out.trim().split('\n\n')[0]!) as { servers: Array<{ server: string; status: string }> };
    expect(body.servers.map((s) => `${s.server}:${s.status}`).sort()).toEqual(['asked:failed', 'leaky:failed']);
    expectClean(json.out);
  });

  it('the state file holds the task records of the failed calls, and neither value', async () => {
    const json = await run(['call', 'leaky.anything', '--json']);
    const task = /"task": "(tsk-[0-9a-f]{16})"/.exec(json.out)?.[1];
    expect(task).toBeDefined();
    // Stopped, so the WAL is checkpointed into mcpx.sqlite; every file is read as bytes anyway.
    expect((await run(['daemon', 'stop'])).code).toBe(0);
    const files = readdirSync(stateDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name !== 'secrets.json')
      .map((entry) => join(entry.parentPath, entry.name));
    const bytes = Buffer.concat(files.map((path) => readFileSync(path)));
    expect(files.some((path) => path.endsWith('mcpx.sqlite'))).toBe(true);
    expect(bytes.includes(task!)).toBe(true);
    expect(bytes.includes('${MYTOKEN}')).toBe(true);
    expect(bytes.includes(token)).toBe(false);
    expect(bytes.includes(stored)).toBe(false);
  });
});

describe('a secret in a CLI adapter’s command line', () => {
  it('shows as ${MYTOKEN} in the tool’s description, its write confirmation and its failure', async () => {
    // The program prints its whole command line to stderr and fails, as a program refusing a token might.
    const shout = 'process.stderr.write("refused " + process.argv.slice(1).join(" ")); process.exit(2)';
    const questions: string[] = [];
    const mcpx = await createMcpx({
      config: {
        mcpServers: {
          tool: {
            cli: process.execPath,
            args: ['-e', shout, '--', '--token=${MYTOKEN}'],
            commands: { push: { description: 'Pushes.', args: [], writes: true } },
          },
        },
      } as never,
      env: { PATH: process.env.PATH ?? '', MYTOKEN: token },
      eraCache: createMemoryEraCache(),
      onElicit: async (question) => {
        questions.push(question.message);
        return { action: 'accept', content: {} };
      },
    });
    try {
      const [tool] = await mcpx.listTools('tool');
      expect(tool!.description).toContain('--token=${MYTOKEN}');
      const outcome = await mcpx.callTool('tool', 'push', {});
      expect(questions).toHaveLength(1);
      expect(questions[0]).toContain('--token=${MYTOKEN}');
      const shown = JSON.stringify(outcome);
      expect(shown).toContain('refused --token=${MYTOKEN}');
      expectClean(JSON.stringify([tool, questions, outcome]));
    } finally {
      await mcpx.close();
    }
  });
});

describe('a value of the secret store, anywhere in the process', () => {
  it('is in no McpxError message once read or written, and only a JSON record’s secret fields count', async () => {
    const store = await openSecretStore({ stateDir: mkdtempSync(join(tmpdir(), 'mcpx-redaction-store-')), prefer: 'file' });
    const access = `at-${randomBytes(12).toString('hex')}`;
    await store.set('oauth', 'srv tokens', JSON.stringify({ access_token: access, token_type: 'Bearer' }));
    const read = await store.get('credential:asked', 'env.NOT_THERE');
    expect(read).toBeUndefined();
    const fresh = `fresh-${randomBytes(12).toString('hex')}`;
    await store.set('credential:x', 'env.X_TOKEN', fresh);
    const message = new McpxError('CALL_FAILED', `upstream said: bad ${access} (Bearer) and ${fresh}`).message;
    expect(message).toBe('upstream said: bad [secret srv tokens access_token] (Bearer) and [secret env.X_TOKEN]');
  });
});
