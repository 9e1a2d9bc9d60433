/**
 * How a call's stop reads to an MCP client that cannot be asked (no elicitation declared): the §5.1 message the
 * CLI prints, plus the tools that answer it here. A finished call is the upstream's own result.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ElicitRequest } from '../../broker/index.js';
import { describeInputRequired } from '../../elicitation/describe.js';
import type { TaskRecord, TaskStep } from '../../tasks/types.js';
import { cleanMessage, cleanQuestion } from './forwarded-text.js';

export const ELICIT_LIST = 'mcpx_elicit_list';
export const ELICIT_ANSWER = 'mcpx_elicit_answer';
export const CALL_RESULT = 'mcpx_call_result';

const UPSTREAM_META = ['io.modelcontextprotocol/serverInfo'];

/** The upstream's result as mcpx's own: its identity and wire-only fields are not ours to repeat. */
export function passResult(result: CallToolResult): CallToolResult {
  const { resultType: _resultType, _meta, ...rest } = result as CallToolResult & { resultType?: unknown };
  if (!_meta) return rest as CallToolResult;
  const meta = Object.fromEntries(Object.entries(_meta).filter(([key]) => !UPSTREAM_META.includes(key)));
  return (Object.keys(meta).length ? { ...rest, _meta: meta } : rest) as CallToolResult;
}

/** A failed call as a tool error naming the server and tool. */
export function failedResult(
  task: Pick<TaskRecord, 'server' | 'tool'>,
  error: { code: string; message: string },
): CallToolResult {
  return {
    content: [{ type: 'text', text: `mcpx: ${task.server}.${task.tool} failed (${error.code}): ${error.message}` }],
    isError: true,
  };
}

/**
 * A waiting call of a tool that declares an output schema: both SDKs' `callTool` throw on a result of such a tool that
 * is neither structured content nor an error, and structured content describing the question would not fit the
 * tool's schema. An error result is the one they pass through untouched, so the agent still sees the question.
 */
const WAITING_AS_ERROR =
  'This call has NOT failed: it is waiting for an answer. (It is marked as an error only because the tool declares an output schema, and a call that waits has no structured result yet.)';

/**
 * The input-required text for questions nothing here could put to the client. `outputSchema`: the tool declares one,
 * so the result is marked isError (WAITING_AS_ERROR says why).
 */
export function inputRequiredResult(
  task: TaskRecord,
  questions: ElicitRequest[],
  now: number,
  { outputSchema = false }: { outputSchema?: boolean } = {},
): CallToolResult {
  // Server text cleaned before it is described: a schema's titles would otherwise be shown JSON-escaped, not removed.
  const message = describeInputRequired(
    { server: task.server, tool: task.tool, task: task.id, questions: questions.map(cleanQuestion) },
    { now },
  );
  const forAgent = questions.some((q) => q.audience !== 'user')
    ? `An agent may answer a question only if it knows the answer for certain: call ${ELICIT_ANSWER} {"id": "<elc-...>", "action": "accept", "content": {...}} (or "cancel"). If you cannot know, use "decline": the question then goes to the person instead.`
    : 'These questions are for the person (the server asked that a person answer): do not answer them yourself; tell the person.';
  const text = `${message}\n${outputSchema ? `${WAITING_AS_ERROR}\n` : ''}${forAgent}\nSee what waits with ${ELICIT_LIST}; collect the call's result with ${CALL_RESULT} {"task": "${task.id}"}.\n`;
  return {
    content: [{ type: 'text', text }],
    ...(outputSchema ? { isError: true } : {}),
    _meta: {
      'io.mcpx/inputRequired': {
        task: task.id,
        server: task.server,
        tool: task.tool,
        questions: questions.map((q) => ({
          id: q.id,
          mode: q.mode,
          message: cleanMessage(q.message),
          expiresAt: new Date(q.expiresAt).toISOString(),
          ...(q.audience ? { audience: q.audience } : {}),
        })),
      },
    },
  };
}

/** A stop as a tool result for the fallback path: the result, the failure, or the questions still waiting. */
export function stopResult(step: TaskStep, pending: ElicitRequest[], now: number): CallToolResult {
  if (step.status === 'complete') return passResult(step.result as CallToolResult); // this surface starts tool calls only
  if (step.status === 'failed') return failedResult(step.task, step.error);
  return inputRequiredResult(step.task, pending, now);
}
