/**
 * The three requests that may ask a question: `tools/call`, `prompts/get` and `resources/read` (2026-07-28 allows
 * `input_required` on exactly these; a legacy server may send `elicitation/create` while any of them is open).
 * One call path serves all three: the target is a tool's name, a prompt's name or a resource's URI.
 */
import type { Client } from '@modelcontextprotocol/client';
import { LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client';
import type { CallNotifications } from './outcome.js';

// setTimeout's ceiling: the SDK's own request timeout is effectively off; LegacyCall's watchdog does the job.
const NO_SDK_TIMEOUT = 2_147_483_647;

export type AskingMethod = 'tools/call' | 'prompts/get' | 'resources/read';

/** Params of the request, as the wire wants them (a resource has a `uri` and no arguments). */
export function requestParams(method: AskingMethod, target: string, args: Record<string, unknown>): Record<string, unknown> {
  if (method === 'resources/read') return { uri: target };
  return { name: target, arguments: args };
}

/** How messages name the request: `github.create_issue`, `github prompt review`, `github resource file:///x`. */
export function requestLabel(server: string, target: string, method: AskingMethod = 'tools/call'): string {
  if (method === 'prompts/get') return `${server} prompt ${target}`;
  if (method === 'resources/read') return `${server} resource ${target}`;
  return `${server}.${target}`;
}

/** The `method` field outcomes, questions and continuations carry: absent for a tool call (the common case, and older records). */
export function methodField(method: AskingMethod | undefined): { method?: 'prompts/get' | 'resources/read' } {
  return method === undefined || method === 'tools/call' ? {} : { method };
}

/** A legacy request that may ask: `_meta.progressToken` names the call its questions belong to. */
export function legacyRequest(
  client: Client,
  method: AskingMethod,
  target: string,
  args: Record<string, unknown>,
  progressToken: string,
  signal: AbortSignal,
): Promise<unknown> {
  const _meta = { progressToken };
  const requestOptions = { signal, timeout: NO_SDK_TIMEOUT };
  if (method === 'prompts/get')
    return client.getPrompt({ name: target, arguments: args as Record<string, string>, _meta }, requestOptions);
  // A read that may ask is never answered from the SDK's response cache.
  if (method === 'resources/read') return client.readResource({ uri: target, _meta }, { ...requestOptions, cacheMode: 'bypass' });
  return client.callTool({ name: target, arguments: args, _meta }, requestOptions);
}

export function notificationMeta(token: string, notifications: CallNotifications): Record<string, unknown> {
  return { progressToken: token, ...(notifications.logLevel ? { [LOG_LEVEL_META_KEY]: notifications.logLevel } : {}) };
}
