/**
 * The catalogue `mcpx serve` offers: every served upstream's tools and prompts under served names (prefixed when
 * there are several servers, kept off mcpx's own), and its resources under their own URIs, each remembering the
 * server that listed it.
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { Mcpx } from '../../mcpx.js';
import { assignNames, type ToolRef } from './names.js';

export interface Catalog {
  /** The upstream tools under their served names, everything else as the upstream gave it. */
  tools: Tool[];
  byName: Map<string, ToolRef>;
  /** Servers whose tools could not be listed, with why. */
  failed: Map<string, string>;
  /** Prompts under served names (named as tools are), and which upstream prompt each is. */
  prompts: Prompt[];
  promptsByName: Map<string, ToolRef>;
  /** Resources keep their URIs; each remembers the server that listed it. */
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  serverOfUri: Map<string, string>;
  /** Which server listed each URI template. */
  serverOfTemplate: Map<string, string>;
}

/** Lists the served upstreams once; a server whose tools fail is named in `failed` and contributes nothing. */
export async function listCatalog(mcpx: Mcpx, served: string[], reserved: ReadonlySet<string>): Promise<Catalog> {
  const failed = new Map<string, string>();
  const lists = await Promise.all(
    served.map(async (server) => {
      try {
        return { server, tools: await mcpx.listTools(server) };
      } catch (error) {
        failed.set(server, error instanceof Error ? error.message : String(error));
        return { server, tools: [] as Tool[] };
      }
    }),
  );
  const defs = new Map<string, Tool>();
  const refs: ToolRef[] = [];
  for (const { server, tools } of lists) {
    for (const tool of tools) {
      refs.push({ server, tool: tool.name });
      defs.set(`${server}\u0000${tool.name}`, tool);
    }
  }
  const byName = assignNames(refs, { prefixed: served.length > 1, reserved });
  const tools = [...byName].map(([name, ref]) => ({ ...defs.get(`${ref.server}\u0000${ref.tool}`)!, name }));
  // Prompts and resources only where a server has them: a server without them answers -32601, which is no failure.
  const quietly = <T>(work: () => Promise<T[]>): Promise<T[]> => work().catch(() => []);
  const extras = await Promise.all(
    served
      .filter((server) => !failed.has(server))
      .map(async (server) => ({
        server,
        prompts: await quietly(() => mcpx.listPrompts(server)),
        resources: await quietly(() => mcpx.listResources(server)),
        templates: await quietly(() => mcpx.listResourceTemplates(server)),
      })),
  );
  const promptDefs = new Map<string, Prompt>();
  for (const { server, prompts } of extras) for (const prompt of prompts) promptDefs.set(`${server}\u0000${prompt.name}`, prompt);
  const promptsByName = assignNames(
    [...promptDefs.keys()].map((key) => ({ server: key.split('\u0000')[0]!, tool: key.split('\u0000')[1]! })),
    { prefixed: served.length > 1 },
  );
  const prompts = [...promptsByName].map(([name, ref]) => ({ ...promptDefs.get(`${ref.server}\u0000${ref.tool}`)!, name }));
  const serverOfUri = new Map<string, string>();
  for (const { server, resources } of extras)
    for (const resource of resources) if (!serverOfUri.has(resource.uri)) serverOfUri.set(resource.uri, server);
  const serverOfTemplate = new Map<string, string>();
  for (const { server, templates } of extras)
    for (const t of templates) if (!serverOfTemplate.has(t.uriTemplate)) serverOfTemplate.set(t.uriTemplate, server);
  return {
    tools,
    byName,
    failed,
    prompts,
    promptsByName,
    resources: extras.flatMap((e) => e.resources),
    resourceTemplates: extras.flatMap((e) => e.templates),
    serverOfUri,
    serverOfTemplate,
  };
}
