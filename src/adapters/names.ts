/**
 * Tool names an adapter gives: what the service calls an operation, made safe for every host (the
 * `^[A-Za-z0-9_-]{1,64}$` that model APIs accept) and unique within the adapter. The same document always gives
 * the same names: renames follow document order, and each one is reported.
 */
import { createHash } from 'node:crypto';

const MAX_NAME = 64;

/** `get notes/{id}` -> `get_notes_id`; long names keep a hash of the whole so two never meet after cutting. */
export function toolName(raw: string): string {
  let name = raw
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
  if (!name) name = 'op';
  if (name.length > MAX_NAME)
    name = `${name.slice(0, MAX_NAME - 9)}_${createHash('sha256').update(raw).digest('hex').slice(0, 8)}`;
  return name;
}

/** Hands out unique names: a taken one gets `_2`, `_3`... */
export function createNamer(warn: (message: string) => void): (raw: string, what: string) => string {
  const taken = new Map<string, string>();
  return (raw, what) => {
    const base = toolName(raw);
    if (base !== raw) warn(`${what}: "${raw}" is not a tool name; named "${base}"`);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
    }
    if (name !== base) warn(`${what}: the name "${base}" is taken by ${taken.get(base)}; named "${name}"`);
    taken.set(name, what);
    return name;
  };
}
