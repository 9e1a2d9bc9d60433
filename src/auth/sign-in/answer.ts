/**
 * The browser coming back answers the sign-in question: the host that owns the loopback redirect (the daemon)
 * records the person's answer in the broker, so the waiting call goes on and every surface sees it answered.
 */
import { isMcpxError } from '../../errors.js';
import type { Broker } from '../../broker/index.js';
import { isSignInFor } from './question.js';

/**
 * Answers the pending sign-in question whose URL carried this redirect's `state`: accept (the person went through
 * the page), or decline when the authorization server says they refused (`error=access_denied`). Any other error
 * is still an accept of the page; the code exchange then fails with the server's error. No question: nothing.
 */
export async function answerSignInArrival(broker: Broker, params: URLSearchParams): Promise<string | undefined> {
  const state = params.get('state');
  if (!state) return undefined;
  const question = (await broker.pending()).find((q) => isSignInFor(q, state));
  if (!question) return undefined;
  const action = params.get('error') === 'access_denied' ? 'decline' : 'accept';
  try {
    await broker.respond({ id: question.id, action, by: 'person', session: question.session });
  } catch (error) {
    // Answered meanwhile (the terminal form's consent, another surface), or expired: that answer stands.
    if (!isMcpxError(error)) throw error;
  }
  return question.id;
}
