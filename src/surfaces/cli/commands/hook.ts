/**
 * `mcpx hook claude-code`: Claude Code's Elicitation hook. The question arrives on stdin, waits in mcpx's broker
 * (policy, `mcpx elicit list|answer` from any process, the audit log), and its answer is printed for Claude Code.
 * `--install` / `--uninstall` add or remove the hook entry in Claude Code's settings.
 */
import { resolveSession } from '../../../broker/index.js';
import { loadConfig } from '../../../config/index.js';
import { findConfigPath } from '../../../config/find.js';
import { shellWord } from '../../../elicitation/describe.js';
import { hookOutput, hookQuestion, parseHookInput } from '../../../elicitation/claude-code-hook.js';
import { newCallId, newElicitationId } from '../../../ids.js';
import { holdQuestion, type NoAnswer } from '../../../pipeline/hold-question.js';
import { parseDuration } from '../../../runtime/index.js';
import { closeStoreBroker, openStoreBroker } from '../../backend/store-backend.js';
import { startDaemonNotifications } from '../../daemon/notifications.js';
import { parseArgs, UsageError } from '../args.js';
import { readSettings, settingsPath, withMcpxHook, withoutMcpxHook, writeSettings } from '../claude-settings.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import { duration } from '../render.js';
import { reportError } from '../report.js';
import { sanitizeLine } from '../sanitize.js';
import { readStdin } from '../util.js';

const DEFAULT_WAIT = '5m';
/** The installed entry's timeout is the wait plus this, so mcpx answers (or hands back) before Claude Code kills it. */
const TIMEOUT_MARGIN_S = 30;

const USAGE = `usage: mcpx hook claude-code [options]

  Claude Code's Elicitation hook: reads the question Claude Code passes on stdin, opens it in mcpx
  (server = the MCP server's name, tool = claude-code), applies the policy, and waits for an answer
  from any process (mcpx elicit list / answer, the inbox, REST). The answer is printed for Claude Code.

  --wait <duration>        how long the question waits (default ${DEFAULT_WAIT}; e.g. 90s, 10m)
  --no-answer <what>       when nobody answers in time:
                             dialog (default)  print nothing: Claude Code shows its own dialog where it
                                               has one (in -p mode that ends as cancel); the question is
                                               abandoned in mcpx
                             cancel            print cancel (the broker's expiry cancel)
  --config <file>          the mcpx config whose policy applies (default: found from Claude Code's cwd)

  --install                add the hook to Claude Code's settings (other hooks and settings are kept;
                           running it again changes nothing); --wait and --no-answer go into the entry
  --uninstall              remove only mcpx's hook entry
  --scope user|project     ~/.claude/settings.json (default) or ./.claude/settings.json
  --command '<cmd>'        how the entry runs mcpx, e.g. mcpx or 'npx -y mcpx' (default: this node and
                           this mcpx, by full path)
  --json                   --install / --uninstall: print what was done as JSON

exit: 0 answered, handed back or installed; 1 failed (never 2, which Claude Code reads as decline)
`;

export const command: Command = async (argv, io) => {
  try {
    const { flags, positional } = parseArgs(argv, {
      booleans: ['install', 'uninstall', 'json'],
      strings: ['wait', 'no-answer', 'config', 'scope', 'command'],
    });
    if (flags.help) {
      io.stdout.write(USAGE);
      return EXIT.OK;
    }
    if (positional[0] !== 'claude-code' || positional.length > 1)
      throw new UsageError(`expected: mcpx hook claude-code [options], got ${JSON.stringify(positional.join(' '))}`);
    const waitText = typeof flags.wait === 'string' ? flags.wait : DEFAULT_WAIT;
    const waitMs = waitOf(waitText);
    const noAnswer = flags['no-answer'] ?? 'dialog';
    if (noAnswer !== 'dialog' && noAnswer !== 'cancel')
      throw new UsageError(`--no-answer takes dialog or cancel, got ${JSON.stringify(noAnswer)}`);
    if (flags.install || flags.uninstall) {
      if (flags.install && flags.uninstall) throw new UsageError('--install and --uninstall do opposite things: give one');
      return editSettings(io, flags, { waitText, noAnswer });
    }
    return await answerHook(io, {
      waitMs,
      noAnswer: noAnswer === 'dialog' ? 'hand-back' : 'cancel',
      ...(typeof flags.config === 'string' ? { config: flags.config } : {}),
    });
  } catch (error) {
    // Exit 2 would read as a decline to Claude Code: a failure is 1, and Claude Code goes on without the hook.
    reportError(error, io, 'hook');
    return EXIT.FAILURE;
  }
};

function waitOf(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text, '--wait');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (ms <= 0) throw new UsageError('--wait must be longer than 0');
  return ms;
}

async function answerHook(io: CliIO, options: { waitMs: number; noAnswer: NoAnswer; config?: string }): Promise<number> {
  if ((io.stdin as { isTTY?: boolean }).isTTY)
    throw new UsageError("this is Claude Code's hook: it reads the question Claude Code sends on stdin (to add it: --install)");
  const input = parseHookInput(await readStdin(io.stdin));
  // The question belongs where a person in Claude Code's project looks: the session `mcpx elicit list` resolves there.
  const cwd = input.cwd ?? io.cwd;
  const configPath = findConfigPath(options.config, cwd, io.env);
  const { policy } = loadConfig({ ...(configPath ? { config: configPath } : {}), cwd, env: io.env });
  const session = resolveSession(io.env, { ...(configPath ? { configPath } : {}), cwd });
  const question = hookQuestion(input, { id: newElicitationId(), callId: newCallId() });
  io.stderr.write(
    `mcpx: ${sanitizeLine(input.server)} asks (${question.id}); waiting up to ${duration(options.waitMs)} for: mcpx elicit answer ${question.id}\n`,
  );
  // Claude Code stops a hook past its timeout: the question is then abandoned rather than left waiting for nobody.
  const stopped = new AbortController();
  const stop = (): void => stopped.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const broker = await openStoreBroker(io.env);
  // The config's notify list hears of the question as it would from the daemon: the person may be elsewhere.
  const notifications = startDaemonNotifications(broker, { env: io.env, cwd, configPath });
  try {
    const answer = await holdQuestion(question, {
      broker,
      policy,
      session,
      waitMs: options.waitMs,
      noAnswer: options.noAnswer,
      handBackReason: `nobody answered in ${duration(options.waitMs)}: handed back to Claude Code`,
      signal: stopped.signal,
      env: io.env,
    });
    if (answer) io.stdout.write(`${JSON.stringify(hookOutput(answer))}\n`);
    else io.stderr.write(`mcpx: nobody answered ${question.id}; Claude Code decides (its own dialog, or cancel)\n`);
    return EXIT.OK;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await notifications.stop();
    await closeStoreBroker(broker);
  }
}

function editSettings(
  io: CliIO,
  flags: Record<string, string | boolean | undefined>,
  entry: { waitText: string; noAnswer: string },
): number {
  const scope = flags.scope ?? 'user';
  if (scope !== 'user' && scope !== 'project')
    throw new UsageError(`--scope takes user or project, got ${JSON.stringify(scope)}`);
  const path = settingsPath(scope, io.cwd, io.env);
  const before = readSettings(path);
  const waitS = Math.ceil(waitOf(entry.waitText) / 1000);
  const runs =
    typeof flags.command === 'string' ? flags.command : [process.execPath, process.argv[1] ?? 'mcpx'].map(shellWord).join(' ');
  const hookCommand = `${runs} hook claude-code --wait ${waitS}s --no-answer ${entry.noAnswer}`;
  const after = flags.install
    ? withMcpxHook(before, { type: 'command', command: hookCommand, timeout: waitS + TIMEOUT_MARGIN_S })
    : withoutMcpxHook(before);
  const changed = writeSettings(path, before, after);
  const done = flags.install ? (changed ? 'installed' : 'already installed') : changed ? 'uninstalled' : 'not installed';
  if (flags.json)
    io.stdout.write(`${JSON.stringify({ settings: path, result: done, ...(flags.install ? { command: hookCommand } : {}) })}\n`);
  else io.stdout.write(`mcpx hook claude-code: ${done} in ${path}\n`);
  return EXIT.OK;
}
