/**
 * The MCP task fixtures (test/fixtures/servers/tasks.mjs, 2025-11-25; tasks-modern.mjs, 2026-07-28) over HTTP, each
 * in its own process: a task they keep outlives any daemon that started it, so another one can follow it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const fixtures = resolve(import.meta.dirname, '..', 'fixtures', 'servers');

export interface TaskFixtures {
  /** `mcpServers` entries: `tasks` (2025-11-25) and `modern` (2026-07-28). */
  servers: { tasks: { url: string }; modern: { url: string } };
  stop(): void;
}

export async function startTaskFixtures(): Promise<TaskFixtures> {
  const children: ChildProcess[] = [];
  const start = (script: string): Promise<string> => {
    const child = spawn(process.execPath, [join(fixtures, script), '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    return new Promise((resolveUrl, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n').find((l) => l.startsWith('http://'));
        if (line) resolveUrl(line.trim());
      });
      child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before printing its URL`)));
    });
  };
  const [tasks, modern] = await Promise.all([start('tasks.mjs'), start('tasks-modern.mjs')]);
  return {
    servers: { tasks: { url: tasks }, modern: { url: modern } },
    stop: () => children.forEach((child) => child.kill()),
  };
}

/** How many of ask_task's marker lines say `what` ("started": the tool ran; "answered": the server has the answer). */
export function markerLines(marker: string, what: 'started' | 'answered'): number {
  if (!existsSync(marker)) return 0;
  return readFileSync(marker, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${what} `)).length;
}
