/**
 * The serve core keeps a finished call's last stop only where someone may ask for it again: a call that asked
 * (its task id went to the client, for mcpx_call_result or a retry). A call that finished without asking is
 * read once by the request that made it, so a serve answering many plain calls does not hold their results.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServeCore, type ServeCore } from '../../src/surfaces/mcp-server/core.js';
import { fixtureEcho, stdioFixture } from '../helpers/fixture-servers.js';

let core: ServeCore | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

async function openCore(): Promise<ServeCore> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-serve-core-'));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: { fx: stdioFixture('dual-era') } }));
  return createServeCore({
    env: { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state') },
    cwd: dir,
    configPath,
    version: 'test',
    reserved: new Set(),
  });
}

describe('mcpx serve core: finished calls', () => {
  it('keeps no stop of a call that finished without asking, and keeps the last stop of one that asked', async () => {
    core = await openCore();
    const plain = await core.call(core.defaultSession, { server: 'fx', tool: 'no_ask' }, {});
    expect(plain.step.status).toBe('complete');
    expect(core.latestStop(plain.step.task.id)).toBeUndefined();

    const asked = await core.call(core.defaultSession, { server: 'fx', tool: 'ask_confirm' }, {});
    expect(asked.step.status).toBe('input-required');
    const [question] = asked.step.task.waitingOn;
    await core.broker.respond({ id: question!, action: 'accept', content: { confirm: true }, by: 'mcp' });
    const done = await core.nextStop(asked.step.task.id, asked.seq);
    if (done.step.status !== 'complete') throw new Error(`expected the call to complete, got ${done.step.status}`);
    expect(fixtureEcho(done.step.result).received.confirm).toEqual({
      action: 'accept',
      content: { confirm: true },
    });
    // Its id went to the client: mcpx_call_result may ask for it.
    expect(core.latestStop(asked.step.task.id)).toBe(done);
  });
});
