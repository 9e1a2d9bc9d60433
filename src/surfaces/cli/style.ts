/**
 * Colour on a terminal, plain text anywhere else. Colour is on when the stream is a TTY, unless `--no-color` or
 * NO_COLOR (set and not empty) says otherwise (they win over everything) or TERM is dumb; FORCE_COLOR (set, not "0"
 * or "false") turns it on for a pipe. Styles wrap text that is already sanitised, so the only escape sequences written are these.
 */
import type { Writable } from 'node:stream';
import { sanitize } from './sanitize.js';

type Env = Record<string, string | undefined>;

export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
}

/** Whether text written to `stream` gets colour. */
export function colorEnabled(stream: Writable, env: Env): boolean {
  // entry.ts turns `--no-color` into NO_COLOR=1 (and takes it off the command line before a command parses it).
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.TERM === 'dumb') return false;
  return (stream as { isTTY?: boolean }).isTTY === true;
}

const sgr =
  (open: number, close: number) =>
  (text: string): string =>
    text === '' ? text : `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string): string => text;

const COLORED: Omit<Style, 'enabled'> = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  blue: sgr(34, 39),
  magenta: sgr(35, 39),
  cyan: sgr(36, 39),
};

/** No colour: every style returns its text. */
export const PLAIN_STYLE: Style = {
  enabled: false,
  bold: plain,
  dim: plain,
  red: plain,
  green: plain,
  yellow: plain,
  blue: plain,
  magenta: plain,
  cyan: plain,
};

/** The style for text written to `stream`. */
export function styleFor(stream: Writable, env: Env): Style {
  return colorEnabled(stream, env) ? { enabled: true, ...COLORED } : PLAIN_STYLE;
}

/** The `mcpx:` (or `mcpx <command>:`) that starts an error line: red where colour is on, so the error stands out. */
export function errorLead(stream: Writable, env: Env, command?: string): string {
  return styleFor(stream, env).red(`mcpx${command ? ` ${command}` : ''}:`);
}

// A JSON token: a string (a key when a colon follows), a number, or a literal.
const JSON_TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

/**
 * `value` as indented JSON for a person: sanitised (JSON escapes C0 controls but not C1 or bidi overrides), then
 * keys, strings, numbers and literals coloured when the style is on.
 */
export function prettyJson(value: unknown, style: Style, maxLength = 200_000): string {
  const text = sanitize(JSON.stringify(value, null, 2) ?? String(value), { maxLength });
  if (!style.enabled) return text;
  return text.replace(JSON_TOKEN, (token, string?: string, colon?: string, number?: string, literal?: string) => {
    if (string !== undefined) return colon !== undefined ? `${style.cyan(string)}${colon}` : style.green(string);
    if (number !== undefined) return style.yellow(number);
    if (literal !== undefined) return style.magenta(literal);
    return token;
  });
}

/** A JSON document on `stream`: exactly as is into a pipe; sanitised (and coloured when colour is on) on a terminal. */
export function jsonFor(stream: Writable, value: unknown, style: Style): string {
  const onTerminal = (stream as { isTTY?: boolean }).isTTY === true || style.enabled;
  return onTerminal ? prettyJson(value, style, Number.MAX_SAFE_INTEGER) : JSON.stringify(value, null, 2);
}
