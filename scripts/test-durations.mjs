// Rewrites test/durations.json, the order a fresh clone runs the test files in (test/helpers/longest-first.ts),
// from vitest's cache of each file's last wall time. Run it after a whole `npm test` on a quiet machine.
import { readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const cacheRoot = 'node_modules/.vite/vitest';
const caches = existsSync(cacheRoot)
  ? readdirSync(cacheRoot)
      .map((dir) => join(cacheRoot, dir, 'results.json'))
      .filter((file) => existsSync(file))
  : [];
if (caches.length === 0) {
  console.error(`no vitest results under ${cacheRoot}: run \`npm test\` first`);
  process.exit(1);
}
const newest = caches.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
const { results } = JSON.parse(readFileSync(newest, 'utf8'));
const durations = results
  .filter(([key]) => existsSync(key.slice(key.indexOf(':') + 1)))
  .map(([key, { duration }]) => [key, Math.round(duration)])
  .sort((a, b) => b[1] - a[1]);
writeFileSync('test/durations.json', JSON.stringify(Object.fromEntries(durations), null, 2) + '\n');
console.log(`test/durations.json: ${durations.length} files from ${newest}`);
