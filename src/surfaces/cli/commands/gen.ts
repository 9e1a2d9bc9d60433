/**
 * `mcpx gen [server...] --out <dir>`: typed tool clients (or, with --types-only, script declarations) from the
 * servers' own tool lists. Each file's header holds a hash of the schemas it came from: an unchanged file is not
 * rewritten (and ts-morph is not even loaded when nothing changed), and `--check` fails when a file is stale.
 * Tool lists come from the daemon of this config when one runs (its connections are warm: no server is spawned);
 * otherwise the servers are started here, and the MCP client is loaded only then.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ToolsByServer } from '../../../codegen/index.js';
import {
  generateClient,
  generateScriptDeclarations,
  planClientFiles,
  planScriptDeclarations,
  readSchemaHash,
} from '../../../codegen/index.js';
import { McpxError, type McpxErrorCode } from '../../../errors.js';
import { parseArgs } from '../args.js';
import { findConfigPath } from '../../../config/find.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import { sanitizeLine } from '../sanitize.js';
import { SURFACE_DELIVERS } from '../../delivers.js';

const USAGE = `usage: mcpx gen [server...] [--out <dir>] [--types-only] [--check] [options]

Generates typed tool clients from the configured servers' tools (all servers unless some are named).

  default         <dir>/<server>.ts per server and <dir>/index.ts with createTools(mcpx):
                    const tools = createTools(await createMcpx());
                    await tools.github.create_issue({ title: 'x' });
                  with servers named, only their modules (index.ts joins all servers, so it is
                  written by a run without names); each has create<Server>Tools(mcpx)
  --types-only    only <dir>/mcpx-env.d.ts: the globals of scripts run by \`mcpx run\`
                  (declare const tools, onElicit, ask, ToolError, console, setTimeout)

options:
  --out <dir>              where to write (default: mcpx-tools)
  --check                  write nothing; exit 1 when a file is missing or stale (for CI)
  --runtime-import <spec>  where generated clients import their runtime from (default: mcpx)
  --config <file>          the mcpServers config (default: ./mcpx.json, ./.mcp.json, then the user config)
  --no-daemon              start the servers here even when a daemon of this config runs

Tools are listed by the daemon of this config when one runs (\`mcpx daemon start\`): its connections are
warm, so no server is started. Otherwise the servers are started here.

exit: 0 done (or fresh with --check), 1 failure (or stale with --check), 2 usage
`;

function readHash(path: string): string | undefined {
  try {
    return readSchemaHash(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

export const command: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, {
    booleans: ['types-only', 'check', 'no-daemon'],
    strings: ['out', 'config', 'runtime-import'],
  });
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const out = resolve(io.cwd, typeof flags.out === 'string' ? flags.out : 'mcpx-tools');
  const typesOnly = flags['types-only'] === true;
  const options = typeof flags['runtime-import'] === 'string' ? { runtimeImport: flags['runtime-import'] } : {};

  const config = typeof flags.config === 'string' ? flags.config : undefined;
  const listed =
    (flags['no-daemon'] === true ? undefined : await listFromDaemon(positional, config, io.cwd, io.env)) ??
    (await listHere(positional, config, io.cwd, io.env));
  try {
    const { toolsByServer } = listed;
    if (Object.keys(toolsByServer).length === 0) {
      io.stderr.write('mcpx gen: no servers configured; add some under "mcpServers" in mcpx.json\n');
      return EXIT.FAILURE;
    }
    const again = `mcpx gen${positional.length ? ` ${positional.join(' ')}` : ''}${typesOnly ? ' --types-only' : ''} --out ${flags.out ?? 'mcpx-tools'}`;
    return await writeFiles(
      toolsByServer,
      { out, typesOnly, options, check: flags.check === true, everyServer: positional.length === 0, again },
      io,
    );
  } finally {
    await listed.closed;
  }
};

interface WriteOptions {
  out: string;
  typesOnly: boolean;
  options: { runtimeImport?: string };
  check: boolean;
  /** No servers were named: index.ts, which joins every server, is part of the output. */
  everyServer: boolean;
  /** The command that regenerates, for --check's message. */
  again: string;
}

async function writeFiles(toolsByServer: ToolsByServer, w: WriteOptions, io: CliIO): Promise<number> {
  const { out, typesOnly, options } = w;
  // index.ts joins every configured server, so it is written only when all of them are generated; with servers
  // named, only their modules are (each has its own create<Server>Tools).
  const joined = (path: string): boolean => w.everyServer || typesOnly || path !== 'index.ts';
  const planned = (typesOnly ? [planScriptDeclarations(toolsByServer, options)] : planClientFiles(toolsByServer, options)).filter(
    (f) => joined(f.path),
  );
  const stale = planned.filter((f) => readHash(join(out, f.path)) !== f.hash);

  if (w.check) {
    if (stale.length === 0) {
      io.stdout.write(`mcpx gen: ${planned.length} generated file(s) in ${out} are up to date\n`);
      return EXIT.OK;
    }
    for (const f of stale)
      io.stderr.write(
        `stale: ${join(out, f.path)}${readHash(join(out, f.path)) === undefined ? ' (missing or not generated)' : ' (schemas changed)'}\n`,
      );
    io.stderr.write(`mcpx gen: ${stale.length} of ${planned.length} generated file(s) are stale; run \`${w.again}\` again\n`);
    return EXIT.FAILURE;
  }

  if (stale.length === 0) {
    io.stdout.write(`mcpx gen: unchanged, ${planned.length} file(s) in ${out}\n`);
    return EXIT.OK;
  }
  const result = typesOnly
    ? await generateScriptDeclarations(toolsByServer, options)
    : await generateClient(toolsByServer, options);
  for (const warning of result.warnings) {
    io.stderr.write(
      `warning: ${sanitizeLine(warning.server ?? '')}.${sanitizeLine(warning.tool)}${warning.path ? ` at ${sanitizeLine(warning.path)}` : ''}: ${sanitizeLine(warning.message, 400)}\n`,
    );
  }
  mkdirSync(out, { recursive: true });
  const staleSet = new Set(stale.map((f) => f.path));
  for (const file of result.files.filter((f) => joined(f.path))) {
    const path = join(out, file.path);
    if (!staleSet.has(file.path)) {
      io.stdout.write(`unchanged ${path}\n`);
      continue;
    }
    writeFileSync(path, file.text);
    const count = file.server === undefined ? '' : ` (${toolsByServer[file.server]?.length ?? 0} tools)`;
    io.stdout.write(`wrote ${path}${count}\n`);
  }
  return EXIT.OK;
}

interface Listed {
  toolsByServer: ToolsByServer;
  /** Settles when the connections opened for the listing are closed (closing overlaps generation). */
  closed: Promise<void>;
}

/**
 * The tool lists from the daemon of this config, over its warm pooled connections; undefined when no daemon
 * answers (or it predates the listing routes), so the caller starts the servers itself. A server the daemon
 * cannot list is an error, as it would be here.
 */
async function listFromDaemon(
  named: string[],
  config: string | undefined,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<Listed | undefined> {
  const configPath = findConfigPath(config, cwd, env);
  const { daemonPaths, isAlive, readDaemonState } = await import('../../daemon/paths.js');
  const state = readDaemonState(daemonPaths(env, configPath));
  if (!state || !isAlive(state.pid)) return undefined;
  const get = async (path: string): Promise<Record<string, unknown> | undefined> => {
    let response: { status: number; body: Record<string, unknown> };
    try {
      response = await getJson(state.socket, path);
    } catch (error) {
      // Nothing listens there (a stale state file): list here instead.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ECONNREFUSED' || code === 'ENOENT') return undefined;
      throw error;
    }
    if (response.status === 200) return response.body;
    const failure = (response.body.error ?? {}) as { code?: string; message?: string; data?: Record<string, unknown> };
    // An older daemon without the listing routes.
    if (response.status === 404 && failure.code === 'NOT_FOUND') return undefined;
    throw new McpxError(
      (failure.code ?? 'CALL_FAILED') as McpxErrorCode,
      `the daemon (pid ${state.pid}) could not list tools: ${failure.message ?? `HTTP ${response.status}`}`,
      { ...(failure.data ? { data: failure.data } : {}) },
    );
  };
  const names = named.length > 0 ? named : ((await get('/v1/servers'))?.servers as string[] | undefined);
  if (!names) return undefined;
  const bodies = await Promise.all(names.map((name) => get(`/v1/servers/${encodeURIComponent(name)}/tools`)));
  if (bodies.some((b) => b === undefined)) return undefined;
  const toolsByServer: ToolsByServer = {};
  names.forEach((name, i) => (toolsByServer[name] = (bodies[i]?.tools ?? []) as ToolsByServer[string]));
  return { toolsByServer, closed: Promise.resolve() };
}

/**
 * One GET over the daemon's unix socket, read as JSON. Plain node:http, not the fetch-like daemon client: building
 * web Responses loads Node's fetch internals, ~70 ms of a ~0.3 s warm run.
 */
async function getJson(socket: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, path, method: 'GET', timeout: 120_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        try {
          resolve({
            status: res.statusCode ?? 500,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          });
        } catch (error) {
          reject(new McpxError('CALL_FAILED', `the daemon answered ${path} with something that is not JSON`, { cause: error }));
        }
      });
    });
    req.on('timeout', () => req.destroy(new McpxError('CALL_FAILED', `the daemon did not answer ${path} within 120 s`)));
    req.on('error', reject);
    req.end();
  });
}

/** The tool lists from the servers themselves, started here in parallel (listing is mostly waiting for them). */
async function listHere(
  named: string[],
  config: string | undefined,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<Listed> {
  const { createMcpx } = await import('../../../mcpx.js');
  // Declared as by every surface: some servers list tools only to a client that can answer questions, and the files
  // must not depend on whether a daemon ran.
  const mcpx = await createMcpx({ ...(config !== undefined ? { config } : {}), cwd, env, ...SURFACE_DELIVERS });
  const toolsByServer: ToolsByServer = {};
  try {
    const names = named.length > 0 ? named : mcpx.serverNames();
    const lists = await Promise.all(names.map((name) => mcpx.listTools(name)));
    names.forEach((name, i) => (toolsByServer[name] = lists[i] ?? []));
  } catch (error) {
    await mcpx.close();
    throw error;
  }
  // The servers shut down while the files are generated and written.
  return { toolsByServer, closed: mcpx.close() };
}
