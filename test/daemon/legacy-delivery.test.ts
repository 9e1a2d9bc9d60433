/**
 * A legacy call lives in its daemon's connection, so an answer to its question counts only once that daemon passed
 * it on. While the daemon lives, `mcpx elicit answer` says the answer was delivered; answered right after the
 * daemon died (SIGKILL), before anyone noticed, the answer is refused with ELICITATION_ABANDONED once the daemon is
 * judged dead (its lease lapses on Redis and Postgres; its pid is gone on SQLite), never recorded (it was only
 * offered to the holder) and never accepted and lost, and the question shows abandoned. Real daemon processes (the built CLI) and fixture servers, on stores started here.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, fleetDaemon, post, type FleetDaemon } from '../helpers/daemon-fleet.js';
import { useStoreServers } from '../helpers/store-servers.js';

const servers = useStoreServers();
const sqliteUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'mcpx-delivery-')), 'shared.sqlite')}`;

async function askLegacy(daemon: FleetDaemon, title: string): Promise<string> {
  const response = await daemon.fetch('/v1/call/legacy/ask_form', post({ title }));
  expect(response.status).toBe(202);
  const { inputRequired } = (await response.json()) as { inputRequired: { questions: Array<{ id: string }> } };
  return inputRequired.questions[0]!.id;
}

interface LoggedEvent {
  kind: string;
  elicit?: string;
  data?: { undelivered?: boolean };
}

for (const [name, url] of [
  ['Redis', () => servers.redis.url],
  ['Postgres', () => servers.postgres.url],
  ['SQLite', () => sqliteUrl],
] as const) {
  describe(`a legacy answer on ${name}`, () => {
    it('is delivered while its daemon lives, and refused once the daemon that held the call died', async () => {
      const daemon = fleetDaemon(`delivery-${name}`, url(), { MCPX_LEASE_MS: '1000', MCPX_SESSION_ID: 'delivery' });
      const answer = (id: string, repo: string) =>
        cli(daemon, ['elicit', 'answer', id, JSON.stringify({ repo }), '--config', daemon.configPath]);
      await daemon.start();
      try {
        const lives = await askLegacy(daemon, 'lives');
        const delivered = await answer(lives, 'me/one');
        expect(delivered.code, delivered.stderr).toBe(0);
        expect(delivered.stderr).toContain('the answer was delivered to the call that asked');

        const dies = await askLegacy(daemon, 'dies');
        await daemon.kill();
        // At once: on Redis and Postgres the dead daemon's lease still runs; the answer waits for it to lapse.
        const refused = await answer(dies, 'me/late');
        expect(refused.code, refused.stderr).toBe(1);
        expect(refused.stderr).toContain('ELICITATION_ABANDONED');
        expect(refused.stderr).toContain(`question ${dies} was abandoned`);

        const shown = await cli(daemon, ['elicit', 'list', '--state', 'abandoned', '--json', '--config', daemon.configPath]);
        expect(shown.code, shown.stderr).toBe(0);
        expect(shown.stdout).toContain(dies);
        // Refused, so never recorded; a second answer is refused too.
        const again = await answer(dies, 'me/again');
        expect(again.code).toBe(1);

        const audit = await cli(daemon, ['log', '--json', '--limit', '1000']);
        const events = audit.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as LoggedEvent);
        const of = (kind: string, id: string): LoggedEvent[] => events.filter((e) => e.kind === kind && e.elicit === id);
        expect(of('elicit.resumed', lives)).toHaveLength(1);
        expect(of('elicit.answered', dies)).toHaveLength(0);
        expect(of('elicit.resumed', dies)).toHaveLength(0);
        expect(of('elicit.abandoned', dies).map((e) => e.data?.undelivered)).toEqual([true]);
      } catch (error) {
        console.log(daemon.log());
        throw error;
      } finally {
        await daemon.kill();
      }
    }, 60_000);
  });
}
