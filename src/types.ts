/**
 * The shared vocabulary of mcpx: questions, answers and call outcomes, the same in every layer and era.
 * Wire shapes (legacy `elicitation/create`, modern `inputRequests`) are translated to these at the client seam.
 */

/** Protocol era of a connection: legacy = `initialize` (2025-06-18 / 2025-11-25), modern = 2026-07-28. */
export type Era = 'legacy' | 'modern';

/** An era as people read it: by its protocol version ("legacy" read like a warning on every current server). */
export function eraVersion(era: Era): string {
  return era === 'modern' ? '2026-07-28' : '2025-11-25';
}

export type ElicitMode = 'form' | 'url';

/** accept (with content in form mode), decline (explicitly no), cancel (dismissed, not chosen). Never collapsed. */
export type Action = 'accept' | 'decline' | 'cancel';

/** One property of a form question: the MCP elicitation subset (string/number/integer/boolean/enum, single or multi select). */
export type PrimitiveSchema = Record<string, unknown> & {
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  title?: string;
  description?: string;
  default?: unknown;
};

/** The requested schema of a form question: a flat object of primitives. */
export interface ElicitationSchema {
  type: 'object';
  properties: Record<string, PrimitiveSchema>;
  required?: string[];
  [keyword: string]: unknown;
}

/** What a question is wherever it is held: the fields the stored record (`ElicitRequest`) and `Question` share. */
export interface QuestionFields {
  /** `elc-<16 hex>`: the identity every surface answers by. */
  id: string;
  /** Configured name of the server that asked. */
  server: string;
  /** The tool whose call the question belongs to (with `method`: the prompt's name or the resource's URI). */
  tool: string;
  mode: ElicitMode;
  /** Server-supplied text: sanitise before showing it on a terminal. */
  message: string;
  /** Form mode: what the answer's content must match. */
  requestedSchema?: ElicitationSchema | undefined;
  /** URL mode: the page the person is asked to open. */
  url?: string | undefined;
  era: Era;
  /** Modern era: the key of this question in the result's `inputRequests`. */
  key?: string | undefined;
  /** The server's `_meta` on the request, untouched. */
  meta?: Record<string, unknown> | undefined;
  /** Only on mcpx's own question for a secret credential: the answer goes to the secret store here and is never recorded. */
  secret?: SecretRef;
  /**
   * `mcpx` on a question mcpx asks on its own behalf (a write confirmation, a credential, a sign-in): only a person
   * may accept it (an agent's or a script's accept is refused with PERSON_REQUIRED). Never taken from a server's params.
   */
  asker?: 'mcpx';
  /** Legacy: the wire did not say which call asked and several were open; the call named is mcpx's pick among `candidateCalls`. */
  ambiguous?: boolean;
  /** With `ambiguous`: every call open on that connection when the question came (callIds, oldest first). */
  candidateCalls?: string[];
}

/** A question a server asked during a call, as an elicitation handler sees it, whatever the era. */
export interface Question extends QuestionFields {
  /** `cal-<16 hex>`: the call this question belongs to (the stored record's `trace`). */
  callId: string;
  /** Legacy URL mode: the server's own id for the interaction. */
  elicitationId?: string;
  /** Set when the question belongs to a `prompts/get` or `resources/read` rather than a tool call. */
  method?: 'prompts/get' | 'resources/read';
  /** `user` when the server asked (via `_meta["io.mcpx/audience"]`) that a person answer; hints toward the agent are ignored. */
  audience?: 'user';
}

/** Where a secret is kept in the secret store. */
export interface SecretRef {
  service: string;
  account: string;
}

/** What answers a question. Content only with accept, and only in form mode. */
export type Answer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

/** Handed to an elicitation handler alongside the question. */
export interface ElicitContext {
  /** Aborts when the call that asked is gone (closed, timed out, its deadline passed). */
  signal: AbortSignal;
  /** The arguments of the call that asked. */
  arguments: Record<string, unknown>;
  /** When the question stops being answerable (ms since epoch). */
  expiresAt: number;
}

/**
 * The one elicitation seam, both eras. Return an Answer to answer now, or `undefined` to leave the question
 * unanswered here: the call then comes back as input-required (a value, never an error).
 */
export type ElicitHandler = (question: Question, context: ElicitContext) => Promise<Answer | undefined>;
