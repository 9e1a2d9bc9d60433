// The declarations (dist/*.d.ts) built beside the tests: `npm test` builds the JS first (MCPX_BUILD=js), and with
// MCPX_TEST_DTS=build vitest's global setup (declarations-setup.ts) starts the declaration build (about 40 s on one
// core) while the tests run. Only the files that read dist/*.d.ts wait for it, through declarationsBuilt().
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const root = resolve(import.meta.dirname, '..', '..');

export interface DeclarationBuild {
  state: 'building' | 'built' | 'failed';
  pid: number;
  /** The build's output, for a failure. */
  log: string;
  code?: number | null;
}

/** Where the global setup keeps the state of this checkout's background declaration build. */
export const declarationStatusFile = join(
  tmpdir(),
  `mcpx-dts-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.json`,
);

export function readStatus(): DeclarationBuild | undefined {
  try {
    return JSON.parse(readFileSync(declarationStatusFile, 'utf8')) as DeclarationBuild;
  } catch {
    return undefined;
  }
}

export function alive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once dist/*.d.ts are there: at once after a full build, or when the background build ends. */
export async function declarationsBuilt(): Promise<void> {
  for (;;) {
    const status = readStatus();
    if (status === undefined || status.state === 'built') break;
    if (status.state === 'failed')
      throw new Error(`the declaration build (MCPX_BUILD=dts tsup) failed, exit ${status.code}:\n${status.log}`);
    if (!alive(status.pid))
      throw new Error(`the declaration build stopped unfinished (${declarationStatusFile}): build again (npx tsup)`);
    await sleep(250);
  }
  if (!existsSync(join(root, 'dist', 'index.d.ts')))
    throw new Error('dist/index.d.ts is missing: build first (npx tsup), or run the suite with npm test');
}
