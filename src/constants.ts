/** Values every layer shares, each defined once here. */
import { version } from '../package.json';
import type { Action } from './types.js';

/** A question's time to live when neither the call, the policy nor MCPX_ELICIT_TTL_MS sets one (ms). */
export const DEFAULT_ELICIT_TTL_MS = 120_000;
/** Questions one call may ask (all rounds): a server that keeps asking is stopped (`elicit.maxQuestionsPerCall`). */
export const DEFAULT_MAX_QUESTIONS_PER_CALL = 50;
/** Questions one script run may open (its ask() and its calls' questions): `elicit.maxQuestionsPerRun`. */
export const DEFAULT_MAX_QUESTIONS_PER_RUN = 200;

/** The three answers; decline (explicitly no) and cancel (dismissed) are never folded into one another. */
export const ACTIONS = ['accept', 'decline', 'cancel'] as const satisfies readonly Action[];

/** Whether a value is one of the three actions. */
export function isAction(value: unknown): value is Action {
  return typeof value === 'string' && (ACTIONS as readonly string[]).includes(value);
}

/** mcpx's own version, from its package.json (the build inlines it). */
export const MCPX_VERSION: string = version;
