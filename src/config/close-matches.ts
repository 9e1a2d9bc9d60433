/**
 * "Did you mean ...?" for a mistyped server, tool, prompt or resource name: the known names closest to what was typed
 * (edit distance with transpositions, case ignored), plus names that contain it or that it contains.
 */

/** The known names close to `wanted`, best first; none when nothing is near enough to be a likely typo. */
export function closeMatches(wanted: string, known: readonly string[], limit = 3): string[] {
  const target = wanted.toLowerCase();
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of new Set(known)) {
    const candidate = name.toLowerCase();
    if (candidate === target) {
      scored.push({ name, score: 0 });
      continue;
    }
    const distance = editDistance(target, candidate);
    // A short name tolerates one slip, a longer one about a third of its length.
    const allowed = Math.max(1, Math.floor(Math.max(target.length, candidate.length) / 3));
    const contained = target.length >= 3 && (candidate.includes(target) || target.includes(candidate));
    if (distance <= allowed) scored.push({ name, score: distance });
    else if (contained) scored.push({ name, score: allowed + 1 });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((s) => s.name);
}

/** ` (did you mean a or b?)` or an empty string: ready to append to a sentence. */
export function didYouMean(wanted: string, known: readonly string[]): string {
  const matches = closeMatches(wanted, known);
  if (!matches.length) return '';
  const last = matches.pop()!;
  return `; did you mean ${matches.length ? `${matches.join(', ')} or ${last}` : last}?`;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps each cost 1. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
