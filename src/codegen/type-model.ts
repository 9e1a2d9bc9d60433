/**
 * The small type model the converter builds from JSON Schema, and its printer. Types are data until they are
 * written once, through ts-morph's CodeBlockWriter, into the single source file that holds them.
 */
import type CodeBlockWriter from 'code-block-writer';
import { propertyKey } from './names.js';

export interface Doc {
  description?: string;
  tags: Array<{ tagName: string; text?: string }>;
}

export interface PropertyType {
  name: string;
  type: TsType;
  optional: boolean;
  doc?: Doc;
}

export type TsType =
  | { kind: 'keyword'; name: 'string' | 'number' | 'boolean' | 'null' | 'undefined' | 'unknown' | 'never' }
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'ref'; name: string }
  | { kind: 'array'; element: TsType }
  | { kind: 'tuple'; elements: Array<{ type: TsType; optional: boolean }>; rest?: TsType }
  | { kind: 'object'; properties: PropertyType[]; index?: TsType }
  | { kind: 'union'; members: TsType[] }
  | { kind: 'intersection'; members: TsType[] };

export const UNKNOWN: TsType = { kind: 'keyword', name: 'unknown' };
export const NEVER: TsType = { kind: 'keyword', name: 'never' };

function key(t: TsType): string {
  switch (t.kind) {
    case 'keyword':
      return t.name;
    case 'literal':
      return `l:${JSON.stringify(t.value)}`;
    case 'ref':
      return `r:${t.name}`;
    default:
      return '';
  }
}

/** A union, flattened and deduplicated; `unknown` absorbs everything, `never` vanishes. */
export function union(members: TsType[]): TsType {
  const flat: TsType[] = [];
  const seen = new Set<string>();
  for (const m of members) {
    for (const inner of m.kind === 'union' ? m.members : [m]) {
      if (inner.kind === 'keyword' && inner.name === 'unknown') return UNKNOWN;
      if (inner.kind === 'keyword' && inner.name === 'never') continue;
      const k = key(inner);
      if (k !== '') {
        if (seen.has(k)) continue;
        seen.add(k);
      }
      flat.push(inner);
    }
  }
  if (flat.length === 0) return NEVER;
  if (flat.length === 1) return flat[0] as TsType;
  // A literal next to its own primitive adds nothing ("a" | string is string).
  const primitives = new Set(flat.filter((m) => m.kind === 'keyword').map((m) => (m as { name: string }).name));
  const kept = flat.filter((m) => !(m.kind === 'literal' && m.value !== null && primitives.has(typeof m.value)));
  return kept.length === 1 ? (kept[0] as TsType) : { kind: 'union', members: kept };
}

/** An intersection, flattened; `unknown` members vanish, `never` absorbs. */
export function intersection(members: TsType[]): TsType {
  const flat: TsType[] = [];
  for (const m of members) {
    for (const inner of m.kind === 'intersection' ? m.members : [m]) {
      if (inner.kind === 'keyword' && inner.name === 'unknown') continue;
      if (inner.kind === 'keyword' && inner.name === 'never') return NEVER;
      flat.push(inner);
    }
  }
  if (flat.length === 0) return UNKNOWN;
  if (flat.length === 1) return flat[0] as TsType;
  return { kind: 'intersection', members: flat };
}

/** Writes a JSDoc block for `doc`, escaping anything that could end the comment early. */
export function writeDoc(writer: CodeBlockWriter, doc: Doc | undefined): void {
  if (!doc || (!doc.description && doc.tags.length === 0)) return;
  const lines: string[] = [];
  if (doc.description) lines.push(...doc.description.split('\n'));
  for (const tag of doc.tags) {
    const text = tag.text ? ` ${tag.text}` : '';
    const [first = '', ...rest] = text.split('\n');
    lines.push(`@${tag.tagName}${first}`, ...rest);
  }
  if (lines.length === 1 && !lines[0]?.includes('*/')) {
    writer.writeLine(`/** ${lines[0]} */`);
    return;
  }
  writer.writeLine('/**');
  for (const line of lines) writer.writeLine(line === '' ? ' *' : ` * ${line}`);
  writer.writeLine(' */');
}

function needsParens(t: TsType, context: 'array' | 'intersection'): boolean {
  if (t.kind === 'union') return true;
  return context === 'array' && t.kind === 'intersection';
}

/** Writes `t` as TypeScript type text. */
export function writeType(writer: CodeBlockWriter, t: TsType): void {
  switch (t.kind) {
    case 'keyword':
      writer.write(t.name);
      return;
    case 'literal':
      writer.write(JSON.stringify(t.value));
      return;
    case 'ref':
      writer.write(t.name);
      return;
    case 'array':
      if (needsParens(t.element, 'array')) {
        writer.write('(');
        writeType(writer, t.element);
        writer.write(')[]');
      } else {
        writeType(writer, t.element);
        writer.write('[]');
      }
      return;
    case 'tuple': {
      writer.write('[');
      t.elements.forEach((e, i) => {
        if (i > 0) writer.write(', ');
        writeType(writer, e.type);
        if (e.optional) writer.write('?');
      });
      if (t.rest) {
        if (t.elements.length > 0) writer.write(', ');
        writer.write('...');
        writeType(writer, { kind: 'array', element: t.rest });
      }
      writer.write(']');
      return;
    }
    case 'object':
      writeObjectBody(writer, t.properties, t.index);
      return;
    case 'union':
      t.members.forEach((m, i) => {
        if (i > 0) writer.write(' | ');
        writeType(writer, m);
      });
      return;
    case 'intersection':
      t.members.forEach((m, i) => {
        if (i > 0) writer.write(' & ');
        if (needsParens(m, 'intersection')) {
          writer.write('(');
          writeType(writer, m);
          writer.write(')');
        } else {
          writeType(writer, m);
        }
      });
      return;
  }
}

/** Writes `{ ... }` with one documented member a line. */
export function writeObjectBody(writer: CodeBlockWriter, properties: PropertyType[], index: TsType | undefined): void {
  if (properties.length === 0 && !index) {
    writer.write('{}');
    return;
  }
  writer.write('{').newLine();
  writer.indent(() => writeMembers(writer, properties, index));
  writer.write('}');
}

export function writeMembers(writer: CodeBlockWriter, properties: PropertyType[], index: TsType | undefined): void {
  for (const p of properties) {
    writeDoc(writer, p.doc);
    writer.write(`${propertyKey(p.name)}${p.optional ? '?' : ''}: `);
    writeType(writer, p.type);
    writer.write(';').newLine();
  }
  if (index) {
    writer.write('[key: string]: ');
    writeType(writer, index);
    writer.write(';').newLine();
  }
}
