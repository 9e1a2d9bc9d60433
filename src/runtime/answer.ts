/**
 * Turns what a script's `onElicit` handler returned into an Answer, or into the reason it passes the question
 * on. Nothing here invents an answer: anything short of a well-formed, schema-valid answer is "not answered".
 */
import { checkContent } from '../elicitation/validate.js';
import type { Answer, Question } from '../types.js';
import { isAction } from '../constants.js';

export type Judged = { answer: Answer } | { reason: string };

/** `text` is the handler's return value as JSON ('' when it returned nothing). */
export function judgeAnswer(question: Pick<Question, 'mode' | 'requestedSchema'>, text: string): Judged {
  if (text === '') return { reason: 'returned nothing' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reason: 'returned something that is not plain data' };
  }
  const shown = text.length > 200 ? `${text.slice(0, 200)}...` : text;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { reason: `returned ${shown}, not { action: 'accept' | 'decline' | 'cancel' }` };
  }
  const { action, content } = value as { action?: unknown; content?: unknown };
  if (!isAction(action)) {
    return { reason: `returned ${shown}: action must be 'accept', 'decline' or 'cancel'` };
  }
  if (action === 'decline') return { answer: { action: 'decline' } };
  if (action === 'cancel') return { answer: { action: 'cancel' } };
  if (question.mode === 'url') return { answer: { action: 'accept' } };
  const checked = checkContent(question.requestedSchema, content);
  if (!checked.ok) {
    return {
      reason: `accepted with content that does not match the question's schema: ${checked.issues.map((i) => i.message).join('; ')}`,
    };
  }
  return { answer: { action: 'accept', content: checked.content } };
}
