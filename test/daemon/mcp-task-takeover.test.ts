/**
 * A daemon dies (SIGKILL) on a shared Redis store while a call the server made an MCP task works: the survivor that
 * takes its lapsed lease over follows the server's task (the fixtures run over HTTP in their own processes, so the
 * task outlives the dead daemon) and the result is there for `mcpx task result`; the tool ran once. Both eras.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, fleetDaemon, post, until, type FleetDaemon } from '../helpers/daemon-fleet.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { markerLines, startTaskFixtures, type TaskFixtures } from '../helpers/task-fixtures.js';

let redis: RedisServer | undefined;
let fixtures: TaskFixtures | undefined;
const dir = mkdtempSync(join(tmpdir(), 'mcpx-mcp-task-takeover-'));

beforeAll(async () => {
  [redis, fixtures] = await Promise.all([startRedis(), startTaskFixtures()]);
}, 60_000);

afterAll(async () => {
  fixtures?.stop();
  await redis?.stop();
});

interface TaskView {
  state: string;
  pid: number;
  result?: { content?: Array<{ text?: string }> };
}

describe.each(['tasks', 'modern'] as const)('an MCP task (%s) of a daemon killed on a shared store', (server) => {
  it('is followed by the survivor that takes the lease over, never called again', async () => {
    const env = { MCPX_LEASE_MS: '1000', MCPX_SESSION_ID: 'mcp-task-takeover' };
    const [a, b] = ['a', 'b'].map((n) => fleetDaemon(`${server}-${n}`, redis!.url, env, fixtures!.servers)) as [
      FleetDaemon,
      FleetDaemon,
    ];
    await Promise.all([a.start(), b.start()]);
    try {
      const marker = join(dir, `${server}.marker`);
      // The task asks first (the call stops with its tsk- id), then works 4 s after its answer: A dies meanwhile.
      const called = await a.fetch(`/v1/call/${server}/ask_task`, post({ topic: 'reef', after: 4000, marker }));
      expect(called.status).toBe(202);
      const { inputRequired } = (await called.json()) as { inputRequired: { task: string; questions: Array<{ id: string }> } };
      const accepted = await a.fetch(
        `/v1/elicit/${inputRequired.questions[0]!.id}/accept`,
        post({ content: { colour: 'blue' } }),
      );
      expect(accepted.status).toBe(200);
      // Passed on is not yet at the server: A dies once the server has the answer.
      await until('the server to have the answer', async () => (markerLines(marker, 'answered') === 1 ? true : undefined));
      await a.kill();

      const done = await until('the survivor to finish the task', async () => {
        const { task } = (await (await b.fetch(`/v1/tasks/${inputRequired.task}`)).json()) as { task: TaskView };
        return task.state === 'complete' || task.state === 'failed' ? task : undefined;
      });
      expect(done.state).toBe('complete');
      expect(done.pid).toBe(b.pid);
      const result = await cli(b, ['task', 'result', inputRequired.task, '--config', b.configPath]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('reef: accept blue');
      expect(markerLines(marker, 'started')).toBe(1);
    } catch (error) {
      console.log(a.log(), b.log());
      throw error;
    } finally {
      await Promise.all([a.kill(), b.stop()]);
    }
  }, 120_000);
});
