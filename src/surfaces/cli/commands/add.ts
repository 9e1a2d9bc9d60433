/**
 * `mcpx add <name> -- <command...>` and `mcpx add <name> <url>`: writes a server entry into the config file in use
 * (mcpx.json here when there is none), keeping the file's comments and layout. A credential the server needs
 * (`--env KEY`, `--header Name` with no value) is written as `{"ask": ..., "secret": true}`: asked at first use
 * and kept in the secret store, never left empty and never written in the file.
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { addServerEntry, type NewServerEntry } from '../../../config/index.js';
import { findConfigPath } from '../../../config/find.js';
import { parseArgs, UsageError } from '../args.js';
import { EXIT, type Command } from '../io.js';

const USAGE = `usage: mcpx add <name> [options] -- <command> [args...]   a stdio server
       mcpx add <name> [options] <url>                       a Streamable HTTP server

Writes the server into the config file in use (the one mcpx list reads; ./mcpx.json when there is none), keeping
the file's comments and formatting.

options:
  --env KEY          the server needs the environment variable KEY: asked for at first use (mcpx doctor asks now)
                     and kept in the secret store, never in the file (repeatable)
  --env KEY=VALUE    a plain value, written in the file as given (\${VAR} references are kept as written)
  --header NAME      an HTTP header the server needs, asked for at first use like --env KEY (repeatable)
  --header NAME=VALUE  a plain header value
  --era <era>        legacy or modern pins the protocol era; auto (the default) probes once, then caches
  --force            replace a server of the same name
  --config <file>    the config file to write, created if missing (default: the one in use, else ./mcpx.json)

exit: 0 written, 1 refused (the name exists, the file is not JSON), 2 usage
`;

/** Flags that may repeat, taken out before the others are parsed. */
const REPEATED = ['env', 'header'] as const;

export const command: Command = async (argv, io) => {
  const split = argv.indexOf('--');
  const before = split === -1 ? argv : argv.slice(0, split);
  const commandWords = split === -1 ? undefined : argv.slice(split + 1);
  const { rest, repeated } = takeRepeated(before);
  const { flags, positional } = parseArgs(rest, { booleans: ['force'], strings: ['config', 'era'] });
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const [name, url, ...extra] = positional;
  if (!name) throw new UsageError('name the server: mcpx add <name> -- <command...> | mcpx add <name> <url>');
  if (extra.length) throw new UsageError(`unexpected ${JSON.stringify(extra[0])}; a command goes after --`);
  if (commandWords !== undefined && url !== undefined) throw new UsageError('give a command after -- or a url, not both');
  if (commandWords !== undefined && !commandWords.length) throw new UsageError('no command after --');
  if (commandWords === undefined && url === undefined)
    throw new UsageError('give the command after -- (mcpx add <name> -- npx -y some-server) or the url');
  if (url !== undefined && !/^https?:\/\//.test(url))
    throw new UsageError(`"${url}" is not an http(s) URL; a command goes after --: mcpx add ${name} -- ${url}`);
  if (url !== undefined && repeated.env.length)
    throw new UsageError('--env is for a stdio server; an http server takes --header');
  if (commandWords !== undefined && repeated.header.length)
    throw new UsageError('--header is for an http server; a stdio server takes --env');
  const era = flags.era;
  if (era !== undefined && era !== 'legacy' && era !== 'modern' && era !== 'auto')
    throw new UsageError(`--era takes legacy, modern or auto, got ${JSON.stringify(era)}`);

  const entry: NewServerEntry =
    commandWords !== undefined
      ? {
          command: commandWords[0]!,
          ...(commandWords.length > 1 ? { args: commandWords.slice(1) } : {}),
          ...(repeated.env.length ? { env: valuesOf(repeated.env, 'env') } : {}),
        }
      : { url: url!, ...(repeated.header.length ? { headers: valuesOf(repeated.header, 'header') } : {}) };
  if (typeof era === 'string' && era !== 'auto') entry.era = era;

  // --config names the file to write, made if it is not there yet; else the file in use, else ./mcpx.json.
  const path =
    typeof flags.config === 'string'
      ? resolve(io.cwd, flags.config)
      : (findConfigPath(undefined, io.cwd, io.env) ?? join(io.cwd, 'mcpx.json'));
  const text = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  writeWhole(path, addServerEntry(text, name, entry, { force: flags.force === true, file: path, env: io.env }));
  const asked = [...repeated.env, ...repeated.header].filter((v) => !v.includes('='));
  io.stdout.write(`${text === undefined ? 'created' : 'updated'} ${path}: added server "${name}"\n`);
  if (asked.length)
    io.stdout.write(
      `It asks for ${asked.join(', ')} at first use, as a person's question, and keeps ${asked.length === 1 ? 'it' : 'them'} in the secret store (mcpx doctor asks now).\n`,
    );
  io.stdout.write(`mcpx list ${name} shows its tools; mcpx doctor checks it.\n`);
  return EXIT.OK;
};

function takeRepeated(argv: string[]): { rest: string[]; repeated: Record<(typeof REPEATED)[number], string[]> } {
  const repeated = { env: [] as string[], header: [] as string[] };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const flag = REPEATED.find((f) => word === `--${f}` || word.startsWith(`--${f}=`));
    if (!flag) {
      rest.push(word);
      continue;
    }
    const value = word.includes('=') ? word.slice(word.indexOf('=') + 1) : argv[++i];
    if (value === undefined || value === '') throw new UsageError(`--${flag} needs a name (or NAME=VALUE)`);
    repeated[flag].push(value);
  }
  return { rest, repeated };
}

/** `KEY` asked at first use as a secret; `KEY=VALUE` written as given. */
function valuesOf(words: string[], flag: 'env' | 'header'): Record<string, string | { ask: string; secret: true }> {
  const out: Record<string, string | { ask: string; secret: true }> = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    const key = eq === -1 ? word : word.slice(0, eq);
    if (!key) throw new UsageError(`--${flag} ${JSON.stringify(word)} names no ${flag === 'env' ? 'variable' : 'header'}`);
    out[key] = eq === -1 ? { ask: key, secret: true } : word.slice(eq + 1);
  }
  return out;
}

/** The file written whole (a temporary file renamed over it), so no reader sees half of it; its mode is kept. */
function writeWhole(path: string, text: string): void {
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
  const temporary = `${path}.mcpx-${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode });
  renameSync(temporary, path);
}
