/** Server text made safe for generated comments. */

/** Text from a server, made safe for a JSDoc block: no control characters, no comment terminator, bounded. */
export function docText(text: string, max: number): string {
  let clean = text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, '')
    .replace(/\*\//g, '*\\/')
    .replace(/^(\s*)@/gm, '$1\\@')
    .trim();
  if (clean.length > max) clean = `${clean.slice(0, max)}…`;
  return clean;
}

/** A value as JSON text for a comment (`@default`, `@example`); undefined if it has none. */
export function jsonText(value: unknown, max: number): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  return docText(text, max);
}
