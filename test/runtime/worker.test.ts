import { describe, expect, it } from 'vitest';
import { startScript, runScript } from '../../src/runtime/index.js';
import type { Question } from '../../src/types.js';
import { js, recordingBindings } from './helpers.js';

const question: Question = {
  id: 'elc-0123456789abcdef',
  server: 'github',
  tool: 'create_issue',
  mode: 'form',
  message: 'Which repository?',
  requestedSchema: { type: 'object', properties: { repo: { type: 'string', minLength: 3 } }, required: ['repo'] },
  era: 'legacy',
  callId: 'cal-0123456789abcdef',
};
const context = () => ({ signal: new AbortController().signal, arguments: {}, expiresAt: Date.now() + 60_000 });

describe('worker isolation', () => {
  it('runs a script in a worker with tools, console and ask crossing as messages', async () => {
    const bindings = recordingBindings(undefined, async () => ({ action: 'accept', content: { answer: 'yes' } }));
    const outcome = await runScript({
      script: js(
        `const r = await tools.github.create_issue({ title: 'x' });\nconsole.warn('called', r.tool);\nconst a = await ask('Go?');\nexport default { r, a };`,
      ),
      bindings,
      isolation: 'worker',
    });
    expect(outcome).toMatchObject({
      status: 'ok',
      value: {
        r: { server: 'github', tool: 'create_issue', args: { title: 'x' } },
        a: { action: 'accept', content: { answer: 'yes' } },
      },
    });
    expect(bindings.lines).toEqual([{ level: 'warn', text: 'called create_issue' }]);
    expect(outcome.stats.toolCalls).toBe(1);
  });

  it('terminates a loop over heavy builtins that the in-thread interrupt cannot stop in time', async () => {
    const started = performance.now();
    const outcome = await runScript({
      script: js(`for (;;) { 'x'.repeat(1e6) }`),
      limits: { cpuMs: 300 },
      bindings: recordingBindings(),
      isolation: 'worker',
    });
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && outcome.error.code).toBe('SCRIPT_TIMEOUT');
    // In-thread, this loop overran a 300 ms budget by 17 s when measured; the watchdog ends it within its grace.
    expect(performance.now() - started).toBeLessThan(10_000);
    const healthy = await runScript({ script: js('export default 40 + 2'), bindings: recordingBindings(), isolation: 'worker' });
    expect(healthy).toMatchObject({ status: 'ok', value: 42 });
  });

  it('terminates a run past its wall-clock deadline even while a slice is stuck', async () => {
    const outcome = await runScript({
      script: js(`const a = []; for (let i = 0;; i++) { try { a.push('x'.repeat(1e6) + i) } catch { a.length = 0 } }`),
      limits: { cpuMs: 60_000, wallMs: 400 },
      bindings: recordingBindings(),
      isolation: 'worker',
    });
    expect(outcome.status === 'failed' && outcome.error.code).toBe('SCRIPT_TIMEOUT');
  });

  it("answers questions with the script's onElicit across the thread boundary, and passes bad answers on", async () => {
    const bindings = recordingBindings(() => new Promise(() => {}));
    const ready = new Promise<void>((resolve) => {
      bindings.console = (_level, text) => text === 'ready' && resolve();
    });
    const run = await startScript({
      script: js(
        `let n = 0;\nonElicit(async (q) => (++n === 1 ? { action: 'accept', content: { repo: q.server + '/x' } } : { action: 'accept', content: { repo: 1 } }));\nconsole.log('ready');\nawait tools.github.create_issue({});`,
      ),
      bindings,
      limits: { wallMs: 20_000 },
      isolation: 'worker',
    });
    await ready;
    expect(await run.answer(question, context())).toEqual({ action: 'accept', content: { repo: 'github/x' } });
    expect(await run.answer(question, context())).toBeUndefined();
    expect(bindings.logs[0]).toMatch(/onElicit handler accepted with content that does not match/);
    run.stop('test over');
    const outcome = await run.outcome;
    expect(outcome.status === 'failed' && outcome.error.message).toContain('test over');
  });
});
