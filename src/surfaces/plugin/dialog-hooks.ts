/**
 * The plugin's side of the form dialog (question-dialog.ts): questions prepared for a session, the agent's
 * `question` call given exactly those questions, and the person's reply recorded in the broker once, from
 * whichever comes first: opencode's `question.replied` / `question.rejected` event, or the tool's own result.
 */
import type { Answer } from '../../types.js';
import type { Elicitation } from '../../broker/index.js';
import { dialogFor, formDialog, type DialogQuestion, type FormDialog } from './question-dialog.js';
import type { QuestionLink } from './link.js';

interface Prepared {
  session: string;
  question: Elicitation;
  dialog: FormDialog;
  /** What happened, for the agent: set once the reply is recorded (or refused). */
  outcome?: Promise<string>;
}

/** An opencode bus event as plugins receive it; the question.* kinds are not in the v1 SDK's Event union. */
interface BusEvent {
  type: string;
  properties?: Record<string, unknown>;
}

export interface DialogHooks {
  /** The `question` tool arguments that put form question `q` to the person of `session`. */
  prepare(q: Elicitation, session: string): { questions: DialogQuestion[] };
  /** tool.execute.before for `question`: our exact questions, or a refusal for another session's question. */
  before(tool: string, session: string, args: Record<string, unknown>): void;
  event(event: unknown): Promise<void>;
  /** tool.execute.after for `question`: what was recorded, for the agent; undefined when the call was not ours. */
  after(tool: string, session: string, args: unknown, metadata: unknown): Promise<string | undefined>;
}

export function createDialogHooks(link: QuestionLink, onRecorded: (q: Elicitation, text: string) => Promise<void>): DialogHooks {
  const prepared = new Map<string, Prepared>(); // by question id
  const requests = new Map<string, string>(); // opencode question request id -> question id

  const record = (entry: Prepared, replies: ReadonlyArray<ReadonlyArray<string>> | 'dismissed'): Promise<string> => {
    if (entry.outcome) return entry.outcome;
    entry.outcome = (async () => {
      const q = entry.question;
      const answer: Answer | { problem: string } =
        replies === 'dismissed' ? { action: 'cancel' } : entry.dialog.answerOf(replies);
      let text: string;
      if ('problem' in answer) {
        text = `The person's answers to ${q.id} do not fit its form (${answer.problem}); nothing was sent and it still waits. Call mcpx_elicit_ask again to show the dialog again.`;
      } else {
        try {
          await link.answer(q.id, answer, entry.session);
          const verb =
            answer.action === 'accept'
              ? 'accepted'
              : answer.action === 'decline'
                ? 'declined'
                : 'dismissed the dialog: cancelled';
          text = `[mcpx] The person ${verb} ${q.id}; mcpx recorded it and the call goes on.${q.task ? ` Collect its result with: mcpx task result ${q.task}` : ''}`;
        } catch (error) {
          text = `[mcpx] ${q.id} was not answered: ${(error as Error).message}`;
        }
      }
      await onRecorded(q, text).catch(() => undefined);
      return text;
    })();
    return entry.outcome;
  };

  const ours = (questions: unknown, session: unknown): Prepared | undefined => {
    const id = dialogFor(questions);
    const entry = id ? prepared.get(id) : undefined;
    return entry && entry.session === session ? entry : undefined;
  };

  return {
    prepare(q, session) {
      const entry: Prepared = { session, question: q, dialog: formDialog(q) };
      prepared.set(q.id, entry);
      return { questions: entry.dialog.questions };
    },
    before(tool, session, args) {
      if (tool !== 'question') return;
      const id = dialogFor(args.questions);
      if (!id) return;
      const entry = ours(args.questions, session);
      if (!entry)
        throw new Error(`No question ${id} waits in this session for a dialog: call mcpx_elicit_ask with its id first.`);
      args.questions = entry.dialog.questions; // the person sees exactly the prepared fields, whatever was copied
    },
    async event(raw) {
      const { type, properties = {} } = raw as BusEvent;
      if (type === 'question.asked') {
        const entry = ours(properties.questions, properties.sessionID);
        if (entry && typeof properties.id === 'string') requests.set(properties.id, entry.question.id);
        return;
      }
      if (type !== 'question.replied' && type !== 'question.rejected') return;
      const id = typeof properties.requestID === 'string' ? requests.get(properties.requestID) : undefined;
      const entry = id ? prepared.get(id) : undefined;
      if (!entry) return;
      requests.delete(properties.requestID as string);
      await record(entry, type === 'question.rejected' ? 'dismissed' : ((properties.answers ?? []) as string[][]));
    },
    async after(tool, session, args, metadata) {
      if (tool !== 'question') return undefined;
      const id = dialogFor((args as { questions?: unknown } | undefined)?.questions);
      if (!id) return undefined;
      const entry = prepared.get(id);
      if (!entry || entry.session !== session) return undefined;
      if (entry.outcome) {
        prepared.delete(id); // recorded from the event already
        return entry.outcome;
      }
      const answers = (metadata as { answers?: string[][] } | undefined)?.answers ?? [];
      // No answers at all: opencode did not show the dialog (the question permission is denied here).
      if (!answers.length)
        return `[mcpx] The dialog for ${id} was not shown; nothing was sent. Ask the person in chat, or they can answer in a terminal with: mcpx inbox`;
      prepared.delete(id);
      return record(entry, answers);
    },
  };
}
