/**
 * Server-supplied text is untrusted: before it reaches a terminal (the CLI's, or a downstream client's through
 * `mcpx serve`), escape sequences (which can move the cursor, rewrite the title, write the clipboard, hide text or
 * forge a prompt), control characters and bidi overrides are removed.
 */

// ESC-introduced sequences: CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC strings (ended by BEL or ST, or unterminated),
// and two-character escapes (ESC + one byte). Their 8-bit C1 forms (CSI 0x9b, OSC 0x9d, DCS 0x90, ...) too.
const ESCAPE_SEQUENCE = new RegExp(
  [
    '(?:\\u001b\\[|\\u009b)[\\u0020-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]?', // CSI
    '(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[\\s\\S]*?(?:\\u0007|\\u001b\\\\|\\u009c|$)', // string sequences
    '\\u001b[\\u0020-\\u002f]*[\\u0030-\\u007e]?', // nF / Fp / Fe / Fs escapes
  ].join('|'),
  'g',
);

// C0 controls except tab and newline, DEL, C1 controls, and the Unicode bidi overrides that can reorder what is shown.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export interface SanitizeOptions {
  /** Keep line breaks (collapsed to at most one blank line); otherwise they become spaces. Default true. */
  multiline?: boolean;
  /** Longest text kept, in characters; longer text is cut with an ellipsis. Default 4000. */
  maxLength?: number;
}

/** Text safe to write to a terminal: no escape sequences, no control characters, tabs as spaces. */
export function sanitize(text: unknown, options: SanitizeOptions = {}): string {
  const { multiline = true, maxLength = 4000 } = options;
  let out = String(text ?? '')
    .replace(ESCAPE_SEQUENCE, '')
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL, '')
    .replace(/\t/g, '  ');
  if (multiline) {
    out = out
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  } else {
    out = out.replace(/\s*\n\s*/g, ' ').trim();
  }
  return out.length > maxLength ? `${out.slice(0, maxLength - 1)}…` : out;
}

/** One line of server text (a title, a field name, an option label). */
export function sanitizeLine(text: unknown, maxLength = 200): string {
  return sanitize(text, { multiline: false, maxLength });
}
