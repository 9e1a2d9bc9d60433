/** Reading one schema document: JSON pointers, `$anchor`s, and the named types that refer to themselves. */

export type Schema = Record<string, unknown> | boolean;

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The node a JSON pointer (`/a/0/b`) names in the document, or undefined. */
export function resolvePointer(root: Schema, pointer: string): unknown {
  let node: unknown = root;
  if (pointer === '') return node;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      node = /^(0|[1-9][0-9]*)$/.test(segment) ? node[Number(segment)] : undefined;
    } else if (isObject(node) && Object.hasOwn(node, segment)) {
      node = node[segment];
    } else {
      return undefined;
    }
  }
  return node;
}

/** Every `$anchor` in the document and the pointer to it (the first one wins), down to `maxDepth`. */
export function anchorsOf(root: Schema, maxDepth: number): Map<string, string> {
  const anchors = new Map<string, string>();
  const walk = (node: unknown, pointer: string, depth: number): void => {
    if (depth > maxDepth) return;
    if (Array.isArray(node)) {
      node.forEach((v, i) => walk(v, `${pointer}/${i}`, depth + 1));
      return;
    }
    if (!isObject(node)) return;
    if (typeof node.$anchor === 'string' && !anchors.has(node.$anchor)) anchors.set(node.$anchor, pointer);
    for (const [k, v] of Object.entries(node))
      if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples')
        walk(v, `${pointer}/${escapePointer(k)}`, depth + 1);
  };
  walk(root, '', 0);
  return anchors;
}

/** The names on a cycle of `edges` (references TypeScript cannot defer). */
export function cycleMembers(names: string[], edges: Map<string, Set<string>>): Set<string> {
  const inCycle = new Set<string>();
  const visiting = new Set<string>();
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (name: string): void => {
    if (done.has(name)) return;
    if (visiting.has(name)) {
      for (let i = stack.indexOf(name); i < stack.length; i += 1) inCycle.add(stack[i] as string);
      return;
    }
    visiting.add(name);
    stack.push(name);
    for (const next of edges.get(name) ?? []) visit(next);
    stack.pop();
    visiting.delete(name);
    done.add(name);
  };
  for (const name of names) visit(name);
  return inCycle;
}
