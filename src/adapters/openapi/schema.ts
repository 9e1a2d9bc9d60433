/**
 * An OpenAPI schema as a self-contained JSON Schema: local `$ref`s inlined, a cycle cut where it closes (with a
 * warning), OpenAPI 3.0's `nullable` turned into a type union, and a node budget so a huge or alias-bombed
 * document cannot make one tool's schema explode.
 */

/** Nodes one inlined schema may have; past it the rest is left open (`{}`) and a warning says so. */
export const MAX_SCHEMA_NODES = 5_000;
const MAX_DEPTH = 64;

export interface Inliner {
  /** A copy of `schema` with local refs inlined; `where` names the place in warnings. */
  inline(schema: unknown, where: string): Record<string, unknown>;
  /** Follows a local `$ref` (for parameters, request bodies, responses); undefined when it does not resolve. */
  deref<T = Record<string, unknown>>(value: unknown): T | undefined;
}

export function createInliner(doc: Record<string, unknown>, warn: (message: string) => void): Inliner {
  const warnedCycles = new Set<string>();
  const pointer = (ref: string): unknown => {
    if (!ref.startsWith('#')) return undefined;
    let node: unknown = doc;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!node || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return node;
  };

  const deref = <T>(value: unknown): T | undefined => {
    let node = value;
    for (
      let hops = 0;
      hops < 16 && node && typeof node === 'object' && typeof (node as { $ref?: unknown }).$ref === 'string';
      hops++
    ) {
      node = pointer((node as { $ref: string }).$ref);
    }
    return node && typeof node === 'object' && !(node as { $ref?: unknown }).$ref ? (node as T) : undefined;
  };

  const inline = (schema: unknown, where: string): Record<string, unknown> => {
    let nodes = 0;
    let cut = false;
    const visit = (node: unknown, refs: string[], depth: number): unknown => {
      if (++nodes > MAX_SCHEMA_NODES || depth > MAX_DEPTH) {
        cut = true;
        return {};
      }
      if (Array.isArray(node)) return node.map((item) => visit(item, refs, depth + 1));
      if (!node || typeof node !== 'object') return node;
      const record = node as Record<string, unknown>;
      if (typeof record.$ref === 'string') {
        const ref = record.$ref;
        const { $ref: _ref, ...siblings } = record;
        if (refs.includes(ref)) {
          if (!warnedCycles.has(ref)) {
            warnedCycles.add(ref);
            warn(`${where}: ${ref} refers to itself (a cycle); the inner occurrence is left open`);
          }
          return { description: `(recursive ${ref.split('/').pop()}: not expanded)` };
        }
        const target = pointer(ref);
        if (target === undefined) {
          warn(`${where}: ${ref} does not resolve in the document; left open`);
          return siblings;
        }
        const resolved = visit(target, [...refs, ref], depth + 1);
        return resolved && typeof resolved === 'object' && !Array.isArray(resolved)
          ? { ...(resolved as object), ...(visit(siblings, refs, depth + 1) as object) }
          : resolved;
      }
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(record)) {
        // Example values and vendor extensions are not schema: kept out of tool schemas (and out of the budget).
        if (key === 'example' || key === 'examples' || key === 'xml' || key === 'discriminator' || key.startsWith('x-')) continue;
        out[key] =
          key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions'
            ? visitMap(value, refs, depth)
            : visit(value, refs, depth + 1);
      }
      if (out.nullable === true) {
        delete out.nullable;
        if (typeof out.type === 'string') out.type = [out.type, 'null'];
      } else if (out.nullable !== undefined) delete out.nullable;
      return out;
    };
    const visitMap = (value: unknown, refs: string[], depth: number): unknown => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) out[key] = visit(inner, refs, depth + 1);
      return out;
    };
    const result = visit(schema ?? {}, [], 0);
    if (cut)
      warn(`${where}: the schema is larger than ${MAX_SCHEMA_NODES} nodes or ${MAX_DEPTH} levels deep; the rest is left open`);
    return result && typeof result === 'object' && !Array.isArray(result) ? (result as Record<string, unknown>) : {};
  };

  return { inline, deref };
}
