/**
 * The broker's contract: a question is state with an id, a session and a deadline, answered once by anyone.
 * Surfaces (CLI, REST, MCP server, plugin) code against these types; the broker knows no wire and no surface.
 */
import type { Action, Answer, QuestionFields } from '../types.js';
import type { SecretStore } from '../secrets/types.js';
import type { Issue } from '../errors.js';

export type RequestState = 'pending' | 'answered' | 'expired' | 'abandoned';

/**
 * Who answers, whatever the surface: a person, an agent, a script (a sandboxed script's or a host's onElicit) or
 * the policy. Only a person may accept a question mcpx asks on its own behalf (`asker: 'mcpx'`).
 */
export type AnswererKind = 'person' | 'agent' | 'script' | 'policy';

/** Which surface answered: recorded on every answer and in the audit log. */
export type AnsweredBy = 'cli' | 'http' | 'mcp' | 'plugin' | 'script' | 'policy' | 'expiry' | 'person' | 'agent' | 'api' | 'web';

/** A stored question: the one record every surface lists and answers (`questionOf` and `elicitationOf` are its views). */
export interface ElicitRequest extends QuestionFields {
  trace: string; // the call that asked: cal-<16 hex>
  parent?: string; // that call's own parent (a resumed call points at the call that asked)
  session: string;
  /** How the session was determined: the MCPX_SESSION_ID env, or a fingerprint of config + cwd. */
  sessionSource: 'env' | 'fingerprint' | 'explicit';
  /** A task id when the daemon holds the call. */
  task?: string;
  audience?: 'user' | 'agent' | undefined;
  createdAt: number; // ms since epoch
  expiresAt: number;
  state: RequestState;
  /** Set for abandoned questions: why the asking call is gone. */
  abandonedReason?: string;
}

/** A stored question as surfaces list it (REST `Elicitation`, `mcpx elicit list --json`). */
export interface Elicitation extends ElicitRequest {
  /** Time left before expiry; 0 once not pending. */
  timeLeftMs: number;
  /** The exact command that answers it (REST always sets it). */
  respondWith?: string;
  /** url mode: the host the URL leads to (punycode for look-alike names). */
  domain?: string;
  /** url mode: false when mcpx would not open it (only https:, and http: on this machine). */
  urlOpenable?: boolean;
}

/** What openRequest needs; the broker fills id (unless given), createdAt, expiresAt, state. */
export type OpenRequestInput = Omit<ElicitRequest, 'id' | 'createdAt' | 'expiresAt' | 'state' | 'session' | 'sessionSource'> & {
  id?: string;
  session?: string;
  sessionSource?: ElicitRequest['sessionSource'];
  /** Per-request TTL; the broker's default otherwise (120 s). */
  ttlMs?: number;
  /**
   * The asker will leave the question to wait (nobody in this process is there to answer it): told to `onOpen`
   * hooks, never stored.
   */
  waits?: boolean;
};

/** A stored answer (the first respond wins; expiry answers cancel by 'expiry'). */
export interface StoredAnswer {
  id: string;
  action: Action;
  content?: Record<string, unknown>;
  by: AnsweredBy;
  at: number;
  /** The answering process (a CLI relayed through the daemon: the CLI's, not the daemon's). */
  pid: number;
  /** The answering user, when the surface knows it. */
  user?: string;
  session?: string;
}

export interface RespondInput {
  id: string;
  action: Action;
  content?: Record<string, unknown> | undefined;
  by: AnsweredBy;
  /**
   * Who answers; default from `by` (`agent`, `script` and `policy` are themselves; `expiry` is the policy; every
   * other surface is a person's). An `agent` or `script` accept of a question with `asker: 'mcpx'` is refused.
   */
  answerer?: AnswererKind;
  /** The answering session; refused (ELICITATION_FORBIDDEN) when it is not the question's, unless the broker allows any. */
  session?: string;
  /** The answering process when it is not this one (a daemon relaying a CLI's answer); this process otherwise. */
  pid?: number;
  /** The answering user, as the surface knows it (recorded, not checked). */
  user?: string;
  /**
   * An answerer in another process than the call's: a held legacy call's question gets an offer (`offers.ts`) its
   * holder takes, instead of the answer itself; wait for it with `confirmDelivery` (`tasks/delivery.ts`).
   */
  offer?: boolean;
}

/** A keyv row (its key without the namespace) a host writes beside a question. */
export interface StoreRow {
  key: string;
  value: unknown;
  /** None: kept until overwritten. */
  ttlMs?: number;
}

/**
 * What an `onOpen` hook may say of a question: the task holding the asking call; rows of the broker store's keyv
 * that must be stored no later than the question (in the same write where the store can); a write of its own
 * that must land before the question is reported; `written`, told of the question's write (with the rows) once it
 * starts, or of the open's failure before it.
 */
export type OpenHookResult = {
  task?: string;
  rows?: StoreRow[];
  alongside?: Promise<unknown>;
  written?: (write: Promise<unknown>) => void;
} | void;

export interface PendingFilter {
  session?: string;
  server?: string;
  tool?: string;
  trace?: string;
  state?: RequestState | RequestState[];
  /** At most this many entries (a page); continue with `cursor: cursorAfter(lastEntry)`. */
  limit?: number;
  /** Start after the entry this cursor names (from `cursorAfter`, or `nextCursor` of GET /v1/elicit). */
  cursor?: string;
}

export type BrokerEventKind =
  | 'elicit.open'
  | 'elicit.answered'
  | 'elicit.expired'
  | 'elicit.resumed'
  | 'elicit.abandoned'
  | 'policy.fired'
  /** The pipeline passed a question on from one answerer to the next (data.answerer, data.reason). */
  | 'elicit.passed'
  /** The broker refused an answer (an agent's or a script's accept of mcpx's own question): who tried, in data. */
  | 'elicit.refused'
  /** A notification went out (data.sink, data.on, data.attempts), failed (data.reason) or was skipped (no desktop here). */
  | NotifyEventKind;

/** The audit kinds of notifications (src/surfaces/notify), written through `recordEvent`. */
export type NotifyEventKind = 'notify.sent' | 'notify.failed' | 'notify.skipped';

/** The kinds a layer above the broker writes with `recordEvent`; the others are the broker's own. */
export type RecordedEventKind = 'policy.fired' | 'elicit.passed' | NotifyEventKind;

/** One line of the append-only audit log, also delivered to in-process subscribers. */
export interface BrokerEvent {
  kind: BrokerEventKind;
  at: number;
  elicit?: string | undefined;
  trace?: string | undefined;
  parent?: string | undefined;
  session?: string | undefined;
  server?: string | undefined;
  tool?: string | undefined;
  pid: number;
  action?: Action;
  by?: AnsweredBy;
  answeredAfterMs?: number;
  /** policy.fired: the rule that fired (its index and its text). */
  rule?: { index: number; rule: unknown };
  data?: Record<string, unknown>;
}

export interface AuditQuery {
  session?: string;
  trace?: string;
  elicit?: string;
  since?: number;
  limit?: number;
}

export interface Broker {
  openRequest(input: OpenRequestInput): Promise<ElicitRequest>;
  /** Resolves with the answer, or with cancel by 'expiry' at the deadline. No timeout parameter: the deadline rides on the request. */
  awaitAnswer(id: string, options?: { signal?: AbortSignal }): Promise<StoredAnswer>;
  /** First respond wins. Throws McpxError ELICITATION_ALREADY_ANSWERED / ELICITATION_EXPIRED / ELICITATION_NOT_FOUND / ANSWER_INVALID (question stays pending). */
  respond(input: RespondInput): Promise<StoredAnswer>;
  get(id: string): Promise<ElicitRequest | undefined>;
  lookup(id: string): Promise<StoredAnswer | undefined>;
  pending(filter?: PendingFilter): Promise<Elicitation[]>;
  /** Marks a pending question abandoned: the call that asked is gone. */
  abandon(id: string, reason: string): Promise<ElicitRequest>;
  /**
   * Records that a call resumed with an answer (modern re-send, or a legacy call that proceeded). A caller that
   * knows the question's parent, session, server and tool passes them, and the question is not read back.
   */
  recordResumed(input: {
    elicit: string;
    trace: string;
    parent?: string;
    session?: string;
    server?: string;
    tool?: string;
  }): Promise<void>;
  /** Records a policy decision, a pipeline hand-off or a notification in the audit log (the kinds nothing else writes). */
  recordEvent(event: Omit<BrokerEvent, 'at' | 'pid' | 'kind'> & { kind: RecordedEventKind }): Promise<void>;
  subscribe(listener: (event: BrokerEvent) => void): () => void;
  /**
   * Runs `hook` on each question this broker opens, before it is stored and announced: a host that drives calls
   * (the task runner) names the task holding the asking call, and hears of the question first; the broker awaits a
   * hook that returns a promise. Returns an unsubscribe.
   */
  onOpen(
    hook: (request: Readonly<ElicitRequest>, opening: { waits: boolean }) => OpenHookResult | Promise<OpenHookResult>,
  ): () => void;
  audit(query?: AuditQuery): Promise<BrokerEvent[]>;
  close(): Promise<void>;
}

/** Time as the broker sees it: injected so tests drive deadlines with a manual clock. */
export interface Clock {
  now(): number;
  /** `keepAlive`: the timer holds the process open (someone awaits it); otherwise it never does on its own. */
  setTimer(callback: () => void, delayMs: number, options?: { keepAlive?: boolean }): unknown;
  clearTimer(handle: unknown): void;
}

/**
 * Where questions, answers, the pending index and the audit log live: a keyv store plus the one atomic step
 * keyv lacks (put-if-absent of the answer row, written in keyv's own row format) and a wake channel.
 * Built by `openMemoryStore`, `openSqliteStore`, `openRedisStore`, or `toBrokerStore(keyv)`. Row TTLs are
 * retention (how long a record is kept), never the question's deadline, which rides on the request.
 */
export interface BrokerStore {
  readonly kind: 'memory' | 'sqlite' | 'redis' | 'postgres';
  /** The keyv instance (constructed with throwOnErrors), for hosts that keep their own records beside the broker's. */
  readonly keyv: import('keyv').Keyv;
  /** Writes the question, its pending-index entry and its open event unless the id exists; false when it already did. */
  putQuestion(request: ElicitRequest, ttlMs: number, event: BrokerEvent): Promise<boolean>;
  /** As putQuestion, with rows of this keyv written in the same atomic write (whether or not the question is). */
  putQuestionWith?(request: ElicitRequest, ttlMs: number, event: BrokerEvent, rows: StoreRow[]): Promise<boolean>;
  /**
   * Rewrites a question (and its index entry) only while it has no answer row: how a question is abandoned.
   * False when an answer is there. Atomic with `claimAnswer(…, { open: true })`: of an abandon and a respond
   * racing, exactly one wins.
   */
  updateQuestion(request: ElicitRequest, ttlMs: number): Promise<boolean>;
  getQuestion(id: string): Promise<ElicitRequest | undefined>;
  /** The question and its answer in one read. */
  getEntry(id: string): Promise<{ request?: ElicitRequest | undefined; answer?: StoredAnswer | undefined }>;
  /**
   * The atomic step: writes the answer row only if none exists; true when this call won. The winner's write
   * also drops the index entry, appends `event` to the log and wakes waiters. With `open`, the same step also
   * requires the question to be stored, live and not abandoned (false otherwise): a respond is one round trip.
   */
  claimAnswer(answer: StoredAnswer, ttlMs: number, event: BrokerEvent, options?: ClaimOptions): Promise<boolean>;
  /**
   * The same atomic step for a row of the host's own (a claim on a task): writes `key` only if no live row is
   * there; true when this call wrote it. Of many processes claiming one key, exactly one wins.
   */
  putIfAbsent(key: string, value: unknown, ttlMs: number, options?: PutOptions): Promise<boolean>;
  getAnswer(id: string): Promise<StoredAnswer | undefined>;
  getAnswers(ids: string[]): Promise<Array<StoredAnswer | undefined>>;
  /** Indexed questions that have no answer row (pending or abandoned, possibly past their deadline). */
  listUnanswered(): Promise<ElicitRequest[]>;
  /** Every stored question (the slow path, for listing answered and expired ones). */
  listQuestions(): Promise<ElicitRequest[]>;
  appendEvent(event: BrokerEvent, ttlMs: number): Promise<void>;
  readEvents(since?: number): Promise<BrokerEvent[]>;
  /** Calls back when the id may have been answered (with the answer when the store knows it). Returns an unsubscribe. */
  watch(id: string, onAnswer: (answer?: StoredAnswer) => void): () => void;
  /**
   * Calls back when row `key` may have been written by `putIfAbsent(key, …, { wake: true })` in any process (on the
   * store's own wake channel, as answers are). The watcher reads the row itself: subscribe first, then read once.
   */
  watchRow(key: string, onWritten: () => void): () => void;
  /**
   * Calls back with the event of every answer claimed through this store object in this process, whoever claimed it
   * (a broker's respond, or a holder taking an offered answer): how a broker hears of answers claimed past it.
   */
  onClaimed(listener: (event: BrokerEvent) => void): () => void;
  close(): Promise<void>;
}

export interface PutOptions {
  /** Wake the row's watchers (`watchRow`) in every process once it is written. */
  wake?: boolean;
}

export interface ClaimOptions {
  /** Claim only while the question is stored, live and not abandoned (a respond); expiry claims without it. */
  open?: boolean;
}

export interface BrokerOptions {
  /** A BrokerStore, or a keyv instance over a Map, @keyv/sqlite or @keyv/redis. Default: a fresh memory store. */
  store?: BrokerStore | import('keyv').Keyv;
  /** Default time to live of a question (ms): 120 000. */
  ttlMs?: number;
  clock?: Clock;
  /** The session questions opened here belong to, and the one that answers here. */
  session?: string | { session: string; sessionSource: ElicitRequest['sessionSource'] };
  /** Lets this broker see and answer every session's questions (a daemon serving many). */
  allowAnySession?: boolean;
  /** How long questions, answers and events are kept after the deadline (ms): 7 days. */
  retainMs?: number;
  /** Where answers to secret questions go; default: the secret store of this process's state dir, opened on first need. */
  secrets?: () => Promise<SecretStore>;
}

export type { Answer, Issue };
