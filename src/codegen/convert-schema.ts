/**
 * JSON Schema (2020-12, with draft-07 spellings) to the type model. Server schemas are untrusted input: a `$ref`
 * is followed only inside the same document (`#`, `#/...` pointers, `#anchor`), never to a file or a URL; depth,
 * node count, enum size and text length are bounded; whatever cannot be typed becomes `unknown` with a warning
 * that names the tool and the schema path. Nothing here throws on a schema.
 */
import { type Doc, type PropertyType, type TsType, NEVER, UNKNOWN, intersection, union } from './type-model.js';
import { typeName } from './names.js';
import { docText, jsonText } from './doc-text.js';
import { KNOWN, TYPE_NAMES, UNSUPPORTED } from './schema-keywords.js';
import { anchorsOf, cycleMembers, escapePointer, isObject, resolvePointer, type Schema } from './schema-document.js';

export interface CodegenWarning {
  server?: string;
  tool: string;
  /** Where in the tool's schemas, as a JSON pointer from the tool (`/inputSchema/properties/when`). */
  path: string;
  message: string;
}

export interface ConvertLimits {
  /** Deepest nesting of subschemas followed (default 40). */
  maxDepth: number;
  /** Most subschemas converted for one tool (default 20 000). */
  maxNodes: number;
  /** Most members of one enum written as literals (default 500); beyond that the base type is used. */
  maxEnum: number;
  /** Longest description kept in JSDoc, in characters (default 2 000). */
  maxDocLength: number;
}

export const DEFAULT_LIMITS: ConvertLimits = { maxDepth: 40, maxNodes: 20_000, maxEnum: 500, maxDocLength: 2_000 };

/** A named type the converter needs in the tool's namespace (`$defs` entries, the roots). */
export interface NamedType {
  name: string;
  type: TsType;
  doc?: Doc | undefined;
}

/** Converts one schema document (a tool's input or output schema), sharing a namespace with its sibling. */
export class SchemaConverter {
  private nodes = 0;
  private readonly refNames = new Map<string, string>();
  private readonly pending: Array<{ pointer: string; name: string }> = [];
  private anchors: Map<string, string> | undefined;
  /** Edges between named types through positions where TypeScript cannot defer (alias, union, intersection). */
  private readonly directEdges = new Map<string, Set<string>>();
  private current = '';

  constructor(
    private readonly root: Schema,
    private readonly rootName: string,
    private readonly rootPath: string,
    private readonly namespaceNames: Set<string>,
    private readonly warn: (path: string, message: string) => void,
    private readonly limits: ConvertLimits,
  ) {}

  /** Converts the root and every `$ref` target it reaches; returns the named types in a stable order. */
  run(): NamedType[] {
    const named: NamedType[] = [];
    this.current = this.rootName;
    named.push({ name: this.rootName, type: this.convert(this.root, '', 0, true), doc: this.doc(this.root) });
    this.refNames.set('', this.rootName);
    while (this.pending.length > 0) {
      const next = this.pending.shift() as { pointer: string; name: string };
      const target = this.resolvePointer(next.pointer) as Schema;
      this.current = next.name;
      named.push({ name: next.name, type: this.convert(target, next.pointer, 0, true), doc: this.doc(target) });
    }
    this.breakAliasCycles(named);
    return named;
  }

  private breakAliasCycles(named: NamedType[]): void {
    const inCycle = cycleMembers(
      named.map((n) => n.name),
      this.directEdges,
    );
    for (const n of named) {
      if (inCycle.has(n.name)) {
        n.type = UNKNOWN;
        this.warn('', `type ${n.name} refers to itself with no object or array in between; typed as unknown`);
      }
    }
  }

  private resolvePointer(pointer: string): unknown {
    return resolvePointer(this.root, pointer);
  }

  private findAnchor(anchor: string): string | undefined {
    this.anchors ??= anchorsOf(this.root, this.limits.maxDepth);
    return this.anchors.get(anchor);
  }

  private nameFor(pointer: string): string {
    const existing = this.refNames.get(pointer);
    if (existing) return existing;
    const segments = pointer.split('/');
    const last = (segments[segments.length - 1] ?? 'Def').replace(/~1/g, '/').replace(/~0/g, '~');
    const parent = segments[segments.length - 2];
    const base =
      parent === '$defs' || parent === 'definitions'
        ? typeName(last)
        : typeName(`${this.rootName} ${/^[0-9]+$/.test(last) ? `${segments[segments.length - 2] ?? ''} ${last}` : last}`);
    let name = base;
    for (let n = 2; this.namespaceNames.has(name); n += 1) name = `${base}${n}`;
    this.namespaceNames.add(name);
    this.refNames.set(pointer, name);
    this.pending.push({ pointer, name });
    return name;
  }

  private ref(ref: string, path: string, direct: boolean): TsType {
    let pointer: string | undefined;
    if (ref === '#' || ref === '') pointer = '';
    else if (ref.startsWith('#/')) {
      try {
        pointer = decodeURIComponent(ref.slice(1));
      } catch {
        pointer = undefined;
      }
    } else if (ref.startsWith('#')) {
      pointer = this.findAnchor(ref.slice(1));
      if (pointer === undefined) {
        this.warn(path, `$ref "${docText(ref, 200)}" names no $anchor in this schema; typed as unknown`);
        return UNKNOWN;
      }
    } else {
      this.warn(
        path,
        `$ref "${docText(ref, 200)}" points outside this schema (a file or URL is never fetched); typed as unknown`,
      );
      return UNKNOWN;
    }
    if (pointer === undefined || this.resolvePointer(pointer) === undefined) {
      this.warn(path, `$ref "${docText(ref, 200)}" points at nothing in this schema; typed as unknown`);
      return UNKNOWN;
    }
    const target = this.resolvePointer(pointer);
    if (typeof target !== 'boolean' && !isObject(target)) {
      this.warn(path, `$ref "${docText(ref, 200)}" points at something that is not a schema; typed as unknown`);
      return UNKNOWN;
    }
    const name = pointer === '' ? this.rootName : this.nameFor(pointer);
    if (direct) {
      let edges = this.directEdges.get(this.current);
      if (!edges) this.directEdges.set(this.current, (edges = new Set()));
      edges.add(name);
    }
    return { kind: 'ref', name };
  }

  /** JSDoc for a schema: description (or title), default, format, examples, deprecation. */
  doc(schema: unknown): Doc | undefined {
    if (!isObject(schema)) return undefined;
    const max = this.limits.maxDocLength;
    const tags: Doc['tags'] = [];
    const description =
      typeof schema.description === 'string' ? schema.description : typeof schema.title === 'string' ? schema.title : undefined;
    if (typeof schema.format === 'string') tags.push({ tagName: 'format', text: docText(schema.format, 200) });
    if (schema.default !== undefined) {
      const text = jsonText(schema.default, 500);
      if (text !== undefined) tags.push({ tagName: 'default', text });
    }
    const examples = Array.isArray(schema.examples) ? schema.examples : schema.example !== undefined ? [schema.example] : [];
    for (const example of examples.slice(0, 3)) {
      const text = jsonText(example, 500);
      if (text !== undefined) tags.push({ tagName: 'example', text });
    }
    if (schema.deprecated === true) tags.push({ tagName: 'deprecated' });
    const text = description === undefined ? '' : docText(description, max);
    if (text === '' && tags.length === 0) return undefined;
    return text === '' ? { tags } : { description: text, tags };
  }

  /**
   * Converts one subschema. `direct` is true where a reference could not be deferred by TypeScript (the named
   * type's own top level, union or intersection members), used to find alias cycles.
   */
  convert(schema: unknown, path: string, depth: number, direct: boolean): TsType {
    if (schema === true) return UNKNOWN;
    if (schema === false) return NEVER;
    if (!isObject(schema)) {
      this.warn(path, 'is not a schema (expected an object or a boolean); typed as unknown');
      return UNKNOWN;
    }
    this.nodes += 1;
    if (this.nodes === this.limits.maxNodes + 1)
      this.warn(path, `schema has more than ${this.limits.maxNodes} subschemas; the rest are typed as unknown`);
    if (this.nodes > this.limits.maxNodes) return UNKNOWN;
    if (depth > this.limits.maxDepth) {
      this.warn(path, `nested deeper than ${this.limits.maxDepth} levels; typed as unknown`);
      return UNKNOWN;
    }
    // One pass over the keywords: refuse what cannot be typed, note what is not a keyword at all.
    const strange: string[] = [];
    for (const k of Object.keys(schema)) {
      if (KNOWN.has(k)) continue;
      if (UNSUPPORTED.has(k)) {
        this.warn(`${path}/${k}`, `keyword "${k}" is not supported by the type generator; typed as unknown`);
        return UNKNOWN;
      }
      if (!k.startsWith('x-')) strange.push(k);
    }

    const parts: TsType[] = [];
    if (typeof schema.$ref === 'string') parts.push(this.ref(schema.$ref, `${path}/$ref`, direct));
    else if (schema.$ref !== undefined) this.warn(`${path}/$ref`, '$ref is not a string; ignored');

    const own = this.ownType(schema, path, depth);
    if (own) parts.push(own);

    if (Array.isArray(schema.allOf)) {
      parts.push(intersection(schema.allOf.map((s, i) => this.convert(s, `${path}/allOf/${i}`, depth + 1, direct))));
    } else if (schema.allOf !== undefined) {
      this.warn(`${path}/allOf`, 'allOf is not an array; ignored');
    }
    for (const k of ['anyOf', 'oneOf'] as const) {
      const list = schema[k];
      if (Array.isArray(list)) {
        parts.push(union(list.map((s, i) => this.convert(s, `${path}/${k}/${i}`, depth + 1, direct))));
      } else if (list !== undefined) {
        this.warn(`${path}/${k}`, `${k} is not an array; ignored`);
      }
    }

    for (const k of strange) this.warn(`${path}/${escapePointer(k)}`, `unknown keyword "${docText(k, 100)}" ignored`);

    let result = parts.length === 0 ? UNKNOWN : intersection(parts);
    if (schema.nullable === true && !(result.kind === 'keyword' && result.name === 'unknown'))
      result = union([result, { kind: 'keyword', name: 'null' }]);
    return result;
  }

  /** The type from `type`, `enum`, `const`, object and array keywords (without $ref and combinators). */
  private ownType(schema: Record<string, unknown>, path: string, depth: number): TsType | undefined {
    if (Object.hasOwn(schema, 'const')) return this.literal(schema.const, `${path}/const`);
    if (Array.isArray(schema.enum)) {
      if (schema.enum.length > this.limits.maxEnum) {
        this.warn(
          `${path}/enum`,
          `enum has ${schema.enum.length} members (more than ${this.limits.maxEnum}); typed by its base type`,
        );
      } else {
        return union(schema.enum.map((v, i) => this.literal(v, `${path}/enum/${i}`)));
      }
    }

    let types: string[] | undefined;
    if (typeof schema.type === 'string') types = [schema.type];
    else if (Array.isArray(schema.type)) types = schema.type.filter((t): t is string => typeof t === 'string');
    if (types) {
      const unknownTypes = types.filter((t) => !TYPE_NAMES.has(t));
      if (unknownTypes.length > 0) this.warn(`${path}/type`, `unknown type "${docText(unknownTypes.join(', '), 100)}" ignored`);
      types = types.filter((t) => TYPE_NAMES.has(t));
      if (types.length === 0) return UNKNOWN;
    } else {
      // No `type`: infer from the keywords present, as most schemas in the wild mean it.
      const inferred: string[] = [];
      if (
        schema.properties !== undefined ||
        schema.additionalProperties !== undefined ||
        schema.patternProperties !== undefined ||
        Array.isArray(schema.required)
      )
        inferred.push('object');
      if (schema.items !== undefined || schema.prefixItems !== undefined) inferred.push('array');
      if (inferred.length === 0) return undefined;
      types = inferred;
    }
    const members = types.map((t) => {
      switch (t) {
        case 'string':
          return { kind: 'keyword', name: 'string' } as TsType;
        case 'number':
        case 'integer':
          return { kind: 'keyword', name: 'number' } as TsType;
        case 'boolean':
          return { kind: 'keyword', name: 'boolean' } as TsType;
        case 'null':
          return { kind: 'keyword', name: 'null' } as TsType;
        case 'object':
          return this.objectType(schema, path, depth);
        default:
          return this.arrayType(schema, path, depth);
      }
    });
    return union(members);
  }

  private literal(value: unknown, path: string): TsType {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return { kind: 'literal', value };
    if (typeof value === 'number' && Number.isFinite(value)) return { kind: 'literal', value };
    if (Array.isArray(value)) {
      return { kind: 'tuple', elements: value.map((v, i) => ({ type: this.literal(v, `${path}/${i}`), optional: false })) };
    }
    if (isObject(value)) {
      return {
        kind: 'object',
        properties: Object.entries(value).map(([k, v]) => ({
          name: k,
          type: this.literal(v, `${path}/${escapePointer(k)}`),
          optional: false,
        })),
      };
    }
    this.warn(path, 'a value that JSON cannot hold; typed as unknown');
    return UNKNOWN;
  }

  private objectType(schema: Record<string, unknown>, path: string, depth: number): TsType {
    const required = new Set(
      Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [],
    );
    const properties: PropertyType[] = [];
    if (isObject(schema.properties)) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        const type = this.convert(sub, `${path}/properties/${escapePointer(name)}`, depth + 1, false);
        const doc = this.doc(sub);
        properties.push(doc ? { name, type, optional: !required.has(name), doc } : { name, type, optional: !required.has(name) });
      }
    } else if (schema.properties !== undefined) {
      this.warn(`${path}/properties`, 'properties is not an object; ignored');
    }
    // Required names with no schema of their own still must be present.
    for (const name of required) {
      if (!properties.some((p) => p.name === name) && (!isObject(schema.properties) || !Object.hasOwn(schema.properties, name))) {
        properties.push({ name, type: UNKNOWN, optional: false });
      }
    }

    const extra: TsType[] = [];
    let closed = false;
    const additional = schema.additionalProperties;
    if (additional === false) closed = true;
    else if (additional === true) extra.push(UNKNOWN);
    else if (isObject(additional)) extra.push(this.convert(additional, `${path}/additionalProperties`, depth + 1, false));
    if (isObject(schema.patternProperties)) {
      for (const [pattern, sub] of Object.entries(schema.patternProperties)) {
        extra.push(this.convert(sub, `${path}/patternProperties/${escapePointer(pattern)}`, depth + 1, false));
      }
    }

    let index: TsType | undefined;
    if (extra.length > 0) {
      // An index signature must admit every declared property's type too.
      // (an optional one brings `undefined` unless the project sets exactOptionalPropertyTypes).
      const optional: TsType[] = properties.some((p) => p.optional) ? [{ kind: 'keyword', name: 'undefined' }] : [];
      index = union([...extra, ...properties.map((p) => p.type), ...optional]);
    } else if (properties.length === 0) {
      // `{}` in TypeScript means "anything but null": say what the schema says instead.
      index = closed ? NEVER : UNKNOWN;
    }
    return index ? { kind: 'object', properties, index } : { kind: 'object', properties };
  }

  private arrayType(schema: Record<string, unknown>, path: string, depth: number): TsType {
    const tupleItems = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : undefined;
    if (tupleItems) {
      const key = Array.isArray(schema.prefixItems) ? 'prefixItems' : 'items';
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : tupleItems.length;
      const elements = tupleItems.map((s, i) => ({
        type: this.convert(s, `${path}/${key}/${i}`, depth + 1, false),
        optional: i >= minItems,
      }));
      // 2020-12: `items` after `prefixItems` types the rest; draft-07: `additionalItems` does.
      const restSchema = key === 'prefixItems' ? schema.items : schema.additionalItems;
      if (restSchema !== undefined && restSchema !== false) {
        const rest = this.convert(restSchema, `${path}/${key === 'prefixItems' ? 'items' : 'additionalItems'}`, depth + 1, false);
        return { kind: 'tuple', elements, rest };
      }
      return { kind: 'tuple', elements };
    }
    if (schema.items === undefined) return { kind: 'array', element: UNKNOWN };
    return { kind: 'array', element: this.convert(schema.items, `${path}/items`, depth + 1, false) };
  }
}
