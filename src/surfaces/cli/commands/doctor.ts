/**
 * `mcpx doctor [server...]`: checks every configured server (its program on PATH, that it connects, its era, what it
 * offers) and asks rather than reports where a person's answer fixes it: a missing credential (an `{"ask"}` entry,
 * or a `${VAR}` not set) or a sign-in is asked as mcpx's own question, held by the daemon like a call's, for a person
 * only. On a terminal it asks there; otherwise it prints the questions and exits 75, as `mcpx call` does.
 */
import { loadConfig } from '../../../config/index.js';
import { configCandidates, findConfigPath } from '../../../config/find.js';
import { isMcpxError } from '../../../errors.js';
import { ttlFromEnv } from '../../../policy/read.js';
import type { CallResponse } from '../../../host/results.js';
import type { Backend } from '../../backend/backend.js';
import { parseArgs, UsageError } from '../args.js';
import { openBackend } from '../connect.js';
import { openDiscovery } from '../discovery.js';
import { checkServer, type ServerCheck } from '../doctor-checks.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import { sanitize, sanitizeLine } from '../sanitize.js';
import { commandSession } from '../session.js';
import { styleFor, type Style } from '../style.js';
import { renderInputRequired } from '../render.js';
import { answerUntilDone } from './call.js';

const USAGE = `usage: mcpx doctor [server...] [options]

Checks each configured server (or those named): its program is found on PATH (stdio), it connects, the
protocol era it speaks, and what it offers (tools, prompts, resources). Where an answer fixes a problem, it asks
instead of only reporting: a credential the server needs (an {"ask": ...} entry, or an env or header value whose
\${VAR} is not set) is asked for and kept in the secret store, never in a file; a server that needs a sign-in asks
for it. These questions are mcpx's own: only a person may answer them, never an agent.

options:
  --elicit <mode>   prompt   ask here, in a terminal form (the default on a terminal)
                    return   print the questions and the commands that answer them, exit 75; the daemon holds
                             them, and mcpx doctor (or mcpx call) finds the server working once they are answered
                    (MCPX_ELICIT=prompt or return sets the default too)
  --json            print JSON: {config, servers: [...], questions: [...]}
  --config <file>   the mcpServers config (default: mcpx.json or .mcp.json here or in a parent directory up to
                    home, then the user config)

exit: 0 every server works, 1 a problem no answer fixes (each is reported), 2 usage, 75 a question waits
`;

export const command: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, { booleans: ['json'], strings: ['elicit', 'config'] });
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  // MCPX_ELICIT counts where it names a mode doctor has (its policy modes answer no question of mcpx's own).
  const fromEnv = io.env.MCPX_ELICIT === 'prompt' || io.env.MCPX_ELICIT === 'return' ? io.env.MCPX_ELICIT : undefined;
  const mode = typeof flags.elicit === 'string' ? flags.elicit : (fromEnv ?? (io.isTTY ? 'prompt' : 'return'));
  if (mode !== 'prompt' && mode !== 'return') throw new UsageError(`--elicit takes prompt | return, got ${JSON.stringify(mode)}`);
  if (mode === 'prompt' && !io.isTTY)
    throw new UsageError('--elicit=prompt needs a terminal; use --elicit=return to get the questions back instead');
  const json = flags.json === true;
  const config = typeof flags.config === 'string' ? flags.config : undefined;
  const configPath = findConfigPath(config, io.cwd, io.env);
  const style = styleFor(io.stdout, io.env);
  if (!configPath) {
    const looked = configCandidates(io.cwd, io.env);
    if (json) io.stdout.write(`${JSON.stringify({ config: null, looked, servers: [] }, null, 2)}\n`);
    else
      io.stdout.write(
        `No config file found. Looked in:\n${looked.map((f) => `  ${f}\n`).join('')}Add a server: mcpx add <name> -- <command...> (or mcpx add <name> <url>)\n`,
      );
    return EXIT.FAILURE;
  }
  // A config error names the file, the server and the field: nothing to ask, the file is to be edited.
  const loaded = loadConfig({ config: configPath, cwd: io.cwd, env: io.env });
  const named = namedServers(positional, loaded.config);
  const checks = await checkAll(named, loaded.config, io, config);
  if (!json) printChecks(checks, configPath, io, style);
  const asking = checks.filter((c) => c.verdict === 'asks');
  const problems = checks.filter((c) => c.verdict === 'problem').length;
  if (!asking.length) {
    if (json) io.stdout.write(`${JSON.stringify({ config: configPath, servers: checks, questions: [] }, null, 2)}\n`);
    return problems ? EXIT.FAILURE : EXIT.OK;
  }
  return await askFor(asking, { io, json, mode, config, configPath, checks, style, problems });
};

function namedServers(positional: string[], config: ReturnType<typeof loadConfig>['config']): string[] {
  const known = [...Object.keys(config.mcpServers), ...Object.keys(config.adapters ?? {})];
  const unknown = positional.filter((name) => !known.includes(name));
  if (unknown.length)
    throw new UsageError(`no server named ${unknown.map((n) => `"${n}"`).join(', ')}; configured: ${known.join(', ') || 'none'}`);
  return positional.length ? [...new Set(positional)] : known;
}

async function checkAll(
  names: string[],
  config: ReturnType<typeof loadConfig>['config'],
  io: CliIO,
  configFlag: string | undefined,
): Promise<ServerCheck[]> {
  const discovery = await openDiscovery(io, configFlag);
  try {
    const entryOf = (name: string) => ({
      ...(config.mcpServers[name] ? { server: config.mcpServers[name] } : {}),
      ...(config.adapters?.[name] ? { adapter: config.adapters[name] } : {}),
    });
    return await Promise.all(
      names.map((name) =>
        checkServer(name, entryOf(name), discovery, io).catch((error: unknown): ServerCheck => ({
          server: name,
          transport: 'unknown',
          verdict: 'problem',
          findings: [{ ok: false, check: 'connect', text: error instanceof Error ? error.message : String(error) }],
        })),
      ),
    );
  } finally {
    await discovery.close();
  }
}

function printChecks(checks: ServerCheck[], configPath: string, io: CliIO, style: Style): void {
  io.stdout.write(`mcpx doctor: ${checks.length} server${checks.length === 1 ? '' : 's'} in ${configPath}\n`);
  for (const check of checks) printCheck(check, io, style);
}

function printCheck(check: ServerCheck, io: CliIO, style: Style): void {
  const verdict =
    check.verdict === 'ok' ? style.green('works') : check.verdict === 'asks' ? style.yellow('asks') : style.red('problem');
  io.stdout.write(`\n${style.bold(check.server)}  ${verdict}  ${style.dim(sanitizeLine(check.transport, 160))}\n`);
  for (const finding of check.findings) {
    const mark = finding.ok ? style.green('✓') : check.verdict === 'asks' ? style.yellow('?') : style.red('✗');
    // A reason may quote a server's stderr: sanitised, first line only.
    io.stdout.write(`  ${mark} ${finding.check}: ${sanitizeLine(finding.text, 300)}\n`);
  }
}

interface AskContext {
  io: CliIO;
  json: boolean;
  mode: 'prompt' | 'return';
  config: string | undefined;
  configPath: string;
  checks: ServerCheck[];
  style: Style;
  problems: number;
}

/**
 * Asks what each server needs, as the daemon's sign-in route does for `mcpx run`: its missing credentials, then its
 * sign-in, held as mcpx's own questions of one request that makes no call. On a terminal each is answered here
 * and the server checked again; otherwise the questions are printed with the commands that answer them.
 */
async function askFor(asking: ServerCheck[], context: AskContext): Promise<number> {
  const { io, json, mode, config } = context;
  const { session, sessionSource } = commandSession(io, config);
  // MCPX_ELICIT_TTL_MS rides with the request, as with `mcpx call`: how long the questions wait for the person.
  const elicitTtlMs = io.env.MCPX_ELICIT_TTL_MS ? ttlFromEnv(io.env.MCPX_ELICIT_TTL_MS, 0) : undefined;
  const backend = await openBackend(io, { config, forCall: true });
  const waiting: InputRequired[] = [];
  let unfixed = context.problems;
  try {
    for (const check of asking) {
      // A question an earlier doctor asked, still waiting, is asked again as it is, not a second time.
      const response =
        (await earlierQuestions(backend, check.server, session)) ??
        (await backend
          .call(
            check.server,
            DOCTOR_TOOL,
            {},
            { session, sessionSource, signInOnly: true, ...(elicitTtlMs ? { elicitTtlMs } : {}) },
          )
          .catch((error: unknown) => error));
      if (!isResponse(response)) {
        unfixed++;
        io.stderr.write(`mcpx doctor: ${check.server}: ${sanitize(messageOf(response))}\n`);
        continue;
      }
      if (response.status === 'complete') continue;
      if (mode === 'return') {
        waiting.push(response);
        continue;
      }
      const done = await answerUntilDone(backend, response, io, json, session, () => EXIT.OK).catch((error: unknown) => {
        io.stderr.write(`mcpx doctor: ${check.server}: ${sanitize(messageOf(error))}\n`);
        return EXIT.FAILURE;
      });
      if (done !== EXIT.OK) unfixed++;
    }
  } finally {
    await backend.close();
  }
  if (mode === 'return' && waiting.length) return printWaiting(waiting, context, session);
  // Answered here: each server is checked again, so the report ends with how they stand now.
  const again = await checkAll(
    asking.map((c) => c.server),
    loadConfig({ config: context.configPath, cwd: io.cwd, env: io.env }).config,
    io,
    config,
  );
  if (json) {
    const servers = context.checks.map((check) => again.find((a) => a.server === check.server) ?? check);
    io.stdout.write(`${JSON.stringify({ config: context.configPath, servers, questions: [] }, null, 2)}\n`);
  } else {
    io.stdout.write(`\nafter the answers:\n`);
    for (const check of again) printCheck(check, io, context.style);
  }
  return unfixed || again.some((c) => c.verdict !== 'ok') ? EXIT.FAILURE : EXIT.OK;
}

function printWaiting(waiting: InputRequired[], context: AskContext, session: string): number {
  const { io, json, configPath } = context;
  if (json) {
    const questions = waiting.map((w) => w.inputRequired);
    io.stdout.write(`${JSON.stringify({ config: configPath, servers: context.checks, questions }, null, 2)}\n`);
    return EXIT.INPUT_REQUIRED;
  }
  for (const { inputRequired } of waiting) {
    const { server, task } = inputRequired;
    const text = renderInputRequired({
      server,
      tool: DOCTOR_TOOL,
      questions: inputRequired.questions,
      session,
      ...(task ? { task } : {}),
      pasteable: { configPath },
      now: Date.now(),
      headline: `mcpx doctor asks for what server "${server}" needs, and nothing here can answer it (only a person may)`,
      tail: `Once it is answered, from any process, mcpx doctor (or mcpx call ${server}.<tool>) finds the server working.`,
    });
    io.stdout.write(`\n${text}`);
  }
  return EXIT.INPUT_REQUIRED;
}

/** What the questions doctor asks belong to: a request that makes no call, named so in their `server.tool`. */
const DOCTOR_TOOL = 'doctor';

type InputRequired = Extract<CallResponse, { status: 'input-required' }>;

async function earlierQuestions(backend: Backend, server: string, session: string): Promise<InputRequired | undefined> {
  const open = await backend.list({ session, server, tool: DOCTOR_TOOL }).catch(() => []);
  const held = open.filter((q) => q.asker === 'mcpx' && q.task !== undefined && q.task === open[0]?.task);
  const first = held[0];
  if (!first) return undefined;
  const inputRequired = { callId: first.trace, task: first.task!, server, tool: DOCTOR_TOOL, questions: held, text: '' };
  return { status: 'input-required', inputRequired };
}

const isResponse = (value: unknown): value is CallResponse =>
  typeof value === 'object' && value !== null && 'status' in value && !(value instanceof Error);

const messageOf = (error: unknown): string =>
  isMcpxError(error) ? `${error.message} [${error.code}]` : error instanceof Error ? error.message : String(error);
