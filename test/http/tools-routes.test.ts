import { afterEach, describe, expect, it } from 'vitest';
import { createBroker } from '../../src/broker/index.js';
import { createTaskRunner, type TaskRunner } from '../../src/tasks/runner.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import { createApp } from '../../src/surfaces/http/app.js';
import type { DaemonCore } from '../../src/surfaces/daemon/daemon-core.js';
import { fixtureDaemonCore } from '../helpers/fixture-daemon-core.js';
import { fixtureMcpx } from '../tasks/helpers.js';

describe('tool listing routes', () => {
  let core: DaemonCore | undefined;
  let runner: TaskRunner | undefined;
  afterEach(async () => {
    await core?.close();
    await runner?.close();
    core = undefined;
    runner = undefined;
  });

  async function startCore(): Promise<{ app: ReturnType<DaemonCore['app']>; opened: string[] }> {
    const opened: string[] = [];
    core = (await fixtureDaemonCore({ opened, holder: 'tools-test' })).core;
    return { app: core.app(), opened };
  }

  it("lists the configured servers and a server's real tools over one pooled instance", async () => {
    const { app, opened } = await startCore();
    const servers = await app.request('/v1/servers');
    expect(servers.status).toBe(200);
    expect(((await servers.json()) as { servers: string[] }).servers.sort()).toEqual(['legacy', 'modern']);

    const first = await app.request('/v1/servers/modern/tools');
    expect(first.status).toBe(200);
    const body = (await first.json()) as { server: string; tools: Array<{ name: string; inputSchema: { type: string } }> };
    expect(body.server).toBe('modern');
    expect(body.tools.map((t) => t.name)).toContain('no_ask');
    expect(body.tools.every((t) => t.inputSchema.type === 'object')).toBe(true);

    // The direct listing of the same fixture gives the same tools, schemas untouched.
    const direct = await fixtureMcpx(async () => undefined);
    try {
      expect(body.tools).toEqual(JSON.parse(JSON.stringify(await direct.listTools('modern'))));
    } finally {
      await direct.closeFixtures();
    }

    expect((await app.request('/v1/servers/legacy/tools')).status).toBe(200);
    // A call without a session goes to the same instance the listings warmed.
    const call = await app.request('/v1/call/modern/no_ask', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"x"}',
    });
    expect(call.status).toBe(200);
    expect(opened).toEqual(['default']);
  });

  it('answers 404 SERVER_NOT_FOUND for a server not in the config', async () => {
    const { app } = await startCore();
    const response = await app.request('/v1/servers/nope/tools');
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('SERVER_NOT_FOUND');
    expect(body.error.message).toContain('nope');
  });

  it('describes both routes in /openapi.json', async () => {
    const { app } = await startCore();
    const doc = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.paths['/v1/servers']?.get?.operationId).toBe('listServers');
    expect(doc.paths['/v1/servers/{server}/tools']?.get?.operationId).toBe('listTools');
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Tool', 'ToolList', 'ServerList']));
  });

  it('answers 503 when the app has no catalog', async () => {
    const broker = createBroker({ allowAnySession: true });
    runner = createTaskRunner({
      broker,
      store: createTaskStore(broker.store.keyv),
      host: () => Promise.reject(new Error('no host in this test')),
    });
    const app = createApp({ broker, tasks: runner, info: { pid: 1, version: 'test', startedAt: 0 }, defaultSession: 's' });
    const response = await app.request('/v1/servers/modern/tools');
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('DAEMON_UNAVAILABLE');
  });
});
