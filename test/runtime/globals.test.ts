import { describe, expect, it } from 'vitest';
import { McpxError } from '../../src/errors.js';
import { prepareScript, runScript } from '../../src/runtime/index.js';
import { js, recordingBindings } from './helpers.js';

describe('runtime globals', () => {
  it('calls tools through the host with plain data and resolves to the host value', async () => {
    const bindings = recordingBindings();
    const outcome = await runScript({
      script: js(`const r = await tools.github.create_issue({ title: 'x', labels: ['a'], n: 1 });\nexport default r;`),
      bindings,
    });
    expect(outcome.status).toBe('ok');
    expect(bindings.calls).toEqual([{ server: 'github', tool: 'create_issue', args: { title: 'x', labels: ['a'], n: 1 } }]);
    expect(outcome.status === 'ok' && outcome.value).toEqual({
      server: 'github',
      tool: 'create_issue',
      args: { title: 'x', labels: ['a'], n: 1 },
    });
  });

  it('runs sequential calls and Promise.all over calls', async () => {
    const bindings = recordingBindings((_s, _t, args) => ({ status: 'ok', value: (args.n as number) * 2 }));
    const outcome = await runScript({
      script: js(
        `let sum = 0;\nfor (let i = 0; i < 20; i++) sum += await tools.m.double({ n: i });\nconst all = await Promise.all([1, 2, 3].map((n) => tools.m.double({ n })));\nexport default { sum, all };`,
      ),
      bindings,
    });
    expect(outcome.status === 'ok' && outcome.value).toEqual({ sum: 380, all: [2, 4, 6] });
    expect(outcome.stats.toolCalls).toBe(23);
  });

  it('passes server and tool names with any characters, several calls of one slice, and results of any JSON', async () => {
    const bindings = recordingBindings((server, tool, args) => ({
      status: 'ok',
      value: args.nothing ? undefined : { server, tool, text: 'a\nb:c', list: [1, null, 'x'] },
    }));
    const outcome = await runScript({
      script: js(
        `const names = [['a:b', 'c\\nd'], ['12:3', ':'], ['é🙂', 'x\\n\\n:1:']];
const all = await Promise.all(names.map(([s, t], i) => tools[s][t]({ i, note: 'x\\n:y' })));
export default { all, nothing: await tools.s.t({ nothing: true }) };`,
      ),
      bindings,
    });
    expect(outcome.status === 'ok' && outcome.value).toEqual({
      all: [
        { server: 'a:b', tool: 'c\nd', text: 'a\nb:c', list: [1, null, 'x'] },
        { server: '12:3', tool: ':', text: 'a\nb:c', list: [1, null, 'x'] },
        { server: 'é🙂', tool: 'x\n\n:1:', text: 'a\nb:c', list: [1, null, 'x'] },
      ],
    });
    expect(bindings.calls.map((c) => [c.server, c.tool, c.args])).toEqual([
      ['a:b', 'c\nd', { i: 0, note: 'x\n:y' }],
      ['12:3', ':', { i: 1, note: 'x\n:y' }],
      ['é🙂', 'x\n\n:1:', { i: 2, note: 'x\n:y' }],
      ['s', 't', { nothing: true }],
    ]);
  });
  it('turns a tool error into a catchable ToolError with server, tool and code', async () => {
    const bindings = recordingBindings((server) =>
      server === 'bad'
        ? { status: 'tool-error', message: 'no such repo', code: 'CALL_FAILED', result: { isError: true } }
        : { status: 'ok', value: 1 },
    );
    const outcome = await runScript({
      script: js(
        `try { await tools.bad.thing({}) } catch (e) {\n  console.log(e instanceof ToolError, e instanceof Error, e.name, e.message, e.server, e.tool, e.code, JSON.stringify(e.result));\n}`,
      ),
      bindings,
    });
    expect(outcome.status).toBe('ok');
    expect(bindings.lines).toEqual([
      { level: 'log', text: 'true true ToolError no such repo bad thing CALL_FAILED {"isError":true}' },
    ]);
  });

  it('turns a host failure into a ToolError carrying the McpxError code', async () => {
    const bindings = recordingBindings(() => {
      throw new McpxError('SERVER_NOT_FOUND', 'no server named "nope" in the config');
    });
    const outcome = await runScript({
      script: js(`try { await tools.nope.x() } catch (e) { console.error(e.name, e.code, e.message) }`),
      bindings,
    });
    expect(outcome.status).toBe('ok');
    expect(bindings.lines).toEqual([{ level: 'error', text: 'ToolError SERVER_NOT_FOUND no server named "nope" in the config' }]);
  });

  it('refuses arguments that are not one plain object', async () => {
    const bindings = recordingBindings();
    const outcome = await runScript({
      script: js(
        `for (const bad of [[1], 'x', null, { f: 1n }]) {\n  try { await tools.a.b(bad) } catch (e) { console.log(e.name) }\n}`,
      ),
      bindings,
    });
    expect(outcome.status).toBe('ok');
    expect(bindings.lines.map((l) => l.text)).toEqual(['TypeError', 'TypeError', 'TypeError', 'TypeError']);
    expect(bindings.calls).toEqual([]);
  });

  it('refuses arguments whose JSON form is nothing (a toJSON giving undefined), and no call reaches the host', async () => {
    const bindings = recordingBindings();
    const outcome = await runScript({
      script: js(`try { await tools.a.b({ toJSON: () => undefined }) } catch (e) { console.log(e.name, e.message) }`),
      bindings,
    });
    expect(outcome.status).toBe('ok');
    expect(bindings.lines.map((l) => l.text)).toEqual([
      'TypeError the arguments of tools.a.b() must be plain data (JSON): it has no JSON form',
    ]);
    expect(bindings.calls).toEqual([]);
  });

  it('sends console.* to the host at their levels, formatting values', async () => {
    const bindings = recordingBindings();
    await runScript({
      script: js(
        `console.log('a', 1, { b: [2] }, null, undefined);\nconsole.info('i'); console.warn('w'); console.error(new TypeError('t')); console.debug(() => 1);`,
      ),
      bindings,
    });
    expect(bindings.lines[0]).toEqual({ level: 'log', text: 'a 1 {"b":[2]} null undefined' });
    expect(bindings.lines.slice(1).map((l) => l.level)).toEqual(['info', 'warn', 'error', 'debug']);
    expect(bindings.lines[3]?.text).toMatch(/^TypeError: t\n\s+at <anonymous> \(script\.js:2:/);
    expect(bindings.lines[4]?.text).toBe('[Function anonymous]');
  });

  it('runs setTimeout callbacks in order, honours clearTimeout, and waits for timers before ending', async () => {
    const bindings = recordingBindings();
    const outcome = await runScript({
      script: js(
        `setTimeout(() => console.log('late'), 40);\nconst t = setTimeout(() => console.log('never'), 5); clearTimeout(t);\nsetTimeout((x) => console.log('early', x), 1, 'arg');\nawait new Promise((r) => setTimeout(r, 10));\nconsole.log('after await');`,
      ),
      bindings,
    });
    expect(outcome.status).toBe('ok');
    expect(bindings.lines.map((l) => l.text)).toEqual(['early arg', 'after await', 'late']);
  });

  it('fires timers set in one slice in the order of their delays, however long the slice took between them', async () => {
    // A busy loop stands in for the host being descheduled between two setTimeout calls (a loaded machine): with
    // delays counted from each call, the 40 ms timer would be due before the 1 ms one set 60 ms later.
    const bindings = recordingBindings();
    const outcome = await runScript({
      script: js(
        `setTimeout(() => console.log('late'), 40);\nconst until = Date.now() + 60; while (Date.now() < until) {}\nsetTimeout(() => console.log('early'), 1);`,
      ),
      bindings,
    });
    expect(outcome.status).toBe('ok');
    expect(bindings.lines.map((l) => l.text)).toEqual(['early', 'late']);
  });

  it('returns the default export as plain data', async () => {
    const outcome = await runScript({
      script: js(`export const other = 1;\nexport default { ok: true, list: [1, 'a'] };`),
      bindings: recordingBindings(),
    });
    expect(outcome).toMatchObject({ status: 'ok', value: { ok: true, list: [1, 'a'] } });
  });

  it('strips TypeScript and maps an uncaught error to the .ts lines', async () => {
    const source = [
      'interface Issue { title: string }',
      'type Id = number;',
      '',
      'function check(issue: Issue): Id {',
      '  if (issue.title === "x") {',
      '    throw new Error("bad title " + issue.title);',
      '  }',
      '  return 1;',
      '}',
      'const n: Id = check({ title: "x" } as Issue);',
    ].join('\n');
    const script = await prepareScript(source, 'examples/check.ts');
    const outcome = await runScript({ script, bindings: recordingBindings() });
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.error.code).toBe('SCRIPT_ERROR');
    expect(outcome.error.message).toContain('Error: bad title x');
    expect(outcome.error.message).toContain('at check (examples/check.ts:6:');
    expect(outcome.error.message).toContain('(examples/check.ts:10:');
  });

  it('reports a TypeScript syntax error with file, line and column', async () => {
    await expect(prepareScript('const a: number = ;\n', 'broken.ts')).rejects.toMatchObject({
      code: 'SCRIPT_ERROR',
      message: expect.stringMatching(/^broken\.ts:1:\d+: /),
    });
  });

  it('fails an import with a message that names the globals', async () => {
    const outcome = await runScript({ script: js(`import fs from 'node:fs';\nconsole.log(fs);`), bindings: recordingBindings() });
    expect(outcome.status === 'failed' && outcome.error.message).toMatch(/import "node:fs" is not available in a script/);
  });

  it('asks the person through the host and returns their answer', async () => {
    const bindings = recordingBindings(undefined, async () => ({ action: 'accept', content: { answer: 'me/thing' } }));
    const outcome = await runScript({
      script: js(
        `const a = await ask('Which repository?');\nconst b = await ask({ message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });\nexport default [a, b];`,
      ),
      bindings,
    });
    expect(bindings.asked.map((q) => q.message)).toEqual(['Which repository?', 'Sure?']);
    expect(bindings.asked[0]?.requestedSchema.properties).toEqual({ answer: { type: 'string' } });
    // The second answer does not fit its schema (answer is not a field of { ok }): the script gets a ToolError, not an invented value.
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && outcome.error.message).toMatch(
      /ToolError: ask\(\): the answer accepted with content that does not match/,
    );
  });

  it('stops the run as input-required when nobody can answer ask()', async () => {
    const bindings = recordingBindings(undefined, async () => undefined);
    const outcome = await runScript({
      script: js(`try { await ask('Which repository?') } catch (e) { console.log('caught') }\nconsole.log('after');`),
      bindings,
    });
    expect(outcome.status).toBe('input-required');
    expect(outcome.status === 'input-required' && outcome.stop).toMatchObject({
      via: 'ask',
      message: expect.stringContaining('Which repository?'),
    });
    expect(bindings.lines).toEqual([]);
  });

  it('stops the run at a call that came back input-required, even inside try/catch', async () => {
    const bindings = recordingBindings(() => ({
      status: 'input-required',
      message: 'mcpx: fx.ask_form is waiting for input',
      data: { questions: 1 },
    }));
    const outcome = await runScript({
      script: js(`try { await tools.fx.ask_form({}) } catch (e) { console.log('caught', e) }\nconsole.log('after');`),
      bindings,
    });
    expect(outcome).toMatchObject({
      status: 'input-required',
      stop: {
        via: 'tool',
        server: 'fx',
        tool: 'ask_form',
        message: 'mcpx: fx.ask_form is waiting for input',
        data: { questions: 1 },
      },
    });
    expect(bindings.lines).toEqual([]);
    expect(outcome.stats.disposedCleanly).toBe(true);
  });
});
