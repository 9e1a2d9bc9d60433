/**
 * What a script run by `mcpx run` is bound to: an in-process mcpx whose questions go through the elicitation
 * pipeline (policy, then the script's onElicit, then the person at the terminal in prompt mode), and the
 * HostBindings the sandbox sees. A question nobody answers stops the run with the `mcpx call` message.
 */
import { createHostAuth } from '../../auth/host-auth.js';
import type { Broker, ElicitRequest } from '../../broker/index.js';
import { questionOf } from '../../broker/index.js';
import type { Answerer } from '../../pipeline/pipeline.js';
import { openPipeline } from '../../host/chain.js';
import type { LoadedConfig, McpxConfig } from '../../config/index.js';
import { McpxError } from '../../errors.js';
import { newCallId, newElicitationId } from '../../ids.js';
import { createMcpx, type Mcpx, type McpxOptions } from '../../mcpx.js';
import { stateDir } from '../../paths.js';
import { parsePolicy, withMode, type Policy } from '../../policy/index.js';
import type { AskRequest, AskStop, HostBindings, RunOutcome, ScriptRun } from '../../runtime/index.js';
import type { Answer, ElicitContext, ElicitHandler, Question } from '../../types.js';
import type { ElicitFlag } from './args.js';
import type { CliIO } from './io.js';
import { renderInputRequired } from './render.js';
import { sanitize, sanitizeLine } from './sanitize.js';
import { scriptCallTool, type Pasted } from './script-calls.js';
import type { AskReplay } from './script-asks.js';
import type { SignInHandOff } from './script-sign-in.js';
import { commandSession } from './session.js';
import { findConfigPath } from '../../config/find.js';
import { DEFAULT_ELICIT_TTL_MS, DEFAULT_MAX_QUESTIONS_PER_RUN, MCPX_VERSION } from '../../constants.js';
import { SURFACE_DELIVERS } from '../delivers.js';

/** Puts one question to the person and returns their answer (the terminal form, or a test's stand-in). */
export type PersonPrompt = (question: Question) => Promise<Answer>;

export interface ScriptHostOptions {
  io: CliIO;
  mode: ElicitFlag;
  config?: McpxConfig | string;
  /** The config already loaded (wins over `config`). */
  loaded?: LoadedConfig;
  /** Host-wired servers (tests). */
  servers?: McpxOptions['servers'];
  broker: Broker;
  policy?: Policy;
  /** The person; used in prompt mode only. */
  prompt?: PersonPrompt;
  elicitTtlMs?: number;
  /** Questions the run may open (its ask() and its calls' questions); default the policy's `maxQuestionsPerRun`, else 200. */
  maxQuestionsPerRun?: number;
  /** The config file the run reads (for the session its questions are opened in). */
  configPath?: string;
  /** Where ask() questions left open are remembered for the next run (`keyOf` names this script). */
  replay?: AskReplay;
  /** Where a sign-in nobody here answers goes (the daemon, which outlives the run); absent: the call fails. */
  signInElsewhere?: SignInHandOff;
}

export interface ScriptHost {
  readonly mcpx: Mcpx;
  readonly bindings: HostBindings;
  /** Makes the run's onElicit the script answerer of the pipeline. */
  attach(run: ScriptRun): void;
  /** The run ended: past its questions (done or failed), the answers its ask() calls replayed are used up. */
  finished(outcome: RunOutcome): Promise<void>;
  close(): Promise<void>;
}

export async function createScriptHost(options: ScriptHostOptions): Promise<ScriptHost> {
  const { io, mode } = options;
  const { broker } = options;
  const ttlMs = options.elicitTtlMs ?? DEFAULT_ELICIT_TTL_MS;
  const basePolicy = options.policy ?? parsePolicy({});
  // prompt and return both ask (rules first); the person is there only in prompt mode.
  const policy = mode === 'auto' || mode === 'decline' || mode === 'error' ? withMode(basePolicy, mode) : basePolicy;
  const person = mode === 'prompt' ? options.prompt : undefined;
  const { replay } = options;
  // Opened in the command's session, so `mcpx elicit list` run here shows them.
  const session = commandSession(io, options.configPath);
  // Its messages also print the commands that work pasted in another shell and directory.
  const configPath = findConfigPath(options.configPath, io.cwd, io.env);
  const pasted: Pasted = {
    session: session.session,
    pasteable: { ...(configPath ? { configPath } : {}), layout: 'row' as const },
  };
  let run: ScriptRun | undefined;
  // A script accepting a url question consents to the page being opened, as a Node host's onElicit does: it is opened
  // here (https, or http on this machine); a page that cannot be opened was never shown, so that is a cancel.
  const script: ElicitHandler = async (question, context) => {
    const answer = run ? await run.answer(question, context) : undefined;
    // mcpx's own (a sign-in) is the person's: the broker refuses the script's accept, so nothing is opened for it.
    if (question.mode !== 'url' || answer?.action !== 'accept' || question.asker === 'mcpx') return answer;
    const { openUrl } = await import('./open-url.js');
    return (await openUrl(question.url ?? '', io.env)) ? answer : { action: 'cancel' };
  };
  const answerers: Answerer[] = [{ kind: 'script', name: 'onElicit', answer: script }];
  if (person) answerers.push({ kind: 'person', name: 'terminal', answer: (question: Question) => person(question) });
  const bounded = runQuestionBound(
    options.maxQuestionsPerRun ?? basePolicy.maxQuestionsPerRun ?? DEFAULT_MAX_QUESTIONS_PER_RUN,
    (reason) => run?.stop(reason),
  );
  const pipeline = bounded(openPipeline({ broker, policy, answerers, env: io.env, session }));
  // ask() has no script answerer: the script asked it. Nobody answering stops the run as input-required.
  const askPipeline = bounded(
    openPipeline({
      broker,
      policy,
      answerers: person ? [{ kind: 'person', name: 'terminal', answer: (question) => person(question) }] : [],
      env: io.env,
      session,
    }),
  );

  // Sign-ins are questions of the script's calls; the browser comes back to this process while the run lasts.
  const auth = createHostAuth({ stateDir: stateDir(io.env), env: io.env, broker });
  const mcpx = await createMcpx({
    auth,
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.loaded ? { loaded: options.loaded } : {}),
    ...(options.servers ? { servers: options.servers } : {}),
    cwd: io.cwd,
    env: io.env,
    onElicit: pipeline,
    // The script's onElicit and the terminal form open a url question's page themselves, with consent.
    ...SURFACE_DELIVERS,
    elicitTtlMs: ttlMs,
    clientInfo: { name: 'mcpx-run', version: MCPX_VERSION },
    // As in mcpx call: a bad argument is refused with the field before anything is sent.
    checkCalls: true,
  });

  const bindings: HostBindings = {
    callTool: scriptCallTool({
      mcpx,
      broker,
      pipeline,
      ttlMs,
      pasted,
      ...(options.signInElsewhere ? { signInElsewhere: options.signInElsewhere } : {}),
    }),
    ask: scriptAsk({ broker, askPipeline, ttlMs, pasted, ...(person ? { person } : {}), ...(replay ? { replay } : {}) }),
    console(level, text) {
      const prefix = level === 'log' || level === 'info' ? '' : `${level}: `;
      io.stderr.write(`${prefix}${text}\n`);
    },
    log(message) {
      io.stderr.write(`mcpx: ${sanitize(message)}\n`);
    },
  };

  return {
    mcpx,
    bindings,
    attach(next) {
      run = next;
    },
    finished: async (outcome) => {
      if (outcome.status !== 'input-required') await replay?.forget();
    },
    close: async () => {
      await mcpx.close();
      await auth.close();
    },
  };
}

/**
 * Counts the questions a run opens (ask() and its calls' questions, both through the pipelines). Past the bound no
 * question is opened: the asker gets QUESTION_LIMIT and the run is stopped, so a script that catches it cannot spin.
 */
function runQuestionBound(limit: number, stopRun: (reason: string) => void): (handler: ElicitHandler) => ElicitHandler {
  let opened = 0;
  return (handler) => async (question, context) => {
    opened += 1;
    if (opened <= limit) return handler(question, context);
    const error = new McpxError(
      'QUESTION_LIMIT',
      `the script opened more than ${limit} questions in one run (ask() and its tool calls' questions), so mcpx stopped it; if it really needs more, raise the bound with "maxQuestionsPerRun" in the config's "elicit" block`,
      { data: { limit, bound: 'maxQuestionsPerRun' } },
    );
    stopRun(`${error.message} [QUESTION_LIMIT]`);
    throw error;
  };
}

/** A question ask() left open, as the run's stop: the `mcpx call` message, saying how to answer it and run again. */
function askStopOf(request: ElicitRequest, pasted: Pasted): AskStop {
  return {
    status: 'input-required',
    message: renderInputRequired({
      server: request.server,
      tool: request.tool,
      questions: [{ ...questionOf(request), expiresAt: request.expiresAt }],
      ...pasted,
      now: Date.now(),
      headline: `the script asked "${sanitizeLine(request.message)}" and nobody here can answer it`,
      tail: 'Answer it from any process (the command above, REST, the inbox), then run the script again: this ask() returns that answer.',
    }),
    data: { callId: request.trace, server: request.server, tool: request.tool, questions: [questionOf(request)] },
  };
}

interface AskDeps {
  broker: Broker;
  /** The policy, then the person in prompt mode: the script asked, so it does not answer. */
  askPipeline: ElicitHandler;
  person?: PersonPrompt;
  replay?: AskReplay;
  ttlMs: number;
  pasted: Pasted;
}

/** The sandbox's ask(): an answer an earlier run's question got is replayed; nobody answering stops the run. */
function scriptAsk({ broker, askPipeline, person, replay, ttlMs, pasted }: AskDeps): NonNullable<HostBindings['ask']> {
  return async (request: AskRequest): Promise<Answer | AskStop | undefined> => {
    const key = replay?.keyOf(request);
    const earlier = key === undefined ? undefined : await replay?.recall(key);
    if (earlier && 'answer' in earlier) return earlier.answer;
    if (earlier && !person) return askStopOf(earlier.waiting, pasted);
    // Asked afresh at the terminal: the earlier run's question is no one's any more.
    if (earlier)
      await broker.abandon(earlier.waiting.id, 'the script ran again and asked at the terminal').catch(() => undefined);
    const question: Question = {
      id: newElicitationId(),
      server: 'script',
      tool: 'ask',
      mode: 'form',
      message: request.message,
      requestedSchema: request.requestedSchema,
      era: 'modern',
      callId: newCallId(),
      audience: 'user',
    };
    const context: ElicitContext = { signal: new AbortController().signal, arguments: {}, expiresAt: Date.now() + ttlMs };
    const answer = await askPipeline(question, context);
    if (answer) return answer;
    // Nobody here answered: the question waits in the store, and the next run replays its answer.
    const opened = await broker.get(question.id);
    if (!opened) return undefined;
    if (key !== undefined) await replay?.remember(key, question.id, ttlMs);
    return askStopOf(opened, pasted);
  };
}
