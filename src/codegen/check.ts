/**
 * Type-checks files in memory with ts-morph (loaded on first use): how tests and the bench prove generated code
 * compiles under `strict` with zero diagnostics. The caller supplies every file, including the runtime's.
 */

export interface TypeDiagnostic {
  file: string;
  line: number;
  code: number;
  message: string;
}

export interface CheckOptions {
  /** Module specifier → file path among `files` (e.g. `{ mcpx: '/mcpx/index.ts' }`). */
  paths?: Record<string, string>;
  /** Also check under `exactOptionalPropertyTypes` (stricter than `strict`). */
  exactOptionalPropertyTypes?: boolean;
  /** Treat every file as a module, as `mcpx run` does with a script (top-level await without `export {}`). */
  scripts?: boolean;
}

/** Compiles `files` (absolute in-memory paths → text) with strict settings and returns every diagnostic. */
export async function checkTypeScript(files: Record<string, string>, options: CheckOptions = {}): Promise<TypeDiagnostic[]> {
  const { Project, ts } = await import('ts-morph');
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: options.exactOptionalPropertyTypes ?? false,
      noImplicitOverride: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2023.d.ts'],
      types: [],
      noEmit: true,
      skipDefaultLibCheck: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      paths: Object.fromEntries(Object.entries(options.paths ?? {}).map(([k, v]) => [k, [v]])),
    },
  });
  for (const [path, text] of Object.entries(files)) {
    // ts-morph parses without the moduleDetection hook, so a script is made a module the plain way (same lines).
    const asModule = options.scripts && !path.endsWith('.d.ts') ? `${text}\nexport {};\n` : text;
    project.createSourceFile(path, asModule, { overwrite: true });
  }
  return project.getPreEmitDiagnostics().map((d) => ({
    file: d.getSourceFile()?.getFilePath() ?? '',
    line: d.getLineNumber() ?? 0,
    code: d.getCode(),
    message: ts.flattenDiagnosticMessageText(d.compilerObject.messageText, '\n'),
  }));
}
