/**
 * startNotifications over a real broker (memory store, manual clock) and a real command sink: a question answered
 * at once (as a policy rule answers) announces nothing as opened; one that expires is told as expired; one left to
 * wait is told as opened however soon another process answers it; a send still running when the process stops
 * is cut short and its failure recorded before stop returns.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBroker, createManualClock } from '../../src/broker/index.js';
import { parseConfig } from '../../src/config/index.js';
import { parsePolicy } from '../../src/policy/index.js';
import { openSecretStore } from '../../src/secrets/index.js';
import { startNotifications } from '../../src/surfaces/notify/index.js';

function commandSink(on: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-notify-start-'));
  const script = join(dir, 'sink.mjs');
  writeFileSync(
    script,
    `import { readFileSync, writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(dir)} + '/' + process.pid + '.json', readFileSync(0));\n`,
  );
  const sinks = parseConfig({ mcpServers: {}, notify: [{ command: [process.execPath, script], on }] }, 'mcpx.json', {}).notify!;
  const received = (): Array<{ event: string; id: string }> =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
  return { dir, sinks, received };
}

const ask = {
  trace: 'cal-00000000000000aa',
  server: 'github',
  tool: 'create_issue',
  mode: 'form' as const,
  era: 'legacy' as const,
  message: 'Which repo?',
  requestedSchema: { type: 'object' as const, properties: { repo: { type: 'string' as const } }, required: ['repo'] },
};

describe('startNotifications', () => {
  it('announces nothing for a question answered within the grace, and tells an expiry', async () => {
    const clock = createManualClock(Date.now());
    const broker = createBroker({ clock });
    const sink = commandSink(['opened', 'expired']);
    const stateDir = join(sink.dir, 'state');
    const notifications = startNotifications({
      broker,
      setup: () => ({ sinks: sink.sinks, policy: parsePolicy({}) }),
      secrets: () => openSecretStore({ stateDir, prefer: 'file' }),
    });

    const quick = await broker.openRequest({ ...ask, ttlMs: 60_000 });
    await broker.respond({ id: quick.id, action: 'accept', content: { repo: 'a/b' }, by: 'policy' });
    const slow = await broker.openRequest({ ...ask, ttlMs: 1_000 });
    clock.advance(1_001);
    await broker.awaitAnswer(slow.id);
    // stop() sends what waited for its grace and lets running sends finish.
    await notifications.stop(10_000);

    expect(
      sink
        .received()
        .map((x) => `${x.event} ${x.id}`)
        .sort(),
    ).toEqual([`expired ${slow.id}`]);
    const audit = await broker.audit({});
    expect(audit.filter((e) => e.kind.startsWith('notify.')).map((e) => [e.kind, e.elicit, e.data?.on])).toEqual([
      ['notify.sent', slow.id, 'expired'],
    ]);
    await broker.close();
  });

  it('announces a question left to wait at once, even when another process answers it within the grace', async () => {
    const broker = createBroker();
    const sink = commandSink(['opened']);
    const notifications = startNotifications({
      broker,
      setup: () => ({ sinks: sink.sinks, policy: parsePolicy({}) }),
      secrets: () => openSecretStore({ stateDir: join(sink.dir, 'state'), prefer: 'file' }),
      graceMs: 60_000,
    });

    // As the daemon opens one (nobody in it answers), then `mcpx elicit answer` from another process, at once.
    const waited = await broker.openRequest({ ...ask, ttlMs: 60_000, waits: true });
    await broker.respond({ id: waited.id, action: 'accept', content: { repo: 'a/b' }, by: 'cli' });
    const answeredHere = await broker.openRequest({ ...ask, ttlMs: 60_000 });
    await broker.respond({ id: answeredHere.id, action: 'accept', content: { repo: 'a/b' }, by: 'policy' });
    await notifications.stop(10_000);

    expect(sink.received().map((x) => `${x.event} ${x.id}`)).toEqual([`opened ${waited.id}`]);
    const audit = await broker.audit({});
    expect(audit.filter((e) => e.kind.startsWith('notify.')).map((e) => [e.kind, e.elicit, e.data?.on])).toEqual([
      ['notify.sent', waited.id, 'opened'],
    ]);
    await broker.close();
  });

  it('records a send still running at stop as failed before stop returns', async () => {
    // A receiver that accepts and never answers, and a sink that would wait a minute for it.
    const hanging = createServer(() => undefined);
    await new Promise<void>((done) => hanging.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`;
    const got = new Promise<void>((done) => hanging.once('request', () => done()));
    const broker = createBroker();
    const sinks = parseConfig(
      { mcpServers: {}, notify: [{ name: 'slow', webhook: url, timeoutMs: 60_000 }] },
      'mcpx.json',
      {},
    ).notify!;
    const notifications = startNotifications({
      broker,
      setup: () => ({ sinks, policy: parsePolicy({}) }),
      secrets: () => openSecretStore({ stateDir: mkdtempSync(join(tmpdir(), 'mcpx-notify-stop-')), prefer: 'file' }),
    });
    try {
      const question = await broker.openRequest({ ...ask, ttlMs: 60_000, waits: true });
      await got;
      await notifications.stop(100);
      const failed = (await broker.audit({})).filter((e) => e.kind === 'notify.failed');
      expect(failed.map((e) => [e.elicit, e.data?.sink, e.data?.attempts])).toEqual([[question.id, 'slow', 1]]);
      expect(failed[0]!.data?.reason).toMatch(/stopped/);
    } finally {
      hanging.closeAllConnections();
      hanging.close();
      await broker.close();
    }
  });
});
