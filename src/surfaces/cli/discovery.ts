/**
 * What `mcpx list`, `mcpx prompt list` and `mcpx resource list` read: the running daemon's warm connections over
 * its REST routes, else (no daemon) the servers connected directly from this process and closed after.
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { ServerStatus } from '../../client/index.js';
import { findConfigPath } from '../../config/find.js';
import type { CliIO } from './io.js';
import { createRestBackend, type DaemonFetch } from '../backend/rest-backend.js';
import { SURFACE_DELIVERS } from '../delivers.js';

export interface Discovery {
  /** `daemon`: the running daemon's connections; `direct`: this process's own, closed with it. */
  readonly via: 'daemon' | 'direct';
  servers(): Promise<string[]>;
  status(server: string): Promise<ServerStatus>;
  tools(server: string): Promise<Tool[]>;
  prompts(server: string): Promise<Prompt[]>;
  resources(server: string): Promise<{ resources: Resource[]; resourceTemplates: ResourceTemplate[] }>;
  close(): Promise<void>;
}

export async function openDiscovery(io: CliIO, config: string | undefined): Promise<Discovery> {
  const configPath = findConfigPath(config, io.cwd, io.env);
  const { connectDaemon } = await import('../daemon/client.js');
  const daemon = await connectDaemon(io.env, configPath);
  if (daemon) return restDiscovery(daemon.fetch, () => daemon.close());
  return directDiscovery(io, configPath);
}

function restDiscovery(fetch: DaemonFetch, close: () => Promise<void>): Discovery {
  // The REST backend's error mapping (the daemon's {error} body as an McpxError) serves here too.
  const { send } = createRestBackend({ fetch });
  const at = (server: string, what = ''): string => `/v1/servers/${encodeURIComponent(server)}${what}`;
  return {
    via: 'daemon',
    servers: async () => (await send<{ servers: string[] }>('/v1/servers')).servers,
    status: (server) => send<ServerStatus>(at(server)),
    tools: async (server) => (await send<{ tools: Tool[] }>(at(server, '/tools'))).tools,
    prompts: async (server) => (await send<{ prompts: Prompt[] }>(at(server, '/prompts'))).prompts,
    resources: (server) => send<{ resources: Resource[]; resourceTemplates: ResourceTemplate[] }>(at(server, '/resources')),
    close,
  };
}

async function directDiscovery(io: CliIO, configPath: string | undefined): Promise<Discovery> {
  const [{ createMcpx }, { serverStatus }] = await Promise.all([import('../../mcpx.js'), import('../../client/index.js')]);
  // Declared as by every surface: a listing never asks, but servers list their asking tools only to a client that can.
  const mcpx = await createMcpx({
    ...(configPath ? { config: configPath } : {}),
    cwd: io.cwd,
    env: io.env,
    ...SURFACE_DELIVERS,
  });
  return {
    via: 'direct',
    servers: async () => mcpx.serverNames(),
    status: (server) => serverStatus(mcpx, server),
    tools: (server) => mcpx.listTools(server),
    prompts: (server) => mcpx.listPrompts(server),
    resources: async (server) => {
      const [resources, resourceTemplates] = await Promise.all([
        mcpx.listResources(server),
        mcpx.listResourceTemplates(server).catch(() => []),
      ]);
      return { resources, resourceTemplates };
    },
    close: () => mcpx.close(),
  };
}
