/**
 * The spec's URL-required error (-32042, 2025-11-25) is a url question like any other, on the built CLI, headless:
 * `mcpx call` exits 75 with the URL and its domain (and `--json` carries them), another process answers it (accept:
 * the person completed the page), and the call is retried and its result collected with `mcpx task result`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { createMcpx } from '../../src/mcpx.js';
import type { Question } from '../../src/types.js';
import { runCli, type CliRun } from '../helpers/cli-run.js';

const root = resolve(import.meta.dirname, '..', '..');
const fixture = join(root, 'test', 'fixtures', 'servers', 'url-required.mjs');
const urlFor = (account: string): string => `https://accounts.example.com/authorize?id=${account}`;

const dir = mkdtempSync(join(tmpdir(), 'mcpx-url-required-'));
writeFileSync(
  join(dir, 'mcpx.json'),
  JSON.stringify({ mcpServers: { acct: { command: process.execPath, args: [fixture], era: 'legacy' } } }),
);
const env = {
  PATH: process.env.PATH ?? '',
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
  HOME: dir,
};

const run = (args: string[], extra: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, { cwd: dir, env: { ...env, ...extra }, timeoutMs: 20_000 });

afterAll(async () => {
  await run(['daemon', 'stop']);
});

describe('a call answered with -32042', () => {
  it('exits 75 with the URL and its domain, is answered from another process, and is retried', async () => {
    const text = await run(['call', 'acct.connect_account', 'account=first']);
    expect(text.code, text.stdout + text.stderr).toBe(75);
    const shown = text.stdout + text.stderr;
    expect(shown).toContain(`${urlFor('first')} (accounts.example.com)`);
    expect(shown).not.toContain('CALL_FAILED');
    // Dismissed, the call fails saying so (the question is not left waiting).
    const id = /mcpx elicit answer (elc-[0-9a-f]{16})/.exec(shown)?.[1];
    expect(id, shown).toBeDefined();
    expect((await run(['elicit', 'cancel', id!])).code).toBe(0);
    const task = /mcpx task result (tsk-[0-9a-f]{16})/.exec(shown)?.[1];
    const dismissed = await run(['task', 'result', task!]);
    expect(dismissed.code).not.toBe(0);
    expect(dismissed.stderr).toContain('its question was answered cancel');

    const asked = await run(['call', 'acct.connect_account', 'account=second', '--json']);
    expect(asked.code, asked.stdout + asked.stderr).toBe(75);
    const { inputRequired } = JSON.parse(asked.stdout) as {
      inputRequired: { task: string; questions: Array<{ id: string; mode: string; url?: string }> };
    };
    expect(inputRequired.questions).toHaveLength(1);
    expect(inputRequired.questions[0]).toMatchObject({ mode: 'url', url: urlFor('second') });

    const answered = await run(['elicit', 'answer', inputRequired.questions[0]!.id]);
    expect(answered.code, answered.stdout + answered.stderr).toBe(0);
    const result = await run(['task', 'result', inputRequired.task, '--json']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('account second linked');
  });
});

describe('a call answered with -32042, with no daemon (MCPX_DAEMON=inline)', () => {
  it('exits 75 with the URL at once: the question ends with the command, nothing keeps it running', async () => {
    const inline = await run(['call', 'acct.connect_account', 'account=inline'], { MCPX_DAEMON: 'inline' });
    expect(inline.code, inline.stdout + inline.stderr).toBe(75);
    expect(inline.stdout + inline.stderr).toContain(`${urlFor('inline')} (accounts.example.com)`);
  });
});

describe("server-everything's -32042 (trigger-url-elicitation with errorPath)", () => {
  it('reaches onElicit as a url question, and the call is retried once the page was opened', async () => {
    const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
    const seen: Question[] = [];
    const opened: string[] = [];
    const mcpx = await createMcpx({
      config: { mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } },
      eraCache: createMemoryEraCache(),
      onElicit: async (question) => {
        seen.push(question);
        return { action: 'accept' };
      },
      openUrl: async (url) => {
        opened.push(url);
        return true;
      },
    });
    try {
      // Its asking tools appear just after initialize (tools/list_changed): wait until they are listed.
      for (let i = 0; i < 50 && !(await mcpx.listTools('everything')).some((t) => t.name === 'trigger-url-elicitation'); i++)
        await new Promise((r) => setTimeout(r, 100));
      const page = 'https://example.com/connect';
      const prerequisite = 'https://modelcontextprotocol.io';
      const outcome = await mcpx.callTool('everything', 'trigger-url-elicitation', {
        url: page,
        elicitationId: 'consent-1',
        errorPath: true,
      });
      expect(outcome.status).toBe('complete');
      // The error names a prerequisite page of its own (with its own elicitationId); the retry then asks for the
      // tool's page on the request path (elicitation/create), as server-everything documents.
      expect(seen.map((q) => [q.mode, q.url])).toEqual([
        ['url', prerequisite],
        ['url', page],
      ]);
      expect(seen[0]!.elicitationId).toEqual(expect.any(String));
      expect(opened).toEqual([prerequisite, page]);
    } finally {
      await mcpx.close();
    }
  });
});
