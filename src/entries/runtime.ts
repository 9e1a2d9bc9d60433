/**
 * `mcpx/runtime`: scripts in a QuickJS sandbox behind HostBindings. QuickJS and esbuild load only when a script runs.
 */
export {
  startScript,
  runScript,
  prepareScript,
  warmSandboxes,
  DEFAULT_LIMITS as DEFAULT_SCRIPT_LIMITS,
  parseSize,
  parseDuration,
} from '../runtime/index.js';
export type {
  AskRequest,
  AskStop,
  ConsoleLevel,
  HostBindings,
  InputRequiredStop,
  RunOutcome,
  RunStats,
  ScriptLimits,
  ScriptRun,
  ScriptSource,
  StartScriptOptions,
  ToolCallReply,
} from '../runtime/index.js';
