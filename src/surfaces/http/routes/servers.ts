/** The catalog routes: the configured servers, their tools, status, prompts and resources, over the daemon's pooled connections. */
import type { OpenAPIHono, z } from '@hono/zod-openapi';
import { McpxError } from '../../../errors.js';
import type { ToolCatalog } from '../app.js';
import { jsonGetRoute, serverGetRoute } from '../openapi.js';
import { ServerListSchema, ToolListSchema } from '../schemas.js';
import type { RouteContext } from './context.js';
import { mountDiscoveryRoutes } from './discovery.js';

const serversRoute = jsonGetRoute({
  path: '/v1/servers',
  operationId: 'listServers',
  summary: "The servers in the daemon's config.",
  ok: [ServerListSchema, 'Server names'],
  errors: [401, 503],
});

const toolsRoute = serverGetRoute('/tools', {
  operationId: 'listTools',
  summary: "A server's tools, listed over the daemon's pooled connection (the server is started on first need).",
  ok: [ToolListSchema, 'The tools as the server listed them'],
});

export function mountServerRoutes(app: OpenAPIHono, { deps }: RouteContext): void {
  const catalog = (): ToolCatalog => {
    if (deps.catalog) return deps.catalog;
    throw new McpxError('DAEMON_UNAVAILABLE', 'This app was built without a tool catalog.');
  };
  app.openapi(serversRoute, async (c) => c.json({ servers: await catalog().serverNames() }, 200));
  app.openapi(toolsRoute, async (c) => {
    const { server } = c.req.valid('param');
    const tools = await catalog().listTools(server);
    return c.json({ server, tools: tools as z.infer<typeof ToolListSchema>['tools'] }, 200);
  });
  mountDiscoveryRoutes(app, catalog);
}
