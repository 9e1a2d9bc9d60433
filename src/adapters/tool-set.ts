/**
 * What every adapter (OpenAPI, CLI) hands to serve.ts: its tools and how a failed call reads. Its own file so the
 * adapters and the server that serves them do not import each other.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';

/** A tool an adapter serves. */
export interface AdapterTool {
  definition: Tool;
  /** The question asked before the call runs (a write), or undefined (a read). */
  confirmation(args: Record<string, unknown>): string | undefined;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

export interface AdapterToolSet {
  tools: AdapterTool[];
  /** What was renamed, skipped or cut short while reading the service's description. */
  warnings: string[];
}

/** A tool result that says what went wrong (and, for a write not sent, how the question was answered). */
export function failure(text: string, meta?: { confirmation: 'declined' | 'cancelled' | 'expired' }): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text }],
    ...(meta ? { _meta: { 'io.mcpx/confirmation': meta.confirmation } } : {}),
  };
}
