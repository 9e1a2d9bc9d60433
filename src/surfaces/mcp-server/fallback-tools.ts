/**
 * The tools that answer questions when the client cannot be asked (§5.4): mcpx_elicit_list (this session's
 * waiting questions, with schemas and deadlines), mcpx_elicit_answer (accept with content, decline, cancel) and
 * mcpx_call_result (the call's result once answered). The agent answers only what it knows (§5.4a): a question the
 * server marked for the person is refused here, mcpx's own (a write confirmation) is refused by the broker, and an
 * agent's decline is re-raised to the person.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { ElicitRequest } from '../../broker/index.js';
import { isMcpxError } from '../../errors.js';
import { respondWith } from '../../elicitation/describe.js';
import type { ServeCore, Stop } from './core.js';
import { cleanQuestion } from './forwarded-text.js';
import { stopFromStore } from './held-elsewhere.js';
import { CALL_RESULT, ELICIT_ANSWER, ELICIT_LIST, failedResult, stopResult } from './render.js';
import { ACTIONS } from '../../constants.js';

export const RESERVED_NAMES: ReadonlySet<string> = new Set([ELICIT_LIST, ELICIT_ANSWER, CALL_RESULT]);

const DEFAULT_WAIT_S = 30;

const waitSeconds = {
  type: 'number',
  minimum: 0,
  maximum: 600,
  description: `How long to wait for the call to move on (default ${DEFAULT_WAIT_S}).`,
};

const definitions: Tool[] = [
  {
    name: ELICIT_LIST,
    description:
      'Questions that tools called through mcpx are waiting on in this session: id, server, message, the schema an answer must match, deadline, and whether it is for the person.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: ELICIT_ANSWER,
    description:
      "Answer a waiting question by id. Answer only what you know for certain: accept with content matching its schema, or cancel. If you cannot know, decline: the question is then put to the person instead. Questions marked for the person cannot be answered here. Returns the call's result when it finishes within waitSeconds.",
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'the question id, elc-...' },
        action: { type: 'string', enum: [...ACTIONS] },
        content: { type: 'object', description: "with accept: the answer, matching the question's schema" },
        waitSeconds,
      },
      required: ['id', 'action'],
    },
  },
  {
    name: CALL_RESULT,
    description:
      "The result of a call that stopped on a question (by its task id, tsk-...): the tool's result once answered, or what it still waits on.",
    inputSchema: {
      type: 'object',
      properties: { task: { type: 'string', description: 'the task id, tsk-...' }, waitSeconds },
      required: ['task'],
    },
    annotations: { readOnlyHint: true },
  },
];

const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: value }],
  ...(isError ? { isError: true } : {}),
});

export interface FallbackTools {
  definitions: Tool[];
  has(name: string): boolean;
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

export function createFallbackTools(core: ServeCore, session: string): FallbackTools {
  // Server text cleaned as a forwarded question's is; a URL mcpx would not open is not shown (forwarded-text.ts).
  const view = (question: ElicitRequest) => {
    const q = cleanQuestion(question);
    return {
      id: q.id,
      server: q.server,
      tool: q.tool,
      mode: q.mode,
      message: q.message,
      ...(q.requestedSchema ? { requestedSchema: q.requestedSchema } : {}),
      ...(q.url ? { url: q.url } : {}),
      expiresAt: new Date(q.expiresAt).toISOString(),
      timeLeftMs: Math.max(0, q.expiresAt - Date.now()),
      forPerson: q.audience === 'user',
      ...(q.task ? { task: q.task } : {}),
      personAnswers: respondWith(q),
    };
  };

  /** Waits (up to `seconds`) for the call to move past `after`, then says where it stands. */
  const follow = async (taskId: string, after: number, seconds: number, signal: AbortSignal): Promise<CallToolResult> => {
    const timeout = AbortSignal.timeout(Math.max(0, seconds) * 1000);
    const waitSignal = AbortSignal.any([timeout, signal]);
    let stop: Stop | undefined = core.latestStop(taskId);
    const ours = !stop && (await core.tasks.get(taskId))?.session === session;
    // Not driven here: let go or its serve died (resumed here with the answers given meanwhile, if this process
    // wins the claim), or held by another process, whose record says when the call moves on.
    const adopted = ours && seconds <= 0 && (await core.adopt(taskId));
    if (ours && seconds > 0) stop = await stopFromStore(core, taskId, waitSignal).catch(() => core.latestStop(taskId));
    else if (stop && stop.seq <= after && seconds > 0)
      stop = await core.nextStop(taskId, after, waitSignal).catch(() => core.latestStop(taskId));
    if (!stop) {
      const task = await core.tasks.get(taskId);
      if (!task || task.session !== session) return text(`No task ${taskId} in this session.`, true);
      if (task.state === 'complete' && task.result)
        return stopResult({ status: 'complete', task, result: task.result }, [], Date.now());
      if (task.state === 'failed') return failedResult(task, task.error ?? { code: 'CALL_FAILED', message: 'the call failed' });
      if (adopted || core.runner.taskOfCall(task.callId) === taskId)
        return text(`${taskId} is resuming here; ask again with ${CALL_RESULT} {"task": "${taskId}"}.`);
      return text(
        `${taskId} is ${task.state}, held by another mcpx process; collect it there, or with: mcpx task result ${taskId}`,
      );
    }
    if (stop.step.task.session !== session) return text(`No task ${taskId} in this session.`, true);
    const pending =
      stop.step.status === 'input-required'
        ? (await Promise.all(stop.step.task.waitingOn.map((id) => core.broker.get(id)))).filter(
            (q): q is ElicitRequest => q?.state === 'pending',
          )
        : [];
    if (stop.step.status === 'input-required' && !pending.length)
      return text(`${taskId} is running (its questions are answered); ask again with ${CALL_RESULT} {"task": "${taskId}"}.`);
    return stopResult(stop.step, pending, Date.now());
  };

  const answer = async (args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> => {
    const id = typeof args.id === 'string' ? args.id : '';
    const action = args.action;
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel')
      return text('action must be "accept", "decline" or "cancel".', true);
    const question = id ? await core.broker.get(id) : undefined;
    if (!question || question.session !== session)
      return text(`No question ${id || '(no id given)'} waits in this session; see ${ELICIT_LIST}.`, true);
    if (question.state !== 'pending') return text(`${id} is ${question.state}; nothing to answer.`, true);
    // The person's question: the agent may only decline (re-raised to the person). mcpx's own accept goes on to the
    // broker, which refuses it and records who tried.
    if (question.audience === 'user' && (action === 'cancel' || (action === 'accept' && question.asker !== 'mcpx'))) {
      return text(
        `${id} is for the person (${question.asker === 'mcpx' ? 'mcpx asks it on its own behalf' : 'the server asked that a person answer it'}), so an agent cannot answer it. Tell the person; they answer with: ${respondWith(question)} (or decline/cancel), before ${new Date(question.expiresAt).toISOString()}.`,
        true,
      );
    }
    const taskId = question.task;
    const before = taskId ? (core.latestStop(taskId)?.seq ?? 0) : 0;
    if (action === 'decline') {
      // An agent that cannot know declines; the person gets the question instead of the call failing (§5.4a).
      await core.broker.recordEvent({
        kind: 'elicit.passed',
        elicit: id,
        trace: question.trace,
        session,
        server: question.server,
        tool: question.tool,
        data: { answerer: 'agent', reason: 'the agent declined; re-raised to the person' },
      });
      return text(
        `Not sent as a decline: a question the agent cannot answer goes to the person. ${id} stays waiting until ${new Date(question.expiresAt).toISOString()}; the person answers with: ${respondWith(question)} | mcpx elicit decline ${id}. ${taskId ? `Collect the result later with ${CALL_RESULT} {"task": "${taskId}"}.` : ''}`,
      );
    }
    const content =
      action === 'accept' && args.content && typeof args.content === 'object'
        ? (args.content as Record<string, unknown>)
        : undefined;
    try {
      // When another process holds the call: delivered, or refused if that process died.
      await core.respondHeld({ id, action, ...(content ? { content } : {}), by: 'agent', session });
    } catch (error) {
      if (isMcpxError(error, 'ANSWER_INVALID')) {
        const issues =
          (error.data?.issues as Array<{ message?: string }> | undefined)?.map((i) => i.message).filter(Boolean) ?? [];
        return text(
          `The answer does not fit the question's schema, so it was not sent; ${id} is still waiting.\n${issues.map((i) => `- ${i}`).join('\n') || error.message}`,
          true,
        );
      }
      if (isMcpxError(error, 'PERSON_REQUIRED'))
        return text(
          `${id} is mcpx's own question (${question.message.slice(0, 200)}), so only the person may accept it: your accept was refused and recorded, and ${id} is still waiting. Tell the person; they answer with: ${respondWith(question)} (or decline/cancel), before ${new Date(question.expiresAt).toISOString()}. If you cannot know, decline.`,
          true,
        );
      if (isMcpxError(error)) return text(error.message, true);
      throw error;
    }
    if (!taskId) return text(`Answered ${id} (${action}).`);
    return follow(taskId, before, numberOr(args.waitSeconds, DEFAULT_WAIT_S), signal);
  };

  const list = async (): Promise<CallToolResult> => {
    const questions = (await core.broker.pending({ session, state: 'pending' })).map(view);
    const summary = questions.length
      ? `${questions.length} question(s) waiting in this session.`
      : 'Nothing is waiting in this session.';
    return {
      content: [{ type: 'text', text: `${summary}\n${JSON.stringify(questions, null, 2)}` }],
      structuredContent: { questions },
    };
  };

  return {
    definitions,
    has: (name) => RESERVED_NAMES.has(name),
    async call(name, args, signal) {
      if (name === ELICIT_LIST) return list();
      if (name === ELICIT_ANSWER) return answer(args, signal);
      const task = typeof args.task === 'string' ? args.task : '';
      if (!task) return text("task is required: the tsk-... id the call's result named.", true);
      // Stopped on questions: wait for what comes after them.
      const latest = core.latestStop(task);
      return follow(
        task,
        latest?.step.status === 'input-required' ? latest.seq : 0,
        numberOr(args.waitSeconds, DEFAULT_WAIT_S),
        signal,
      );
    },
  };
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(600, Math.max(0, value)) : fallback;
}
