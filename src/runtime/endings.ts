/** How a script run ends: its value, the question it stopped at, or an error (thrown, out of memory, out of time). */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { McpxError } from '../errors.js';
import type { ResolvedLimits } from './limits.js';
import type { StackMapper } from './stack-map.js';
import type { InputRequiredStop } from './types.js';

export type Ending =
  | { status: 'ok'; value: unknown }
  | { status: 'failed'; error: McpxError }
  | { status: 'input-required'; stop: InputRequiredStop };

/** What a thrown value says of itself, read out of the VM. */
export interface Thrown {
  name?: string;
  message?: string;
  stack?: string;
  code?: unknown;
  nothingThrown?: boolean;
}

/** Reads what the script threw. Disposes `errorHandle`. */
export function readThrown(ctx: QuickJSContext, errorHandle: QuickJSHandle): Thrown {
  let described: Thrown = {};
  try {
    const dumped = ctx.dump(errorHandle) as unknown;
    // QuickJS throws null when it runs out of memory while making the error itself.
    if (dumped === null) described = { name: 'InternalError', message: 'out of memory', nothingThrown: true };
    else described = typeof dumped === 'object' ? (dumped as typeof described) : { message: String(dumped) };
    if (described.name === 'ToolError') {
      const code = ctx.getProp(errorHandle, 'code');
      described.code = ctx.dump(code);
      code.dispose();
    }
  } catch {
    described = { name: 'InternalError', message: 'out of memory' };
  } finally {
    errorHandle.dispose();
  }
  return described;
}

/** The failure an uncaught error ends the run with (one the interrupt caused is a timeout instead). */
export function thrownEnding(described: Thrown, limits: ResolvedLimits, mapStack: StackMapper): Ending {
  if (described.name === 'InternalError' && described.message === 'out of memory') {
    return {
      status: 'failed',
      error: new McpxError(
        'SCRIPT_MEMORY_LIMIT',
        `the script ran out of memory${described.nothingThrown ? ' (too far to even make the error object)' : ''}: it is limited to ${mib(limits.memoryBytes)} (raise it with --memory-limit)`,
        {
          data: { memoryBytes: limits.memoryBytes },
        },
      ),
    };
  }
  if (described.name === 'InternalError' && described.message === 'string too long') {
    described.message = 'string too long: the script built a string longer than the sandbox allows (2^30 characters)';
  }
  const stack = mapStack(described.stack ?? '').replace(/\n$/, '');
  const headline = `${described.name ?? 'Error'}: ${described.message ?? ''}`;
  return {
    status: 'failed',
    error: new McpxError('SCRIPT_ERROR', stack ? `${headline}\n${stack}` : headline, {
      data: {
        name: described.name,
        message: described.message,
        stack,
        ...(described.code === undefined ? {} : { code: described.code }),
      },
    }),
  };
}

export function timeoutEnding(by: 'cpu' | 'wall', limits: ResolvedLimits): Ending {
  const message =
    by === 'cpu'
      ? `the script used more than ${limits.cpuMs} ms of CPU time (raise it with --cpu-limit)`
      : `the script ran past its ${limits.wallMs} ms deadline (raise it with --timeout)`;
  return {
    status: 'failed',
    error: new McpxError('SCRIPT_TIMEOUT', message, {
      data: { limit: by, cpuMs: limits.cpuMs, wallMs: limits.wallMs },
    }),
  };
}

function mib(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}

/**
 * The default export as JSON, through the VM's own JSON.stringify: a value that cannot be (cyclic, a BigInt, nested
 * past the stack) fails the run saying so, and an interrupt while stringifying is the limit it was, never hidden.
 */
export function exportedValue(
  ctx: QuickJSContext,
  value: QuickJSHandle,
  interruptedBy: () => 'cpu' | 'wall' | undefined,
  limits: ResolvedLimits,
  mapStack: StackMapper,
): { value: unknown } | { failed: Ending } {
  if (ctx.typeof(value) === 'undefined') return { value: undefined };
  const json = ctx.getProp(ctx.global, 'JSON');
  const stringify = ctx.getProp(json, 'stringify');
  const result = ctx.callFunction(stringify, json, value);
  stringify.dispose();
  json.dispose();
  if (result.error) {
    const described = readThrown(ctx, result.error);
    const interrupted = interruptedBy();
    if (interrupted) return { failed: timeoutEnding(interrupted, limits) };
    if (described.name === 'InternalError' && described.message === 'out of memory')
      return { failed: thrownEnding(described, limits, mapStack) };
    const why = `${described.name ?? 'Error'}: ${described.message ?? ''}`;
    const error = new McpxError(
      'SCRIPT_ERROR',
      `the script's default export cannot be returned as JSON (${why}): export plain data, with no cycles, BigInts or nesting thousands deep`,
      { data: { name: described.name, message: described.message } },
    );
    return { failed: { status: 'failed', error } };
  }
  const text = ctx.typeof(result.value) === 'string' ? ctx.getString(result.value) : undefined;
  result.value.dispose();
  return { value: text === undefined ? undefined : (JSON.parse(text) as unknown) };
}
