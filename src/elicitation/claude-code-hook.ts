/**
 * Claude Code's Elicitation hook as values: its stdin JSON becomes a Question mcpx's broker can hold, and an answer
 * becomes the stdout JSON that answers the hook. No process, no I/O: `mcpx hook claude-code` does that.
 */
import { McpxError, type Issue } from '../errors.js';
import type { Answer, ElicitationSchema, Question } from '../types.js';

/** The tool a hook's question is filed under: Claude Code does not tell the hook which tool asked. */
export const CLAUDE_CODE_TOOL = 'claude-code';
/** Where the hook's own ids (Claude Code's session, its elicitation id, its cwd) ride on the question. */
export const CLAUDE_CODE_META = 'io.mcpx/claude-code';

/** What the hook reads on stdin (the fields mcpx uses; Claude Code sends more). */
export interface ClaudeCodeHookInput {
  server: string;
  message: string;
  mode: 'form' | 'url';
  url?: string;
  elicitationId?: string;
  requestedSchema?: ElicitationSchema;
  /** Claude Code's session id. */
  sessionId?: string;
  /** Claude Code's working directory (the project). */
  cwd?: string;
}

/** Parses the hook's stdin; every problem is named, with what was expected. */
export function parseHookInput(text: string): ClaudeCodeHookInput {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid([{ field: '', expected: 'one JSON object', message: 'stdin is not JSON' }]);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalid([{ field: '', expected: 'one JSON object', message: 'stdin is not a JSON object' }]);
  const input = raw as Record<string, unknown>;
  const issues: Issue[] = [];
  const text_ = (field: string, required: boolean): string | undefined => {
    const value = input[field];
    if (value === undefined && !required) return undefined;
    if (typeof value === 'string' && (value !== '' || !required)) return value;
    issues.push({
      field,
      expected: 'a string',
      message: `"${field}" is ${value === undefined ? 'missing' : 'not a non-empty string'}`,
    });
    return undefined;
  };
  if (input.hook_event_name !== undefined && input.hook_event_name !== 'Elicitation')
    issues.push({
      field: 'hook_event_name',
      expected: '"Elicitation"',
      message: `this hook answers Elicitation events, not ${JSON.stringify(input.hook_event_name)}`,
    });
  const server = text_('mcp_server_name', true);
  const message = text_('message', false) ?? '';
  const mode = input.mode ?? 'form';
  if (mode !== 'form' && mode !== 'url')
    issues.push({ field: 'mode', expected: '"form" or "url"', message: `"mode" is ${JSON.stringify(mode)}` });
  const url = text_('url', mode === 'url');
  const elicitationId = text_('elicitation_id', false);
  const sessionId = text_('session_id', false);
  const cwd = text_('cwd', false);
  const schema = input.requested_schema;
  if (schema !== undefined && (typeof schema !== 'object' || schema === null || Array.isArray(schema)))
    issues.push({ field: 'requested_schema', expected: 'a JSON Schema object', message: '"requested_schema" is not an object' });
  if (issues.length) throw invalid(issues);
  return {
    server: server!,
    message,
    mode: mode as 'form' | 'url',
    ...(url !== undefined ? { url } : {}),
    ...(elicitationId !== undefined ? { elicitationId } : {}),
    ...(mode === 'form' && schema !== undefined ? { requestedSchema: schema as ElicitationSchema } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
  };
}

/**
 * The question the broker holds for the hook. Claude Code does not tell the hook which era its server spoke;
 * `legacy` is recorded because the answer goes back as a legacy one does (once, to the call Claude Code holds).
 */
export function hookQuestion(input: ClaudeCodeHookInput, ids: { id: string; callId: string }): Question {
  const own = {
    ...(input.sessionId !== undefined ? { session_id: input.sessionId } : {}),
    ...(input.elicitationId !== undefined ? { elicitation_id: input.elicitationId } : {}),
    ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
  };
  return {
    id: ids.id,
    callId: ids.callId,
    server: input.server,
    tool: CLAUDE_CODE_TOOL,
    mode: input.mode,
    message: input.message,
    era: 'legacy',
    ...(input.requestedSchema ? { requestedSchema: input.requestedSchema } : {}),
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.elicitationId !== undefined ? { elicitationId: input.elicitationId } : {}),
    meta: { [CLAUDE_CODE_META]: own },
  };
}

/** The hook's stdout for an answer: Claude Code passes it to the server without a dialog. */
export function hookOutput(answer: Answer): { hookSpecificOutput: Record<string, unknown> } {
  return {
    hookSpecificOutput: {
      hookEventName: 'Elicitation',
      action: answer.action,
      ...(answer.action === 'accept' && answer.content !== undefined ? { content: answer.content } : {}),
    },
  };
}

const invalid = (issues: Issue[]): McpxError =>
  new McpxError(
    'ARGUMENTS_INVALID',
    `the Elicitation hook's input is not what Claude Code sends: ${issues.map((i) => i.message).join('; ')}`,
    { data: { issues } },
  );
