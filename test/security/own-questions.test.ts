/**
 * Issue #33, item 1: a question mcpx asks on its own behalf (here a CLI adapter's write confirmation) is a person's.
 * Through `mcpx serve` (the built CLI over stdio, a v2 SDK client that declares no elicitation), the agent's
 * `mcpx_elicit_answer accept` is refused and recorded, the question stays pending and the command never runs; the
 * agent's decline is taken (re-raised to the person); the person's `mcpx elicit answer` from another process lets
 * the write run. A script's own onElicit accepting the confirmation is refused too, and nothing runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
