/** A server's -32042 (URLElicitationRequiredError, 2025-11-25): url questions that must be completed before a retry. */
/** Rounds of -32042 one call may answer: a server that asks again after every completed page would loop. */
export const MAX_URL_REQUIRED_ROUNDS = 3;
const URL_ELICITATION_REQUIRED = -32042;

/** The url-mode params of a -32042 error (the SDK's UrlElicitationRequiredError or a bare protocol error). */
export function urlElicitationsRequired(error: unknown): Array<Record<string, unknown>> | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, data } = error as { code?: unknown; data?: unknown };
  if (code !== URL_ELICITATION_REQUIRED || typeof data !== 'object' || data === null) return undefined;
  const { elicitations } = data as { elicitations?: unknown };
  if (!Array.isArray(elicitations) || elicitations.length === 0) return undefined;
  const pages = elicitations.filter(
    (e): e is Record<string, unknown> => typeof e === 'object' && e !== null && typeof (e as { url?: unknown }).url === 'string',
  );
  return pages.length === elicitations.length ? pages : undefined;
}
