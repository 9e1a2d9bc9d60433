/**
 * Tool lists in, file texts out. Every file is built as ts-morph structures and created once (incremental
 * `addX` calls re-parse); ts-morph is imported on first use only, since loading it costs most of a second.
 */
import CodeBlockWriter from 'code-block-writer';

/** A line of its own (imports, header comments) or a block written by a function; blocks get a blank line around them. */
type Statement = string | ((writer: CodeBlockWriter) => void);
import {
  DEFAULT_LIMITS,
  type CodegenWarning,
  type ConvertLimits,
  type NamedType,
  SchemaConverter,
  docText,
} from './convert-schema.js';
import { hashLine, schemaHash } from './hash.js';
import { assignNames, memberName, typeName } from './names.js';
import { type Doc, type TsType, writeDoc, writeMembers, writeType } from './type-model.js';
import { SCRIPT_GLOBALS } from './script-globals.js';

/** An MCP tool as `tools/list` gives it (only what codegen reads). */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Tools per configured server name. */
export type ToolsByServer = Record<string, readonly ToolDefinition[]>;

export interface GeneratedFile {
  /** Relative to the output directory. */
  path: string;
  text: string;
  /** The schema hash in the file's header. */
  hash: string;
  /** The server the file is for; absent for files that join servers. */
  server?: string;
}

export interface GenerateResult {
  files: GeneratedFile[];
  warnings: CodegenWarning[];
}

export interface GenerateOptions {
  /** Where a generated client imports its runtime from (default `mcpx`). */
  runtimeImport?: string;
  /** Bounds on untrusted schemas. */
  limits?: Partial<ConvertLimits>;
}

/** Writes a whole file in one pass: consecutive lines stay together, blocks are separated by a blank line. */
function emit(statements: Statement[]): string {
  const writer = new CodeBlockWriter({ indentNumberOfSpaces: 2, useSingleQuote: false });
  writeStatements(writer, statements);
  return writer.toString();
}

function writeStatements(writer: CodeBlockWriter, statements: Statement[]): void {
  let previous: 'line' | 'block' | undefined;
  for (const statement of statements) {
    const kind = typeof statement === 'string' ? 'line' : 'block';
    if (previous !== undefined && (kind === 'block' || previous === 'block')) writer.blankLineIfLastNot();
    if (typeof statement === 'string') writer.writeLine(statement);
    else statement(writer);
    previous = kind;
  }
}

/** `namespace Name { ... }`, exported or not. */
function namespaceBlock(name: string, exported: boolean, body: Statement[], declare = false): (writer: CodeBlockWriter) => void {
  return (writer) => {
    writer.write(`${exported ? 'export ' : ''}${declare ? 'declare ' : ''}namespace ${name} {`).newLine();
    writer.indent(() => writeStatements(writer, body));
    writer.writeLine('}');
  };
}

/** A server's tools, named and converted: what both file kinds are built from. */
interface ServerModel {
  server: string;
  member: string;
  typeName: string;
  tools: ToolModel[];
  hash: string;
}

interface ToolModel {
  original: string;
  member: string;
  namespace: string;
  named: NamedType[];
  output: boolean;
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
  tags.push({
    tagName: 'see',
    text: `MCP tool ${docText(JSON.stringify(tool.name), 300)} on server ${docText(JSON.stringify(server), 300)}`,
  });
  return text === '' ? { tags } : { description: text, tags };
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
    }));
  return {
    server,
    member,
    typeName: serverType,
    tools: models,
    hash: schemaHash({ server, member, serverType, tools: hashed, salt }),
  };
}

function header(kind: string, hash: string): string[] {
  // docText drops line terminators (U+2028 too), so a server name cannot end the line comment.
  return [
    `// Generated by mcpx gen (${docText(kind, 400)}). Do not edit: run \`mcpx gen\` again.`,
    hashLine(hash),
    '/* eslint-disable */',
  ];
}

function toolStatements(tool: ToolModel, exported: boolean): (writer: CodeBlockWriter) => void {
  return namespaceBlock(
    tool.namespace,
    exported,
    tool.named.map((n) => namedStatementText(n, exported)),
  );
}

/** A named type written through the writer (interfaces with our own member printer). */
function namedStatementText(n: NamedType, exported: boolean): (writer: CodeBlockWriter) => void {
  return (writer) => {
    writeDoc(writer, n.doc);
    const prefix = exported ? 'export ' : '';
    if (n.type.kind === 'object') {
      const t = n.type;
      writer.write(`${prefix}interface ${n.name} `);
      if (t.properties.length === 0 && !t.index) {
        writer.write('{}');
      } else {
        writer.write('{').newLine();
        writer.indent(() => writeMembers(writer, t.properties, t.index));
        writer.write('}');
      }
      writer.newLine();
      return;
    }
    writer.write(`${prefix}type ${n.name} = `);
    writeType(writer, n.type);
    writer.write(';').newLine();
  };
}

function methodLine(tool: ToolModel, qualifier: string, resultType: string, options: boolean): (writer: CodeBlockWriter) => void {
  return (writer) => {
    writeDoc(writer, tool.doc);
    const args = `args${tool.argsOptional ? '?' : ''}: ${qualifier}${tool.namespace}.Input`;
    const result = tool.output ? `${qualifier}${tool.namespace}.Output` : resultType;
    writer.write(`${tool.member}(${args}${options ? ', options?: ToolCallOptions' : ''}): Promise<${result}>;`).newLine();
  };
}

function resolveLimits(options: GenerateOptions): ConvertLimits {
  return { ...DEFAULT_LIMITS, ...options.limits };
}

/** Names and types for every server; `salt` is whatever else shapes a file (the runtime import, the file names). */
function modelServers(
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

interface ClientPlan {
  servers: ServerModel[];
  files: Map<string, string>;
  indexHash: string;
  runtimeImport: string;
  warnings: CodegenWarning[];
}

function planClient(toolsByServer: ToolsByServer, options: GenerateOptions): ClientPlan {
  const warnings: CodegenWarning[] = [];
  const runtimeImport = options.runtimeImport ?? 'mcpx';
  const files = fileNames(Object.keys(toolsByServer));
  const servers = modelServers(toolsByServer, warnings, resolveLimits(options), (s) => ({ runtimeImport, file: files.get(s) }));
  const indexHash = schemaHash({
    index: servers.map((s) => [s.server, s.member, s.typeName, files.get(s.server)]),
    runtimeImport,
  });
  return { servers, files, indexHash, runtimeImport, warnings };
}

/**
 * The files `generateClient` would write and the hash in each header, without loading ts-morph: compare with the
 * files on disk to skip an unchanged server or to tell that generated files are stale.
 */
export function planClientFiles(
  toolsByServer: ToolsByServer,
  options: GenerateOptions = {},
): Array<{ path: string; hash: string; server?: string }> {
  const plan = planClient(toolsByServer, options);
  return [
    ...plan.servers.map((s) => ({ path: `${plan.files.get(s.server) as string}.ts`, hash: s.hash, server: s.server })),
    { path: 'index.ts', hash: plan.indexHash },
  ];
}

function planScripts(
  toolsByServer: ToolsByServer,
  options: GenerateOptions,
): { servers: ServerModel[]; hash: string; warnings: CodegenWarning[] } {
  const warnings: CodegenWarning[] = [];
  const servers = modelServers(toolsByServer, warnings, resolveLimits(options), () => 'scripts');
  return { servers, hash: schemaHash({ scripts: servers.map((s) => s.hash) }), warnings };
}

/** The path and header hash `generateScriptDeclarations` would write, without loading ts-morph. */
export function planScriptDeclarations(
  toolsByServer: ToolsByServer,
  options: GenerateOptions = {},
): { path: string; hash: string } {
  return { path: SCRIPT_DECLARATIONS_PATH, hash: planScripts(toolsByServer, options).hash };
}

const SCRIPT_DECLARATIONS_PATH = 'mcpx-env.d.ts';

/** A file name for a server: lower kebab-case of its words, unique in the output directory. */
function fileNames(servers: string[]): Map<string, string> {
  const kebab = (name: string): string => {
    const base = name
      .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
      .join('-');
    return base === '' || base === 'index' ? `server-${base || 'unnamed'}` : base;
  };
  return assignNames(servers, kebab, ['index']);
}

/**
 * The typed client for Node apps: one module per server (`<server>.ts`, with the tool types and
 * `create<Server>Tools(mcpx)`) and an `index.ts` with `createTools(mcpx)` joining them.
 */
export async function generateClient(toolsByServer: ToolsByServer, options: GenerateOptions = {}): Promise<GenerateResult> {
  const { servers, files, indexHash, runtimeImport, warnings } = planClient(toolsByServer, options);
  const out: GeneratedFile[] = [];
  for (const s of servers) {
    const interfaceName = `${s.typeName}Tools`;
    const specsName = `${memberName(s.typeName.charAt(0).toLowerCase() + s.typeName.slice(1))}ToolSpecs`;
    const statements: Statement[] = [
      ...header(`client for server ${JSON.stringify(s.server)}`, s.hash),
      `import { bindServerTools, type ToolCaller, type ToolCallOptions, type ToolResult } from ${JSON.stringify(runtimeImport)};`,
      ...s.tools.map((t) => toolStatements(t, true)),
      (writer: CodeBlockWriter) => {
        writer.writeLine(`/** The tools of the MCP server ${docText(JSON.stringify(s.server), 300)}. */`);
        writer.write(`export interface ${interfaceName} {`).newLine();
        writer.indent(() => {
          for (const t of s.tools) methodLine(t, '', 'ToolResult', true)(writer);
        });
        writer.write('}').newLine();
      },
      (writer: CodeBlockWriter) => {
        writer.writeLine("/** Each member's tool name on the wire, and whether its result is typed structured content. */");
        writer.write(`export const ${specsName} = {`).newLine();
        writer.indent(() => {
          for (const t of s.tools)
            writer.writeLine(`${t.member}: { name: ${JSON.stringify(t.original)}, structured: ${t.output} },`);
        });
        writer.write('} as const;').newLine().blankLine();
      },
      (writer: CodeBlockWriter) => {
        writer.writeLine(
          `/** Binds the tools of ${docText(JSON.stringify(s.server), 300)} to a client: \`create${s.typeName}Tools(await createMcpx())\`. */`,
        );
        writer
          .write(
            `export function create${s.typeName}Tools(mcpx: ToolCaller, server = ${JSON.stringify(s.server)}): ${interfaceName} {`,
          )
          .newLine();
        writer.indent(() => writer.writeLine(`return bindServerTools<${interfaceName}>(mcpx, server, ${specsName});`));
        writer.write('}').newLine();
      },
    ];
    const path = `${files.get(s.server) as string}.ts`;
    out.push({ path, text: emit(statements), hash: s.hash, server: s.server });
  }
  const indexStatements: Statement[] = [
    ...header('client index', indexHash),
    `import type { ToolCaller } from ${JSON.stringify(runtimeImport)};`,
    ...servers.map(
      (s) =>
        `import { create${s.typeName}Tools, type ${s.typeName}Tools } from ${JSON.stringify(`./${files.get(s.server) as string}.js`)};`,
    ),
    (writer: CodeBlockWriter) => {
      writer.blankLine();
      writer.writeLine('/** Every generated server, by its member name. */');
      writer.write('export interface Tools {').newLine();
      writer.indent(() => {
        for (const s of servers) {
          writer.writeLine(`/** Server ${docText(JSON.stringify(s.server), 300)}. */`);
          writer.writeLine(`readonly ${s.member}: ${s.typeName}Tools;`);
        }
      });
      writer.write('}').newLine();
    },
    (writer: CodeBlockWriter) => {
      writer.writeLine(
        '/** Typed tools over a client: `const tools = createTools(await createMcpx()); await tools.server.tool(args)`. */',
      );
      writer.write('export function createTools(mcpx: ToolCaller): Tools {').newLine();
      writer.indent(() => {
        writer.write('return {').newLine();
        writer.indent(() => {
          for (const s of servers) writer.writeLine(`${s.member}: create${s.typeName}Tools(mcpx),`);
        });
        writer.write('};').newLine();
      });
      writer.write('}').newLine();
    },
  ];
  out.push({ path: 'index.ts', text: emit(indexStatements), hash: indexHash });
  return { files: out, warnings };
}

/**
 * The declarations for scripts run by `mcpx run`: `declare const tools`, `onElicit`, `ask`, the question and
 * answer types, `ToolError`, `console`, `setTimeout`. One global file (`mcpx-env.d.ts`); an editor completes and
 * checks a script with it, and `mcpx run --check` type-checks against it.
 */
export async function generateScriptDeclarations(
  toolsByServer: ToolsByServer,
  options: GenerateOptions = {},
): Promise<GenerateResult & { file: GeneratedFile }> {
  const { servers, hash, warnings } = planScripts(toolsByServer, options);
  const statements: Statement[] = [
    ...header('script declarations', hash),
    namespaceBlock(
      'McpxTools',
      false,
      [
        ...servers.map((s) =>
          namespaceBlock(s.typeName, false, [
            ...s.tools.map((t) => toolStatements(t, false)),
            (writer: CodeBlockWriter) => {
              writer.writeLine(`/** The tools of the MCP server ${docText(JSON.stringify(s.server), 300)}. */`);
              writer.write('interface Tools {').newLine();
              writer.indent(() => {
                for (const t of s.tools) methodLine(t, '', 'McpxToolResult', false)(writer);
              });
              writer.write('}').newLine();
            },
          ]),
        ),
        (writer: CodeBlockWriter) => {
          writer.write('interface Servers {').newLine();
          writer.indent(() => {
            for (const s of servers) {
              writer.writeLine(`/** Server ${docText(JSON.stringify(s.server), 300)}. */`);
              writer.writeLine(`readonly ${s.member}: ${s.typeName}.Tools;`);
            }
          });
          writer.write('}').newLine();
        },
      ],
      true,
    ),
    (writer: CodeBlockWriter) => {
      writer.writeLine("/** The configured MCP servers' tools: `await tools.server.tool(args)`. */");
      writer.writeLine('declare const tools: McpxTools.Servers;');
    },
    (writer: CodeBlockWriter) => writer.write(SCRIPT_GLOBALS),
  ];
  const file: GeneratedFile = { path: SCRIPT_DECLARATIONS_PATH, text: emit(statements), hash };
  return { files: [file], file, warnings };
}

/**
 * One schema to TypeScript declarations (`name` for the root, then each `$ref` target), e.g. to preview a type.
 * The same converter and printer the generated files use.
 */
export async function schemaToTypeScript(
  schema: unknown,
  options: { name?: string; limits?: Partial<ConvertLimits> } = {},
): Promise<{ text: string; warnings: CodegenWarning[] }> {
  const warnings: CodegenWarning[] = [];
  const name = options.name ?? 'Input';
  const named = new SchemaConverter(
    schema as never,
    name,
    '',
    new Set([name]),
    (path, message) => warnings.push({ tool: '', path, message }),
    { ...DEFAULT_LIMITS, ...options.limits },
  ).run();
  const writer = new CodeBlockWriter({ indentNumberOfSpaces: 2 });
  named.forEach((n, i) => {
    if (i > 0) writer.blankLine();
    namedStatementText(n, true)(writer);
  });
  return { text: writer.toString(), warnings };
}
