/**
 * A legacy-era call held open while its questions wait. The server's `elicitation/create` requests are answered
 * by the host's handler, or left waiting (the call comes back input-required with a LiveCall) until someone
 * responds or the question's deadline answers cancel. The request never times out while a question waits: our own
 * watchdog only runs while the server is working.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { McpxError } from '../errors.js';
import type { Answer, ElicitHandler, Question, SecretRef } from '../types.js';
import type { CallOutcome, InputRequiredOutcome, LiveCall } from './outcome.js';
import { checkResultDepth, questionFromParams, tooManyQuestions, toWireResult, type WireElicitResult } from './seam.js';
import { methodField, requestLabel, type AskingMethod } from './requests.js';
import { MAX_URL_REQUIRED_ROUNDS, urlElicitationsRequired } from './url-required.js';

export interface LegacyCallOptions {
  server: string;
  /** The tool's name, the prompt's name or the resource's URI. */
  tool: string;
  /** Default `tools/call`. */
  method?: AskingMethod;
  arguments: Record<string, unknown>;
  callId: string;
  /** Sent as the request's `_meta.progressToken`: unique among the calls open on the connection. */
  progressToken: string;
  onElicit?: ElicitHandler;
  openUrl?: (url: string) => Promise<boolean>;
  /** No openUrl here: whoever answers a url question opens the page on their side (the daemon's surfaces). */
  urlOpenedByAnswerer?: boolean;
  /** A question's deadline. */
  ttlMs: number;
  /** Questions the call may ask; past it the call fails with QUESTION_LIMIT (default: no bound, for mcpx's own calls). */
  maxQuestions?: number;
  /** How long the server may work without a word (progress resets it); paused while a question waits. */
  requestTimeoutMs: number;
  now: () => number;
  /** Turns a failure of the request into the error callers see. */
  mapError: (error: unknown) => unknown;
  /**
   * Another call still open that an ambiguous question may belong to (one of its `candidateCalls`), for a call
   * that ends with that question still waiting: the server ended this call, so the question was another's.
   */
  heirOf?: (question: Question) => LegacyCall<unknown> | undefined;
}

interface Waiting {
  /** The call that serves the question now: the one it was given to, or the heir of that call when it ended. */
  owner: LegacyCall<unknown>;
  question: Question;
  expiresAt: number;
  /** The server asked (`_meta["io.mcpx/reportExpiry"]`) to be told when a cancel is the deadline's. */
  reportExpiry: boolean;
  /** Nobody in this process is answering it: it is part of the input-required outcome. */
  external: boolean;
  timer: NodeJS.Timeout;
  handlerAbort: AbortController;
  resolve(result: WireElicitResult): void;
}

// Questions a server asks together (v1 `Promise.all`) arrive a few ms apart: report them in one outcome.
const SETTLE_MS = 15;

export class LegacyCall<R = CallToolResult> {
  readonly abort = new AbortController();
  private readonly waiting = new Map<string, Waiting>();
  private done: { result: R } | { error: unknown } | undefined;
  private failure: unknown;
  private watchdog: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<() => void>();
  private asked = 0;
  private onSettled: (() => void) | undefined;

  constructor(private readonly options: LegacyCallOptions) {}

  get settled(): boolean {
    return this.done !== undefined;
  }

  /** Whether it can still take over a question: neither settled nor failing (its request is being abandoned). */
  get open(): boolean {
    return this.done === undefined && this.failure === undefined;
  }

  get callId(): string {
    return this.options.callId;
  }

  get progressToken(): string {
    return this.options.progressToken;
  }

  /** Whether a question of this call waits for an answer. */
  get asking(): boolean {
    return this.waiting.size > 0;
  }

  /** Whether this question of the call still waits for its answer. */
  waits(questionId: string): boolean {
    return this.waiting.has(questionId);
  }

  /** The server reported progress: it is working, so the watchdog starts over. */
  progress(): void {
    this.armWatchdog();
  }

  /**
   * Runs the call; resolves complete, or input-required as soon as a question waits with nobody answering here.
   * `onSettled` runs once the call is over, after every retry (a -32042 answered), never between them.
   */
  run(invoke: (signal: AbortSignal) => Promise<R>, onSettled?: () => void): Promise<CallOutcome<R>> {
    this.onSettled = onSettled;
    this.armWatchdog();
    const { server, tool, method } = this.options;
    this.invokeAskingForUrls(invoke).then(
      (result) => {
        try {
          this.settle({ result: checkResultDepth(result, requestLabel(server, tool, method), { server, tool }) });
        } catch (error) {
          this.settle({ error });
        }
      },
      (error: unknown) => this.settle({ error: this.options.mapError(this.failure ?? error) }),
    );
    return this.next(new Set());
  }

  /**
   * A server's -32042 (URLElicitationRequiredError, 2025-11-25) is a url question like `elicitation/create`'s: each
   * page it names is asked here, and once every one is accepted (the person completed it) the request is sent again,
   * as the spec says. Declined or cancelled, the call fails saying so.
   */
  private async invokeAskingForUrls(invoke: (signal: AbortSignal) => Promise<R>): Promise<R> {
    for (let round = 1; ; round++) {
      try {
        return await invoke(this.abort.signal);
      } catch (error) {
        const pages = urlElicitationsRequired(error);
        // A server that asks again after every completed page would loop: a few rounds, then its error stands.
        if (!pages || round > MAX_URL_REQUIRED_ROUNDS) throw error;
        const answers = await Promise.all(pages.map((params) => this.ask({ ...params, mode: 'url' })));
        const refused = answers.find((answer) => answer.action !== 'accept');
        if (refused) {
          throw new McpxError(
            'CALL_FAILED',
            `${requestLabel(this.options.server, this.options.tool, this.options.method)} needs a page completed first, and its question was answered ${refused.action}`,
            { cause: error, data: { server: this.options.server, action: refused.action } },
          );
        }
        this.armWatchdog();
      }
    }
  }

  /**
   * Serves one `elicitation/create` given to this call; `candidateCalls` when the wire did not say which call asked.
   * `secret` and `asker` only for mcpx's own questions (a server's params can never set them).
   */
  ask(
    params: Record<string, unknown>,
    own: { candidateCalls?: string[] | undefined; secret?: SecretRef | undefined; asker?: 'mcpx' | undefined } = {},
  ): Promise<WireElicitResult> {
    const { options } = this;
    const { candidateCalls, secret, asker } = own;
    this.asked += 1;
    if (options.maxQuestions !== undefined && this.asked > options.maxQuestions) {
      // Past the bound: nobody is asked and nothing is invented; the server hears cancel and the call fails.
      this.fail(tooManyQuestions(requestLabel(options.server, options.tool, options.method), options.maxQuestions));
      return Promise.resolve({ action: 'cancel' });
    }
    const question = questionFromParams(params, {
      server: options.server,
      tool: options.tool,
      era: 'legacy',
      callId: options.callId,
      ...methodField(options.method),
    });
    if (secret) question.secret = secret;
    if (asker) question.asker = asker;
    if (candidateCalls) {
      question.ambiguous = true;
      question.candidateCalls = candidateCalls;
    }
    const expiresAt = options.now() + options.ttlMs;
    return new Promise<WireElicitResult>((resolve) => {
      const entry: Waiting = {
        owner: this as LegacyCall<unknown>,
        question,
        expiresAt,
        reportExpiry: (params._meta as Record<string, unknown> | undefined)?.['io.mcpx/reportExpiry'] === true,
        external: false,
        handlerAbort: new AbortController(),
        resolve,
        // The deadline answers cancel on the requester's behalf; nothing else is ever invented.
        timer: setTimeout(() => entry.owner.finish(question.id, { action: 'cancel' }), options.ttlMs),
      };
      this.waiting.set(question.id, entry);
      this.pauseWatchdog();
      if (!options.onElicit) {
        this.markExternal(entry);
        return;
      }
      options.onElicit(question, { signal: entry.handlerAbort.signal, arguments: options.arguments, expiresAt }).then(
        async (answer) => {
          const owner = entry.owner;
          if (!owner.waiting.has(question.id)) return;
          if (answer === undefined) return owner.markExternal(entry);
          try {
            let wire = toWireResult(question, answer);
            if (question.mode === 'url' && wire.action === 'accept') {
              // Accept in url mode is consent to open: if the page cannot be opened, the person was never asked.
              const opened = options.openUrl
                ? Boolean(question.url) && (await options.openUrl(question.url!))
                : options.urlOpenedByAnswerer === true;
              if (!opened) wire = { action: 'cancel' };
            }
            owner.finish(question.id, wire);
          } catch (error) {
            owner.fail(error, question.id);
          }
        },
        // A handler failing after its question was settled (expired, answered elsewhere) changes nothing.
        (error: unknown) => {
          if (entry.owner.waiting.has(question.id)) entry.owner.fail(error, question.id);
        },
      );
    });
  }

  /** Answers a waiting question. Throws ANSWER_INVALID (it stays waiting) or ELICITATION_NOT_FOUND. */
  respond(questionId: string, answer: Answer): void {
    const entry = this.waiting.get(questionId);
    if (!entry) {
      throw new McpxError(
        'ELICITATION_NOT_FOUND',
        `no question ${questionId} is waiting on this call (answered, expired, or the call is over)`,
        { data: { id: questionId } },
      );
    }
    this.finish(questionId, toWireResult(entry.question, answer));
  }

  /** Ends the call: waiting questions are answered cancel (or go to an heir) and the request is abandoned. */
  cancel(reason: McpxError): void {
    this.fail(reason);
  }

  /** `refused`: the question whose handler refused or gave an unusable answer (the wire gets cancel, never it). */
  private fail(error: unknown, refused?: string): void {
    if (this.done) return;
    this.failure ??= error;
    this.release(refused);
    this.abort.abort(this.failure);
  }

  private markExternal(entry: Waiting): void {
    entry.external = true;
    this.notify();
  }

  private finish(questionId: string, result: WireElicitResult): void {
    const entry = this.waiting.get(questionId);
    if (!entry) return;
    this.waiting.delete(questionId);
    clearTimeout(entry.timer);
    entry.handlerAbort.abort();
    // A server that asked (mcpx's own adapters) is told when a cancel is the deadline's, not a dismissal.
    const expired = entry.reportExpiry && result.action === 'cancel' && this.options.now() >= entry.expiresAt;
    entry.resolve(expired ? { ...result, _meta: { 'io.mcpx/expired': true } } : result);
    if (this.waiting.size === 0) this.armWatchdog();
    this.notify();
  }

  private settle(done: { result: R } | { error: unknown }): void {
    if (this.done) return;
    this.done = done;
    clearTimeout(this.watchdog);
    this.onSettled?.();
    this.release();
    this.notify();
  }

  /**
   * The call ended (with a result, failed or aborted): its waiting questions are answered cancel, except one we only
   * guessed was ours, which goes to another call it may belong to: cancelling it would answer for the person (the
   * flake of test/daemon/legacy-delivery: the next call completed with a cancel). Never `refused`.
   */
  private release(refused?: string): void {
    for (const [id, entry] of [...this.waiting]) {
      const heir = entry.question.ambiguous && id !== refused ? this.options.heirOf?.(entry.question) : undefined;
      if (!heir) {
        this.finish(id, { action: 'cancel' });
        continue;
      }
      this.waiting.delete(id);
      heir.inherit(entry);
    }
  }

  /** Takes over a question left waiting by a call that ended: it is reported with this call's outcome from now. */
  private inherit(entry: Waiting): void {
    entry.owner = this as LegacyCall<unknown>;
    entry.question = { ...entry.question, callId: this.callId };
    this.waiting.set(entry.question.id, entry);
    this.pauseWatchdog();
    if (entry.external) this.notify();
  }

  private armWatchdog(): void {
    clearTimeout(this.watchdog);
    if (this.done || this.waiting.size > 0) return;
    this.watchdog = setTimeout(() => {
      const { server, tool, requestTimeoutMs } = this.options;
      this.fail(
        new McpxError(
          'CALL_FAILED',
          `${requestLabel(server, tool, this.options.method)} did not answer within ${requestTimeoutMs} ms`,
          { data: { server, tool, timeoutMs: requestTimeoutMs } },
        ),
      );
    }, this.options.requestTimeoutMs);
  }

  private pauseWatchdog(): void {
    clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** The next outcome after one that listed `known`: complete, or input-required when a new question waits. */
  private next(known: Set<string>): Promise<CallOutcome<R>> {
    return new Promise<CallOutcome<R>>((resolve, reject) => {
      let settleTimer: NodeJS.Timeout | undefined;
      const check = (): void => {
        if (this.done) {
          clearTimeout(settleTimer);
          this.listeners.delete(check);
          if ('result' in this.done)
            resolve({
              status: 'complete',
              callId: this.options.callId,
              server: this.options.server,
              tool: this.options.tool,
              ...methodField(this.options.method),
              result: this.done.result,
            });
          else reject(this.done.error);
          return;
        }
        if (settleTimer || !this.hasFresh(known)) return;
        settleTimer = setTimeout(() => {
          settleTimer = undefined;
          if (this.done || !this.hasFresh(known)) return check();
          this.listeners.delete(check);
          resolve(this.snapshot());
        }, SETTLE_MS);
      };
      this.listeners.add(check);
      check();
    });
  }

  private hasFresh(known: Set<string>): boolean {
    for (const entry of this.waiting.values()) if (entry.external && !known.has(entry.question.id)) return true;
    return false;
  }

  private snapshot(): InputRequiredOutcome<R> {
    const external = [...this.waiting.values()].filter((w) => w.external);
    const known = new Set(external.map((w) => w.question.id));
    let result: Promise<CallOutcome<R>> | undefined;
    const follow = (): Promise<CallOutcome<R>> => this.next(known);
    const live: LiveCall<R> = {
      expiresAt: Math.min(...external.map((w) => w.expiresAt)),
      respond: (id, answer) => this.respond(id, answer),
      // Created on first read, so an outcome nobody follows leaves no unhandled rejection behind.
      get result() {
        return (result ??= follow());
      },
    };
    return {
      status: 'input-required',
      callId: this.options.callId,
      server: this.options.server,
      tool: this.options.tool,
      ...methodField(this.options.method),
      questions: external.map((w) => w.question),
      live,
    };
  }
}
