/**
 * Where a script runs: on this thread (sandbox.ts) or in a worker (worker.ts). Chosen here, so neither of those
 * imports the other.
 */
import { McpxError } from '../errors.js';
import { resolveLimits } from './limits.js';
import { startScriptHere } from './sandbox.js';
import type { RunOutcome, ScriptRun, StartScriptOptions } from './types.js';

/** Starts a script; resolves once it is running. */
export async function startScript(options: StartScriptOptions): Promise<ScriptRun> {
  const limits = resolveLimits(options.limits);
  if (options.isolation === 'worker') {
    const { startScriptInWorker } = await import('./worker.js').catch((error: unknown) => {
      // The worker locates itself with import.meta.url, which a CommonJS build cannot parse.
      throw new McpxError(
        'SCRIPT_ERROR',
        `worker isolation is not available here (it needs mcpx loaded as an ES module, with import rather than require): ${(error as Error).message}`,
        { cause: error },
      );
    });
    return startScriptInWorker(options, limits);
  }
  return startScriptHere(options, limits);
}

/** Runs a script to its end. */
export async function runScript(options: StartScriptOptions): Promise<RunOutcome> {
  return (await startScript(options)).outcome;
}
