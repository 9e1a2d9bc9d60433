/**
 * One run of one script in its own QuickJS instance. The VM only runs in "slices" (evaluating the module,
 * settling a host call, firing a timer, calling the onElicit handler, each followed by the pending jobs);
 * the CPU budget is the sum of the slices, so time spent awaiting the host or a person does not count.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, VmCallResult } from 'quickjs-emscripten-core';
import { McpxError, isMcpxError } from '../errors.js';
import type { Answer, ElicitContext, ElicitHandler, Question } from '../types.js';
import { judgeAnswer } from './answer.js';
import { acquireSandbox } from './engine.js';
import type { ConsoleLevel, HostBindings, ToolCallReply } from './host-bindings.js';
import { SliceClock, type ResolvedLimits } from './limits.js';
import type { GuestFunctions, HostSide, PreparedSandbox } from './prepared.js';
import { createStackMapper, type StackMapper } from './stack-map.js';
import type { RunOutcome, RunStats, ScriptRun, StartScriptOptions } from './types.js';
import { exportedValue, readThrown, thrownEnding, timeoutEnding, type Ending } from './endings.js';
import { ScriptTimers } from './script-timers.js';
import { readCallRecords } from './prelude.js';
import { newReply } from './binary-json.js';
import { isFormSchema, messageOf, questionForScript, textAnswerSchema } from './script-questions.js';

/** Starts a script on this thread; resolves once it is running (`startScript` in start.ts picks the isolation). */
export async function startScriptHere(options: StartScriptOptions, limits: ResolvedLimits): Promise<ScriptRun> {
  const startedAt = performance.now();
  const sandbox = await acquireSandbox(limits.memoryBytes);
  const run = new SandboxRun(sandbox, options, limits, startedAt);
  run.start();
  return run;
}

type ElicitReply = { ok: boolean; text: string };

class SandboxRun implements ScriptRun, HostSide {
  readonly outcome: Promise<RunOutcome>;
  private resolveOutcome!: (outcome: RunOutcome) => void;
  private readonly runtime: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  private readonly bindings: HostBindings;
  private readonly mapStack: StackMapper;
  private readonly guest: GuestFunctions;
  private finishedModule = false;
  private moduleValue: unknown;

  private readonly clock = new SliceClock();
  private depth = 0;
  private readonly wallDeadline: number | undefined;
  private wallTimer: NodeJS.Timeout | undefined;
  private interruptedBy: 'cpu' | 'wall' | undefined;

  private ending: Ending | undefined;
  private finished = false;
  private readonly pendingCalls = new Set<number>();
  private readonly timers: ScriptTimers;
  private readonly elicitWaiters = new Map<number, (reply: ElicitReply) => void>();
  private nextElicitToken = 1;
  private handlerRegistered = false;
  private toolCalls = 0;
  private elicitations = 0;

  constructor(
    sandbox: PreparedSandbox,
    private readonly options: StartScriptOptions,
    private readonly limits: ResolvedLimits,
    private readonly startedAt: number,
  ) {
    this.outcome = new Promise((resolve) => (this.resolveOutcome = resolve));
    this.bindings = options.bindings;
    this.mapStack = createStackMapper(options.script.filename, options.script.sourceMap);
    this.wallDeadline = limits.wallMs === undefined ? undefined : startedAt + limits.wallMs;
    this.runtime = sandbox.runtime;
    this.ctx = sandbox.ctx;
    this.guest = sandbox.guest;
    sandbox.host = this;
    this.runtime.setMemoryLimit(limits.memoryBytes);
    this.runtime.setMaxStackSize(limits.stackBytes);
    this.runtime.setInterruptHandler(() => this.shouldInterrupt());
    this.timers = new ScriptTimers(
      limits.maxTimers,
      (id) =>
        this.drive(() => {
          const handle = this.ctx.newNumber(id);
          this.consume(this.ctx.callFunction(this.guest.fireTimer, this.ctx.undefined, handle));
          handle.dispose();
        }),
      () => this.finished,
    );
  }

  readonly answer: ElicitHandler = (question, context) => this.answerQuestion(question, context);

  stop(reason: string): void {
    this.end({ status: 'failed', error: new McpxError('SCRIPT_ERROR', `the script was stopped: ${reason}`) });
  }

  start(): void {
    if (this.limits.wallMs !== undefined) {
      this.wallTimer = setTimeout(() => this.end(timeoutEnding('wall', this.limits)), this.limits.wallMs);
    }
    this.drive(() => {
      const result = this.ctx.evalCode(this.options.script.code, this.options.script.filename, { type: 'module' });
      if (result.error) this.uncaught(result.error);
      else {
        this.consume(this.ctx.callFunction(this.guest.watchModule, this.ctx.undefined, result.value));
        result.value.dispose();
      }
    });
  }

  // --- slices and CPU time -------------------------------------------------------------------------

  private shouldInterrupt(): boolean {
    if (this.depth === 0) return false;
    const now = performance.now();
    if (this.clock.over(this.limits.cpuMs, now)) {
      this.interruptedBy ??= 'cpu';
      return true;
    }
    if (this.wallDeadline !== undefined && now > this.wallDeadline) {
      this.interruptedBy ??= 'wall';
      return true;
    }
    return false;
  }

  /** Runs `enter` and then the pending jobs as one slice, then looks at where the script stands. */
  private drive(enter?: () => void): void {
    if (this.finished) return;
    if (this.depth > 0) {
      enter?.();
      return;
    }
    this.depth = 1;
    this.clock.begin();
    const meter = this.options.meter;
    if (meter) meter[0] = performance.timeOrigin + this.clock.sliceStart;
    try {
      enter?.();
      this.runJobs();
      this.startCalls();
    } finally {
      this.clock.end();
      this.depth = 0;
      if (meter) {
        meter[1] = this.clock.usedMs;
        meter[0] = 0;
      }
    }
    this.afterSlice();
  }

  private runJobs(): void {
    if (this.ending) return;
    // -1 runs jobs until none is left, including those the jobs queue.
    const result = this.runtime.executePendingJobs(-1);
    if (result.error) this.uncaught(result.error);
  }

  private afterSlice(): void {
    // An overrun the script's own code swallowed (or one met outside it) still ends the run as the limit it is.
    if (!this.ending && this.interruptedBy) this.ending = timeoutEnding(this.interruptedBy, this.limits);
    if (!this.ending) {
      const busy = this.pendingCalls.size > 0 || this.timers.size > 0 || this.elicitWaiters.size > 0;
      if (this.finishedModule && !busy) this.ending = { status: 'ok', value: this.moduleValue };
      else if (!this.finishedModule && !busy) {
        this.ending = {
          status: 'failed',
          error: new McpxError(
            'SCRIPT_ERROR',
            'the script awaits a promise that can never settle: no tool call, timer or question is pending',
            { data: { filename: this.options.script.filename } },
          ),
        };
      }
    }
    if (this.ending) this.finish();
  }

  moduleDone(ok: boolean, value: QuickJSHandle): void {
    if (!ok) {
      this.uncaught(value.dup());
      return;
    }
    this.finishedModule = true;
    const exported = exportedValue(this.ctx, value, () => this.interruptedBy, this.limits, this.mapStack);
    if ('failed' in exported) this.ending ??= exported.failed;
    else this.moduleValue = exported.value;
  }

  // --- the prelude and the host functions ---------------------------------------------------------

  /** Starts the tool calls the script made in this slice (the prelude's records, see takeCalls there). */
  private startCalls(): void {
    if (this.ending) return; // the run is over: nothing more reaches the host
    const taken = this.ctx.callFunction(this.guest.takeCalls, this.ctx.undefined);
    if (taken.error) {
      this.uncaught(taken.error);
      return;
    }
    const text = this.ctx.getString(taken.value);
    taken.value.dispose();
    for (const call of readCallRecords(text)) this.call(call.token, call.server, call.tool, call.argsText);
  }

  private call(token: number, server: string, tool: string, argsText: string): void {
    this.toolCalls += 1;
    this.pendingCalls.add(token);
    const args = JSON.parse(argsText) as Record<string, unknown>;
    Promise.resolve()
      .then(() => this.bindings.callTool(server, tool, args))
      .then(
        (reply) => this.onToolReply(token, server, tool, reply),
        (error: unknown) =>
          this.onToolReply(token, server, tool, {
            status: 'tool-error',
            message: messageOf(error),
            ...(isMcpxError(error) ? { code: error.code } : {}),
          }),
      );
  }

  private onToolReply(token: number, server: string, tool: string, reply: ToolCallReply): void {
    if (this.finished) return;
    this.pendingCalls.delete(token);
    if (reply.status === 'input-required') {
      this.end({
        status: 'input-required',
        stop: { via: 'tool', server, tool, message: reply.message, ...(reply.data !== undefined ? { data: reply.data } : {}) },
      });
      return;
    }
    if (reply.status === 'ok') this.settle(token, true, reply.value);
    else this.settle(token, false, { message: reply.message, code: reply.code, server, tool, result: reply.result });
  }

  ask(token: number, requestText: string): void {
    if (this.ending) return;
    const request = JSON.parse(requestText) as { message: string; requestedSchema?: unknown };
    const requestedSchema = request.requestedSchema === undefined ? textAnswerSchema() : request.requestedSchema;
    if (!isFormSchema(requestedSchema)) {
      throw new TypeError('ask(q): requestedSchema must be { type: "object", properties: { ... } } with primitive fields');
    }
    this.pendingCalls.add(token);
    const ask = this.bindings.ask;
    Promise.resolve()
      .then(() => (ask ? ask.call(this.bindings, { message: request.message, requestedSchema }) : undefined))
      .then(
        (answer) => {
          if (this.finished) return;
          this.pendingCalls.delete(token);
          if (answer === undefined || 'status' in answer) {
            this.end({
              status: 'input-required',
              stop: answer
                ? { via: 'ask', message: answer.message, ...(answer.data ? { data: answer.data } : {}) }
                : {
                    via: 'ask',
                    message: `the script asked "${request.message}" and nobody here can answer it`,
                    data: { requestedSchema },
                  },
            });
            return;
          }
          const judged = judgeAnswer({ mode: 'form', requestedSchema }, JSON.stringify(answer));
          if ('reason' in judged)
            this.settle(token, false, { message: `ask(): the answer ${judged.reason}`, code: 'ANSWER_INVALID' });
          else this.settle(token, true, judged.answer);
        },
        (error: unknown) => {
          if (this.finished) return;
          this.pendingCalls.delete(token);
          this.settle(token, false, { message: messageOf(error), code: isMcpxError(error) ? error.code : undefined });
        },
      );
  }

  /** Resolves the script's promise `token` with `value`, or rejects it with a ToolError made of `value`. */
  private settle(token: number, ok: boolean, value: unknown): void {
    this.drive(() => {
      const { ctx } = this;
      const reply = newReply(ctx, value);
      if (!reply) {
        this.ending ??= thrownEnding({ name: 'InternalError', message: 'out of memory' }, this.limits, this.mapStack);
        return;
      }
      const id = ctx.newNumber(token);
      const flags = [ok ? ctx.true : ctx.false, reply.isText ? ctx.true : ctx.false];
      this.consume(ctx.callFunction(this.guest.settle, ctx.undefined, id, ...flags, reply.handle));
      id.dispose();
      reply.handle.dispose();
    });
  }

  setTimer(id: number, ms: number): void {
    this.timers.set(id, ms, this.clock.sliceStart);
  }

  clearTimer(id: number): void {
    this.timers.clear(id);
  }

  // --- onElicit --------------------------------------------------------------------------------------

  private async answerQuestion(question: Question, context: ElicitContext): Promise<Answer | undefined> {
    if (this.finished || !this.handlerRegistered) return undefined;
    const token = this.nextElicitToken++;
    this.elicitations += 1;
    const reply = new Promise<ElicitReply>((resolve) => this.elicitWaiters.set(token, resolve));
    const onAbort = (): void => this.elicitDone(token, false, 'was still running when the call that asked ended');
    context.signal?.addEventListener('abort', onAbort, { once: true });
    this.drive(() => {
      const id = this.ctx.newNumber(token);
      const text = this.ctx.newString(JSON.stringify(questionForScript(question)));
      this.consume(this.ctx.callFunction(this.guest.answerQuestion, this.ctx.undefined, id, text));
      id.dispose();
      text.dispose();
    });
    const { ok, text } = await reply;
    context.signal?.removeEventListener('abort', onAbort);
    if (!ok) {
      this.log(`onElicit handler ${text}; question ${question.id} (${question.server}.${question.tool}) is passed on`);
      return undefined;
    }
    const judged = judgeAnswer(question, text);
    if ('reason' in judged) {
      this.log(`onElicit handler ${judged.reason}; question ${question.id} (${question.server}.${question.tool}) is passed on`);
      return undefined;
    }
    return judged.answer;
  }

  console(level: ConsoleLevel, text: string): void {
    this.bindings.console(level, this.mapStack(text));
  }

  elicitRegistered(registered: boolean): void {
    this.handlerRegistered = registered;
  }

  elicitDone(token: number, ok: boolean, text: string): void {
    const waiter = this.elicitWaiters.get(token);
    if (!waiter) return;
    this.elicitWaiters.delete(token);
    waiter({ ok, text: ok ? text : this.mapStack(text) });
  }

  private log(message: string): void {
    this.bindings.log?.(message);
  }

  // --- errors and the end ----------------------------------------------------------------------------

  private consume(result: VmCallResult<QuickJSHandle>): void {
    if (result.error) this.uncaught(result.error);
    else result.value.dispose();
  }

  /** An error nobody in the script caught: it ends the run. Disposes `errorHandle`. */
  private uncaught(errorHandle: QuickJSHandle): void {
    const described = readThrown(this.ctx, errorHandle);
    if (this.ending) return;
    if (this.interruptedBy) {
      this.ending = timeoutEnding(this.interruptedBy, this.limits);
      return;
    }
    this.ending = thrownEnding(described, this.limits, this.mapStack);
  }

  private end(ending: Ending): void {
    if (this.finished) return;
    this.ending ??= ending;
    if (this.depth === 0) this.finish();
  }

  private finish(): void {
    if (this.finished || !this.ending) return;
    this.finished = true;
    clearTimeout(this.wallTimer);
    this.timers.dispose();
    this.pendingCalls.clear();
    for (const waiter of this.elicitWaiters.values()) waiter({ ok: false, text: 'was still running when the script ended' });
    this.elicitWaiters.clear();
    let disposedCleanly = true;
    try {
      for (const handle of Object.values(this.guest)) handle.dispose();
      this.ctx.dispose();
      this.runtime.dispose();
    } catch {
      // QuickJS asserts on objects still alive at free; the instance is single-use, so dropping it is enough.
      disposedCleanly = false;
    }
    const stats: RunStats = {
      cpuMs: this.clock.usedMs,
      wallMs: performance.now() - this.startedAt,
      toolCalls: this.toolCalls,
      elicitations: this.elicitations,
      disposedCleanly,
    };
    this.resolveOutcome({ ...this.ending, stats });
  }
}
