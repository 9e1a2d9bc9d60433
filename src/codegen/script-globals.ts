/** The globals a script run by `mcpx run` sees, besides `tools`. Kept in step with src/types.ts by a test. */
export const SCRIPT_GLOBALS = `/** A content block of a tool result. */
type McpxContentBlock =
  | { type: "text"; text: string; [key: string]: unknown }
  | { type: "image"; data: string; mimeType: string; [key: string]: unknown }
  | { type: "audio"; data: string; mimeType: string; [key: string]: unknown }
  | { type: "resource_link"; uri: string; name: string; [key: string]: unknown }
  | { type: "resource"; resource: { uri: string; [key: string]: unknown }; [key: string]: unknown };

/** An MCP tool result, returned as is by a tool without an output schema. */
interface McpxToolResult {
  content: McpxContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The requested schema of a form question: a flat object of primitives. */
interface ElicitationSchema {
  type: "object";
  properties: Record<string, Record<string, unknown> & { type?: "string" | "number" | "integer" | "boolean" | "array"; title?: string; description?: string; default?: unknown }>;
  required?: string[];
  [keyword: string]: unknown;
}

/** A question a server asked during one of this script's calls. */
interface Question {
  /** \`elc-<16 hex>\`: the identity every surface answers by. */
  id: string;
  server: string;
  tool: string;
  mode: "form" | "url";
  /** Server-supplied text. */
  message: string;
  /** Form mode: what the answer's content must match. */
  requestedSchema?: ElicitationSchema;
  /** URL mode: the page the person is asked to open. */
  url?: string;
  /** URL mode: the host the URL leads to (punycode for look-alike names); judge this, not the message. */
  domain?: string;
  elicitationId?: string;
  era: "legacy" | "modern";
  callId: string;
  key?: string;
  audience?: "user";
  /** "mcpx" when mcpx asks for itself (a write confirmation, a credential, a sign-in): only a person may accept it. */
  asker?: "mcpx";
  meta?: Record<string, unknown>;
}

/** accept (with content in form mode), decline (explicitly no), cancel (dismissed, not chosen). */
type Answer =
  | { action: "accept"; content?: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };

/** What \`ask\` puts to the person at the terminal. */
interface AskQuestion {
  message: string;
  /** Form fields to fill; omit for a plain confirmation. */
  requestedSchema?: ElicitationSchema;
}

/**
 * Registers the script's answerer for questions servers ask during its calls. Return an Answer, or undefined to
 * pass the question on (policy, then a person, then input-required).
 */
declare function onElicit(handler: ((question: Question) => Answer | undefined | Promise<Answer | undefined>) | null): void;

/** Puts a question to the person at the terminal (or as the run's --elicit mode says, with no terminal). */
declare function ask(question: AskQuestion): Promise<Answer>;
declare function ask(message: string, requestedSchema?: ElicitationSchema): Promise<Answer>;

/** A tool answered with isError: true, or the call failed. \`result\` is the tool's whole result when there is one. */
declare class ToolError extends Error {
  readonly server?: string;
  readonly tool?: string;
  /** The McpxError code when mcpx itself refused the call. */
  readonly code?: string;
  readonly result?: McpxToolResult;
}

declare const console: {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
};

declare function setTimeout<A extends unknown[]>(handler: (...args: A) => void, timeout?: number, ...args: A): number;
declare function clearTimeout(id: number | undefined): void;
`;
