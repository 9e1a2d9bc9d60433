/**
 * `mcpx task result <tsk-id>`: waits for a call the daemon holds and prints its real result (exit 0, or 1 when
 * the tool or the call failed). `mcpx task show <tsk-id>`: where the call stands, without waiting.
 */
import { McpxError } from '../../../errors.js';
import { TASK_ID } from '../../../ids.js';
import { parseArgs, UsageError } from '../args.js';
import { followProgress, showActivity } from '../activity.js';
import { openBackend } from '../connect.js';
import { EXIT, type Command } from '../io.js';
import { printResult } from '../print-result.js';
import { duration, localIso } from '../render.js';
import { commandSession } from '../session.js';
import { sanitizeLine } from '../sanitize.js';
import type { TaskView } from '../../backend/backend.js';
import { jsonFor, styleFor } from '../style.js';

const USAGE = `usage: mcpx task <verb> <tsk-id> [options]

  result <tsk-id>   wait for the call to finish and print its result
  show <tsk-id>     where the call stands (running, input-required, complete, failed), without waiting

options:
  --timeout <s>     give up waiting after this many seconds (default: wait as long as the call runs)
  --json            print JSON
  --all             as an operator: a task of any session, not only this session's
  --config <file>   the config whose daemon holds the call

A task is its session's, as its questions are: this command's session is MCPX_SESSION_ID, else a fingerprint of
the config and the working directory (the session mcpx call ran in).

exit: 0 done, 1 the call failed or the tool reported an error, 2 usage, 75 still waiting when --timeout ran out
`;

export const command: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, { booleans: ['json', 'all'], strings: ['config', 'timeout'] });
  const [verb, id] = positional;
  if (flags.help || !verb) {
    (flags.help ? io.stdout : io.stderr).write(USAGE);
    return flags.help ? EXIT.OK : EXIT.USAGE;
  }
  if (verb !== 'result' && verb !== 'show') throw new UsageError(`unknown verb "${verb}": use result or show`);
  if (!id || !TASK_ID.test(id))
    throw new UsageError(
      `expected a task id like tsk-06654ccc9f064a5c, got ${id === undefined ? 'nothing' : JSON.stringify(id)}`,
    );
  const timeoutMs = typeof flags.timeout === 'string' ? Number(flags.timeout) * 1000 : Infinity;
  if (Number.isNaN(timeoutMs) || timeoutMs < 0) throw new UsageError('--timeout takes a number of seconds');
  const json = flags.json === true;

  const config = typeof flags.config === 'string' ? flags.config : undefined;
  const scope = { session: commandSession(io, config).session, all: flags.all === true };
  const backend = await openBackend(io, { config, forCall: false });
  try {
    if (verb === 'show') {
      const task = await backend.task(id, { scope });
      if (json) io.stdout.write(`${jsonFor(io.stdout, { task }, styleFor(io.stdout, io.env))}\n`);
      else io.stdout.write(renderTask(task));
      return EXIT.OK;
    }
    const deadline = Date.now() + timeoutMs;
    // Off a terminal there is no spinner: say once what the wait is for and until when, rather than wait silently.
    if ((io.stderr as { isTTY?: boolean }).isTTY !== true) {
      const first = await backend.task(id, { scope });
      if (first.state !== 'complete' && first.state !== 'failed')
        io.stderr.write(await waitNotice(first, deadline, (q) => backend.get(q, scope).then((got) => got.elicitation)));
    }
    for (;;) {
      const left = deadline - Date.now();
      // A spinner on a terminal while the call runs on in the daemon.
      const activity = showActivity(io, `waiting for ${id}`);
      const unfollow = followProgress(backend, activity, { task: id }, scope);
      const waitSeconds = Math.max(0, Math.min(600, Math.ceil(left / 1000)));
      const task = await backend.task(id, { waitSeconds, scope }).finally(() => {
        unfollow();
        activity.stop();
      });
      if (task.state === 'complete' && task.result) return printResult(task.result, io, json);
      if (task.state === 'failed') {
        throw new McpxError(
          (task.error?.code as never) ?? 'CALL_FAILED',
          task.error?.message ?? `the call ${task.callId} failed`,
          task.error?.data ? { data: task.error.data } : {},
        );
      }
      if (Date.now() >= deadline) {
        io.stderr.write(
          `mcpx: ${id} is still ${task.state}${task.waitingOn.length ? `, waiting on ${task.waitingOn.join(', ')}` : ''}.\n`,
        );
        return EXIT.INPUT_REQUIRED;
      }
    }
  } finally {
    await backend.close();
  }
};

/**
 * What `task result` waits for, on stderr: the call and its state, each question with its deadline and the command
 * that answers it, and how long the command waits (until the call ends, or --timeout).
 */
async function waitNotice(
  task: TaskView,
  deadline: number,
  question: (id: string) => Promise<{ message: string; expiresAt: number; state: string }>,
): Promise<string> {
  const lines = [`mcpx: waiting for ${task.id} (${sanitizeLine(task.server)}.${sanitizeLine(task.tool)}, ${task.state})`];
  for (const id of task.questions) {
    const q = await question(id).catch(() => undefined);
    if (!q || q.state !== 'pending') continue;
    const left = duration(Math.max(0, q.expiresAt - Date.now()));
    lines.push(
      `  ${id} asks "${sanitizeLine(q.message, 120)}": answer by ${localIso(q.expiresAt)} (${left} left), else it is cancelled`,
      `    answer it: mcpx elicit answer ${id} key=value ... (or mcpx elicit decline|cancel ${id})`,
    );
  }
  if (task.waitingOn.length && !task.questions.length) lines.push(`  waits on ${task.waitingOn.join(', ')}`);
  lines.push(
    Number.isFinite(deadline)
      ? `  waits until the call ends, at most until ${localIso(deadline)} (--timeout), then exits 75`
      : '  waits until the call ends (--timeout <s> to give up sooner, exit 75)',
  );
  return `${lines.join('\n')}\n`;
}

/** Where a task stands, as text: its call, its state, what it waits on and what to run next. */
export function renderTask(task: TaskView): string {
  const lines = [
    `task     ${task.id}`,
    `call     ${sanitizeLine(task.server)}.${sanitizeLine(task.tool)} (${task.callId})`,
    `state    ${task.state}`,
  ];
  if (task.questions.length) lines.push(`asks     ${task.questions.join(', ')} (answer: mcpx elicit list)`);
  if (task.waitingOn.length) lines.push(`waits on ${task.waitingOn.join(', ')}`);
  if (task.error) lines.push(`error    ${task.error.code}: ${sanitizeLine(task.error.message, 400)}`);
  if (task.state === 'complete' || task.state === 'failed') lines.push(`result   mcpx task result ${task.id}`);
  else lines.push(`next     mcpx task result ${task.id} (waits for the result)`);
  return `${lines.join('\n')}\n`;
}
