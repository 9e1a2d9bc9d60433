/**
 * The hooks the `mcpx serve` e2e files shared as copies: the conformance fixture as the upstream, with a serve setup
 * over it, and `mcpx serve --http` processes. Each registers its beforeAll / afterAll where it is called (at file
 * level, or inside a describe), and returns a handle whose fields are read in the tests, once the hooks ran.
 */
import { afterAll, beforeAll } from 'vitest';
import { serveSetup, startConformanceFixture, startHttpServe, type HttpServeProcess, type ServeSetup } from './serve.js';

/** The conformance fixture, started before the file's tests and stopped after; `servers` configures it (its url). */
export function useConformanceSetup(servers: (url: string) => Record<string, unknown>): ServeSetup {
  let upstream: { url: string; stop(): void } | undefined;
  let setup: ServeSetup | undefined;
  beforeAll(async () => {
    upstream = await startConformanceFixture();
    setup = serveSetup(servers(upstream.url));
  });
  afterAll(() => upstream?.stop());
  return {
    get dir() {
      return setup!.dir;
    },
    get env() {
      return setup!.env;
    },
    get configPath() {
      return setup!.configPath;
    },
    cli: (args) => setup!.cli(args),
  };
}

/** `mcpx serve --http` on the setup, started before the tests of the enclosing block and closed after them. */
export function useHttpServe(
  setup: ServeSetup,
  extraArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): HttpServeProcess {
  let serve: HttpServeProcess | undefined;
  beforeAll(async () => {
    serve = await startHttpServe(setup, extraArgs, extraEnv);
  });
  afterAll(async () => {
    await serve?.close();
  });
  return {
    get url() {
      return serve!.url;
    },
    stderr: () => serve!.stderr(),
    close: () => serve!.close(),
  };
}
