/**
 * An upstream's question text is untrusted, and through `mcpx serve` it reaches a downstream client that may show
 * it on a terminal or hand it to a model: what serve forwards is cleaned the way the CLI cleans what it prints (no
 * escape sequences, control characters or bidi overrides), and a url-mode question is forwarded only with a URL mcpx
 * itself would open (https, or http on this machine). Any other URL is never passed on: serve declines the question,
 * as the CLI does (a refusal, not a dismissal; never an accept).
 */
import type { ElicitRequest } from '../../broker/index.js';
import { sanitize, sanitizeLine } from '../../elicitation/sanitize.js';
import { checkUrl } from '../../elicitation/url.js';

/** Longest question message forwarded; the CLI's terminal limit is shorter. */
const MESSAGE_MAX = 16_000;
/** Schema keywords whose values are answers' values, never shown text: kept as given (an answer must match them). */
const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** Server text (a message) as serve passes it on: lines kept, escapes and controls gone. */
export function cleanMessage(message: unknown): string {
  return sanitize(message, { maxLength: MESSAGE_MAX });
}

/** A question's message as forwarded: cleaned, naming the upstream that asks (the spec asks clients to show who). */
export function forwardedMessage(server: string, message: unknown): string {
  return `${server} (via mcpx) asks: ${cleanMessage(message)}`;
}

/** A requested schema with every title, description and enum name cleaned; names and values as given. */
export function cleanSchema<T>(schema: T): T {
  return cleanNode(schema, false) as T;
}

function cleanNode(node: unknown, isPropertyMap: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => cleanNode(item, false));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    // In `properties`, a key is a field's name (a field may be called "title"): its value is a schema.
    if (isPropertyMap) out[key] = cleanNode(value, false);
    else if (key === 'title' && typeof value === 'string') out[key] = sanitizeLine(value);
    else if (key === 'description' && typeof value === 'string') out[key] = sanitize(value);
    else if (key === 'enumNames' && Array.isArray(value))
      out[key] = value.map((name) => (typeof name === 'string' ? sanitizeLine(name) : name));
    else if (VALUE_KEYWORDS.has(key)) out[key] = value;
    else out[key] = cleanNode(value, key === 'properties');
  }
  return out;
}

/**
 * A url-mode question's URL as it may be forwarded (normalised by the URL parser, so no raw control characters),
 * or why it may not; undefined for a form question.
 */
export function forwardableUrl(question: { mode?: unknown; url?: unknown }): { href: string } | { refused: string } | undefined {
  if (question.mode !== 'url') return undefined;
  const check = checkUrl(typeof question.url === 'string' ? question.url : undefined);
  return check.openable ? { href: check.href } : { refused: `mcpx serve does not forward this URL: ${check.reason}` };
}

const CLEANED_KEYWORDS = new Set(['title', 'description', 'enumNames']);
// What sanitize removes, in text that cannot be cleaned because an answer must match it as given.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * Why a question may not be forwarded at all (serve declines it instead); undefined when it may. A URL mcpx would
 * not open, or a field name or choice value carrying escapes or controls (cleaning those would change what an
 * answer must match).
 */
export function refusalOf(question: { mode?: unknown; url?: unknown; requestedSchema?: unknown }): string | undefined {
  const url = forwardableUrl(question);
  if (url && 'refused' in url) return url.refused;
  if (hasUnsafeValue(question.requestedSchema, false))
    return 'mcpx serve does not forward a question whose field names or choices carry escape sequences or control characters';
  return undefined;
}

function hasUnsafeValue(node: unknown, isPropertyMap: boolean): boolean {
  if (typeof node === 'string') return UNSAFE.test(node);
  if (Array.isArray(node)) return node.some((item) => hasUnsafeValue(item, false));
  if (!node || typeof node !== 'object') return false;
  return Object.entries(node as Record<string, unknown>).some(([key, value]) => {
    if (isPropertyMap) return UNSAFE.test(key) || hasUnsafeValue(value, false);
    if (key === 'enum' || key === 'const' || key === 'required') return hasUnsafeValue(value, false);
    if (CLEANED_KEYWORDS.has(key)) return false; // shown text: cleaned, not refused
    return typeof value === 'object' && hasUnsafeValue(value, key === 'properties');
  });
}

/** A stored question as the fallback tools and the input-required `_meta` show it: its server text cleaned. */
export function cleanQuestion<T extends Pick<ElicitRequest, 'message' | 'requestedSchema' | 'url' | 'mode'>>(question: T): T {
  const url = forwardableUrl(question);
  const { url: _url, ...rest } = question;
  return {
    ...rest,
    message: cleanMessage(question.message),
    ...(question.requestedSchema ? { requestedSchema: cleanSchema(question.requestedSchema) } : {}),
    ...(url && 'href' in url ? { url: url.href } : {}),
  } as T;
}
