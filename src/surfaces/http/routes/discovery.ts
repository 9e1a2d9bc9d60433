/**
 * Discovery over the daemon's warm connections: a server's status and era, its prompts, its resources and
 * resource templates (`mcpx list`, `mcpx prompt list`, `mcpx resource list`). Mounted with the catalog routes.
 */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/client';
import type { ServerStatus } from '../../../client/index.js';
import { serverGetRoute } from '../openapi.js';

/** What the discovery routes read: the default session's mcpx instance, so no server is spawned per request. */
export interface DiscoveryCatalog {
  status(server: string): Promise<ServerStatus>;
  listPrompts(server: string): Promise<Prompt[]>;
  listResources(server: string): Promise<Resource[]>;
  listResourceTemplates(server: string): Promise<ResourceTemplate[]>;
}

export const ServerStatusSchema = z
  .object({
    server: z.string(),
    status: z.enum(['connected', 'failed', 'needs-auth', 'needs-credentials']),
    era: z.enum(['legacy', 'modern']).optional(),
    reason: z.string().optional().openapi({ description: 'Why it is not connected (may carry server-supplied text).' }),
    hint: z.string().optional().openapi({ description: 'The command that fixes it, e.g. `mcpx auth github`.' }),
  })
  .openapi('ServerStatus', { description: 'Whether the server could be reached (it is connected, or started, to find out).' });

const PromptSchema = z
  .looseObject({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    arguments: z
      .array(z.looseObject({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() }))
      .optional(),
  })
  .openapi('Prompt');

const ResourceSchema = z
  .looseObject({ uri: z.string(), name: z.string(), title: z.string().optional(), mimeType: z.string().optional() })
  .openapi('Resource');

const ResourceTemplateSchema = z
  .looseObject({ uriTemplate: z.string(), name: z.string(), title: z.string().optional(), mimeType: z.string().optional() })
  .openapi('ResourceTemplate');

export const PromptListSchema = z.object({ server: z.string(), prompts: z.array(PromptSchema) }).openapi('PromptList');
export const ResourceListSchema = z
  .object({ server: z.string(), resources: z.array(ResourceSchema), resourceTemplates: z.array(ResourceTemplateSchema) })
  .openapi('ResourceList');

const statusRoute = serverGetRoute('', {
  operationId: 'getServerStatus',
  summary: 'Whether a configured server can be reached, and in which era (connects, or starts it, on first need).',
  ok: [ServerStatusSchema, 'The status; a failure is a status with its reason'],
  errors: [401, 404, 503],
});

const promptsRoute = serverGetRoute('/prompts', {
  operationId: 'listPrompts',
  summary: "A server's prompts, over the daemon's pooled connection.",
  ok: [PromptListSchema, 'The prompts as the server listed them'],
});

const resourcesRoute = serverGetRoute('/resources', {
  operationId: 'listResources',
  summary: "A server's resources and resource templates, over the daemon's pooled connection.",
  ok: [ResourceListSchema, 'The resources and templates'],
});

/** Adds the discovery routes; `catalog` throws DAEMON_UNAVAILABLE when the app has none. */
export function mountDiscoveryRoutes(
  app: OpenAPIHono,
  catalog: () => DiscoveryCatalog & { serverNames(): Promise<string[]> },
): void {
  app.openapi(statusRoute, async (c) => {
    const { server } = c.req.valid('param');
    return c.json(await catalog().status(server), 200);
  });
  app.openapi(promptsRoute, async (c) => {
    const { server } = c.req.valid('param');
    const prompts = await catalog().listPrompts(server);
    return c.json({ server, prompts: prompts as z.infer<typeof PromptListSchema>['prompts'] }, 200);
  });
  app.openapi(resourcesRoute, async (c) => {
    const { server } = c.req.valid('param');
    const [resources, resourceTemplates] = await Promise.all([
      catalog().listResources(server),
      // A server without templates (or without the method) lists none.
      catalog()
        .listResourceTemplates(server)
        .catch(() => []),
    ]);
    return c.json(
      {
        server,
        resources: resources as z.infer<typeof ResourceListSchema>['resources'],
        resourceTemplates: resourceTemplates as z.infer<typeof ResourceListSchema>['resourceTemplates'],
      },
      200,
    );
  });
}
