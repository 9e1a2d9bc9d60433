/**
 * A listing a host makes on its own behalf (a script's tool names resolved before its first call) may need the
 * sign-in too. No call holds it, so the question goes straight to the host's answerers (policy, the script's
 * onElicit, the person at the terminal); one nobody answers here is abandoned, and the listing fails with
 * SIGN_IN_REQUIRED rather than leave a question that nothing waits on.
 */
import type { Broker } from '../../broker/index.js';
import { questionFromParams } from '../../client/index.js';
import { newCallId } from '../../ids.js';
import type { ElicitHandler } from '../../types.js';
import { signInRequired, type SignInAsker } from '../../auth/sign-in/question.js';

export function listingSignInAsker(options: {
  server: string;
  /** What the listing is for, named as the question's tool (the tool the script called). */
  tool: string;
  onElicit: ElicitHandler;
  broker: Broker;
  ttlMs: number;
}): SignInAsker {
  const { server, tool, broker } = options;
  return async (params) => {
    const question = {
      ...questionFromParams(params, { server, tool, era: 'legacy', callId: newCallId() }),
      asker: 'mcpx' as const,
    };
    const answer = await options.onElicit(question, {
      signal: new AbortController().signal,
      arguments: {},
      expiresAt: Date.now() + options.ttlMs,
    });
    if (answer) return { action: answer.action };
    await broker.abandon(question.id, 'nobody here could answer the sign-in, and no call waits on it').catch(() => undefined);
    throw signInRequired(server);
  };
}
