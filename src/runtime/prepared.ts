/**
 * A sandbox made ready before any run needs it: a fresh capped instance with its runtime, context and the
 * prelude's globals installed. The host functions forward to whichever run is attached, so a run only binds
 * itself and evaluates its module.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { ConsoleLevel } from './host-bindings.js';
import { PRELUDE, PRELUDE_FILENAME } from './prelude.js';

/** What the prelude's host functions call, with their arguments read into plain values. */
export interface HostSide {
  ask(token: number, request: string): void;
  console(level: ConsoleLevel, text: string): void;
  setTimer(id: number, ms: number): void;
  clearTimer(id: number): void;
  elicitRegistered(registered: boolean): void;
  elicitDone(token: number, ok: boolean, text: string): void;
  /** The module finished evaluating: `value` is its default export, or the error it threw (valid during the call). */
  moduleDone(ok: boolean, value: QuickJSHandle): void;
}

/** The guest functions the host calls back into. */
export interface GuestFunctions {
  settle: QuickJSHandle;
  /** The tool calls the script made since the last take, as one string (see the prelude). */
  takeCalls: QuickJSHandle;
  answerQuestion: QuickJSHandle;
  fireTimer: QuickJSHandle;
  watchModule: QuickJSHandle;
}

export interface PreparedSandbox {
  readonly runtime: QuickJSRuntime;
  readonly ctx: QuickJSContext;
  readonly guest: GuestFunctions;
  /** The run the host functions forward to. */
  host: HostSide | undefined;
}

export function prepareSandbox(instance: QuickJSWASMModule): PreparedSandbox {
  const runtime = instance.newRuntime();
  runtime.setModuleLoader((name) => ({
    error: new Error(`import "${name}" is not available in a script: tools, onElicit, ask, console and setTimeout are globals`),
  }));
  const ctx = runtime.newContext();
  const sandbox = { runtime, ctx, host: undefined } as {
    runtime: QuickJSRuntime;
    ctx: QuickJSContext;
    guest: GuestFunctions;
    host: HostSide | undefined;
  };
  const on = (): HostSide => {
    if (!sandbox.host) throw new Error('no run is attached to this sandbox');
    return sandbox.host;
  };
  const functions: Record<string, (...args: QuickJSHandle[]) => void> = {
    ask: (token, request) => on().ask(ctx.getNumber(token), ctx.getString(request)),
    console: (level, text) => on().console(ctx.getString(level) as ConsoleLevel, ctx.getString(text)),
    setTimer: (id, ms) => on().setTimer(ctx.getNumber(id), ctx.getNumber(ms)),
    clearTimer: (id) => on().clearTimer(ctx.getNumber(id)),
    elicitRegistered: (flag) => on().elicitRegistered(ctx.getNumber(flag) === 1),
    elicitDone: (token, ok, text) => on().elicitDone(ctx.getNumber(token), ctx.getNumber(ok) === 1, ctx.getString(text)),
    moduleDone: (ok, value) => on().moduleDone(ctx.getNumber(ok) === 1, value),
  };
  const factory = ctx.unwrapResult(ctx.evalCode(PRELUDE, PRELUDE_FILENAME, { type: 'global' }));
  const host = ctx.newObject();
  for (const [name, fn] of Object.entries(functions)) {
    // Host functions return nothing: a value returned here would be taken for a QuickJS handle.
    const handle = ctx.newFunction(name, (...args) => {
      fn(...args);
    });
    ctx.setProp(host, name, handle);
    handle.dispose();
  }
  const exported = ctx.callFunction(factory, ctx.undefined, host);
  factory.dispose();
  host.dispose();
  const guest = ctx.unwrapResult(exported);
  sandbox.guest = {
    settle: ctx.getProp(guest, 'settle'),
    takeCalls: ctx.getProp(guest, 'takeCalls'),
    answerQuestion: ctx.getProp(guest, 'answerQuestion'),
    fireTimer: ctx.getProp(guest, 'fireTimer'),
    watchModule: ctx.getProp(guest, 'watchModule'),
  };
  guest.dispose();
  return sandbox;
}
