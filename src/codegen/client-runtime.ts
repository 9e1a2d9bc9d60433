/**
 * What a generated client needs at run time, and nothing heavy: binds `tools.<server>.<tool>(args)` to
 * `mcpx.callTool(server, originalToolName, args)` and unwraps the outcome. A tool error throws `ToolError`; a
 * question nobody here answered throws `McpxError('INPUT_REQUIRED')` carrying the outcome (with its continuation),
 * so it can be answered and resumed: it is never turned into an answer or a result.
 */
import { McpxError } from '../errors.js';

/** A content block of a tool result (text, image, audio, resource link, embedded resource). */
export type ContentBlock =
  | { type: 'text'; text: string; [key: string]: unknown }
  | { type: 'image'; data: string; mimeType: string; [key: string]: unknown }
  | { type: 'audio'; data: string; mimeType: string; [key: string]: unknown }
  | { type: 'resource_link'; uri: string; name: string; [key: string]: unknown }
  | { type: 'resource'; resource: { uri: string; [key: string]: unknown }; [key: string]: unknown };

/** An MCP `CallToolResult`, as a generated client returns it for a tool without an `outputSchema`. */
export interface ToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ToolCallOptions {
  callId?: string;
  parent?: string;
  signal?: AbortSignal;
  /** Call as an MCP task (a tool whose `execution.taskSupport` is "optional"; one that requires it always is). */
  task?: boolean;
}

/** The outcome shape of `mcpx.callTool` that a generated client reads (see CallOutcome). */
export type ToolCallOutcome =
  | { status: 'complete'; result: { content?: unknown; structuredContent?: unknown; isError?: boolean | undefined } }
  | {
      status: 'input-required';
      callId: string;
      server: string;
      tool: string;
      questions: ReadonlyArray<{ id: string; message: string }>;
    };

/** Anything that calls tools the way `createMcpx()` does. */
export interface ToolCaller {
  callTool(server: string, tool: string, args: Record<string, unknown>, options?: ToolCallOptions): Promise<ToolCallOutcome>;
}

/** Per generated member: the tool's name on the wire, whether it has an `outputSchema`, whether it runs as an MCP task. */
export interface ToolSpec {
  readonly name: string;
  readonly structured: boolean;
  /** `execution.taskSupport` is "required": called as an MCP task, awaited like any tool. */
  readonly task?: boolean;
}

/** A tool answered with `isError: true`. `result` is the tool's whole result; the message is its text content. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly server: string;
  readonly tool: string;
  readonly result: ToolResult;

  constructor(server: string, tool: string, result: ToolResult, message?: string) {
    super(message ?? `${server}.${tool} failed: ${textOf(result) || 'the tool reported an error'}`);
    this.server = server;
    this.tool = tool;
    this.result = result;
  }
}

function textOf(result: ToolResult): string {
  const texts = Array.isArray(result.content)
    ? result.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text)
    : [];
  return texts.join('\n').slice(0, 2_000);
}

/**
 * The value a typed call returns for `outcome`: the structured content where the tool declares an output schema,
 * else the whole result. Throws `ToolError` for a tool error and `McpxError('INPUT_REQUIRED')` for a question.
 */
export function unwrapOutcome(outcome: ToolCallOutcome, server: string, tool: string, structured: boolean): unknown {
  if (outcome.status === 'input-required') {
    const first = outcome.questions[0];
    const more = outcome.questions.length > 1 ? ` (and ${outcome.questions.length - 1} more)` : '';
    throw new McpxError(
      'INPUT_REQUIRED',
      `${server}.${tool} is waiting for an answer${first ? `: ${first.message}` : ''}${more}. Answer it with \`mcpx elicit answer ${first?.id ?? '<id>'}\`, or resume the outcome in data.outcome.`,
      {
        data: { outcome },
      },
    );
  }
  const result = outcome.result as ToolResult;
  if (result.isError === true) throw new ToolError(server, tool, result);
  if (!structured) return result;
  if (result.structuredContent === undefined) {
    throw new ToolError(server, tool, result, `${server}.${tool} declares an output schema but returned no structuredContent`);
  }
  return result.structuredContent;
}

/**
 * Builds the object behind a generated `XxxTools` interface: one async function per member, calling the tool
 * by its original name. The interface and `specs` are generated together, which is what makes the cast sound.
 */
export function bindServerTools<T>(mcpx: ToolCaller, server: string, specs: Readonly<Record<string, ToolSpec>>): T {
  const bound: Record<string, (args?: Record<string, unknown>, options?: ToolCallOptions) => Promise<unknown>> =
    Object.create(null);
  for (const [member, spec] of Object.entries(specs)) {
    bound[member] = async (args = {}, options) =>
      unwrapOutcome(
        await mcpx.callTool(server, spec.name, args, spec.task ? { ...options, task: true } : options),
        server,
        spec.name,
        spec.structured,
      );
  }
  return Object.freeze(bound) as T;
}
