/**
 * The pool's listings (tools, prompts, resources, templates) and the other requests that never ask (completions,
 * resource subscriptions), with the era checks every first request gets.
 */
import type { Client, Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/client';
import { McpxError } from '../../errors.js';
import { scanHeaderDeclarations } from '../param-headers.js';
import type { Connections, Pooled } from './connections.js';
import { createSubscriptions } from './subscriptions.js';

export interface Listings {
  listTools(server: string, options?: { refresh?: boolean }): Promise<Tool[]>;
  listPrompts(server: string): Promise<Prompt[]>;
  listResources(server: string): Promise<Resource[]>;
  listResourceTemplates(server: string): Promise<ResourceTemplate[]>;
  /** `completion/complete`, as the server answers it. */
  complete(server: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Subscribes to (or unsubscribes from) a resource where the server takes it (it declares `resources.subscribe`):
   * `resources/subscribe` on a legacy server, a `subscriptions/listen` stream for that URI on a modern one (closed to
   * unsubscribe). False where it does not, or a modern server's acknowledgement leaves the URI out.
   */
  subscribe(server: string, uri: string, on: boolean): Promise<boolean>;
}

type Fetch<T> = (client: Client, timeout: number) => Promise<T>;

/**
 * Whether the server declared what is about to be listed. Only what it declares is asked for: the SDK's own answer
 * to an undeclared listing is an empty list plus a `console.debug` line, which lands on stdout (serve's wire).
 */
const declares = (client: Client, capability: 'tools' | 'prompts' | 'resources'): boolean =>
  client.getServerCapabilities()?.[capability] !== undefined;

/**
 * `onResourceUpdated`: told for each subscribed URI once its subscription is back after a gap (a modern server's
 * listen stream ended and was listened again; a legacy server's connection dropped and was subscribed again on a
 * new one): a change during the gap was told to nobody, so the resource may have changed.
 */
export function createListings(connections: Connections, onResourceUpdated?: (server: string, uri: string) => void): Listings {
  const { get, timeoutFor, onFailure, onSuccess } = connections;

  /** A listing, with the era checks every first request on a cached verdict gets. */
  const list = async <T>(
    server: string,
    what: string,
    fetch: Fetch<T>,
    retry: () => Promise<T>,
  ): Promise<{ pooled: Pooled; items: T }> => {
    const pooled = await get(server);
    let items: T;
    try {
      items = await fetch(pooled.connection.client, timeoutFor(server));
    } catch (error) {
      const mapped = new McpxError(
        'CALL_FAILED',
        `listing the ${what} of "${server}" failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
          data: { server, ...(error instanceof ProtocolError ? { code: error.code } : {}) },
        },
      );
      return { pooled, items: await onFailure(server, pooled, mapped, retry, true) };
    }
    await onSuccess(server, pooled);
    return { pooled, items };
  };

  /** A listing whose retry is the same listing again. */
  const items = async <T>(server: string, what: string, fetch: Fetch<T>): Promise<T> =>
    (await list(server, what, fetch, () => items(server, what, fetch))).items;

  const listTools = async (server: string, listOptions: { refresh?: boolean } = {}): Promise<Tool[]> => {
    const { pooled, items } = await list(
      server,
      'tools',
      async (client, timeout) =>
        declares(client, 'tools')
          ? (await client.listTools(undefined, { timeout, ...(listOptions.refresh ? { cacheMode: 'refresh' as const } : {}) }))
              .tools
          : [],
      () => listTools(server, listOptions),
    );
    // What each tool's calls must carry as headers, known from now on.
    pooled.tools = new Map(items.map((tool) => [tool.name, scanHeaderDeclarations(tool.inputSchema)]));
    return items;
  };

  return {
    listTools,
    listPrompts: (server) =>
      items(server, 'prompts', async (client, timeout) =>
        declares(client, 'prompts') ? (await client.listPrompts(undefined, { timeout })).prompts : [],
      ),
    listResources: (server) =>
      items(server, 'resources', async (client, timeout) =>
        declares(client, 'resources') ? (await client.listResources(undefined, { timeout })).resources : [],
      ),
    listResourceTemplates: (server) =>
      items(server, 'resource templates', async (client, timeout) =>
        declares(client, 'resources') ? (await client.listResourceTemplates(undefined, { timeout })).resourceTemplates : [],
      ),
    complete: (server, params) =>
      items(server, 'completions', async (client, timeout) => {
        const result = await client.request({ method: 'completion/complete', params } as never, { timeout });
        return result as Record<string, unknown>;
      }),
    subscribe: createSubscriptions(connections, items, onResourceUpdated),
  };
}
