/**
 * Sign-in is a question: the authorization URL goes to the person as a url-mode question of the call that needs
 * it (server named as the asker), through the same handler, policy, broker and surfaces as a server's question.
 * The call that connects names its asker for the async work it starts; a sign-in needed where no call asks (a
 * listing) cannot ask, and says how to sign in instead.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { isMcpxError, McpxError } from '../../errors.js';
import type { PresentSignIn } from '../provider.js';

/** `_meta` key marking mcpx's own sign-in question (its URL's `state` says which sign-in it is). */
export const SIGN_IN_META = 'io.mcpx/signIn';

/** Puts `elicitation/create` params to the person on behalf of the asking call; resolves with their answer. */
export type SignInAsker = (params: Record<string, unknown>) => Promise<{ action: 'accept' | 'decline' | 'cancel' }>;

const asking = new AsyncLocalStorage<SignInAsker>();

/** Runs `work` (a connect) so that a sign-in it needs is asked through `asker`. */
export function withSignInAsker<T>(asker: SignInAsker, work: () => Promise<T>): Promise<T> {
  return asking.run(asker, work);
}

/** The url-mode question of one sign-in: for the person (an agent is never handed it). */
export function signInParams(server: string, url: URL): Record<string, unknown> {
  return {
    mode: 'url',
    message:
      `Sign in to "${server}": open the page on ${url.hostname} and sign in. When the browser comes back to mcpx ` +
      `the call goes on by itself.`,
    url: url.href,
    _meta: { 'io.mcpx/audience': 'user', [SIGN_IN_META]: true },
  };
}

/** Whether a stored question is the sign-in whose redirect carries `state`. */
export function isSignInFor(
  question: { mode?: string; url?: string | undefined; meta?: Record<string, unknown> | undefined },
  state: string,
): boolean {
  if (question.mode !== 'url' || question.meta?.[SIGN_IN_META] !== true || !question.url) return false;
  try {
    return new URL(question.url).searchParams.get('state') === state;
  } catch {
    return false;
  }
}

/** The error of a sign-in that nobody can be asked for here. */
export function signInRequired(server: string): McpxError {
  return new McpxError(
    'SIGN_IN_REQUIRED',
    `server "${server}" needs a sign-in; sign in with: mcpx auth ${server} (or call one of its tools, mcpx call ${server}.<tool>, to be asked)`,
    { data: { server } },
  );
}

/**
 * PresentSignIn as a question of the call in whose work the sign-in is needed. Resolves once the person accepted
 * (consent to open the page; the browser's return is awaited after); decline or cancel ends the sign-in.
 */
export const presentAsQuestion: PresentSignIn = async ({ server, url }) => {
  const asker = asking.getStore();
  if (!asker) throw signInRequired(server);
  const answer = await asker(signInParams(server, url));
  if (answer.action !== 'accept')
    throw new McpxError(
      'SIGN_IN_FAILED',
      `the sign-in to "${server}" was answered ${answer.action}, so the call was not made; call again to be asked again`,
      { data: { server, action: answer.action } },
    );
};

/** The sign-in error somewhere in a failure's causes (a connect wraps what the transport threw). */
export function signInErrorOf(error: unknown): McpxError | undefined {
  for (let at = error, depth = 0; at && depth < 8; at = (at as { cause?: unknown }).cause, depth += 1)
    if (isMcpxError(at, 'SIGN_IN_FAILED') || isMcpxError(at, 'SIGN_IN_REQUIRED')) return at;
  return undefined;
}
