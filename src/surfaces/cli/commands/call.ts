/**
 * `mcpx call server.tool '<json>' | key=value...`: calls a tool through the daemon. A question the call asks is
 * put to the person at the terminal (prompt), returned as the §5.1 message with exit 75 while the call keeps
 * running in the daemon (return), or answered by the daemon's policy in the mode given (auto, decline, error).
 */
import { McpxError } from '../../../errors.js';
import type { Answer } from '../../../types.js';
import type { CallResponse } from '../../../host/results.js';
import type { Backend, ShownQuestion } from '../../backend/backend.js';
import { followProgress, showActivity } from '../activity.js';
import { openBackend } from '../connect.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import { printResult } from '../print-result.js';
import { toQuestion } from '../util.js';
import { callArguments, planCall, returnQuestions, runCall } from './call-plan.js';

const USAGE = `usage: mcpx call <server>.<tool> ['<json>' | key=value | key:=json ...] [options]

Calls a tool. Arguments are one JSON object, or key=value words (numbers, true/false, null and JSON
objects/arrays are typed; anything else is a string), key:=<json> for exact JSON, a.b=1 to nest; - reads
the JSON object from stdin.

options:
  --elicit <mode>   what to do when the server asks a question:
                      prompt   ask here, in a terminal form (the default on a terminal)
                      return   print the question and the commands that answer it, exit 75; the call
                               keeps running in the daemon (the default otherwise)
                      auto     policy rules only; a question no rule answers is cancelled
                      decline  decline every question
                      error    fail the call (exit 1) when a question is asked
  --task            call the tool as an MCP task (a tool listed "MCP task with --task"; one listed
                    "MCP task" always is): the server keeps the call and mcpx polls it
  --json            print JSON: the CallToolResult, or {"inputRequired": {...}} with exit 75
  --config <file>   the mcpServers config (default: ./mcpx.json, ./.mcp.json, then the user config)

Ctrl-C while the call runs: a call this command holds itself (MCPX_DAEMON=inline) ends with it and is
cancelled at the server (an MCP task gets tasks/cancel); a daemon's call goes on in the daemon.

exit: 0 done, 1 the call or the tool failed, 2 usage, 75 a question waits for an answer, 130 interrupted
`;

export const command: Command = async (argv, io) => {
  const plan = planCall(argv, io);
  if (!plan) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const args = await callArguments(plan, io);
  const backend = await openBackend(io, { config: plan.config, forCall: true, server: plan.server });
  try {
    return await runCall(backend, plan, args, io, (response) => answerUntilDone(backend, response, io, plan.json, plan.session));
  } finally {
    await backend.close();
  }
};

export { returnQuestions };

/**
 * Puts each round of questions to the person at the terminal, until the call completes. A new round (a modern server
 * asking again after the answer) is noticed from the daemon's event stream, not by polling.
 */
export async function answerUntilDone(
  backend: Backend,
  response: Extract<CallResponse, { status: 'input-required' }>,
  io: CliIO,
  json: boolean,
  session: string | undefined,
  print: (result: Record<string, unknown>, io: CliIO, json: boolean) => number = printResult,
): Promise<number> {
  const { inputRequired } = response;
  const taskId = inputRequired.task;
  const stop = new AbortController();
  const opened = openQuestionsOf(backend, taskId, session, stop.signal);
  try {
    // A later round is noticed from the stream, so it must be live before this round is answered.
    await opened.ready;
    let questions: ShownQuestion[] = inputRequired.questions;
    const handled = new Set<string>();
    for (;;) {
      for (const question of questions) {
        if (handled.has(question.id)) continue;
        handled.add(question.id);
        const answer = await promptUnlessAnsweredElsewhere(backend, question, io);
        if (!answer) continue; // answered elsewhere meanwhile
        await submit(backend, question, answer, io, session);
      }
      if (!taskId)
        throw new McpxError('DAEMON_UNAVAILABLE', 'The call has no task to follow, so its result cannot be collected here.');
      const waiting = showActivity(io, `${inputRequired.server}.${inputRequired.tool}`);
      const unfollow = followProgress(backend, waiting, { task: taskId }, { session });
      const next = await Promise.race([
        backend.task(taskId, { waitSeconds: 600, signal: stop.signal, scope: { session } }).then((task) => ({ task })),
        opened.next(),
      ]).finally(() => {
        unfollow();
        waiting.stop();
      });
      if ('task' in next) {
        const { task } = next;
        if (task.state === 'complete' && task.result) return print(task.result, io, json);
        if (task.state === 'failed')
          throw new McpxError(
            (task.error?.code as never) ?? 'CALL_FAILED',
            task.error?.message ?? 'the call failed',
            task.error?.data ? { data: task.error.data } : {},
          );
        continue; // the wait ended with the call still running: wait again
      }
      questions = next.questions;
    }
  } finally {
    stop.abort();
  }
}

/** Pending questions of one task as the daemon opens them (elicit.open events), in batches as they arrive. */
function openQuestionsOf(
  backend: Backend,
  taskId: string | undefined,
  session: string | undefined,
  signal: AbortSignal,
): { ready: Promise<void>; next(): Promise<{ questions: ShownQuestion[] }> } {
  const queue: ShownQuestion[] = [];
  let wake: (() => void) | undefined;
  let live!: () => void;
  const ready = new Promise<void>((resolve) => (live = resolve));
  void (async () => {
    try {
      for await (const event of backend.events({ signal, kinds: ['elicit.open'], onReady: live, scope: { session } })) {
        if (!event.elicit) continue;
        const { elicitation } = await backend.get(event.elicit, { session }).catch(() => ({ elicitation: undefined }));
        if (elicitation && elicitation.task === taskId && elicitation.state === 'pending') {
          queue.push(elicitation);
          wake?.();
        }
      }
    } catch {
      // the stream ended (aborted, or the daemon went away): the task wait reports what happened
    } finally {
      live();
    }
  })();
  return {
    ready,
    async next() {
      // Whatever has arrived; a question of the same round that arrives later is the next batch.
      while (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
      return { questions: queue.splice(0) };
    },
  };
}

async function promptUnlessAnsweredElsewhere(backend: Backend, question: ShownQuestion, io: CliIO): Promise<Answer | undefined> {
  const { promptForAnswer } = await import('../form/index.js');
  const { openUrl } = await import('../open-url.js');
  const elsewhere = new AbortController();
  let answeredElsewhere = false;
  // Anyone may answer (another terminal, REST, an agent): when they do, the form gives way.
  void (async () => {
    try {
      for await (const event of backend.events({
        signal: elsewhere.signal,
        kinds: ['elicit.answered', 'elicit.expired', 'elicit.abandoned'],
        scope: { session: question.session },
      })) {
        if (event.elicit === question.id) {
          answeredElsewhere = true;
          elsewhere.abort();
        }
      }
    } catch {
      // stream closed
    }
  })();
  try {
    const answer = await promptForAnswer(toQuestion(question), {
      input: io.stdin,
      output: io.stderr,
      signal: elsewhere.signal,
      openUrl: (url) => openUrl(url, io.env),
    });
    if (answeredElsewhere) {
      io.stderr.write(`mcpx: ${question.id} was answered elsewhere (or expired); waiting for the call.\n`);
      return undefined;
    }
    return answer;
  } finally {
    elsewhere.abort();
  }
}

async function submit(
  backend: Backend,
  question: ShownQuestion,
  answer: Answer,
  io: CliIO,
  session: string | undefined,
): Promise<void> {
  try {
    await backend.answer(question.id, answer, { session });
  } catch (error) {
    // Someone else answered first, or the deadline passed: the call goes on with that answer; say so and follow it.
    if (error instanceof McpxError && (error.code === 'ELICITATION_ALREADY_ANSWERED' || error.code === 'ELICITATION_EXPIRED')) {
      io.stderr.write(`mcpx: ${error.message}\n`);
      return;
    }
    throw error;
  }
}
