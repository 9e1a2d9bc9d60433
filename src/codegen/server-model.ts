/** A server's tools, named and converted to type models: what both kinds of generated file are built from. */
import { SchemaConverter, type CodegenWarning, type ConvertLimits, type NamedType } from './convert-schema.js';
import { docText } from './doc-text.js';
import { schemaHash } from './hash.js';
import { assignNames, memberName, typeName } from './names.js';
import type { Doc, TsType } from './type-model.js';

/** An MCP tool as `tools/list` gives it (only what codegen reads). */
export interface ToolDefinition {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?:
    | {
        title?: string | undefined;
        readOnlyHint?: boolean | undefined;
        destructiveHint?: boolean | undefined;
        idempotentHint?: boolean | undefined;
        openWorldHint?: boolean | undefined;
        [key: string]: unknown;
      }
    | undefined;
  [key: string]: unknown;
}

/** Tools per configured server name. */
export type ToolsByServer = Record<string, readonly ToolDefinition[]>;

/** A server's tools, named and converted: what both file kinds are built from. */
export interface ServerModel {
  server: string;
  member: string;
  typeName: string;
  tools: ToolModel[];
  hash: string;
}

export interface ToolModel {
  original: string;
  member: string;
  namespace: string;
  named: NamedType[];
  output: boolean;
  /** `execution.taskSupport` is "required": the generated call asks for an MCP task. */
  task: boolean;
  argsOptional: boolean;
  doc: Doc | undefined;
}

function toolDoc(tool: ToolDefinition, server: string, max: number): Doc | undefined {
  const tags: Doc['tags'] = [];
  const text =
    typeof tool.description === 'string'
      ? docText(tool.description, max)
      : typeof tool.title === 'string'
        ? docText(tool.title, max)
        : '';
  const hints = tool.annotations ?? {};
  const traits = [
    hints.readOnlyHint === true ? 'read-only' : '',
    hints.destructiveHint === true ? 'destructive' : '',
    hints.idempotentHint === true ? 'idempotent' : '',
    hints.openWorldHint === true ? 'open-world' : '',
  ].filter(Boolean);
  if (traits.length > 0) tags.push({ tagName: 'remarks', text: `Hints: ${traits.join(', ')}.` });
  if (taskSupportOf(tool) === 'required')
    tags.push({ tagName: 'remarks', text: 'Runs as an MCP task: the server keeps the call, mcpx polls it to its result.' });
  tags.push({
    tagName: 'see',
    text: `MCP tool ${docText(JSON.stringify(tool.name), 300)} on server ${docText(JSON.stringify(server), 300)}`,
  });
  return text === '' ? { tags } : { description: text, tags };
}

function taskSupportOf(tool: ToolDefinition): unknown {
  const execution = tool.execution as { taskSupport?: unknown } | undefined;
  return execution?.taskSupport;
}

function hasRequired(t: TsType): boolean {
  if (t.kind === 'object') return t.properties.some((p) => !p.optional);
  if (t.kind === 'intersection') return t.members.some(hasRequired);
  if (t.kind === 'union') return t.members.every(hasRequired);
  return t.kind === 'ref';
}

function isUsableTool(value: unknown): value is ToolDefinition {
  return typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string';
}

function modelServer(
  server: string,
  member: string,
  serverType: string,
  tools: readonly ToolDefinition[],
  warnings: CodegenWarning[],
  limits: ConvertLimits,
  salt: unknown,
): ServerModel {
  const usable = tools.filter(isUsableTool);
  if (usable.length < tools.length)
    warnings.push({
      server,
      tool: '',
      path: '',
      message: `${tools.length - usable.length} tool(s) without a string name skipped`,
    });
  const byName = new Map<string, ToolDefinition>();
  for (const t of usable) {
    if (byName.has(t.name))
      warnings.push({ server, tool: t.name, path: '', message: 'listed twice; the first definition is used' });
    else byName.set(t.name, t);
  }
  const names = [...byName.keys()];
  const members = assignNames(names, memberName);
  const namespaces = assignNames(names, typeName, [
    'Tools',
    'Servers',
    'ToolResult',
    'ContentBlock',
    'ToolCallOptions',
    'ToolCaller',
    'ToolSpec',
    serverType,
    `${serverType}Tools`,
  ]);
  const models: ToolModel[] = [];
  for (const name of [...names].sort()) {
    const tool = byName.get(name) as ToolDefinition;
    const warn = (path: string, message: string): void => {
      warnings.push({ server, tool: name, path, message });
    };
    const taken = new Set(['Input', 'Output']);
    const input = tool.inputSchema === undefined ? { type: 'object' } : tool.inputSchema;
    const inputNamed = new SchemaConverter(
      input as never,
      'Input',
      '/inputSchema',
      taken,
      (p, m) => warn(`/inputSchema${p}`, m),
      limits,
    ).run();
    const root = inputNamed[0] as NamedType;
    // MCP arguments are always an object: a root that types as `unknown` still takes one.
    if (root.type.kind === 'keyword' && root.type.name === 'unknown')
      root.type = { kind: 'object', properties: [], index: { kind: 'keyword', name: 'unknown' } };
    const output = tool.outputSchema !== undefined && tool.outputSchema !== null;
    const outputNamed = output
      ? new SchemaConverter(
          tool.outputSchema as never,
          'Output',
          '/outputSchema',
          taken,
          (p, m) => warn(`/outputSchema${p}`, m),
          limits,
        ).run()
      : [];
    models.push({
      original: name,
      member: members.get(name) as string,
      namespace: namespaces.get(name) as string,
      named: [...inputNamed, ...outputNamed],
      output,
      task: taskSupportOf(tool) === 'required',
      argsOptional: !hasRequired(root.type),
      doc: toolDoc(tool, server, limits.maxDocLength),
    });
  }
  const hashed = [...byName.values()]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
      ...(taskSupportOf(t) === 'required' ? { task: true } : {}),
    }));
  return {
    server,
    member,
    typeName: serverType,
    tools: models,
    hash: schemaHash({ server, member, serverType, tools: hashed, salt }),
  };
}

/** Names and types for every server; `salt` is whatever else shapes a file (the runtime import, the file names). */
export function modelServers(
  toolsByServer: ToolsByServer,
  warnings: CodegenWarning[],
  limits: ConvertLimits,
  salt: (server: string) => unknown,
): ServerModel[] {
  const servers = Object.keys(toolsByServer);
  const members = assignNames(servers, memberName);
  const types = assignNames(servers, typeName, ['Tools', 'Servers', 'ToolResult', 'ContentBlock', 'Question', 'Answer']);
  return [...servers]
    .sort()
    .map((s) =>
      modelServer(s, members.get(s) as string, types.get(s) as string, toolsByServer[s] ?? [], warnings, limits, salt(s)),
    );
}
