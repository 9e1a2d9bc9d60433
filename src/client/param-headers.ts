/**
 * SEP-2243 custom headers (2026-07-28 Streamable HTTP, "Schema Extension"): a tool's `inputSchema` may mark
 * primitive properties with `x-mcp-header: <Name>`; every `tools/call` of that tool then carries
 * `Mcp-Param-<Name>: <value>`, plain ASCII or `=?base64?<utf-8 base64>?=`. The SDK adds them only inside
 * `Client.callTool` and does not export its helpers; mcpx sends its calls through `client.request`, so it builds
 * them here, the same way.
 */

const HEADER_KEY = 'x-mcp-header';
const PREFIX = 'Mcp-Param-';
// RFC 9110 §5.1 token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PERMITTED_TYPES = new Set(['string', 'integer', 'boolean']);
// Subschemas a declaration must not sit under: it has to be reachable through `properties` alone.
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
const OBJECT_VALUED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

export interface HeaderDeclaration {
  path: string[];
  headerName: string;
}

export type HeaderScan = { valid: true; declarations: HeaderDeclaration[] } | { valid: false; reason: string };

/** Collects a tool's `x-mcp-header` declarations, or the first rule one breaks (such a tool must not be called). */
export function scanHeaderDeclarations(inputSchema: unknown): HeaderScan {
  const declarations: HeaderDeclaration[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    if (HEADER_KEY in schema) {
      const where = path.length ? path.join('.') : '<root>';
      if (!reachable || path.length === 0)
        return `${where}: x-mcp-header is only allowed on a property reached through 'properties' alone`;
      const name = schema[HEADER_KEY];
      if (typeof name !== 'string' || !TOKEN.test(name)) return `${where}: x-mcp-header must be a non-empty RFC 9110 token`;
      const type = typeof schema.type === 'string' ? schema.type : undefined;
      if (!type || !PERMITTED_TYPES.has(type))
        return `${where}: x-mcp-header is only allowed on string, integer or boolean properties (got ${type ?? 'no type'})`;
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header '${name}' is declared twice (also as '${prior}')`;
      seen.set(name.toLowerCase(), name);
      declarations.push({ path, headerName: name });
    }
    const properties = schema.properties;
    if (properties && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : OBJECT_VALUED.has(keyword) && sub && typeof sub === 'object'
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault ? { valid: false, reason: fault } : { valid: true, declarations };
}

/** The `Mcp-Param-*` headers of one call. A value absent, null or not a primitive gets no header. */
export function paramHeaders(declarations: HeaderDeclaration[], args: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, headerName } of declarations) {
    let value: unknown = args;
    for (const key of path)
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    const text = primitiveText(value);
    if (text !== undefined) headers[`${PREFIX}${headerName}`] = encodeValue(text);
  }
  return headers;
}

function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)))
    return String(value);
  return undefined;
}

/** Plain when it is a safe visible-ASCII field value; otherwise (or when it already looks encoded) base64-wrapped. */
export function encodeValue(text: string): string {
  const looksEncoded = text.startsWith('=?base64?') && text.endsWith('?=');
  const plain = text.length > 0 && !looksEncoded && text === text.trim() && /^[\t\x20-\x7e]*$/.test(text);
  return plain ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}
