/**
 * `mcpx elicit answer|decline|cancel|list|watch`: answer a waiting question from any process, see what is
 * outstanding with its time left, and follow questions as they are asked and answered.
 */
import type { BrokerEvent } from '../../../broker/index.js';
import { ELICITATION_ID } from '../../../ids.js';
import type { Answer } from '../../../types.js';
import { parseArgs, parseJsonObject, parseToolArguments, UsageError } from '../args.js';
import type { Backend, ShownQuestion, Scope, StalledCall } from '../../backend/backend.js';
import { openBackend } from '../connect.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import { commandSession } from '../session.js';
import { findConfigPath } from '../../../config/find.js';
import { duration, renderInputRequired, shellQuote } from '../render.js';
import { sanitize, sanitizeLine } from '../sanitize.js';
import { readStdin } from '../util.js';

const USAGE = `usage: mcpx elicit <verb> [options]

  answer <elc-id> ['<json>' | key=value ...]   accept, with content matching the question's schema
                                              (no content for a url question); - reads JSON from stdin
  decline <elc-id>                            explicitly no
  cancel <elc-id>                             dismiss without choosing
  list [--state s] [--server s] [--tool t] [--json]
                                              what is waiting, with time left (--state: pending, the
                                              default, answered, expired, abandoned, a comma list, or all)
  count [--session s] [--json]                "mcpx: N waiting" or nothing: a badge for prompts and status lines
  ui [--session s]                            a live inbox on this terminal: see, open and answer questions
  watch [--json] [--count n] [--kinds k,...] follow questions as they are asked and answered
                                              (--count: stop after n events; --kinds: only these,
                                              e.g. elicit.open,elicit.answered)
  web [--open] [--json]                       a link that signs a browser in to the daemon's web inbox
                                              (answer there; see how long people take); --open opens it
  web --pair [--name n] [--listen host:port --cert file --key file | --listen host:port --behind-proxy --url u]
                                              a one-time link that pairs another device (a phone) over the
                                              address --listen opens (TLS, or a reverse proxy serving --url)
  web --devices | --revoke <dev-id>           list paired devices; unpair one (refused from its next request)

options:
  --all             as an operator: every session's questions, not only this session's
                    (list, answer, decline, cancel, watch)
  --config <file>   the config whose daemon to talk to
  --json            print JSON

A command sees and answers the questions of its own session: MCPX_SESSION_ID, else the config and
working directory it runs in, the same session its mcpx call raised them in.

exit: 0 done, 1 refused (unknown id, already answered, expired, invalid content: the question stays open), 2 usage
`;

export const command: Command = async (argv, io) => {
  // The badge and the inbox have their own flags and modules (the badge must load little).
  if (argv[0] === 'count') return (await import('./elicit-count.js')).command(argv.slice(1), io);
  if (argv[0] === 'ui') return (await import('./elicit-ui.js')).command(argv.slice(1), io);
  const { flags, positional } = parseArgs(argv, {
    booleans: ['json', 'all', 'open', 'pair', 'devices', 'behind-proxy'],
    strings: ['config', 'server', 'tool', 'state', 'count', 'kinds', 'revoke', 'listen', 'cert', 'key', 'url', 'name'],
  });
  const [verb, ...rest] = positional;
  if (flags.help || !verb) {
    (flags.help ? io.stdout : io.stderr).write(USAGE);
    return flags.help ? EXIT.OK : EXIT.USAGE;
  }
  const config = typeof flags.config === 'string' ? flags.config : undefined;
  const json = flags.json === true;
  const scope = { session: commandSession(io, config).session, all: flags.all === true };
  switch (verb) {
    case 'answer':
    case 'accept':
    case 'decline':
    case 'cancel': {
      const [id, ...words] = rest;
      if (!id || !ELICITATION_ID.test(id))
        throw new UsageError(
          `expected a question id like elc-9f2c1a84bb0e7d31, got ${id === undefined ? 'nothing' : JSON.stringify(id)}`,
        );
      let answer: Answer;
      if (verb === 'decline' || verb === 'cancel') {
        if (words.length) throw new UsageError(`${verb} takes no content`);
        answer = { action: verb };
      } else if (words.length === 0) {
        answer = { action: 'accept' };
      } else {
        const content =
          words.length === 1 && words[0] === '-' ? parseJsonObject(await readStdin(io.stdin)) : parseToolArguments(words);
        answer = { action: 'accept', content };
      }
      return withBackend(io, config, async (backend) => {
        // A script's ask() is not a call that waits: the answer is used when the script runs again.
        const asked = await backend.get(id, scope).catch(() => undefined);
        const byScript = asked?.elicitation.server === 'script' && asked.elicitation.tool === 'ask';
        const { delivery, stalled, ...stored } = await backend.answer(id, answer, scope);
        if (json)
          io.stdout.write(
            `${JSON.stringify({ answer: stored, ...(delivery ? { delivery } : {}), ...(stalled ? { stalled } : {}) }, null, 2)}\n`,
          );
        else io.stderr.write(`${answeredLine(id, stored.action, stored.content, byScript, delivery, stalled)}\n`);
        return EXIT.OK;
      });
    }
    case 'list':
      return withBackend(io, config, async (backend) => {
        const state = typeof flags.state === 'string' ? flags.state : undefined;
        const filter = {
          ...(typeof flags.server === 'string' ? { server: flags.server } : {}),
          ...(typeof flags.tool === 'string' ? { tool: flags.tool } : {}),
          ...(state ? { state } : {}),
        };
        // An operator's listing is every session's; a session given with --all would narrow it to that one.
        const list = await backend.list({ ...filter, ...(scope.all ? { all: true } : { session: scope.session }) });
        if (json) io.stdout.write(`${JSON.stringify({ elicitations: list }, null, 2)}\n`);
        else io.stdout.write(renderList(list, Date.now()) + renderSessions(list, findConfigPath(config, io.cwd, io.env)));
        // Nothing here, but questions wait in other sessions: say so, rather than let "nothing waiting" mislead.
        if (!json && !list.length && !scope.all) {
          const elsewhere = (await backend.list({ ...filter, all: true })).length;
          if (elsewhere)
            io.stderr.write(
              `mcpx: ${elsewhere} question${elsewhere === 1 ? ' waits' : 's wait'} in other sessions; an operator sees them with: mcpx elicit list --all\n`,
            );
        }
        return EXIT.OK;
      });
    case 'watch': {
      const count = typeof flags.count === 'string' ? Number(flags.count) : Infinity;
      if (!(count > 0) || (count !== Infinity && !Number.isInteger(count)))
        throw new UsageError('--count takes a positive whole number');
      const kinds =
        typeof flags.kinds === 'string'
          ? flags.kinds
              .split(',')
              .map((k) => k.trim())
              .filter(Boolean)
          : undefined;
      const configPath = findConfigPath(config, io.cwd, io.env);
      return withBackend(io, config, (backend) => watch(backend, io, { json, count, kinds, scope, configPath }));
    }
    case 'web': {
      if (rest.length) throw new UsageError('web takes no arguments');
      const { elicitWeb, webFlags } = await import('./elicit-web.js');
      return elicitWeb(io, { ...(config ? { config } : {}), open: flags.open === true, json, ...webFlags(flags) });
    }
    default:
      throw new UsageError(`unknown verb "${verb}": use answer, decline, cancel, list, count, ui, watch or web`);
  }
};

async function withBackend(io: CliIO, config: string | undefined, run: (backend: Backend) => Promise<number>): Promise<number> {
  const backend = await openBackend(io, { config, forCall: false });
  try {
    return await run(backend);
  } finally {
    await backend.close();
  }
}

/** One line per question: id, where from, mode, time left, what it asks. */
export function renderList(list: ShownQuestion[], now: number): string {
  if (!list.length) return 'No questions are waiting.\n';
  const rows = list.map((q) => [
    q.id,
    `${sanitizeLine(q.server)}.${sanitizeLine(q.tool)}`,
    q.mode,
    q.state === 'pending' ? (q.expiresAt > now ? duration(q.expiresAt - now) : 'expiring') : q.state,
    sanitizeLine(q.message, 60) + (q.ambiguous ? ' (ambiguous)' : ''),
  ]);
  const header = ['ID', 'CALL', 'MODE', 'LEFT', 'ASKS'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ');
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/**
 * Which session each listed question is in and the command that acts in it from any shell and directory: the default
 * session is a fingerprint of config + directory, so a bare command elsewhere is in another session.
 */
export function renderSessions(list: ShownQuestion[], configPath: string | undefined): string {
  const sessions = [...new Set(list.map((q) => q.session))];
  if (!sessions.length) return '';
  const config = configPath ? ` --config ${shellWord(configPath)}` : '';
  const lines = sessions.map((session) => {
    const ids = list.filter((q) => q.session === session).map((q) => q.id);
    const example = ids.length === 1 ? ids[0] : '<elc-id>';
    return (
      `session ${sanitizeLine(session)} (${ids.length} question${ids.length === 1 ? '' : 's'}); from any shell or directory act in it with:\n` +
      `  MCPX_SESSION_ID=${shellWord(sanitizeLine(session))} mcpx elicit answer|decline|cancel ${example}${config}`
    );
  });
  return `\n${lines.join('\n')}\n`;
}

/** Follows the event stream until interrupted: each new question in full, each answer and expiry in one line. */
async function watch(
  backend: Backend,
  io: CliIO,
  options: { json: boolean; count: number; kinds: string[] | undefined; scope: Scope; configPath: string | undefined },
): Promise<number> {
  const { json, count, kinds, scope, configPath } = options;
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let seen = 0;
  try {
    const onReady = () =>
      io.stderr.write(
        `mcpx: watching for questions (${backend.kind === 'daemon' ? 'daemon events' : 'no daemon: reading the store'}); Ctrl-C stops.\n`,
      );
    // This session's events (every session's with --all), as `elicit list` shows this session's questions.
    for await (const event of backend.events({ signal: stop.signal, onReady, scope, ...(kinds ? { kinds } : {}) })) {
      io.stdout.write(json ? `${JSON.stringify(event)}\n` : await describeEvent(backend, event, scope, configPath));
      if (++seen >= count) break;
    }
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return EXIT.OK;
}

/**
 * An open question is shown in full only within the scope (another session's: one line), with commands that work
 * pasted in another shell and directory (the question's session, the config's absolute path).
 */
async function describeEvent(
  backend: Backend,
  event: BrokerEvent,
  scope: Scope,
  configPath: string | undefined,
): Promise<string> {
  const time = new Date(event.at).toISOString().slice(11, 19);
  const who = event.server ? ` ${sanitizeLine(event.server)}.${sanitizeLine(event.tool ?? '')}` : '';
  switch (event.kind) {
    case 'elicit.open': {
      const found = event.elicit ? await backend.get(event.elicit, scope).catch(() => undefined) : undefined;
      if (!found) return `${time} elicit.open     ${event.elicit ?? ''}${who}\n`;
      const q = found.elicitation;
      const text = renderInputRequired({
        server: q.server,
        tool: q.tool,
        questions: [q],
        ...(q.task ? { task: q.task } : {}),
        ...(q.session ? { session: q.session } : {}),
        pasteable: configPath ? { configPath } : {},
        now: Date.now(),
      });
      return `${time} elicit.open     ${q.id}${who}\n${text.split('\n').slice(2).join('\n')}\n`;
    }
    case 'elicit.answered':
      return `${time} elicit.answered ${event.elicit ?? ''}${who} ${event.action ?? ''} by ${event.by ?? '?'}${event.answeredAfterMs !== undefined ? ` after ${duration(event.answeredAfterMs)}` : ''}\n`;
    default:
      return `${time} ${event.kind.padEnd(15)} ${event.elicit ?? event.trace ?? ''}${who}\n`;
  }
}

/** What `elicit answer|decline|cancel` did, in one line: the waiting call goes on, or the script is to run again. */
function answeredLine(
  id: string,
  action: Answer['action'],
  content: Record<string, unknown> | undefined,
  byScript: boolean,
  delivery?: 'delivered' | 'unconfirmed',
  stalled?: StalledCall,
): string {
  const did =
    action === 'accept'
      ? `accepted ${id}${content && Object.keys(content).length ? ` with ${JSON.stringify(content)}` : ''}`
      : `${action === 'decline' ? 'declined' : 'cancelled'} ${id}`;
  if (byScript) return `mcpx: ${sanitize(did)}; run the script that asked again: its ask() returns this answer`;
  if (stalled) return `mcpx: ${sanitize(did)}; ${stalledText(stalled)}`;
  if (delivery === 'unconfirmed')
    return `mcpx: ${sanitize(did)}; the daemon holding the call did not confirm it passed the answer on (mcpx log --chain ${id} shows whether the call went on)`;
  const goesOn =
    delivery === 'delivered'
      ? 'the answer was delivered to the call that asked, which goes on'
      : 'the call that asked goes on with this answer';
  return `mcpx: ${sanitize(did)}; ${goesOn} (mcpx log --chain ${id} follows it)`;
}

/** What makes a call nothing drives go on: its answer is kept meanwhile. */
function stalledText(s: StalledCall): string {
  if (s.why === 'released')
    return `no process holds its call now; the answer is kept, and this resumes the call with it: mcpx task result ${s.task}`;
  const daemon = s.pid ? `the daemon that held its call (pid ${s.pid})` : 'the daemon that held its call';
  const start = `mcpx daemon start${s.config ? ` --config ${shellWord(s.config)}` : ''}`;
  return `${daemon} is not running, so nothing passes the answer on yet. The answer is kept: the call goes on when that daemon starts again (${start}), and mcpx task result ${s.task} then collects its result`;
}

/** A path as a shell reads it back: quoted only when it holds anything but plain characters. */
const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : shellQuote(word));
