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

/**
 * Every value this process read from or wrote to a secret store (tokens, asked credentials): scrubbed from all
 * text, whichever instance or config it belongs to. Config `${VAR}` values are not here: they are scrubbed where
 * their config is used (`forms`), since a `${HOME}` of one config is no secret to another.
 */
const kept = new Map<string, string>();

/** Notes a value of a secret store, so no message of this process shows it. */
export function rememberSecret(value: string, shown: string): void {
  if (value.length >= MIN_SECRET_LENGTH && !kept.has(value)) kept.set(value, shown);
}

/**
 * `text` with every known secret value replaced by its shown form: `forms` (a config's), then the values of the
 * secret store (longest first, so no secret is cut in two).
 */
export function redact(text: string, forms?: SecretForms): string {
  if (!text || (!forms?.size && !kept.size)) return text;
  let out = text;
  for (const known of forms?.size ? [forms, kept] : [kept]) {
    for (const [value, shown] of [...known].sort((a, b) => b[0].length - a[0].length)) {
      if (value.length >= MIN_SECRET_LENGTH && out.includes(value)) out = out.split(value).join(shown);
    }
  }
  return out;
}

/** How a value kept in the secret store is shown: the entry (`env.GITHUB_TOKEN`) or the store's account. */
export function secretStoreForm(entry: string): string {
  return `[secret ${entry}]`;
}
