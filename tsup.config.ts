import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type Options } from 'tsup';

const requireLines =
  "import { createRequire as __mcpxCreateRequire } from 'node:module';\nconst require = __mcpxCreateRequire(import.meta.url);\n";

/** Removes the CLI banner's `require` from each file of `dir` where the word `require` appears nowhere else. */
function dropUnusedRequire(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.js')) continue;
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(requireLines);
    if (at < 0 || at > 40) continue; // not a CLI file
    const rest = text.slice(at + requireLines.length);
    if (!/(?<![\w$])require(?![\w$])/.test(rest)) writeFileSync(file, text.slice(0, at) + rest);
  }
}

const copyWebInbox = async (): Promise<void> => cpSync('src/surfaces/http/web/ui', 'dist/ui', { recursive: true });

const library: Options = {
  // The library: ESM + CJS + declarations. Heavy or Node-only layers stay behind subpaths.
  entry: {
    index: 'src/index.ts',
    broker: 'src/broker/public.ts',
    stores: 'src/entries/stores.ts',
    runtime: 'src/entries/runtime.ts',
    codegen: 'src/entries/codegen.ts',
    auth: 'src/entries/auth.ts',
    policy: 'src/entries/policy.ts',
    config: 'src/entries/config.ts',
    testing: 'src/testing/index.ts',
    opencode: 'src/surfaces/plugin/opencode.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  // No source maps: the output is not minified (names and `// src/...` markers stay), and maps were 10.9 MiB of the package.
  sourcemap: false,
  clean: true,
  target: 'node20',
  splitting: true,
  // quickjs variants locate their .wasm next to their own files; never bundle them.
  external: [/^@jitl\//, /^quickjs-emscripten/, 'ts-morph', 'esbuild', 'sqlite3'],
  // CommonJS has no import.meta: there, a package is resolved the way require resolves it.
  esbuildOptions(options, { format }) {
    if (format === 'cjs') options.define = { ...options.define, 'import.meta.resolve': 'require.resolve' };
  },
  // The web inbox's page, script and style are plain files the daemon serves from dist/ui/ (after clean).
  onSuccess: copyWebInbox,
};

// Pure-JS dependencies are bundled in: resolving and reading ~300 files of zod, ajv, hono and the MCP SDK cost a
// cold start (the CLI and its daemon) more than the code itself. Native, wasm and file-locating packages stay outside.
const bundled = [/^(?!@jitl\/|quickjs-emscripten|ts-morph|esbuild|sqlite3|@keyv\/|pg($|\/)|@napi-rs\/|open$)/];
const outside = [/^@jitl\//, /^quickjs-emscripten/, 'ts-morph', 'esbuild', 'sqlite3'];

const cliProgram: Options = {
  // The CLI program (every command but a warm call): ESM only, loads layers lazily.
  entry: { 'cli-program': 'src/surfaces/cli/program.ts' },
  format: ['esm'],
  sourcemap: false,
  clean: false,
  target: 'node20',
  splitting: true,
  // Bundled CommonJS calls `require`, which an ES module lacks: every chunk makes one.
  noExternal: bundled,
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __mcpxCreateRequire } from 'node:module';\nconst require = __mcpxCreateRequire(import.meta.url);",
  },
  // Only the chunk with esbuild's `__require` helper uses `require`: the others drop the banner's two lines, which cost
  // every file a `createRequire` on every start.
  onSuccess: async () => dropUnusedRequire('dist'),
  external: outside,
};

/**
 * For the program's first file: entry.ts's `import('./program.js')` is the program's own entry (dist/cli-program.js),
 * and nothing else it reaches may load lazily (with splitting off it would be inlined, and the warm call's one file
 * would grow by it).
 */
const warmFile: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'mcpx-warm-file',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      if (args.path === './program.js') return { path: './cli-program.js', external: true };
      return {
        errors: [
          { text: `the warm call's file (dist/cli.cjs, dist/cli.js) imports ${args.path} lazily; load it from program.ts` },
        ],
      };
    });
  },
};

const cliEntry: Options = {
  // The program's first file, built whole (no chunks): a warm `mcpx call` runs from it alone, because resolving and
  // linking the program's chunks cost a warm call more than the call itself; the rest loads dist/cli-program.js.
  // The bin is the CommonJS build (dist/cli.cjs): Node loads a CommonJS main without its ES module loader.
  // dist/cli.js is the same program as an ES module, for `node dist/cli.js`. What the program's chunks also hold
  // exists twice (McpxError too), so nothing created on one side reaches the other (warm-call.ts).
  entry: { cli: 'src/surfaces/cli/entry.ts' },
  format: ['esm', 'cjs'],
  sourcemap: false,
  clean: false,
  target: 'node20',
  splitting: false,
  noExternal: bundled,
  external: outside,
  banner: { js: '#!/usr/bin/env node' },
  esbuildPlugins: [warmFile],
};

// MCPX_BUILD=cli builds the CLI alone (no library, no declarations): the quick start's build, seconds instead of minutes.
// MCPX_BUILD=js then MCPX_BUILD=dts is the full build in two steps: `npm test` runs the tests after the JS and builds
// the declarations (about 40 s on one core) beside them (test/helpers/declarations.ts).
const builds: Record<string, Options[]> = {
  cli: [cliEntry, { ...cliProgram, onSuccess: async () => (dropUnusedRequire('dist'), await copyWebInbox()) }],
  js: [{ ...library, dts: false }, cliEntry, cliProgram],
  dts: [{ ...library, dts: { only: true }, clean: false }], // dts-only: no JS, no onSuccess
};
export default defineConfig(builds[process.env.MCPX_BUILD ?? ''] ?? [library, cliEntry, cliProgram]);
