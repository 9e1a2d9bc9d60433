import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The library: ESM + CJS + declarations. Heavy or Node-only layers stay behind subpaths.
    entry: {
      index: 'src/index.ts',
      broker: 'src/broker/public.ts',
      testing: 'src/testing/index.ts',
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
    // The web inbox's page, script and style are plain files the daemon serves from dist/ui/ (after clean).
    onSuccess: async () => cpSync('src/surfaces/http/web/ui', 'dist/ui', { recursive: true }),
  },
  {
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
  },
]);
