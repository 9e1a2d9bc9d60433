/**
 * `mcpx prompt list|get` and `mcpx resource list|read`: a server's prompts and resources. Listings use the running
 * daemon's connections (else connect directly); a get or a read goes through the daemon like a tool call, so a
 * question the server asks is answered the same way: the terminal form on a terminal, exit 75 otherwise.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Prompt } from '@modelcontextprotocol/client';
import { didYouMean } from '../../../config/close-matches.js';
import { findConfigPath } from '../../../config/find.js';
import { isMcpxError, McpxError } from '../../../errors.js';
import { ttlFromEnv } from '../../../policy/read.js';
import { elicitModeOf, parseArgs, UsageError } from '../args.js';
import type { CallResponse } from '../../../host/results.js';
import { openBackend } from '../connect.js';
import { openDiscovery } from '../discovery.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import { sanitize, sanitizeLine } from '../sanitize.js';
import { commandSession } from '../session.js';
import { wrap } from '../signatures.js';
import { answerUntilDone, returnQuestions } from './call.js';
import { columnsOf, withSuggestion } from './list.js';

const ELICIT_HELP = `  --elicit <mode>   what to do when the server asks a question: prompt (a terminal form, the default on a
                    terminal), return (print it and exit 75; the request keeps running in the daemon), auto,
                    decline, error (see mcpx call --help)`;

const PROMPT_USAGE = `usage: mcpx prompt list <server> [--json]
       mcpx prompt get <server> <name> [--arg key=value ...] [options]

list: the server's prompts with their arguments. get: the prompt's messages; arguments as --arg key=value
(or key=value words after the name). A question the server asks on the way is answered as for mcpx call.

options:
${ELICIT_HELP}
  --json            print JSON: the listing, or the GetPromptResult
  --config <file>   the mcpServers config

exit: 0 done, 1 failed, 2 usage, 75 a question waits for an answer
`;

const RESOURCE_USAGE = `usage: mcpx resource list <server> [--json]
       mcpx resource read <server> <uri> [--out <file>] [options]

list: the server's resources and resource templates. read: the resource's text; binary content is described
(type and size) and written with --out. A question the server asks on the way is answered as for mcpx call.

options:
  --out <file>      write the content (text, or the decoded bytes) to a file
${ELICIT_HELP}
  --json            print JSON: the listing, or the ReadResourceResult
  --config <file>   the mcpServers config

exit: 0 done, 1 failed, 2 usage, 75 a question waits for an answer
`;

type Print = (result: Record<string, unknown>, io: CliIO, json: boolean) => number;

export const promptCommand: Command = async (argv, io) => {
  const { rest: withoutArgs, values: argFlags } = takeRepeated(argv, 'arg');
  const { flags, positional } = parseArgs(withoutArgs, { booleans: ['json'], strings: ['elicit', 'config'] });
  const [verb, server, name, ...words] = positional;
  if (flags.help || !verb) {
    (flags.help ? io.stdout : io.stderr).write(PROMPT_USAGE);
    return flags.help ? EXIT.OK : EXIT.USAGE;
  }
  const config = typeof flags.config === 'string' ? flags.config : undefined;
  const json = flags.json === true;
  if (!server) throw new UsageError(`expected a server: mcpx prompt ${verb} <server>`);
  if (verb === 'list') {
    if (name) throw new UsageError(`prompt list takes one server, got also ${name}`);
    return listPrompts(io, config, server, json);
  }
  if (verb !== 'get') throw new UsageError(`unknown prompt command "${verb}": use list or get`);
  if (!name) throw new UsageError(`expected a prompt name: mcpx prompt get ${server} <name>`);
  const args = promptArguments([...argFlags, ...words]);
  return request(io, { config, json, elicit: flags.elicit }, server, name, args, 'prompts/get', printPrompt(server, name));
};

export const resourceCommand: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, { booleans: ['json'], strings: ['elicit', 'config', 'out'] });
  const [verb, server, uri, ...extra] = positional;
  if (flags.help || !verb) {
    (flags.help ? io.stdout : io.stderr).write(RESOURCE_USAGE);
    return flags.help ? EXIT.OK : EXIT.USAGE;
  }
  const config = typeof flags.config === 'string' ? flags.config : undefined;
  const json = flags.json === true;
  if (!server) throw new UsageError(`expected a server: mcpx resource ${verb} <server>`);
  if (verb === 'list') {
    if (uri) throw new UsageError(`resource list takes one server, got also ${uri}`);
    return listResources(io, config, server, json);
  }
  if (verb !== 'read') throw new UsageError(`unknown resource command "${verb}": use list or read`);
  if (!uri) throw new UsageError(`expected a resource URI: mcpx resource read ${server} <uri> (mcpx resource list ${server})`);
  if (extra.length) throw new UsageError(`resource read takes one URI, got also ${extra.join(' ')}`);
  const out = typeof flags.out === 'string' ? resolve(io.cwd, flags.out) : undefined;
  return request(io, { config, json, elicit: flags.elicit }, server, uri, {}, 'resources/read', printResource(server, uri, out));
};

/** `--arg k=v` may repeat; parseArgs keeps one value per flag, so they are taken out first. */
function takeRepeated(argv: string[], flag: string): { rest: string[]; values: string[] } {
  const rest: string[] = [];
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === `--${flag}`) {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`--${flag} needs key=value`);
      values.push(value);
    } else if (word.startsWith(`--${flag}=`)) values.push(word.slice(flag.length + 3));
    else rest.push(word);
  }
  return { rest, values };
}

/** Prompt arguments are strings on the wire (MCP): `key=value` as given, never typed. */
function promptArguments(words: string[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new UsageError(`expected key=value for a prompt argument, got ${JSON.stringify(word)}`);
    args[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return args;
}

async function request(
  io: CliIO,
  options: { config: string | undefined; json: boolean; elicit: string | boolean | undefined },
  server: string,
  target: string,
  args: Record<string, unknown>,
  method: 'prompts/get' | 'resources/read',
  print: Print,
): Promise<number> {
  const mode = elicitModeOf(options.elicit, io.env, io.isTTY);
  const chosen = typeof options.elicit === 'string' || Boolean(io.env.MCPX_ELICIT);
  const elicit = mode === 'prompt' || mode === 'return' ? 'ask' : mode;
  if (mode === 'prompt' && !io.isTTY)
    throw new UsageError('--elicit=prompt needs a terminal; use --elicit=return to get the question back instead');
  // MCPX_ELICIT_TTL_MS rides with the request, as with mcpx call, so a daemon already running applies it.
  const elicitTtlMs = io.env.MCPX_ELICIT_TTL_MS ? ttlFromEnv(io.env.MCPX_ELICIT_TTL_MS, 0) : undefined;
  const { session, sessionSource } = commandSession(io, options.config);
  const backend = await openBackend(io, { config: options.config, forCall: true });
  try {
    const response: CallResponse = await backend
      .call(server, target, args, {
        session,
        sessionSource,
        method,
        ...(chosen ? { elicit } : {}),
        ...(elicitTtlMs ? { elicitTtlMs } : {}),
      })
      .catch((error: unknown) => {
        // The daemon names the configured servers; the close ones are said as for mcpx call.
        if (!isMcpxError(error, 'SERVER_NOT_FOUND')) throw error;
        const known = Array.isArray(error.data?.known) ? (error.data.known as string[]) : [];
        throw new McpxError(
          'SERVER_NOT_FOUND',
          `no server named "${server}"${didYouMean(server, known)} (configured: ${known.join(', ') || 'none'})`,
          {
            data: { server, known },
          },
        );
      });
    if (response.status === 'complete') return print(response.result, io, options.json);
    if (mode !== 'prompt')
      return returnQuestions(response, io, options.json, session, findConfigPath(options.config, io.cwd, io.env));
    return await answerUntilDone(backend, response, io, options.json, session, print);
  } finally {
    await backend.close();
  }
}

async function listPrompts(io: CliIO, config: string | undefined, server: string, json: boolean): Promise<number> {
  const discovery = await openDiscovery(io, config);
  try {
    const prompts = await discovery.prompts(server).catch(async (error: unknown) => {
      throw await withSuggestion(error, server, discovery);
    });
    if (json) {
      io.stdout.write(`${JSON.stringify({ server, prompts }, null, 2)}\n`);
      return EXIT.OK;
    }
    io.stdout.write(`${server}: ${prompts.length} prompt${prompts.length === 1 ? '' : 's'}\n`);
    const width = columnsOf(io);
    for (const prompt of prompts) {
      io.stdout.write(`\n  ${promptSignature(prompt)}\n`);
      const description = sanitize(prompt.description ?? prompt.title ?? '', { maxLength: 2000 });
      if (description) io.stdout.write(`${wrap(description, width, '    ').join('\n')}\n`);
      for (const arg of prompt.arguments ?? []) {
        if (arg.description) io.stdout.write(`      ${sanitizeLine(arg.name, 80)}  ${sanitizeLine(arg.description, 300)}\n`);
      }
    }
    if (prompts.length) io.stdout.write(`\nGet one: mcpx prompt get ${server} <name> --arg key=value ...\n`);
    return EXIT.OK;
  } finally {
    await discovery.close();
  }
}

function promptSignature(prompt: Prompt): string {
  const args = prompt.arguments ?? [];
  const ordered = [...args.filter((a) => a.required), ...args.filter((a) => !a.required)];
  return `${sanitizeLine(prompt.name, 120)}(${ordered.map((a) => `${sanitizeLine(a.name, 80)}${a.required ? '' : '?'}`).join(', ')})`;
}

async function listResources(io: CliIO, config: string | undefined, server: string, json: boolean): Promise<number> {
  const discovery = await openDiscovery(io, config);
  try {
    const { resources, resourceTemplates } = await discovery.resources(server).catch(async (error: unknown) => {
      throw await withSuggestion(error, server, discovery);
    });
    if (json) {
      io.stdout.write(`${JSON.stringify({ server, resources, resourceTemplates }, null, 2)}\n`);
      return EXIT.OK;
    }
    io.stdout.write(`${server}: ${resources.length} resource${resources.length === 1 ? '' : 's'}\n`);
    for (const r of resources) io.stdout.write(`  ${resourceLine(r.uri, r.name, r.title, r.mimeType)}\n`);
    if (resourceTemplates.length) {
      io.stdout.write(`\ntemplates (fill in the {names}, then read):\n`);
      for (const t of resourceTemplates) io.stdout.write(`  ${resourceLine(t.uriTemplate, t.name, t.title, t.mimeType)}\n`);
    }
    if (resources.length) io.stdout.write(`\nRead one: mcpx resource read ${server} <uri> [--out file]\n`);
    return EXIT.OK;
  } finally {
    await discovery.close();
  }
}

function resourceLine(uri: string, name: string, title: string | undefined, mimeType: string | undefined): string {
  const label = sanitizeLine(title ?? name, 120);
  return `${sanitizeLine(uri, 300)}  ${label}${mimeType ? ` (${sanitizeLine(mimeType, 80)})` : ''}`;
}

interface ContentLike {
  type?: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}

function printPrompt(server: string, name: string): Print {
  return (result, io, json) => {
    if (json) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return EXIT.OK;
    }
    const messages = (Array.isArray(result.messages) ? result.messages : []) as Array<{ role?: string; content?: ContentLike }>;
    const description = typeof result.description === 'string' ? sanitize(result.description) : '';
    const lines = [`${server} prompt ${sanitizeLine(name)}${description ? `: ${description}` : ''}`];
    for (const message of messages) {
      lines.push('', `[${sanitizeLine(message.role ?? 'message', 40)}]`, describeContent(message.content ?? {}, io));
    }
    io.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.OK;
  };
}

function describeContent(content: ContentLike, io: Pick<CliIO, 'isTTY'>): string {
  switch (content.type) {
    case 'text':
      return io.isTTY ? sanitize(content.text, { maxLength: Number.MAX_SAFE_INTEGER }) : (content.text ?? '');
    case 'image':
    case 'audio':
      return `[${content.type} ${sanitizeLine(content.mimeType ?? '')}, ${bytesOf(content.data)} bytes]`;
    case 'resource': {
      const r = content.resource ?? {};
      if (typeof r.text === 'string') return io.isTTY ? sanitize(r.text, { maxLength: Number.MAX_SAFE_INTEGER }) : r.text;
      return `[resource ${sanitizeLine(r.uri ?? '')} ${sanitizeLine(r.mimeType ?? '')}, ${bytesOf(r.blob)} bytes]`;
    }
    case 'resource_link':
      return `[link ${sanitizeLine(content.uri ?? '')}]`;
    default:
      return sanitize(JSON.stringify(content));
  }
}

/** Decoded size of base64 text. */
function bytesOf(base64: string | undefined): number {
  return base64 ? Buffer.byteLength(base64, 'base64') : 0;
}

function printResource(server: string, uri: string, out: string | undefined): Print {
  return (result, io, json) => {
    const contents = (Array.isArray(result.contents) ? result.contents : []) as Array<{
      uri?: string;
      mimeType?: string;
      text?: string;
      blob?: string;
    }>;
    if (out) {
      const bytes = Buffer.concat(
        contents.map((c) => (typeof c.blob === 'string' ? Buffer.from(c.blob, 'base64') : Buffer.from(c.text ?? '', 'utf8'))),
      );
      writeFileSync(out, bytes);
      io.stderr.write(`mcpx: wrote ${bytes.length} bytes of ${sanitizeLine(uri)} to ${out}\n`);
      if (json) io.stdout.write(`${JSON.stringify({ uri, file: out, bytes: bytes.length }, null, 2)}\n`);
      return EXIT.OK;
    }
    if (json) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return EXIT.OK;
    }
    if (!contents.length) {
      io.stderr.write(`mcpx: ${server} returned no content for ${sanitizeLine(uri)}\n`);
      return EXIT.OK;
    }
    for (const content of contents) {
      if (typeof content.blob === 'string') {
        // Raw bytes would garble a terminal: say what it is, and how to keep it.
        io.stdout.write(
          `[${sanitizeLine(content.uri ?? uri)}: binary, ${sanitizeLine(content.mimeType ?? 'unknown type')}, ${bytesOf(content.blob)} bytes; ` +
            `write it with: mcpx resource read ${server} ${sanitizeLine(uri)} --out <file>]\n`,
        );
        continue;
      }
      const text = content.text ?? '';
      const shown = io.isTTY ? sanitize(text, { maxLength: Number.MAX_SAFE_INTEGER }) : text;
      io.stdout.write(shown.endsWith('\n') ? shown : `${shown}\n`);
    }
    return EXIT.OK;
  };
}
