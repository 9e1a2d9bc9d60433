/**
 * `mcpx gen [server...] --out <dir>`: typed tool clients (or, with --types-only, script declarations) from the
 * servers' own tool lists. Each file's header holds a hash of the schemas it came from: an unchanged file is not
 * rewritten (and ts-morph is not even loaded when nothing changed), and `--check` fails when a file is stale.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ToolsByServer } from '../../../codegen/index.js';
import { generateClient, generateScriptDeclarations, planClientFiles, planScriptDeclarations, readSchemaHash } from '../../../codegen/index.js';
import { createMcpx } from '../../../mcpx.js';
import { parseArgs } from '../args.js';
import { EXIT, type Command } from '../io.js';
import { sanitizeLine } from '../sanitize.js';

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
  const { flags, positional } = parseArgs(argv, { booleans: ['types-only', 'check'], strings: ['out', 'config', 'runtime-import'] });
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const out = resolve(io.cwd, typeof flags.out === 'string' ? flags.out : 'mcpx-tools');
  const typesOnly = flags['types-only'] === true;
  const options = typeof flags['runtime-import'] === 'string' ? { runtimeImport: flags['runtime-import'] } : {};

  const mcpx = await createMcpx({ ...(typeof flags.config === 'string' ? { config: flags.config } : {}), cwd: io.cwd, env: io.env });
  const toolsByServer: ToolsByServer = {};
  try {
    const names = positional.length > 0 ? positional : mcpx.serverNames();
    if (names.length === 0) {
      io.stderr.write('mcpx gen: no servers configured; add some under "mcpServers" in mcpx.json\n');
      return EXIT.FAILURE;
    }
    // Servers start in parallel: listing is mostly waiting for each one to spawn and answer.
    const lists = await Promise.all(names.map((name) => mcpx.listTools(name)));
    names.forEach((name, i) => (toolsByServer[name] = lists[i] ?? []));
  } finally {
    await mcpx.close();
  }

  // index.ts joins every configured server, so it is written only when all of them are generated; with servers
  // named, only their modules are (each has its own create<Server>Tools).
  const everyServer = positional.length === 0;
  const joined = (path: string): boolean => everyServer || typesOnly || path !== 'index.ts';
  const planned = (typesOnly ? [planScriptDeclarations(toolsByServer, options)] : planClientFiles(toolsByServer, options)).filter((f) => joined(f.path));
  const stale = planned.filter((f) => readHash(join(out, f.path)) !== f.hash);

  if (flags.check === true) {
    if (stale.length === 0) {
      io.stdout.write(`mcpx gen: ${planned.length} generated file(s) in ${out} are up to date\n`);
      return EXIT.OK;
    }
    for (const f of stale) io.stderr.write(`stale: ${join(out, f.path)}${readHash(join(out, f.path)) === undefined ? ' (missing or not generated)' : ' (schemas changed)'}\n`);
    io.stderr.write(`mcpx gen: ${stale.length} of ${planned.length} generated file(s) are stale; run \`mcpx gen${positional.length ? ` ${positional.join(' ')}` : ''}${typesOnly ? ' --types-only' : ''} --out ${flags.out ?? 'mcpx-tools'}\` again\n`);
    return EXIT.FAILURE;
  }

  if (stale.length === 0) {
    io.stdout.write(`mcpx gen: unchanged, ${planned.length} file(s) in ${out}\n`);
    return EXIT.OK;
  }
  const result = typesOnly ? await generateScriptDeclarations(toolsByServer, options) : await generateClient(toolsByServer, options);
  for (const w of result.warnings) {
    io.stderr.write(`warning: ${sanitizeLine(w.server ?? '')}.${sanitizeLine(w.tool)}${w.path ? ` at ${sanitizeLine(w.path)}` : ''}: ${sanitizeLine(w.message, 400)}\n`);
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
};
