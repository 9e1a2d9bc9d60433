/** Files shipped in mcpx's own package (skills/, docs/), found from wherever this code runs: src/ or dist/. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The absolute path of `relative` inside the mcpx package, or undefined when the package does not ship it. */
export function packageFile(relative: string, from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'mcpx') return existsSync(join(dir, relative)) ? join(dir, relative) : undefined;
    } catch {
      // no package.json here: look one level up
    }
    if (dirname(dir) === dir) return undefined;
  }
}
