// vitest global setup: with MCPX_TEST_DTS=build (npm test), builds the declarations (MCPX_BUILD=dts tsup) in the
// background while the tests run, so the single-threaded declaration build uses a core the tests leave idle.
// Teardown waits for it. A failed build fails the files that wait on it (declarations.ts), which read its output.
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, declarationStatusFile, readStatus, root, type DeclarationBuild } from './declarations.js';

export default function setup(): (() => Promise<void>) | undefined {
  if (process.env.MCPX_TEST_DTS !== 'build') {
    // What an earlier run left (killed before its teardown) is not this run's: dist/ is read as it is. A build
    // still running (another run of this checkout) is waited for.
    const left = readStatus();
    if (left && !(left.state === 'building' && alive(left.pid))) rmSync(declarationStatusFile, { force: true });
    return undefined;
  }
  const child = spawn(process.execPath, [join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js'), '--silent'], {
    cwd: root,
    env: { ...process.env, MCPX_BUILD: 'dts' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const record = (status: DeclarationBuild): void => writeFileSync(declarationStatusFile, JSON.stringify(status));
  record({ state: 'building', pid: child.pid ?? 0, log: '' }); // no pid: the spawn failed, and 'close' records it
  const finished = new Promise<number | null>((done) => {
    child.on('error', (error) => ((log += String(error)), done(null)));
    child.on('close', done);
  }).then((code) => {
    record({ state: code === 0 ? 'built' : 'failed', pid: child.pid ?? 0, log, code });
    return code;
  });
  return async () => {
    const code = await finished;
    rmSync(declarationStatusFile, { force: true });
    if (code !== 0) throw new Error(`the declaration build (MCPX_BUILD=dts tsup) failed, exit ${code}:\n${log}`);
  };
}
