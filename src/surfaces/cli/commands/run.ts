/**
 * `mcpx run script.ts`: runs a script (TypeScript or JavaScript module) in the QuickJS sandbox with `tools`,
 * `onElicit`, `ask`, `console` and timers. Exit 0 done (a default export is printed as JSON), 1 an uncaught error
 * (the script's stack, mapped to its own lines) or a limit, 2 usage, 75 a question nobody here could answer.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { StoreBroker } from '../../../broker/index.js';
import type { Broker } from '../../../broker/index.js';
import { McpxError } from '../../../errors.js';
import { loadConfig } from '../../../config/index.js';
import { DEFAULT_ELICIT_TTL_MS, type McpxOptions } from '../../../mcpx.js';
import { ttlFromEnv } from '../../../policy/index.js';
import {
  parseDuration,
  parseSize,
  prepareScript,
  startScript,
  type RunOutcome,
  type ScriptLimits,
} from '../../../runtime/index.js';
import { elicitModeOf, parseArgs, UsageError, type ParsedArgs } from '../args.js';
import { findConfigPath } from '../../../config/find.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import type { AskReplay } from '../script-asks.js';
import { createScriptHost, type PersonPrompt } from '../script-host.js';
import { startDaemonNotifications } from '../../daemon/notifications.js';
import { daemonSignIn } from '../script-sign-in.js';
import { sanitize } from '../sanitize.js';
import { errorLead } from '../style.js';

const USAGE = `usage: mcpx run <script.ts|script.js> [options]

Runs a script in a sandbox. Globals: tools.<server>.<tool>(args), onElicit(handler), ask(question),
console.*, setTimeout/clearTimeout. No file system, network or process access except through tools.

options:
  --elicit <mode>        a question the script's onElicit does not answer goes to:
                           prompt   the person at this terminal (the default on a terminal)
                           return   nobody: the run stops at that call and exits 75 (the default otherwise)
                           auto     policy rules only (unmatched: cancel); decline: decline; error: fail the call
  --config <file>        the mcpServers config (default: ./mcpx.json, ./.mcp.json, then the user config)
  --memory-limit <size>  heap cap of the sandbox (default 64m)
  --cpu-limit <time>     CPU time the script may use (default 30s; waiting on tools or a person is free)
  --timeout <time>       wall-clock deadline for the whole run (default none)
  --check                type-check the script against the servers' tools first
  --json                 with exit 75, print {"inputRequired": {...}} instead of the message

exit: 0 done, 1 the script failed or hit a limit, 2 usage, 75 a question waits for an answer
`;

/** What tests (and embedders of the CLI) may inject instead of the terminal and the state store. */
export interface RunDependencies {
  prompt?: PersonPrompt;
  broker?: Broker;
  servers?: McpxOptions['servers'];
}

export const command: Command = (argv, io) => runCommand(argv, io);

export async function runCommand(argv: string[], io: CliIO, deps: RunDependencies = {}): Promise<number> {
  const { flags, positional } = parseArgs(argv, RUN_FLAGS);
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const [file, ...extra] = positional;
  if (!file) throw new UsageError('which script? e.g. mcpx run script.ts');
  if (extra.length) throw new UsageError(`one script at a time (also got: ${extra.join(' ')})`);
  const path = resolve(io.cwd, file);
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (error) {
    throw new McpxError('SCRIPT_ERROR', `cannot read the script ${path}: ${(error as Error).message}`, {
      cause: error,
      data: { file: path },
    });
  }
  return runSource(source, file, flags, io, deps);
}

/** The flags `mcpx run` and `mcpx exec` share. */
export const RUN_FLAGS = {
  booleans: ['check', 'json'],
  strings: ['elicit', 'config', 'memory-limit', 'cpu-limit', 'timeout'],
} as const;

/** Runs script text in the sandbox: the part of `mcpx run` after the file is read (`mcpx exec` starts here). */
export async function runSource(
  source: string,
  file: string,
  flags: ParsedArgs['flags'],
  io: CliIO,
  deps: RunDependencies = {},
): Promise<number> {
  const mode = elicitModeOf(flags.elicit, io.env, io.isTTY || deps.prompt !== undefined);
  if (mode === 'prompt' && !io.isTTY && !deps.prompt)
    throw new UsageError('--elicit=prompt needs a terminal; use --elicit=return to stop with the question instead');
  const limits = limitsFrom(flags);
  const configFlag = typeof flags.config === 'string' ? flags.config : undefined;
  const configPath = deps.servers && !configFlag ? undefined : findConfigPath(configFlag, io.cwd, io.env);

  // Read once: the servers and the policy (with its TTL) together, before anything starts.
  const loaded = loadConfig({ config: configPath ?? { mcpServers: {} }, cwd: io.cwd, env: io.env });
  const elicitTtlMs = loaded.policy.ttlMs ?? ttlFromEnv(io.env.MCPX_ELICIT_TTL_MS, DEFAULT_ELICIT_TTL_MS);
  const broker = deps.broker ? { broker: deps.broker, close: async () => undefined } : await openRunBroker(io);
  const notifications = startDaemonNotifications(broker.broker, { env: io.env, cwd: io.cwd, configPath });
  try {
    const replay = await askReplayOf(broker.broker, resolve(io.cwd, file), source, io);
    const host = await createScriptHost({
      io,
      mode,
      broker: broker.broker,
      loaded,
      ...(deps.servers ? { servers: deps.servers } : {}),
      policy: loaded.policy,
      elicitTtlMs,
      prompt: deps.prompt ?? terminalPrompt(io),
      ...(replay ? { replay } : {}),
      ...(configFlag ? { configPath: configFlag } : {}),
      // The state store's questions are every process's: a sign-in asked there is held by the daemon of this config.
      ...(deps.broker ? {} : { signInElsewhere: daemonSignIn(io, configFlag, elicitTtlMs) }),
    });
    try {
      if (flags.check === true) {
        if (!/\.(?:ts|mts|cts)$/i.test(file)) throw new UsageError('--check type-checks TypeScript: give it a .ts script');
        const { checkScript } = await import('../check-script.js');
        const problems = await checkScript(host.mcpx, file, source);
        if (problems.length) {
          for (const line of problems) io.stderr.write(`${line}\n`);
          io.stderr.write(
            `${errorLead(io.stderr, io.env)} ${file} has ${problems.length} type error${problems.length === 1 ? '' : 's'}; not run [SCRIPT_TYPE_ERROR]\n`,
          );
          return EXIT.FAILURE;
        }
      }
      const script = await prepareScript(source, file);
      // A worker thread, so a script that overruns its CPU or time limit is stopped even inside a builtin.
      const run = await startScript({ script, bindings: host.bindings, limits, isolation: 'worker' });
      host.attach(run);
      const outcome = await run.outcome;
      await host.finished(outcome);
      return report(outcome, io, flags.json === true);
    } finally {
      await host.close();
    }
  } finally {
    await notifications.stop();
    await broker.close();
  }
}

function report(outcome: RunOutcome, io: CliIO, json: boolean): number {
  if (outcome.status === 'ok') {
    if (outcome.value !== undefined) io.stdout.write(`${JSON.stringify(outcome.value, null, 2)}\n`);
    return EXIT.OK;
  }
  if (outcome.status === 'input-required') {
    const { stop } = outcome;
    if (json) io.stdout.write(`${JSON.stringify({ inputRequired: { ...stop.data, text: stop.message } }, null, 2)}\n`);
    // A tool's stop and an ask() left open in the store carry the rendered message; a bare ask() stop a line.
    else io.stdout.write(stop.via === 'tool' || stop.data?.questions ? stop.message : `mcpx: ${sanitize(stop.message)}.\n`);
    return EXIT.INPUT_REQUIRED;
  }
  io.stderr.write(`${errorLead(io.stderr, io.env)} ${sanitize(outcome.error.message)} [${outcome.error.code}]\n`);
  return EXIT.FAILURE;
}

function limitsFrom(flags: Record<string, string | boolean | undefined>): ScriptLimits {
  const limits: ScriptLimits = {};
  const text = (name: string): string | undefined => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
  const memory = text('memory-limit');
  const cpu = text('cpu-limit');
  const timeout = text('timeout');
  try {
    if (memory !== undefined) limits.memoryBytes = parseSize(memory, '--memory-limit');
    if (cpu !== undefined) limits.cpuMs = parseDuration(cpu, '--cpu-limit');
    if (timeout !== undefined) limits.wallMs = parseDuration(timeout, '--timeout');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return limits;
}

async function openRunBroker(io: CliIO): Promise<{ broker: Broker; close(): Promise<void> }> {
  // The shared state store: questions a run opens are listed and audited like any other (`mcpx elicit list`, `mcpx log`).
  const { openStoreBroker, closeStoreBroker } = await import('../../backend/store-backend.js');
  const broker = await openStoreBroker(io.env);
  return { broker, close: () => closeStoreBroker(broker) };
}

/** Where a script's unanswered ask() is remembered for the next run: beside the questions, when the broker has a store. */
async function askReplayOf(broker: Broker, path: string, source: string, io: CliIO): Promise<AskReplay | undefined> {
  if (!('store' in broker)) return undefined;
  const { createAskReplay, scriptIdentity } = await import('../script-asks.js');
  return createAskReplay({
    keyv: (broker as StoreBroker).store.keyv,
    broker,
    script: scriptIdentity(path, source),
    scope: JSON.stringify([io.cwd, io.env.MCPX_SESSION_ID ?? '']),
  });
}

function terminalPrompt(io: CliIO): PersonPrompt {
  return async (question) => {
    const { promptForAnswer } = await import('../form/index.js');
    const { openUrl } = await import('../open-url.js');
    return promptForAnswer(question, { input: io.stdin, output: io.stderr, openUrl: (url) => openUrl(url, io.env) });
  };
}
