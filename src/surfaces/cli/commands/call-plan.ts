/**
 * `mcpx call` in two steps both of its paths share: read the command line (planCall), then send the call and show
 * where it stops (runCall). The warm path (warm-call.ts) runs them against a running daemon from one small file;
 * call.ts runs them for everything else. Nothing here may load more than a warm call needs.
 */
import { ttlFromEnv } from '../../../policy/read.js';
import type { CallResponse } from '../../../host/results.js';
import { findConfigPath } from '../../../config/find.js';
import type { SessionBinding } from '../../../broker/light.js';
import {
  elicitModeOf,
  parseArgs,
  parseJsonObject,
  parseTarget,
  parseToolArguments,
  UsageError,
  type ElicitFlag,
} from '../args.js';
import type { Backend } from '../../backend/backend.js';
import { followProgress, showActivity } from '../activity.js';
import { EXIT, type CliIO } from '../io.js';
import { printResult } from '../print-result.js';
import { renderInputRequired } from '../render.js';
import { commandSession } from '../session.js';
import { readStdin } from '../util.js';

export interface CallPlan extends SessionBinding {
  server: string;
  tool: string;
  /** The tool's arguments from the words; undefined for `-`, which reads them from stdin (callArguments). */
  args?: Record<string, unknown>;
  mode: ElicitFlag;
  /** The daemon's policy mode for this call, when a mode was given (flag or MCPX_ELICIT); else the config's stands. */
  elicit?: 'ask' | 'auto' | 'decline' | 'error';
  json: boolean;
  elicitTtlMs?: number;
  config?: string;
  task: boolean;
}

/** The call the command line asks for, or undefined for `--help`. Throws a UsageError on a bad command line. */
export function planCall(argv: string[], io: CliIO): CallPlan | undefined {
  const { flags, positional } = parseArgs(argv, { booleans: ['json', 'task'], strings: ['elicit', 'config'] });
  if (flags.help) return undefined;
  const [target, ...words] = positional;
  const { server, tool } = parseTarget(target);
  const args = words.length === 1 && words[0] === '-' ? undefined : parseToolArguments(words);
  const mode = elicitModeOf(flags.elicit, io.env, io.isTTY);
  const chosen = typeof flags.elicit === 'string' || Boolean(io.env.MCPX_ELICIT);
  if (mode === 'prompt' && !io.isTTY)
    throw new UsageError('--elicit=prompt needs a terminal; use --elicit=return to get the question back instead');
  // MCPX_ELICIT_TTL_MS rides with the call, so a daemon already running applies it to this call's questions.
  const elicitTtlMs = io.env.MCPX_ELICIT_TTL_MS ? ttlFromEnv(io.env.MCPX_ELICIT_TTL_MS, 0) : undefined;
  const config = typeof flags.config === 'string' ? flags.config : undefined;
  return {
    server,
    tool,
    ...(args ? { args } : {}),
    mode,
    ...(chosen ? { elicit: mode === 'prompt' || mode === 'return' ? 'ask' : mode } : {}),
    json: flags.json === true,
    ...(elicitTtlMs ? { elicitTtlMs } : {}),
    ...(config ? { config } : {}),
    task: flags.task === true,
    // The question is raised in this command's session, and only that session (or an operator) answers it.
    ...commandSession(io, config),
  };
}

/** The tool's arguments: from the words, or the JSON object read from stdin for `-`. */
export async function callArguments(plan: CallPlan, io: CliIO): Promise<Record<string, unknown>> {
  return plan.args ?? parseJsonObject(await readStdin(io.stdin));
}

/**
 * Sends the call and shows where it stops: the result, or (not prompting) the open questions with exit 75. A call
 * that stops on questions in prompt mode goes to `prompt`, which puts them to the person at the terminal.
 */
export async function runCall(
  backend: Backend,
  plan: CallPlan,
  args: Record<string, unknown>,
  io: CliIO,
  prompt?: (response: Extract<CallResponse, { status: 'input-required' }>) => Promise<number>,
): Promise<number> {
  const { server, tool, session } = plan;
  // A spinner on a terminal while the call runs; wiped before the result, a question or an error is written.
  const activity = showActivity(io, `${server}.${tool}`);
  // On a terminal the call carries a token, so the server's progress on it reaches the spinner from the daemon.
  const progressToken = activity.live ? (await import('node:crypto')).randomUUID() : undefined;
  const unfollow = followProgress(backend, activity, { ...(progressToken ? { token: progressToken } : {}) }, { session });
  const response = await untilInterrupted(
    backend
      .call(server, tool, args, {
        session,
        sessionSource: plan.sessionSource,
        ...(plan.elicit ? { elicit: plan.elicit } : {}),
        ...(plan.elicitTtlMs ? { elicitTtlMs: plan.elicitTtlMs } : {}),
        ...(progressToken ? { progressToken } : {}),
        ...(plan.task ? { task: true } : {}),
      })
      .finally(() => {
        unfollow();
        activity.stop();
      }),
  );
  if (response === 'interrupted') {
    // Closing the backend (the caller's) ends an inline daemon's calls: cancelled at the server, not left running there.
    io.stderr.write('mcpx: interrupted\n');
    return EXIT.INTERRUPTED;
  }
  if (response.status === 'complete') return printResult(response.result, io, plan.json, { server, tool });
  // The daemon answered in auto, decline and error; a question still open waits for an answer from anywhere.
  if (plan.mode !== 'prompt' || !prompt)
    return returnQuestions(response, io, plan.json, session, findConfigPath(plan.config, io.cwd, io.env));
  return prompt(response);
}

/** The call's response, or 'interrupted' at the first Ctrl-C (SIGINT) while it runs. */
async function untilInterrupted<T>(call: Promise<T>): Promise<T | 'interrupted'> {
  let onSignal!: () => void;
  const interrupted = new Promise<'interrupted'>((resolve) => (onSignal = () => resolve('interrupted')));
  process.once('SIGINT', onSignal);
  // Settled after an interrupt by the backend's close: nobody waits for it then.
  call.catch(() => undefined);
  try {
    return await Promise.race([call, interrupted]);
  } finally {
    process.off('SIGINT', onSignal);
  }
}

export function returnQuestions(
  response: Extract<CallResponse, { status: 'input-required' }>,
  io: CliIO,
  json: boolean,
  /** The command's session: a question of another (a sign-in joined) is shown with --all. */
  session?: string,
  /** The config file, absolute: the printed commands name it, so they work pasted in another directory. */
  configPath?: string,
): number {
  const { inputRequired } = response;
  const text = renderInputRequired({
    server: inputRequired.server,
    tool: inputRequired.tool,
    questions: inputRequired.questions,
    ...(session ? { session } : {}),
    ...(inputRequired.task && !response.inline ? { task: inputRequired.task } : {}),
    pasteable: configPath ? { configPath } : {},
    now: Date.now(),
  });
  if (json) io.stdout.write(`${JSON.stringify({ inputRequired: { ...inputRequired, text } }, null, 2)}\n`);
  else io.stdout.write(text);
  return EXIT.INPUT_REQUIRED;
}
