/**
 * A tool as a person reads it: `name(required: type, optional?: type)`, its description and its arguments'
 * descriptions, wrapped to the terminal. Everything here is server-supplied, so every piece is sanitised.
 */
import { sanitize, sanitizeLine } from './sanitize.js';
import { PLAIN_STYLE, type Style } from './style.js';

type Schema = Record<string, unknown>;

export interface ToolLike {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: Schema;
  outputSchema?: Schema | undefined;
  execution?: { taskSupport?: string | undefined } | undefined;
}

const NESTED_DEPTH = 3;

/** The type of a JSON Schema, written the way TypeScript would (`string`, `"a" | "b"`, `number[]`, `{ a: string }`). */
export function typeOf(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return 'any';
  if (schema === false) return 'never';
  if (!schema || typeof schema !== 'object') return 'any';
  const s = schema as Schema;
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) return [...new Set(union.map((b) => typeOf(b, depth)))].join(' | ');
  if (typeof s.$ref === 'string') return s.$ref.split('/').pop() || 'any';
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (!types.length && s.properties) types.push('object');
  if (!types.length) return 'any';
  return types.map((type) => single(type, s, depth)).join(' | ');
}

function single(type: string, s: Schema, depth: number): string {
  if (type === 'integer') return 'integer';
  if (type === 'array') {
    const item = typeOf(s.items, depth + 1);
    return item.includes(' ') ? `(${item})[]` : `${item}[]`;
  }
  if (type !== 'object') return type;
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const names = Object.keys(properties);
  if (!names.length) return 'object';
  // Nested fields are shown down to a depth a line can still carry; deeper ones are in `mcpx list server.tool`.
  if (depth >= NESTED_DEPTH) return '{…}';
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  return `{ ${names.map((n) => `${n}${required.has(n) ? '' : '?'}: ${typeOf(properties[n], depth + 1)}`).join(', ')} }`;
}

/** `name(a: string, b?: number)`: required arguments first, as the schema lists them. */
export function signatureOf(tool: ToolLike): string {
  const schema = tool.inputSchema ?? {};
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const names = Object.keys(properties);
  const ordered = [...names.filter((n) => required.has(n)), ...names.filter((n) => !required.has(n))];
  const args = ordered.map(
    (n) => `${sanitizeLine(n, 80)}${required.has(n) ? '' : '?'}: ${sanitizeLine(typeOf(properties[n]), 200)}`,
  );
  return `${sanitizeLine(tool.name, 120)}(${args.join(', ')})`;
}

/** Words wrapped to `width`, each line after `indent`. A word longer than the line stays whole. */
export function wrap(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && indent.length + line.length + 1 + word.length > width) {
        lines.push(indent + line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(indent + line);
  }
  return lines;
}

/**
 * One tool's block: its signature (wrapped at the commas when long), description and argument descriptions; with a
 * colour style, the tool's and the arguments' names stand out.
 */
export function describeTool(tool: ToolLike, width: number, style: Style = PLAIN_STYLE, withArguments = true): string[] {
  const out = wrapSignature(signatureOf(tool), width);
  const name = sanitizeLine(tool.name, 120);
  out[0] = `  ${style.bold(name)}${(out[0] as string).slice(2 + name.length)}`;
  // Called as an MCP task (always, or with --task): the call may outlive the command, so say so where it is listed.
  const support = tool.execution?.taskSupport;
  if (support === 'required') out[0] += `  ${style.yellow('(MCP task)')}`;
  else if (support === 'optional') out[0] += `  ${style.yellow('(MCP task with --task)')}`;
  const description = sanitize(tool.description ?? tool.title ?? '', { maxLength: 2000 });
  if (description) out.push(...wrap(description, width, '    '));
  const properties = ((tool.inputSchema ?? {}).properties ?? {}) as Record<string, Schema>;
  const described = Object.entries(properties).filter(
    ([, p]) => withArguments && p && typeof p.description === 'string' && p.description.trim(),
  );
  if (described.length) {
    const pad = Math.min(24, Math.max(...described.map(([n]) => sanitizeLine(n, 80).length)));
    for (const [name, property] of described) {
      const label = sanitizeLine(name, 80).padEnd(pad);
      const [first = '', ...rest] = wrap(sanitize(property.description, { maxLength: 1000 }), width, ' '.repeat(8 + pad));
      out.push(`      ${style.cyan(label)}  ${first.trimStart()}`, ...rest);
    }
  }
  return out;
}

function wrapSignature(signature: string, width: number): string[] {
  if (signature.length + 2 <= width) return [`  ${signature}`];
  // One argument per line, aligned under the opening parenthesis's line.
  const open = signature.indexOf('(');
  const inner = signature.slice(open + 1, -1);
  const parts = splitTopLevel(inner);
  if (parts.length < 2) return [`  ${signature}`];
  return [`  ${signature.slice(0, open + 1)}`, ...parts.map((p, i) => `      ${p}${i < parts.length - 1 ? ',' : ''}`), '  )'];
}

/** Splits `a: {x: 1, y: 2}, b: string` at the commas outside braces and brackets. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{' || ch === '[' || ch === '(') depth++;
    else if (ch === '}' || ch === ']' || ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter(Boolean);
}

/** One parameter of a tool, nested ones flattened (`items[].name`), as `mcpx list server.tool` shows them. */
export interface ParameterRow {
  path: string;
  type: string;
  required: boolean;
  description: string;
}

/** Every parameter, depth first: an object's or an array of objects' fields follow it, under its path. */
export function parametersOf(schema: Schema | undefined, prefix = ''): ParameterRow[] {
  const properties = ((schema ?? {}).properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).flatMap(([name, value]) => {
    const property = (value && typeof value === 'object' ? value : {}) as Schema;
    const path = `${prefix}${sanitizeLine(name, 80)}`;
    const facts = [
      ...(property.default !== undefined ? [`default ${JSON.stringify(property.default)}`] : []),
      ...(typeof property.format === 'string' ? [`format ${property.format}`] : []),
    ];
    const description = [sanitize(property.description ?? '', { maxLength: 1000 }), facts.join(', ')].filter(Boolean).join(' · ');
    const items = property.items && typeof property.items === 'object' ? (property.items as Schema) : undefined;
    const nested = property.properties
      ? parametersOf(property, `${path}.`)
      : items?.properties
        ? parametersOf(items, `${path}[].`)
        : [];
    const type = nested.length ? (items ? 'object[]' : 'object') : sanitizeLine(typeOf(property, NESTED_DEPTH - 1), 200);
    return [{ path, type, required: required.has(name), description }, ...nested];
  });
}

/** `mcpx list server.tool`: the tool's block, then each parameter with its type, whether required, and description. */
export function describeToolInFull(tool: ToolLike, width: number, style: Style = PLAIN_STYLE): string[] {
  const out = describeTool(tool, width, style, false);
  const rows = parametersOf(tool.inputSchema);
  if (!rows.length) return [...out, '', '  no parameters'];
  const pathWidth = Math.min(32, Math.max(...rows.map((r) => r.path.length)));
  const typeWidth = Math.min(32, Math.max(...rows.map((r) => r.type.length + (r.required ? 10 : 0))));
  out.push('', '  parameters');
  for (const row of rows) {
    const facts = `${row.type}${row.required ? ', required' : ''}`.padEnd(typeWidth);
    const lead = `    ${style.cyan(row.path.padEnd(pathWidth))}  ${facts}  `;
    const indent = ' '.repeat(4 + pathWidth + 2 + typeWidth + 2);
    const [first = '', ...rest] = row.description ? wrap(row.description, width, indent) : [''];
    out.push(`${lead}${first.trimStart()}`.trimEnd(), ...rest);
  }
  return out;
}
