/**
 * Worker isolation: the sandbox runs in a worker thread, and a watchdog on the caller's thread terminates the
 * worker when a slice overruns the CPU budget or the run overruns its deadline (QuickJS's own interrupt is polled
 * too rarely to stop a loop over heavy builtins). The host bindings and the onElicit answerer cross as messages
 * of plain data. This file is both sides: loaded as the worker's main module, it serves the run it is given.
 */
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import { McpxError, type McpxErrorCode } from '../errors.js';
import type { Answer, ElicitContext, Question } from '../types.js';
import type { AskRequest, AskStop, ConsoleLevel, HostBindings, ToolCallReply } from './host-bindings.js';
import { resolveLimits, type ResolvedLimits } from './limits.js';
import type { RunOutcome, RunStats, ScriptRun, ScriptSource, StartScriptOptions } from './types.js';

const MARKER = 'mcpxSandboxWorker';
/** How far past its budget a slice may run before the worker is terminated (the soft interrupt usually wins). */
const graceMs = (budgetMs: number): number => 250 + budgetMs * 0.1;
const WATCH_EVERY_MS = 50;

type SerializedOutcome =
  | { status: 'ok'; value: unknown; stats: RunStats }
  | { status: 'failed'; error: { code: McpxErrorCode; message: string; data?: Record<string, unknown> }; stats: RunStats }
  | Extract<RunOutcome, { status: 'input-required' }>;

type ToParent =
  | { type: 'call'; id: number; server: string; tool: string; args: Record<string, unknown> }
  | { type: 'ask'; id: number; request: AskRequest }
  | { type: 'console'; level: ConsoleLevel; text: string }
  | { type: 'log'; message: string }
  | { type: 'answered'; id: number; answer: Answer | null }
  | { type: 'outcome'; outcome: SerializedOutcome };

type ToWorker =
  | { type: 'call-reply'; id: number; reply: ToolCallReply }
  | { type: 'ask-reply'; id: number; answer: Answer | AskStop | null; error?: { message: string; code?: string } }
  | { type: 'answer'; id: number; question: Question; expiresAt: number; arguments: Record<string, unknown> }
  | { type: 'abort-answer'; id: number }
  | { type: 'stop'; reason: string };

interface WorkerInput {
  [MARKER]: true;
  script: ScriptSource;
  limits: ResolvedLimits;
  meter: SharedArrayBuffer;
}

/** The caller's side: starts the worker and answers its host calls with `options.bindings`. */
export async function startScriptInWorker(options: StartScriptOptions, limits: ResolvedLimits): Promise<ScriptRun> {
  const startedAt = performance.now();
  const meterBuffer = new SharedArrayBuffer(2 * Float64Array.BYTES_PER_ELEMENT);
  const meter = new Float64Array(meterBuffer);
  const input: WorkerInput = { [MARKER]: true, script: options.script, limits, meter: meterBuffer };
  const worker = spawnSelf(input);
  const { bindings } = options;

  let resolveOutcome!: (outcome: RunOutcome) => void;
  const outcome = new Promise<RunOutcome>((resolve) => (resolveOutcome = resolve));
  let finished = false;
  let toolCalls = 0;
  let elicitations = 0;
  let nextAnswer = 1;
  const answers = new Map<number, (answer: Answer | undefined) => void>();

  const end = (result: RunOutcome): void => {
    if (finished) return;
    finished = true;
    clearInterval(watchdog);
    clearTimeout(deadline);
    for (const resolve of answers.values()) resolve(undefined);
    answers.clear();
    void worker.terminate();
    resolveOutcome(result);
  };
  const killed = (by: 'cpu' | 'wall'): void => {
    const message =
      by === 'cpu'
        ? `the script used more than ${limits.cpuMs} ms of CPU time (raise it with --cpu-limit)`
        : `the script ran past its ${limits.wallMs} ms deadline (raise it with --timeout)`;
    end({
      status: 'failed',
      error: new McpxError('SCRIPT_TIMEOUT', message, {
        data: { limit: by, cpuMs: limits.cpuMs, wallMs: limits.wallMs, terminated: true },
      }),
      stats: { cpuMs: cpuSoFar(meter), wallMs: performance.now() - startedAt, toolCalls, elicitations, disposedCleanly: false },
    });
  };

  const watchdog = setInterval(() => {
    if (cpuSoFar(meter) > limits.cpuMs + graceMs(limits.cpuMs)) killed('cpu');
  }, WATCH_EVERY_MS);
  watchdog.unref();
  const deadline =
    limits.wallMs === undefined ? undefined : setTimeout(() => killed('wall'), limits.wallMs + graceMs(limits.wallMs));

  const send = (message: ToWorker): void => {
    if (!finished) worker.postMessage(message);
  };

  worker.on('message', (message: ToParent) => {
    switch (message.type) {
      case 'call':
        toolCalls += 1;
        Promise.resolve()
          .then(() => bindings.callTool(message.server, message.tool, message.args))
          .then(
            (reply) => send({ type: 'call-reply', id: message.id, reply }),
            (error: unknown) =>
              send({
                type: 'call-reply',
                id: message.id,
                reply: { status: 'tool-error', message: messageOf(error), ...codeOf(error) },
              }),
          );
        return;
      case 'ask':
        Promise.resolve()
          .then(() => (bindings.ask ? bindings.ask(message.request) : undefined))
          .then(
            (answer) => send({ type: 'ask-reply', id: message.id, answer: answer ?? null }),
            (error: unknown) =>
              send({ type: 'ask-reply', id: message.id, answer: null, error: { message: messageOf(error), ...codeOf(error) } }),
          );
        return;
      case 'console':
        bindings.console(message.level, message.text);
        return;
      case 'log':
        bindings.log?.(message.message);
        return;
      case 'answered': {
        const resolve = answers.get(message.id);
        answers.delete(message.id);
        resolve?.(message.answer ?? undefined);
        return;
      }
      case 'outcome':
        end(deserialize(message.outcome));
        return;
    }
  });
  worker.on('error', (error) => {
    end({
      status: 'failed',
      error: new McpxError('SCRIPT_ERROR', `the sandbox worker failed: ${error.message}`, { cause: error }),
      stats: { cpuMs: cpuSoFar(meter), wallMs: performance.now() - startedAt, toolCalls, elicitations, disposedCleanly: false },
    });
  });
  worker.on('exit', (code) => {
    end({
      status: 'failed',
      error: new McpxError('SCRIPT_ERROR', `the sandbox worker exited (code ${code}) before the script ended`),
      stats: { cpuMs: cpuSoFar(meter), wallMs: performance.now() - startedAt, toolCalls, elicitations, disposedCleanly: false },
    });
  });

  return {
    outcome,
    stop(reason) {
      send({ type: 'stop', reason });
    },
    answer(question: Question, context: ElicitContext): Promise<Answer | undefined> {
      if (finished) return Promise.resolve(undefined);
      const id = nextAnswer++;
      elicitations += 1;
      const onAbort = (): void => send({ type: 'abort-answer', id });
      context.signal?.addEventListener('abort', onAbort, { once: true });
      return new Promise<Answer | undefined>((resolve) => {
        answers.set(id, resolve);
        send({ type: 'answer', id, question, expiresAt: context.expiresAt, arguments: context.arguments });
      }).finally(() => context.signal?.removeEventListener('abort', onAbort));
    },
  };
}

/** CPU used so far, counting the slice in progress. */
function cpuSoFar(meter: Float64Array): number {
  const since = meter[0] ?? 0;
  const used = meter[1] ?? 0;
  return since > 0 ? used + (performance.timeOrigin + performance.now() - since) : used;
}

function spawnSelf(input: WorkerInput): Worker {
  const self = new URL(import.meta.url);
  const options = { workerData: input, resourceLimits: { maxOldGenerationSizeMb: 256 } };
  if (!self.pathname.endsWith('.ts')) return new Worker(self, options);
  // From source (tests, tsx): the worker registers the TypeScript loader before loading this file.
  const load = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(self.href)}); })`;
  return new Worker(load, { ...options, eval: true });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function codeOf(error: unknown): { code?: string } {
  return error instanceof McpxError ? { code: error.code } : {};
}

function serialize(outcome: RunOutcome): SerializedOutcome {
  if (outcome.status !== 'failed') return outcome;
  const { code, message, data } = outcome.error;
  return { status: 'failed', error: { code, message, ...(data ? { data } : {}) }, stats: outcome.stats };
}

function deserialize(outcome: SerializedOutcome): RunOutcome {
  if (outcome.status !== 'failed') return outcome;
  const { code, message, data } = outcome.error;
  return { status: 'failed', error: new McpxError(code, message, data ? { data } : {}), stats: outcome.stats };
}

/** The worker's side: runs the script on this thread with bindings that are messages to the caller. */
async function serve(port: MessagePort, input: WorkerInput): Promise<void> {
  const { startScriptHere } = await import('./sandbox.js');
  let nextId = 1;
  const calls = new Map<number, (reply: ToolCallReply) => void>();
  const asks = new Map<number, { resolve: (answer: Answer | AskStop | undefined) => void; reject: (error: Error) => void }>();
  const aborts = new Map<number, AbortController>();
  const post = (message: ToParent): void => port.postMessage(message);

  const bindings: HostBindings = {
    callTool(server, tool, args) {
      const id = nextId++;
      return new Promise((resolve) => {
        calls.set(id, resolve);
        post({ type: 'call', id, server, tool, args });
      });
    },
    ask(request) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        asks.set(id, { resolve, reject });
        post({ type: 'ask', id, request });
      });
    },
    console: (level, text) => post({ type: 'console', level, text }),
    log: (message) => post({ type: 'log', message }),
  };

  const run = await startScriptHere(
    { script: input.script, bindings, limits: input.limits, meter: new Float64Array(input.meter) },
    resolveLimits(input.limits),
  );
  port.on('message', (message: ToWorker) => {
    switch (message.type) {
      case 'call-reply': {
        const resolve = calls.get(message.id);
        calls.delete(message.id);
        resolve?.(message.reply);
        return;
      }
      case 'ask-reply': {
        const waiter = asks.get(message.id);
        asks.delete(message.id);
        if (!waiter) return;
        if (message.error)
          waiter.reject(
            message.error.code
              ? new McpxError(message.error.code as McpxErrorCode, message.error.message)
              : new Error(message.error.message),
          );
        else waiter.resolve(message.answer ?? undefined);
        return;
      }
      case 'answer': {
        const abort = new AbortController();
        aborts.set(message.id, abort);
        void run
          .answer(message.question, { signal: abort.signal, expiresAt: message.expiresAt, arguments: message.arguments })
          .then(
            (answer) => post({ type: 'answered', id: message.id, answer: answer ?? null }),
            () => post({ type: 'answered', id: message.id, answer: null }),
          )
          .finally(() => aborts.delete(message.id));
        return;
      }
      case 'abort-answer':
        aborts.get(message.id)?.abort();
        return;
      case 'stop':
        run.stop(message.reason);
        return;
    }
  });
  const outcome = await run.outcome;
  post({ type: 'outcome', outcome: serialize(outcome) });
  port.close();
}

if (!isMainThread && parentPort && (workerData as Partial<WorkerInput> | undefined)?.[MARKER] === true) {
  void serve(parentPort, workerData as WorkerInput);
}
