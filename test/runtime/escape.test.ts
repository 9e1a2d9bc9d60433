import { describe, expect, it } from 'vitest';
import { runScript } from '../../src/runtime/index.js';
import { js, recordingBindings } from './helpers.js';

async function probe(code: string) {
  const bindings = recordingBindings();
  const outcome = await runScript({ script: js(code), bindings });
  return { outcome, lines: bindings.lines.map((l) => l.text), bindings };
}

describe('runtime isolation', () => {
  it('exposes no file system, network, process or host objects', async () => {
    const { outcome } = await probe(
      `export default ['process', 'require', 'module', 'fetch', 'WebAssembly', 'Buffer', 'XMLHttpRequest', 'Deno', 'std', 'os', '__mcpx_host', 'host']\n  .filter((name) => typeof globalThis[name] !== 'undefined');`,
    );
    expect(outcome).toMatchObject({ status: 'ok', value: [] });
  });

  it('keeps constructor chains to Function inside the sandbox', async () => {
    const { outcome } = await probe(
      [
        `const viaTool = tools.github.create_issue.constructor.constructor('return typeof process')();`,
        `const viaConsole = console.log.constructor('return typeof require + typeof globalThis.process')();`,
        `const viaProxy = Object.getOwnPropertyNames.constructor('return Object.keys(globalThis)')();`,
        `const viaError = ToolError.constructor('return this')() === globalThis;`,
        `export default { viaTool, viaConsole, viaProxy, viaError };`,
      ].join('\n'),
    );
    expect(outcome.status).toBe('ok');
    expect(outcome.status === 'ok' && outcome.value).toEqual({
      viaTool: 'undefined',
      viaConsole: 'undefinedundefined',
      viaProxy: [],
      viaError: true,
    });
  });

  it('does not let the script pollute the host through provided objects', async () => {
    const { outcome, bindings } = await probe(
      [
        `Object.prototype.polluted = 'yes';`,
        `Array.prototype.isAdmin = true;`,
        `try { tools.__proto__.x = 1 } catch {}`,
        `try { Object.setPrototypeOf(tools, { evil: 1 }) } catch {}`,
        `try { console.log = () => {} } catch {}`,
        `JSON.parse = () => ({ ok: true, value: 'forged' });`,
        `let poisoned = 'no'; try { tools.github.poison = 1 } catch (e) { poisoned = e.name }`,
        `const r = await tools.github.create_issue({ title: 'x' });`,
        `export default { r: r.tool, proto: Object.getPrototypeOf(tools), poisoned, poison: typeof tools.github.poison };`,
      ].join('\n'),
    );
    expect(outcome.status).toBe('ok');
    // The prelude kept its own JSON.parse: the host's reply was not forged.
    expect(outcome.status === 'ok' && outcome.value).toEqual({
      r: 'create_issue',
      proto: null,
      poisoned: 'TypeError',
      poison: 'function',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>).isAdmin).toBeUndefined();
    const received = bindings.calls[0]!.args;
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
    expect('polluted' in received).toBe(false);
    expect(received).toEqual({ title: 'x' });
  });

  it('fails dynamic import()', async () => {
    const { outcome, lines } = await probe(
      `for (const name of ['fs', 'node:child_process', 'file:///etc/passwd', './x.js']) {\n  try { await import(name); console.log('loaded', name) } catch (e) { console.log('refused', name) }\n}`,
    );
    expect(outcome.status).toBe('ok');
    expect(lines).toEqual(['refused fs', 'refused node:child_process', 'refused file:///etc/passwd', 'refused ./x.js']);
  });

  it('evaluates eval and new Function in the sandbox, never in the host', async () => {
    const { outcome } = await probe(
      [
        `const a = eval('typeof process');`,
        `let b; try { eval('require("fs")') } catch (e) { b = e.name }`,
        `const c = new Function('return typeof globalThis.require')();`,
        `const d = (0, eval)('this') === globalThis;`,
        `export default { a, b, c, d };`,
      ].join('\n'),
    );
    expect(outcome).toMatchObject({ status: 'ok', value: { a: 'undefined', b: 'ReferenceError', c: 'undefined', d: true } });
  });

  it('keeps the globals it provides from being replaced', async () => {
    const { outcome } = await probe(
      `'use strict';\nconst errors = [];\nfor (const name of ['tools', 'onElicit', 'ask', 'console', 'setTimeout']) {\n  try { globalThis[name] = 1 } catch (e) { errors.push(e.name) }\n}\nexport default errors;`,
    );
    expect(outcome).toMatchObject({ status: 'ok', value: ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError'] });
  });

  it('gives one run nothing of another', async () => {
    await probe(`globalThis.secret = 'first run';\nObject.prototype.leak = 1;`);
    const { outcome } = await probe(`export default [typeof globalThis.secret, typeof ({}).leak];`);
    expect(outcome).toMatchObject({ status: 'ok', value: ['undefined', 'undefined'] });
  });
});
