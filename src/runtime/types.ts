/**
 * The shapes of a script run, shared by the in-thread sandbox and the worker that hosts one (kept apart from
 * both so neither imports the other for its types).
 */
import type { ScriptSourceMap } from './stack-map.js';
import type { McpxError } from '../errors.js';
import type { ElicitHandler } from '../types.js';
import type { HostBindings } from './host-bindings.js';
import type { ScriptLimits } from './limits.js';

/** JavaScript ready to evaluate as an ES module, with the map back to the script's own lines. */
export interface ScriptSource {
  code: string;
  /** Shown in stack traces: the script's path as the person gave it. */
  filename: string;
  sourceMap?: ScriptSourceMap;
}

export interface StartScriptOptions {
  script: ScriptSource;
  bindings: HostBindings;
  limits?: ScriptLimits;
  /**
   * `thread` (default): the sandbox runs on the caller's thread; fastest, but the CPU limit is soft (QuickJS
   * polls it every ~10k operations, so a loop over heavy builtins can overrun it by seconds).
   * `worker`: the sandbox runs in a worker thread that is terminated when it overruns its CPU or wall limit;
   * costs a worker start (~0.1 s) and a message round trip per host call.
   */
  isolation?: 'thread' | 'worker';
  /** Internal: where a worker's sandbox publishes [slice start (epoch ms) or 0, CPU used (ms)] for the watchdog. */
  meter?: Float64Array;
}

export interface RunStats {
  /** CPU time spent running the script (the sum of its slices). */
  cpuMs: number;
  wallMs: number;
  toolCalls: number;
  elicitations: number;
  /** The QuickJS runtime was freed cleanly at the end (false: it held leaked objects, and the instance was dropped). */
  disposedCleanly: boolean;
}

/** Where the run stopped because nothing could answer a question. */
export interface InputRequiredStop {
  via: 'tool' | 'ask';
  server?: string;
  tool?: string;
  /** The message to show, as the host gave it (for a tool call: the same text as `mcpx call`). */
  message: string;
  data?: Record<string, unknown>;
}

export type RunOutcome =
  /** `value` is the module's default export, as plain data. */
  | { status: 'ok'; value: unknown; stats: RunStats }
  /** SCRIPT_ERROR (uncaught, stack mapped to the script's lines), SCRIPT_TIMEOUT or SCRIPT_MEMORY_LIMIT. */
  | { status: 'failed'; error: McpxError; stats: RunStats }
  | { status: 'input-required'; stop: InputRequiredStop; stats: RunStats };

export interface ScriptRun {
  readonly outcome: Promise<RunOutcome>;
  /** The script's `onElicit` as an answerer: `undefined` when it does not answer (the reason is logged). */
  readonly answer: ElicitHandler;
  /** Ends the run now (its outcome: SCRIPT_ERROR with the reason). */
  stop(reason: string): void;
}
