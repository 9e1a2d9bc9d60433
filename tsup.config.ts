import { cpSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

/** The web inbox's page, script and style are plain files the daemon serves from dist/ui/ (after clean). */
const copyWebInbox = async (): Promise<void> => cpSync('src/surfaces/http/web/ui', 'dist/ui', { recursive: true });

const library: Options = {
  // The library: ESM + CJS + declarations. Heavy or Node-only layers stay behind subpaths.
  entry: {
    index: 'src/index.ts',
    broker: 'src/broker/index.ts',
    testing: 'src/testing.ts',
    opencode: 'src/surfaces/plugin/opencode.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  splitting: true,
  // quickjs variants locate their .wasm next to their own files; never bundle them.
  external: [/^@jitl\//, /^quickjs-emscripten/, 'ts-morph', 'esbuild', 'sqlite3'],
  onSuccess: copyWebInbox,
};

const cli: Options = {
  // The CLI: ESM only, loads layers lazily so a warm call stays fast.
  entry: { cli: 'src/surfaces/cli/entry.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: false,
  target: 'node20',
  splitting: true,
  // Pure-JS dependencies are bundled in: resolving and reading ~300 files of zod, ajv, hono and the MCP SDK cost a
  // cold start (the CLI and its daemon) more than the code itself. Native, wasm and file-locating packages stay
  // outside. Bundled CommonJS calls `require`, which an ES module lacks: every chunk makes one.
  noExternal: [/^(?!@jitl\/|quickjs-emscripten|ts-morph|esbuild|sqlite3|@keyv\/|pg($|\/)|@napi-rs\/|open$)/],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __mcpxCreateRequire } from 'node:module';\nconst require = __mcpxCreateRequire(import.meta.url);",
  },
  external: [/^@jitl\//, /^quickjs-emscripten/, 'ts-morph', 'esbuild', 'sqlite3'],
};

// MCPX_BUILD=cli builds the CLI alone (no library, no declarations): the quick start's build, seconds instead of minutes.
export default defineConfig(process.env.MCPX_BUILD === 'cli' ? [{ ...cli, onSuccess: copyWebInbox }] : [library, cli]);
