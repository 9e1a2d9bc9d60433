import { describe, expect, it } from 'vitest';
import { runScript, type RunOutcome } from '../../src/runtime/index.js';
import { js, recordingBindings } from './helpers.js';

async function healthyRunWorks(): Promise<void> {
  const outcome = await runScript({
    script: js(`export default 1 + (await tools.a.b({})).args.n;`),
    bindings: recordingBindings((_s, _t, args) => ({ status: 'ok', value: { args: { n: 1, ...args } } })),
  });
  expect(outcome).toMatchObject({ status: 'ok', value: 2 });
}

function failure(outcome: RunOutcome): { code: string; message: string } {
  expect(outcome.status).toBe('failed');
  return outcome.status === 'failed' ? { code: outcome.error.code, message: outcome.error.message } : { code: '', message: '' };
}

describe('runtime limits', () => {
  it('stops an infinite loop with SCRIPT_TIMEOUT once its CPU budget is spent, and the host stays healthy', async () => {
    const outcome = await runScript({ script: js('while (true) {}'), limits: { cpuMs: 150 }, bindings: recordingBindings() });
    expect(failure(outcome)).toEqual({ code: 'SCRIPT_TIMEOUT', message: expect.stringContaining('150 ms of CPU time') });
    expect(outcome.stats.disposedCleanly).toBe(true);
    await healthyRunWorks();
  });

  it('cannot catch the CPU interrupt', async () => {
    const outcome = await runScript({
      script: js('for (;;) { try { while (true) {} } catch (e) { console.log("caught", e) } }'),
      limits: { cpuMs: 150 },
      bindings: recordingBindings(),
    });
    expect(failure(outcome).code).toBe('SCRIPT_TIMEOUT');
  });

  it('sums CPU over slices: a loop of awaited calls is stopped, time spent waiting on the host is not counted', async () => {
    const looping = await runScript({
      script: js('for (;;) { await tools.a.b({}); for (let i = 0; i < 1e4; i++); }'),
      limits: { cpuMs: 150 },
      bindings: recordingBindings(),
    });
    expect(failure(looping).code).toBe('SCRIPT_TIMEOUT');
    const slowHost = recordingBindings(async () => {
      await new Promise((resolve) => setTimeout(resolve, 120));
      return { status: 'ok', value: 1 };
    });
    const waiting = await runScript({
      script: js(
        'await tools.a.b({}); await tools.a.b({}); await new Promise((r) => setTimeout(r, 100)); export default "done";',
      ),
      limits: { cpuMs: 100 },
      bindings: slowHost,
    });
    expect(waiting).toMatchObject({ status: 'ok', value: 'done' });
    expect(waiting.stats.wallMs).toBeGreaterThan(300);
    expect(waiting.stats.cpuMs).toBeLessThan(100);
  });

  it('charges CPU time, not wall time: a slice held off the CPU (a loaded machine) is not stopped', async () => {
    const bindings = recordingBindings();
    const asleep = new Int32Array(new SharedArrayBuffer(4));
    // Each console line sleeps the thread 60 ms inside the slice without using the CPU, as a descheduled slice does.
    const offCpu = { ...bindings, console: () => void Atomics.wait(asleep, 0, 0, 60) };
    const outcome = await runScript({
      script: js('for (let i = 0; i < 4; i++) console.log(i); export default "done";'),
      limits: { cpuMs: 100 },
      bindings: offCpu,
    });
    expect(outcome).toMatchObject({ status: 'ok', value: 'done' });
    expect(outcome.stats.wallMs).toBeGreaterThan(200);
    expect(outcome.stats.cpuMs).toBeLessThan(100);
  });

  it('stops a memory bomb with SCRIPT_MEMORY_LIMIT under a hard cap', async () => {
    const outcome = await runScript({
      script: js('const a = []; for (;;) a.push("x".repeat(1e5) + a.length);'),
      limits: { memoryBytes: 32 * 1024 * 1024 },
      bindings: recordingBindings(),
    });
    expect(failure(outcome)).toEqual({ code: 'SCRIPT_MEMORY_LIMIT', message: expect.stringContaining('32 MiB') });
    await healthyRunWorks();
  });

  it('stops an ArrayBuffer larger than the cap', async () => {
    const outcome = await runScript({
      script: js('const b = new ArrayBuffer(1e9); export default b.byteLength;'),
      bindings: recordingBindings(),
    });
    expect(failure(outcome).code).toBe('SCRIPT_MEMORY_LIMIT');
  });

  it('ends the run with SCRIPT_MEMORY_LIMIT when a tool result does not fit in the sandbox, and the host stays healthy', async () => {
    const limits = { memoryBytes: 16 * 1024 * 1024 };
    const huge = recordingBindings(() => ({ status: 'ok', value: { text: 'y'.repeat(40 * 1024 * 1024) } }));
    const tooBig = await runScript({
      script: js('const r = await tools.a.b({}); export default r.text.length;'),
      limits,
      bindings: huge,
    });
    expect(failure(tooBig)).toEqual({ code: 'SCRIPT_MEMORY_LIMIT', message: expect.stringContaining('16 MiB') });
    // A heap the script has nearly filled itself, then a result of a few MiB.
    const filled = js(
      'const keep = []; try { for (;;) keep.push("x".repeat(1e5) + keep.length); } catch { keep.length -= 5; }\n' +
        'const r = await tools.a.b({}); export default r.text.length;',
    );
    const some = recordingBindings(() => ({ status: 'ok', value: { text: 'y'.repeat(4 * 1024 * 1024) } }));
    expect(failure(await runScript({ script: filled, limits, bindings: some })).code).toBe('SCRIPT_MEMORY_LIMIT');
    await healthyRunWorks();
  });

  it('turns deep recursion into a catchable stack overflow, not a host crash', async () => {
    const bindings = recordingBindings();
    const caught = await runScript({
      script: js(
        'function f(n) { return f(n + 1) + 1 }\ntry { f(0) } catch (e) { console.log(e.name, e.message) }\nexport default "alive";',
      ),
      bindings,
    });
    expect(caught).toMatchObject({ status: 'ok', value: 'alive' });
    expect(bindings.lines[0]?.text).toBe('InternalError stack overflow');
    const uncaught = await runScript({
      script: js('function f(n) { return f(n + 1) + 1 }\nf(0);'),
      bindings: recordingBindings(),
    });
    expect(failure(uncaught)).toEqual({
      code: 'SCRIPT_ERROR',
      message: expect.stringContaining('InternalError: stack overflow'),
    });
    expect(uncaught.stats.disposedCleanly).toBe(true);
    await healthyRunWorks();
  });

  it('ends a promise that can never settle at once instead of hanging', async () => {
    const outcome = await runScript({ script: js('await new Promise(() => {});'), bindings: recordingBindings() });
    expect(failure(outcome)).toEqual({ code: 'SCRIPT_ERROR', message: expect.stringContaining('can never settle') });
  });

  it('stops at the wall-clock deadline while waiting on a timer or a host call that never returns', async () => {
    const timer = await runScript({
      script: js('await new Promise((r) => setTimeout(r, 1e9));'),
      limits: { wallMs: 150 },
      bindings: recordingBindings(),
    });
    expect(failure(timer)).toEqual({ code: 'SCRIPT_TIMEOUT', message: expect.stringContaining('150 ms deadline') });
    const hung = await runScript({
      script: js('await tools.slow.never({});'),
      limits: { wallMs: 150 },
      bindings: recordingBindings(() => new Promise(() => {})),
    });
    expect(failure(hung).code).toBe('SCRIPT_TIMEOUT');
    expect(hung.stats.disposedCleanly).toBe(true);
    await healthyRunWorks();
  });

  it('caps pending timers', async () => {
    const outcome = await runScript({
      script: js('for (let i = 0; i < 20; i++) setTimeout(() => {}, 1e9);'),
      limits: { maxTimers: 10, wallMs: 2000 },
      bindings: recordingBindings(),
    });
    expect(failure(outcome).message).toContain('10 timers are already pending');
  });

  it('refuses limits it cannot keep', async () => {
    await expect(
      runScript({ script: js('1'), limits: { memoryBytes: 1024 * 1024 }, bindings: recordingBindings() }),
    ).rejects.toThrow(/at least 16 MiB/);
    await expect(
      runScript({ script: js('1'), limits: { stackBytes: 8 * 1024 * 1024 }, bindings: recordingBindings() }),
    ).rejects.toThrow(/32 KiB to 384 KiB/);
  });

  it('leaves no timers or workers running in the host once a run has ended', async () => {
    const resources = () =>
      process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'MessagePort' || r === 'Worker').length;
    const before = resources();
    const timers = await runScript({
      script: js('for (let i = 0; i < 50; i++) setTimeout(() => {}, 1e9);\nawait tools.a.never({});'),
      limits: { wallMs: 200 },
      bindings: recordingBindings(() => new Promise(() => {})),
    });
    expect(timers.status === 'failed' && timers.error.code).toBe('SCRIPT_TIMEOUT');
    const inWorker = await runScript({
      script: js('setTimeout(() => {}, 1e9);\nawait new Promise(() => {});'),
      limits: { wallMs: 300 },
      bindings: recordingBindings(),
      isolation: 'worker',
    });
    expect(inWorker.status).toBe('failed');
    // A terminated worker's port closes on the next turn of the loop.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(resources()).toBeLessThanOrEqual(before);
  });

  it('leaves no handles behind after many runs ending every way', async () => {
    const scripts = [
      'export default 1',
      'throw new Error("x")',
      'await tools.a.b({}); export default 2',
      'await new Promise(() => {})',
      'setTimeout(() => {}, 1); onElicit(async () => ({ action: "decline" }))',
    ];
    for (let i = 0; i < 20; i++) {
      const outcome = await runScript({ script: js(scripts[i % scripts.length]!), bindings: recordingBindings() });
      expect(outcome.stats.disposedCleanly).toBe(true);
    }
  });
});
