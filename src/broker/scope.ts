/**
 * Who may see and answer a question (§5.5, §6b): a caller is bound to its own session, so an agent or a script
 * sees and answers only the questions its own calls raised; an operator (`mcpx elicit … --all`, REST `?all=1`,
 * the terminal and web inboxes) sees every session. The binding keeps callers in their lane; it is not a wall
 * against the same OS user, who can read the store itself.
 */
import { McpxError } from '../errors.js';
import { forbidden } from './records.js';

export interface CallerScope {
  /** The caller's own session: MCPX_SESSION_ID, else the config + cwd fingerprint (resolveSession). */
  session: string;
  /** An operator: every session's questions. */
  all?: boolean;
}

/** true when the caller may see and answer this question. */
export function inScope(question: { session: string }, scope: CallerScope): boolean {
  return scope.all === true || question.session === scope.session;
}

/** Throws ELICITATION_FORBIDDEN (saying how to use --all) when the question is another session's. */
export function checkScope(question: { id: string; session: string }, scope: CallerScope): void {
  if (!inScope(question, scope)) throw forbidden(question.id, question.session);
}

/** Throws TASK_FORBIDDEN when the task (a call and its result) is another session's: bound as its questions are. */
export function checkTaskScope(task: { id: string; session: string }, scope: CallerScope): void {
  if (inScope(task, scope)) return;
  throw new McpxError(
    'TASK_FORBIDDEN',
    `task ${task.id} belongs to another session: read it from that session (the same MCPX_SESSION_ID), or as an operator with --all (mcpx task result --all ${task.id}; REST: ?all=1)`,
    { data: { task: task.id } },
  );
}

/** The one session whose events a caller sees: its own, or for an operator the one it narrows to (undefined: all). */
export function eventSession(scope: CallerScope, narrowedTo: string | undefined): string | undefined {
  return scope.all ? narrowedTo : scope.session;
}
