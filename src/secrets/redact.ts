/**
 * The one redaction of secret values in text mcpx shows or stores (error messages, a server's stderr, command lines
 * of questions). A value from a config's `${VAR}` is shown as the reference the config wrote; a value from the
 * secret store (an `{"ask": ...}` entry) as a placeholder naming the entry.
 */

/** Known secret values, each with what is shown in its place. */
export type SecretForms = ReadonlyMap<string, string>;

/**
 * Values shorter than this are not scrubbed from free text: a `${PORT}` of "80" or a `${DEBUG}` of "1" would turn
 * every such digit of a message into the reference. No credential is this short.
 */
export const MIN_SECRET_LENGTH = 4;

/** `text` with every known secret value replaced by its shown form (longest first, so no secret is cut in two). */
export function redact(text: string, forms: SecretForms | undefined): string {
  if (!forms?.size || !text) return text;
  let out = text;
  for (const [value, shown] of [...forms].sort((a, b) => b[0].length - a[0].length)) {
    if (value.length >= MIN_SECRET_LENGTH && out.includes(value)) out = out.split(value).join(shown);
  }
  return out;
}

/** How a value kept in the secret store for a server's `{"ask": ...}` entry is shown (`env.GITHUB_TOKEN`). */
export function secretStoreForm(entry: string): string {
  return `[secret ${entry}]`;
}
