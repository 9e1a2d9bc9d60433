/**
 * `mcpx elicit ui`: a live inbox on this terminal. It follows the daemon's events (no keypress needed to see a
 * new question; without a daemon it reads the store), opens a question's detail on enter, and answers with
 * a (accept: the terminal form for a form question), d (decline) and c (cancel).
 */
import type { ReadStream } from 'node:tty';
import type { Answer } from '../../../types.js';
import { parseArgs, UsageError } from '../args.js';
import type { Backend, ShownQuestion } from '../../backend/backend.js';
import { openBackend } from '../connect.js';
import { renderInbox, type InboxState } from '../inbox/view.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import { sanitizeLine } from '../sanitize.js';

const USAGE = `usage: mcpx elicit ui [--session s] [--config file]     (or: mcpx inbox)

A live inbox of waiting questions, across servers and sessions (--session: one session's only).
New questions appear as they are asked. Keys:
  ↑/↓ or k/j  choose          enter  open the detail      esc  back to the list
  a  answer (a form question opens the terminal form; a url question is accepted as done)
  d  decline (explicitly no)  c  cancel (dismiss)  o  open a url question's page   q  quit
`;

const ALT_SCREEN_ON = '\u001b[?1049h\u001b[?25l';
const ALT_SCREEN_OFF = '\u001b[?25h\u001b[?1049l';
const CLEAR = '\u001b[H\u001b[2J';
/** One key in a chunk of input (several keys can arrive at once): an escape sequence, a lone Escape, or a character. */
const KEY = /\u001b\[[0-9;]*[A-Za-z~]|\u001bO[A-Za-z]|[\s\S]/gu;

export const command: Command = async (argv, io) => {
  const { flags } = parseArgs(argv, { strings: ['session', 'config'] });
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  if (!io.isTTY) throw new UsageError('mcpx elicit ui needs a terminal; elsewhere use mcpx elicit list, watch or count');
  const backend = await openBackend(io, { config: typeof flags.config === 'string' ? flags.config : undefined, forCall: false });
  try {
    return await runInbox(backend, io, typeof flags.session === 'string' && flags.session ? flags.session : undefined);
  } finally {
    await backend.close();
  }
};

async function runInbox(backend: Backend, io: CliIO, session: string | undefined): Promise<number> {
  const stdin = io.stdin as ReadStream;
  const out = io.stdout as NodeJS.WriteStream;
  const state: InboxState = { questions: [], selected: 0, view: 'list', source: backend.kind, ...(session ? { session } : {}) };
  const stop = new AbortController();
  let busy = false; // the terminal form owns the screen and the keys

  const draw = (): void => {
    if (busy || stop.signal.aborted) return;
    const now = Date.now();
    state.questions = state.questions.filter((q) => q.expiresAt > now);
    state.selected = Math.min(state.selected, Math.max(0, state.questions.length - 1));
    if (!state.questions.length) state.view = 'list';
    out.write(CLEAR + renderInbox(state, now, out.columns ?? 100).join('\n'));
  };

  const refresh = async (): Promise<void> => {
    const chosen = state.questions[state.selected]?.id;
    // The inbox is the person's, an operator's: every session (or the one --session names).
    state.questions = await backend.list({ all: true, ...(session ? { session } : {}) });
    const again = state.questions.findIndex((q) => q.id === chosen);
    if (again >= 0) state.selected = again;
    else if (state.view === 'detail') state.view = 'list'; // the open question was answered elsewhere
    draw();
  };

  const answer = async (q: ShownQuestion, given: Answer): Promise<void> => {
    try {
      await backend.answer(q.id, given, { all: true, ...(io.env.MCPX_SESSION_ID ? { session: io.env.MCPX_SESSION_ID } : {}) });
      state.status = `${given.action === 'accept' ? 'answered' : given.action === 'decline' ? 'declined' : 'cancelled'} ${q.id} (${sanitizeLine(q.server)}.${sanitizeLine(q.tool)})`;
      state.view = 'list';
    } catch (error) {
      state.status = `not answered: ${sanitizeLine((error as Error).message, 300)}`;
    }
    await refresh();
  };

  const accept = async (q: ShownQuestion): Promise<void> => {
    if (q.mode === 'url') return answer(q, { action: 'accept' });
    busy = true;
    stdin.off('data', onKey);
    out.write(CLEAR + ALT_SCREEN_OFF);
    try {
      const { promptForAnswer } = await import('../form/index.js');
      const given = await promptForAnswer(q, { input: stdin, output: out, answering: true });
      // Ctrl-C or Escape in the form leaves the question waiting: nothing was chosen in the inbox.
      if (given.action === 'cancel') state.status = `left ${q.id} waiting`;
      else await answer(q, given);
    } finally {
      out.write(ALT_SCREEN_ON);
      setRaw(stdin, true);
      stdin.on('data', onKey);
      stdin.resume();
      busy = false;
      await refresh();
    }
  };

  const act = async (key: string): Promise<void> => {
    const q = state.questions[state.selected];
    state.status = undefined;
    switch (key) {
      case 'q':
      case '\u0003':
        stop.abort();
        return;
      case '\u001b[A':
      case '\u001bOA':
      case 'k':
        state.selected = Math.max(0, state.selected - 1);
        return draw();
      case '\u001b[B':
      case '\u001bOB':
      case 'j':
        state.selected = Math.min(state.questions.length - 1, state.selected + 1);
        return draw();
      case '\r':
      case '\n':
        if (q) state.view = 'detail';
        return draw();
      case '\u001b':
        state.view = 'list';
        return draw();
      case 'a':
        return q ? accept(q) : draw();
      case 'd':
        return q ? answer(q, { action: 'decline' }) : draw();
      case 'c':
        return q ? answer(q, { action: 'cancel' }) : draw();
      case 'o':
        if (q?.mode === 'url' && q.url) {
          const { openUrl } = await import('../open-url.js');
          state.status = (await openUrl(q.url, io.env))
            ? `opened ${sanitizeLine(new URL(q.url).hostname)} in your browser; press a when done`
            : `could not open a browser: open ${sanitizeLine(q.url, 500)} yourself`;
        }
        return draw();
      default:
        return draw();
    }
  };

  // One key at a time, in order: an answer finishes before the next key is read.
  let queue = Promise.resolve();
  const onKey = (chunk: Buffer): void => {
    for (const key of chunk.toString('utf8').match(KEY) ?? []) {
      queue = queue
        .then(() => act(key))
        .catch((error: unknown) => {
          state.status = `error: ${sanitizeLine((error as Error).message, 300)}`;
          draw();
        });
    }
  };

  out.write(ALT_SCREEN_ON);
  setRaw(stdin, true);
  stdin.on('data', onKey);
  stdin.resume();
  const ticker = setInterval(draw, 1_000); // the time left counts down
  const following = follow(backend, stop.signal, session, () => void refresh().catch(() => undefined));
  try {
    await refresh();
    await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    clearInterval(ticker);
    stdin.off('data', onKey);
    setRaw(stdin, false);
    stdin.pause();
    out.write(ALT_SCREEN_OFF);
    await following;
  }
  return EXIT.OK;
}

/** Refreshes on every question event (for this session, when scoped) until the inbox closes. */
async function follow(backend: Backend, signal: AbortSignal, session: string | undefined, onChange: () => void): Promise<void> {
  try {
    for await (const event of backend.events({
      signal,
      kinds: ['elicit.open', 'elicit.answered', 'elicit.expired', 'elicit.abandoned'],
    })) {
      if (!session || event.session === undefined || event.session === session) onChange();
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

function setRaw(stdin: ReadStream, on: boolean): void {
  if (typeof stdin.setRawMode === 'function') stdin.setRawMode(on);
}
