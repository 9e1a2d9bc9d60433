/**
 * Tool lists in, file texts out. Each file is written in one pass through code-block-writer (emit.ts) from the
 * servers' type models (server-model.ts); nothing here loads ts-morph.
 */
import CodeBlockWriter from 'code-block-writer';
import { DEFAULT_LIMITS, type CodegenWarning, type ConvertLimits, SchemaConverter } from './convert-schema.js';
import { docText } from './doc-text.js';
import { schemaHash } from './hash.js';
import { assignNames, memberName } from './names.js';
import { SCRIPT_GLOBALS } from './script-globals.js';
import { emit, header, methodLine, namedStatementText, namespaceBlock, toolStatements, type Statement } from './emit.js';
import { modelServers, type ServerModel, type ToolsByServer } from './server-model.js';

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

function resolveLimits(options: GenerateOptions): ConvertLimits {
  return { ...DEFAULT_LIMITS, ...options.limits };
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
            writer.writeLine(
              `${t.member}: { name: ${JSON.stringify(t.original)}, structured: ${t.output}${t.task ? ', task: true' : ''} },`,
            );
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
