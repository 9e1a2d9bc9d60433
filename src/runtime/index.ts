/**
 * Runtime: user scripts (TypeScript or JavaScript modules) in a QuickJS sandbox with `tools`, `onElicit`,
 * `ask`, `console` and timers, under memory, stack, CPU and wall-clock limits.
 * Sees only a HostBindings interface; never imports broker/, client/ or a surface.
 */
export { startScript, runScript } from './start.js';
export type { ScriptSource, StartScriptOptions, ScriptRun, RunOutcome, RunStats, InputRequiredStop } from './types.js';
export type { HostBindings, ToolCallReply, AskRequest, AskStop, ConsoleLevel } from './host-bindings.js';
export { DEFAULT_LIMITS, resolveLimits, parseSize, parseDuration } from './limits.js';
export type { ScriptLimits } from './limits.js';
export { prepareScript } from './transpile.js';
export { warmSandboxes } from './engine.js';
