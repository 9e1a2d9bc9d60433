/**
 * Issue #33, item 1: a question mcpx asks on its own behalf (here a CLI adapter's write confirmation) is a person's.
 * Through `mcpx serve` (the built CLI over stdio, a v2 SDK client that declares no elicitation), the agent's
 * `mcpx_elicit_answer accept` is refused and recorded, the question stays pending and the command never runs; the
 * agent's decline is taken (re-raised to the person); the person's `mcpx elicit answer` from another process lets
 * the write run. A script's own onElicit accepting the confirmation is refused too, and nothing runs.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroker, openSqliteStore } from '../../src/broker/index.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { createMcpx } from '../../src/mcpx.js';
import { openFileSecretStore } from '../../src/secrets/file-store.js';
import { serveSetup, textOf, v2Client, type ServeSetup, type TestClient } from '../helpers/serve.js';

/** A CLI adapter whose one write appends its text to `mark`: the file exists only once the command ran. */
function recorder(mark: string): Record<string, unknown> {
  return {
    cli: process.execPath,
    args: ['-e', "require('node:fs').appendFileSync(process.argv[1], process.argv[2] + '\\n')", mark],
    commands: {
      record: {
        writes: true,
        args: ['{text}'],
        input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
    },
  };
}

const idIn = (text: string, prefix: 'elc' | 'tsk'): string => {
  const found = new RegExp(`${prefix}-[0-9a-f]{16}`).exec(text);
  if (!found) throw new Error(`no ${prefix}- id in: ${text}`);
  return found[0];
};

describe('an agent through mcpx serve cannot approve its own write', () => {
  let setup: ServeSetup;
  let agent: TestClient;
  let mark: string;
  beforeAll(async () => {
    setup = serveSetup({}, { MCPX_SESSION_ID: 'own-questions-serve' });
    mark = join(setup.dir, 'written.txt');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(setup.configPath, JSON.stringify({ mcpServers: { notes: recorder(mark) } }));
    agent = await v2Client(setup, { era: 'modern' });
  });
  afterAll(() => agent?.close());

  it("refuses the agent's accept, takes its decline, and runs the write only on the person's answer", async () => {
    const first = await agent.callTool('record', { text: 'from the agent' });
    const text = textOf(first);
    expect(text).toContain('proceed?');
    const id = idIn(text, 'elc');
    const task = idIn(text, 'tsk');
    const refused = await agent.callTool('mcpx_elicit_answer', { id, action: 'accept', content: {}, waitSeconds: 2 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/only the person may accept it/);
    expect(existsSync(mark)).toBe(false);
    const listed = (await agent.callTool('mcpx_elicit_list')).structuredContent as {
      questions: Array<{ id: string; forPerson: boolean }>;
    };
    expect(listed.questions.find((q) => q.id === id)?.forPerson).toBe(true);

    // The agent that cannot know declines: taken, and the question goes to the person.
    const declined = await agent.callTool('mcpx_elicit_answer', { id, action: 'decline', waitSeconds: 0 });
    expect(declined.isError).toBeFalsy();
    expect(textOf(declined)).toContain('goes to the person');

    const pending = await setup.cli(['elicit', 'list', '--json']);
    expect(pending.code).toBe(0);
    const { elicitations: questions } = JSON.parse(pending.stdout) as {
      elicitations: Array<{ id: string; state: string; asker?: string }>;
    };
    expect(questions.find((q) => q.id === id)).toMatchObject({ state: 'pending', asker: 'mcpx' });
    expect(existsSync(mark)).toBe(false);

    // Who tried is in the audit trail.
    const log = await setup.cli(['log', '--json']);
    const events = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; elicit?: string; by?: string; data?: { answerer?: string } });
    expect(events.filter((e) => e.elicit === id && e.kind === 'elicit.refused')).toEqual([
      expect.objectContaining({ by: 'agent', data: expect.objectContaining({ answerer: 'agent' }) }),
    ]);

    const person = await setup.cli(['elicit', 'answer', id, '{}']);
    expect(person.stderr).toContain(`accepted ${id}`);
    expect(person.code).toBe(0);
    const result = await agent.callTool('mcpx_call_result', { task, waitSeconds: 20 });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(mark, 'utf8')).toBe('from the agent\n');
  });
});

describe("a Node app's onElicit cannot supply a credential mcpx asks for", () => {
  it('is refused (the server is not started with its value); the person answering from the store starts it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-own-credential-'));
    const server = join(import.meta.dirname, '..', 'fixtures', 'servers', 'needs-token.mjs');
    const app = await createMcpx({
      config: {
        mcpServers: {
          // Not `secret`: the broker would keep the value in its own secret store (outside this test's dir).
          tok: { command: process.execPath, args: [server], env: { FIXTURE_TOKEN: { ask: 'API token' } } },
        },
      } as never,
      store: `sqlite:${join(dir, 'store.sqlite')}`,
      secrets: openFileSecretStore(dir),
      eraCache: createMemoryEraCache(),
      env: { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: dir },
      onElicit: async () => ({ action: 'accept', content: { value: 'made-up-by-the-app' } }),
    });
    try {
      const first = await app.callTool('tok', 'whoami', {});
      expect(first.status).toBe('input-required');
      if (first.status !== 'input-required') return;
      const id = first.questions[0]!.id;
      expect(await openFileSecretStore(dir).get('credential:tok', 'env.FIXTURE_TOKEN')).toBeUndefined();
      const refused = (await app.broker.audit({})).filter((e) => e.kind === 'elicit.refused' && e.elicit === id);
      expect(refused.map((e) => e.data?.answerer)).toEqual(['script']);
      // The person, through the store (as `mcpx elicit answer` does).
      await app.answer(id, { action: 'accept', content: { value: 'from-the-person' } }, { by: 'cli' });
      const done = await app.result(first.task!, { timeoutMs: 20_000 });
      expect(done.status).toBe('complete');
      expect(await openFileSecretStore(dir).get('credential:tok', 'env.FIXTURE_TOKEN')).toBe('from-the-person');
      expect(JSON.stringify(done.status === 'complete' ? done.result : undefined)).toContain(
        createHash('sha256').update('from-the-person').digest('hex'),
      );
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a script's onElicit cannot approve its own write", () => {
  let setup: ServeSetup;
  let mark: string;
  beforeAll(async () => {
    setup = serveSetup({}, { MCPX_SESSION_ID: 'own-questions-script' });
    mark = join(setup.dir, 'written.txt');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(setup.configPath, JSON.stringify({ mcpServers: { notes: recorder(mark) } }));
  });

  it('is refused: the question waits for the person and the write is not sent', async () => {
    const run = await setup.cli([
      'exec',
      "onElicit(async () => ({ action: 'accept', content: {} })); await tools.notes.record({ text: 'from a script' })",
      '--elicit=return',
      '--timeout',
      '20s',
    ]);
    expect(run.code).toBe(75);
    expect(run.stdout).toContain('proceed?');
    expect(existsSync(mark)).toBe(false);
    const id = idIn(run.stdout, 'elc');
    const log = await setup.cli(['log', '--json']);
    const refused = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; elicit?: string; data?: { answerer?: string } })
      .filter((e) => e.elicit === id && e.kind === 'elicit.refused');
    expect(refused.map((e) => e.data?.answerer)).toEqual(['script']);
  });
});

describe("a policy rule (the person's own config) may approve a write confirmation; a mode never does", () => {
  it('runs the write a rule names, and auto mode cancels the one no rule names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-own-policy-'));
    const mark = join(dir, 'written.txt');
    const adapter = recorder(mark) as { commands: Record<string, unknown> };
    adapter.commands.other = (adapter.commands as { record: unknown }).record;
    const app = await createMcpx({
      config: { mcpServers: { notes: adapter } } as never,
      store: `sqlite:${join(dir, 'store.sqlite')}`,
      policy: { mode: 'auto', rules: [{ match: { server: 'notes', tool: 'record' }, action: 'accept', because: 'CI records' }] },
      eraCache: createMemoryEraCache(),
      env: { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: dir },
      // Never asked: in auto mode the policy answers first (the rule's accept, or cancel).
      onElicit: async () => ({ action: 'accept', content: {} }),
    });
    try {
      const approved = await app.callTool('notes', 'record', { text: 'by the rule' });
      expect(approved.status === 'complete' && approved.result.isError).toBeFalsy();
      const cancelled = await app.callTool('notes', 'other', { text: 'no rule' });
      expect(cancelled.status === 'complete' && cancelled.result._meta).toEqual({ 'io.mcpx/confirmation': 'cancelled' });
      expect(readFileSync(mark, 'utf8')).toBe('by the rule\n');
      const answers = (await app.broker.audit({})).filter((e) => e.kind === 'elicit.answered');
      expect(answers.map((e) => [e.action, e.by])).toEqual([
        ['accept', 'policy'],
        ['cancel', 'policy'],
      ]);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the broker: only a person accepts a question mcpx asks for itself, whatever the surface', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-own-broker-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses an agent or a script (any surface) with PERSON_REQUIRED, audits it, and keeps the question pending', async () => {
    const store = await openSqliteStore(join(dir, 'store.sqlite'));
    const broker = createBroker({ store, session: 's1' });
    // Two processes on one file: the refusal holds for a broker that never saw the question open.
    const other = createBroker({ store: await openSqliteStore(join(dir, 'store.sqlite')), session: 's1' });
    try {
      const open = (asker?: 'mcpx') =>
        broker.openRequest({
          trace: 'cal-00000000000000aa',
          server: 'notes',
          tool: 'record',
          mode: 'form',
          message: 'run record x: proceed?',
          requestedSchema: { type: 'object', properties: {} },
          era: 'legacy',
          ...(asker ? { asker } : {}),
        });
      const own = await open('mcpx');
      const tries = [
        { by: 'agent' as const },
        { by: 'script' as const },
        { by: 'api' as const, answerer: 'script' as const },
        { by: 'mcp' as const, answerer: 'agent' as const },
      ];
      for (const attempt of tries) {
        const error = await other.respond({ id: own.id, action: 'accept', content: {}, ...attempt }).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'PERSON_REQUIRED', data: { id: own.id } });
        expect((error as Error).message).toContain(`mcpx elicit answer ${own.id}`);
      }
      expect((await broker.get(own.id))?.state).toBe('pending');
      const refused = (await broker.audit({ trace: own.trace })).filter((e) => e.kind === 'elicit.refused');
      expect(refused.map((e) => [e.by, e.data?.answerer])).toEqual([
        ['agent', 'agent'],
        ['script', 'script'],
        ['api', 'script'],
        ['mcp', 'agent'],
      ]);
      // The person (the CLI) accepts it.
      expect((await other.respond({ id: own.id, action: 'accept', content: {}, by: 'cli' })).by).toBe('cli');

      // An agent or a script may decline one (it runs nothing); a policy rule (the person's config) may accept one.
      const declined = await open('mcpx');
      expect((await broker.respond({ id: declined.id, action: 'decline', by: 'script' })).action).toBe('decline');
      const byPolicy = await open('mcpx');
      expect((await broker.respond({ id: byPolicy.id, action: 'accept', content: {}, by: 'policy' })).by).toBe('policy');
      // A server's question stays the agent's to answer.
      const servers = await open();
      expect((await broker.respond({ id: servers.id, action: 'accept', content: {}, by: 'agent' })).by).toBe('agent');
    } finally {
      await other.close();
      await broker.close();
      await store.close();
    }
  });
});
