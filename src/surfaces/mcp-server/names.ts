/**
 * Tool names every major host accepts (`^[a-zA-Z0-9_-]{1,64}$`: Anthropic's and OpenAI's APIs refuse dots):
 * `server__tool`, or the bare tool name when one server is served. Names are stable (the same config gives the
 * same names) and collision-safe: a name that would clash, or had to be cut or cleaned, ends in a short hash of
 * the original pair.
 */
import { createHash } from 'node:crypto';

export const HOST_SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;

export interface ToolRef {
  server: string;
  tool: string;
}

/** Names mcpx serves itself; an upstream tool never takes one of them. */
export type Reserved = ReadonlySet<string>;

const clean = (text: string): string => text.replace(/[^a-zA-Z0-9_-]/g, '_');

function hashOf(ref: ToolRef): string {
  return createHash('sha256').update(`${ref.server}\u0000${ref.tool}`).digest('hex').slice(0, 8);
}

function withHash(base: string, ref: ToolRef): string {
  const suffix = `_${hashOf(ref)}`;
  return `${base.slice(0, MAX - suffix.length)}${suffix}`;
}

/**
 * Assigns each upstream tool its served name. `prefixed`: `server__tool` (several servers); otherwise the bare
 * tool name. Deterministic: sorted by server then tool before names are handed out.
 */
export function assignNames(refs: ToolRef[], options: { prefixed: boolean; reserved?: Reserved }): Map<string, ToolRef> {
  const reserved = options.reserved ?? new Set<string>();
  const wanted = refs
    .map((ref) => {
      const raw = options.prefixed ? `${ref.server}__${ref.tool}` : ref.tool;
      const base = clean(raw);
      // Cleaned or cut: the plain form no longer says exactly which tool it is, so it carries the hash.
      const exact = base === raw && base.length <= MAX && base.length > 0;
      return { ref, base: base || 'tool', exact };
    })
    .sort((a, b) => a.ref.server.localeCompare(b.ref.server) || a.ref.tool.localeCompare(b.ref.tool));
  const counts = new Map<string, number>();
  for (const w of wanted) if (w.exact) counts.set(w.base, (counts.get(w.base) ?? 0) + 1);
  const out = new Map<string, ToolRef>();
  for (const w of wanted) {
    const clash = !w.exact || (counts.get(w.base) ?? 0) > 1 || reserved.has(w.base);
    let name = clash ? withHash(w.base, w.ref) : w.base;
    // Two different pairs hashing alike within 32 bits is vanishingly rare; still never hand out one name twice.
    for (let n = 2; out.has(name) || reserved.has(name); n++) name = withHash(`${w.base}_${n}`, w.ref);
    out.set(name, w.ref);
  }
  return out;
}
