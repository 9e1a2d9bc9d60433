import { describe, expect, it } from 'vitest';
import { startScript, runScript } from '../../src/runtime/index.js';
import type { Question } from '../../src/types.js';
import { js, recordingBindings } from './helpers.js';

const form: Question = {
  id: 'elc-00000000000000aa',
  server: 'github',
  tool: 'create_issue',
  mode: 'form',
  message: 'Which repository?',
  requestedSchema: {
    type: 'object',
    properties: { repo: { type: 'string', minLength: 3 }, private: { type: 'boolean', default: false } },
    required: ['repo'],
  },
  era: 'modern',
  callId: 'cal-00000000000000aa',
};
const url: Question = {
  ...form,
  id: 'elc-00000000000000bb',
  mode: 'url',
  url: 'https://example.com/authorize',
  requestedSchema: undefined,
};
const context = () => ({ signal: new AbortController().signal, arguments: {}, expiresAt: Date.now() + 60_000 });

/** Starts a script that registers `handler` and then waits on a call that never returns (as a call that asked does). */
async function withHandler(handler: string) {
  const bindings = recordingBindings(() => new Promise(() => {}));
  const run = await startScript({ script: js(`onElicit(${handler});\nawait tools.github.create_issue({});`), bindings });
  return { run, bindings };
}

describe('onElicit', () => {
  it('answers accept with content completed by the schema defaults, decline and cancel, each as given', async () => {
    const { run } = await withHandler(
      `async (q) => q.mode === 'url' ? { action: 'accept' } : q.message.includes('decline') ? { action: 'decline' } : q.message.includes('cancel') ? { action: 'cancel' } : { action: 'accept', content: { repo: q.schema.properties.repo ? 'me/thing' : '' } }`,
    );
    expect(await run.answer(form, context())).toEqual({ action: 'accept', content: { repo: 'me/thing', private: false } });
    expect(await run.answer({ ...form, message: 'please decline' }, context())).toEqual({ action: 'decline' });
    expect(await run.answer({ ...form, message: 'please cancel' }, context())).toEqual({ action: 'cancel' });
    expect(await run.answer(url, context())).toEqual({ action: 'accept' });
    run.stop('done');
    await run.outcome;
  });

  it('passes on, with the reason logged, when the handler throws, returns nothing, garbage or invalid content', async () => {
    const { run, bindings } = await withHandler(`(() => { let n = 0; return async () => { n += 1;
      if (n === 1) throw new TypeError('no idea');
      if (n === 2) return undefined;
      if (n === 3) return { action: 'maybe' };
      if (n === 4) return { action: 'accept', content: { repo: 42 } };
      return { action: 'accept', content: { repo: 'ok/then', extra: true } };
    } })()`);
    for (let i = 0; i < 5; i++) expect(await run.answer(form, context())).toBeUndefined();
    expect(bindings.logs).toHaveLength(5);
    expect(bindings.logs[0]).toMatch(
      /^onElicit handler threw TypeError: no idea\n.*; question elc-00000000000000aa \(github\.create_issue\) is passed on$/s,
    );
    expect(bindings.logs[1]).toMatch(/^onElicit handler returned nothing;/);
    expect(bindings.logs[2]).toMatch(/action must be 'accept', 'decline' or 'cancel'/);
    expect(bindings.logs[3]).toMatch(/does not match the question's schema: repo: expected string/);
    expect(bindings.logs[4]).toMatch(/extra: expected no such field/);
    run.stop('done');
    await run.outcome;
  });

  it('does not answer when no handler is registered, or after onElicit(null)', async () => {
    const bindings = recordingBindings(() => new Promise(() => {}));
    const run = await startScript({ script: js(`await tools.a.b({});`), bindings });
    expect(await run.answer(form, context())).toBeUndefined();
    const cleared = await startScript({
      script: js(`onElicit(async () => ({ action: 'decline' }));\nonElicit(null);\nawait tools.a.b({});`),
      bindings,
    });
    expect(await cleared.answer(form, context())).toBeUndefined();
    expect(bindings.logs).toEqual([]);
    run.stop('done');
    cleared.stop('done');
    await Promise.all([run.outcome, cleared.outcome]);
  });

  it('lets the handler await tool calls and ask() while the question waits', async () => {
    const bindings = recordingBindings(
      (server, tool) => (tool === 'lookup' ? { status: 'ok', value: { repo: 'from/lookup' } } : new Promise(() => {})),
      async () => ({ action: 'accept', content: { answer: 'yes' } }),
    );
    const run = await startScript({
      script: js(
        `onElicit(async (q) => {\n  const found = await tools.github.lookup({ id: q.id });\n  const sure = await ask('Use ' + found.repo + '?');\n  return sure.action === 'accept' ? { action: 'accept', content: { repo: found.repo } } : { action: 'cancel' };\n});\nawait tools.github.create_issue({});`,
      ),
      bindings,
    });
    expect(await run.answer(form, context())).toEqual({ action: 'accept', content: { repo: 'from/lookup', private: false } });
    expect(bindings.asked.map((a) => a.message)).toEqual(['Use from/lookup?']);
    run.stop('done');
    await run.outcome;
  });

  it('gives up on a handler still running when the call that asked is gone', async () => {
    const { run, bindings } = await withHandler(`() => new Promise(() => {})`);
    const abort = new AbortController();
    const answer = run.answer(form, { ...context(), signal: abort.signal });
    abort.abort();
    expect(await answer).toBeUndefined();
    expect(bindings.logs[0]).toMatch(/was still running when the call that asked ended/);
    run.stop('done');
    await run.outcome;
  });

  it('ends the run with the mapped stack when a timer callback throws', async () => {
    const outcome = await runScript({
      script: js(`setTimeout(() => {\n  throw new RangeError('late failure');\n}, 1);`),
      bindings: recordingBindings(),
    });
    expect(outcome.status === 'failed' && outcome.error.message).toMatch(
      /^RangeError: late failure\n\s+at <anonymous> \(script\.js:2:/,
    );
  });
});
