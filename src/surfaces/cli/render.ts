/**
 * The §5.1 message as the CLI prints it: the core's text (src/elicitation/describe.ts) with deadlines in local
 * time and server text cleaned for a terminal.
 */
import {
  describeInputRequired,
  exampleContent as coreExampleContent,
  isoAt,
  type DescribedQuestion,
  type TextCleaner,
} from '../../elicitation/describe.js';
import type { ElicitationSchema } from '../../types.js';
import { sanitize, sanitizeLine } from './sanitize.js';

export { duration, shellQuote } from '../../elicitation/describe.js';

/** A question as the CLI shows it: the shared Question fields it needs, plus its deadline. */
export interface WaitingQuestion extends DescribedQuestion {
  server: string;
  tool: string;
}

export interface InputRequiredView {
  server: string;
  tool: string;
  questions: WaitingQuestion[];
  /** The task holding the call; absent when no daemon holds it (the call dies with the command). */
  task?: string;
  /** The caller's session: another session's question is shown with --all. */
  session?: string;
  /** For a question that is not a server's (a script's ask()): the first line and the closing paragraph. */
  headline?: string;
  tail?: string;
  /** Print the session and the absolute config path in each command, so it works pasted elsewhere. */
  pasteable?: { configPath?: string; layout?: 'inline' | 'row' };
  now: number;
}

const terminal: TextCleaner = { text: (value) => sanitize(value), line: (value, maxLength) => sanitizeLine(value, maxLength) };

const localOffset = (ms: number): number => -new Date(ms).getTimezoneOffset();

/** The §5.1 message, newline-terminated. Server text is sanitised. */
export function renderInputRequired(view: InputRequiredView): string {
  return describeInputRequired(
    {
      server: view.server,
      tool: view.tool,
      questions: view.questions,
      ...(view.task ? { task: view.task } : {}),
      ...(view.session ? { session: view.session } : {}),
      ...(view.headline === undefined ? {} : { headline: view.headline }),
      ...(view.tail === undefined ? {} : { tail: view.tail }),
      ...(view.pasteable ? { pasteable: view.pasteable } : {}),
    },
    { now: view.now, utcOffsetMinutes: localOffset, clean: terminal },
  );
}

/** A content template for the answer command, field names sanitised. */
export function exampleContent(schema: ElicitationSchema | undefined): Record<string, unknown> {
  return coreExampleContent(schema, terminal);
}

/** Local time with its UTC offset, RFC 3339: 2026-09-30T22:31:37-05:00. */
export function localIso(ms: number): string {
  return isoAt(ms, localOffset(ms));
}
