/**
 * Fails on an import circle between folders of src/ (type imports included: a folder that names another's types
 * depends on it). dpdm (lint:circles) sees circles between files; this sees the floors: client -> auth -> client
 * is a circle here even when no file-level one exists. Usage: node scripts/folder-circles.mjs [--graph]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');
// Static imports and re-exports, side-effect imports, and import() with a literal source.
const IMPORT = /\bfrom\s+['"](\.[^'"]+)['"]|\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)|^\s*import\s+['"](\.[^'"]+)['"]/gm;

/** The folder a file belongs to: src/<dir>, or src/surfaces/<dir>; undefined for a file loose in src/ or surfaces/. */
function folderOf(file) {
  const parts = relative(src, file).split('/');
  if (parts[0] === 'surfaces') return parts.length > 2 ? `surfaces/${parts[1]}` : undefined;
  return parts.length > 1 ? parts[0] : undefined;
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** folder -> folder it imports -> the first import that says so. */
const edges = new Map();
for (const file of sourceFiles(src)) {
  const from = folderOf(file);
  if (!from) continue;
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const to = folderOf(resolve(dirname(file), match[1] ?? match[2] ?? match[3]));
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const targets = edges.get(from);
    if (!targets.has(to)) targets.set(to, `${relative(src, file)} imports ${match[1] ?? match[2] ?? match[3]}`);
  }
}

/** A path of folders from `start` back to `goal`, or undefined. */
function pathBack(start, goal, seen = new Set()) {
  if (start === goal) return [goal];
  if (seen.has(start)) return undefined;
  seen.add(start);
  for (const next of edges.get(start)?.keys() ?? []) {
    const rest = pathBack(next, goal, seen);
    if (rest) return [start, ...rest];
  }
  return undefined;
}

if (process.argv.includes('--graph'))
  for (const [from, targets] of [...edges].sort()) console.log(`${from} -> ${[...targets.keys()].sort().join(', ')}`);

const circles = new Set();
for (const [from, targets] of edges)
  for (const [to] of targets) {
    const back = pathBack(to, from);
    if (!back) continue;
    const circle = [from, ...back];
    // One report per circle, whichever folder it starts from.
    const key = [...circle.slice(1)].sort().join(' ');
    if (circles.has(key)) continue;
    circles.add(key);
    console.error(`import circle between folders: ${circle.join(' -> ')}`);
    for (let i = 0; i < circle.length - 1; i++) console.error(`  ${edges.get(circle[i]).get(circle[i + 1])}`);
  }
if (circles.size > 0) process.exit(1);
console.log(`no import circle between the ${edges.size} folders of src/`);
