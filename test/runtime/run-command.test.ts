import { describe, expect, it } from 'vitest';
import type { Answer, Question } from '../../src/types.js';
import { fixtureWorkspace, mcpxRun } from './run-helpers.js';

describe('mcpx run', () => {
  it('calls onElicit while the tool call is in flight, on a legacy and a modern server, and the handler can call tools meanwhile', async () => {
    const ws = fixtureWorkspace();
    const script = ws.script(
      'answer.ts',
      `const seen: string[] = [];
onElicit(async (q) => {
  // A tool call from inside the handler, while the call that asked is still open.
  const nested = await tools.modern.no_ask({ text: 'from the handler' });
  seen.push(q.era + ':' + q.server + '.' + q.tool + ':' + q.id.slice(0, 4) + ':' + (nested.structuredContent as { text: string }).text);
  return { action: 'accept', content: { repo: q.server + '/repo' } };
});
const legacy = await tools.legacy.ask_form({ title: 'L' });
const modern = await tools.modern.ask_form({ title: 'M' });
export default { seen, legacy: legacy.structuredContent, modern: modern.structuredContent };
`,
    );
    const result = await mcpxRun([script, '--config', ws.config, '--elicit=return'], { cwd: ws.dir, env: ws.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const value = result.json();
    expect(value.seen).toEqual(['legacy:legacy.ask_form:elc-:from the handler', 'modern:modern.ask_form:elc-:from the handler']);
    expect(value.legacy).toMatchObject({
      era: 'legacy',
      received: { details: { action: 'accept', content: { repo: 'legacy/repo', private: false, priority: 'normal' } } },
    });
    expect(value.modern).toMatchObject({
      era: 'modern',
      received: { details: { action: 'accept', content: { repo: 'modern/repo', private: false, priority: 'normal' } } },
    });
  });

  it('delivers decline and cancel to the server as two different answers, in both eras', async () => {
    const ws = fixtureWorkspace();
    const script = ws.script(
      'refuse.ts',
      `onElicit(async (q) => (q.tool === 'ask_form' ? { action: 'decline' } : { action: 'cancel' }));
const out: Record<string, unknown> = {};
for (const server of ['legacy', 'modern'] as const) {
  const form = await tools[server].ask_form({});
  const confirm = await tools[server].ask_confirm({});
  out[server] = [(form.structuredContent as any).received.details, (confirm.structuredContent as any).received.confirm];
}
export default out;
`,
    );
    const result = await mcpxRun([script, '--config', ws.config, '--elicit=return'], { cwd: ws.dir, env: ws.env });
    expect(result.code).toBe(0);
    expect(result.json()).toEqual({
      legacy: [{ action: 'decline' }, { action: 'cancel' }],
      modern: [{ action: 'decline' }, { action: 'cancel' }],
    });
  });

  it('passes the question on when the handler throws, returns garbage or bad content, never inventing an answer', async () => {
    const ws = fixtureWorkspace();
    const asked: Question[] = [];
    const person = async (question: Question): Promise<Answer> => {
      asked.push(question);
      return { action: 'accept', content: { repo: 'person/answer' } };
    };
    const script = ws.script(
      'passes.ts',
      `let n = 0;
onElicit(async (q) => {
  n += 1;
  if (n === 1) throw new Error('handler broke');
  if (n === 2) return 'yes please' as any;
  if (n === 3) return { action: 'accept', content: { repo: 'x' } }; // minLength 3: invalid
  return undefined;
});
const results = [];
for (const server of ['legacy', 'modern', 'legacy', 'modern'] as const) {
  const r = await tools[server].ask_form({});
  results.push((r.structuredContent as any).received.details.content.repo);
}
export default results;
`,
    );
    const result = await mcpxRun([script, '--config', ws.config, '--elicit=prompt'], {
      cwd: ws.dir,
      env: ws.env,
      deps: { prompt: person },
    });
    expect(result.code).toBe(0);
    expect(result.json()).toEqual(['person/answer', 'person/answer', 'person/answer', 'person/answer']);
    expect(asked.map((q) => q.era)).toEqual(['legacy', 'modern', 'legacy', 'modern']);
    expect(result.stderr).toMatch(/onElicit handler threw Error: handler broke[\s\S]*is passed on/);
    expect(result.stderr).toMatch(/onElicit handler returned "yes please", not \{ action/);
    expect(result.stderr).toMatch(
      /onElicit handler accepted with content that does not match the question's schema: repo: expected at least 3 characters/,
    );
  });

  it('stops at a question nobody answers with the mcpx call message and exit 75, even inside try/catch', async () => {
    const ws = fixtureWorkspace();
    const script = ws.script(
      'stuck.ts',
      `onElicit(async () => { throw new Error('cannot answer') });\ntry { await tools.modern.ask_form({ title: 'T' }) } catch (e) { console.log('caught', e) }\nconsole.log('after');\n`,
    );
    const result = await mcpxRun([script, '--config', ws.config, '--elicit=return'], { cwd: ws.dir, env: ws.env });
    expect(result.code).toBe(75);
    expect(result.stdout).toMatch(/^mcpx: modern\.ask_form is waiting for input and nothing here can answer it\.\n/);
    expect(result.stdout).toMatch(/answer {3}mcpx elicit answer elc-[0-9a-f]{16} '\{"repo":"\.\.\."\}'/);
    expect(result.stderr).not.toMatch(/caught|after/);
    expect(result.stderr).toMatch(/onElicit handler threw Error: cannot answer/);
    const json = await mcpxRun([script, '--config', ws.config, '--elicit=return', '--json'], { cwd: ws.dir, env: ws.env });
    expect(json.code).toBe(75);
    expect(json.json().inputRequired).toMatchObject({
      server: 'modern',
      tool: 'ask_form',
      questions: [{ id: expect.stringMatching(/^elc-/), era: 'modern' }],
      text: expect.stringContaining('waiting for input'),
    });
  });

  it('answers by policy mode before the script: decline and error', async () => {
    const ws = fixtureWorkspace();
    const script = ws.script(
      'policy.ts',
      `onElicit(async () => ({ action: 'accept', content: { repo: 'never/used' } }));\nconst r = await tools.legacy.ask_form({});\nexport default (r.structuredContent as any).received.details;\n`,
    );
    const declined = await mcpxRun([script, '--config', ws.config, '--elicit=decline'], { cwd: ws.dir, env: ws.env });
    expect(declined.code).toBe(0);
    expect(declined.json()).toEqual({ action: 'decline' });
    const refused = await mcpxRun([script, '--config', ws.config, '--elicit=error'], { cwd: ws.dir, env: ws.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ToolError: .*\[SCRIPT_ERROR\]/);
  });

  it('asks the person with ask() and stops with exit 75 when nobody can answer it', async () => {
    const ws = fixtureWorkspace();
    const script = ws.script(
      'ask.ts',
      `const a = await ask({ message: 'Which repository?', requestedSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] } });\nexport default a;\n`,
    );
    const answered = await mcpxRun([script, '--config', ws.config, '--elicit=prompt'], {
      cwd: ws.dir,
      env: ws.env,
      deps: { prompt: async () => ({ action: 'accept', content: { repo: 'me/thing' } }) },
    });
    expect(answered.code).toBe(0);
    expect(answered.json()).toEqual({ action: 'accept', content: { repo: 'me/thing' } });
    const nobody = await mcpxRun([script, '--config', ws.config, '--elicit=return'], { cwd: ws.dir, env: ws.env });
    expect(nobody.code).toBe(75);
    expect(nobody.stdout).toContain('the script asked "Which repository?" and nobody here can answer it');
  });

  it('fails with exit 1 and the stack mapped to the .ts lines', async () => {
    const ws = fixtureWorkspace();
    const script = ws.script(
      'fail.ts',
      `type Repo = { name: string };\n\nfunction check(repo: Repo): void {\n  throw new Error('bad repo ' + repo.name);\n}\ncheck({ name: 'x' });\n`,
    );
    const result = await mcpxRun([script, '--config', ws.config], { cwd: ws.dir, env: ws.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: bad repo x');
    expect(result.stderr).toMatch(/at check \(.*fail\.ts:4:\d+\)/);
    expect(result.stderr).toMatch(/fail\.ts:6:\d+\)/);
    expect(result.stderr).toContain('[SCRIPT_ERROR]');
  });

  it('applies --cpu-limit and --memory-limit', async () => {
    const ws = fixtureWorkspace();
    const loop = ws.script('loop.js', 'for (;;) {}\n');
    const slow = await mcpxRun([loop, '--config', ws.config, '--cpu-limit', '200ms'], { cwd: ws.dir, env: ws.env });
    expect(slow.code).toBe(1);
    expect(slow.stderr).toMatch(/200 ms of CPU time .*\[SCRIPT_TIMEOUT\]/);
    const bomb = ws.script('bomb.js', 'const a = []; for (;;) a.push("x".repeat(1e5) + a.length);\n');
    const big = await mcpxRun([bomb, '--config', ws.config, '--memory-limit', '24m'], { cwd: ws.dir, env: ws.env });
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/24 MiB .*\[SCRIPT_MEMORY_LIMIT\]/);
    const bad = await mcpxRun([loop, '--config', ws.config, '--cpu-limit', 'soon'], { cwd: ws.dir, env: ws.env });
    expect(bad.code).toBe(2);
  });

  it("type-checks the script against the servers' tools with --check before running it", async () => {
    const ws = fixtureWorkspace();
    const script = ws.script(
      'typed.ts',
      `const r = await tools.modern.ask_form({ title: 42 });\nawait tools.modern.no_such_tool({});\nconsole.log('ran', r);\n`,
    );
    const result = await mcpxRun([script, '--config', ws.config, '--check'], { cwd: ws.dir, env: ws.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/typed\.ts:1: TS2322 /);
    expect(result.stderr).toMatch(/typed\.ts:2: TS2339 .*no_such_tool/);
    expect(result.stderr).not.toContain('ran');
  });
});
