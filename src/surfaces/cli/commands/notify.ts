/**
 * `mcpx notify test`: sends a sample question through every sink of the config's `notify` list and prints what
 * each did. A webhook's signing key not yet in the secret store is asked for here, on a terminal (input hidden).
 */
import { createBroker, type ElicitRequest } from '../../../broker/index.js';
import { findConfigPath } from '../../../config/find.js';
import { loadConfig, type NotifySink } from '../../../config/index.js';
import { CREDENTIAL_FIELD } from '../../../secrets/answer.js';
import { openSecretStore } from '../../../secrets/index.js';
import { notifySecretRef } from '../../../notify/index.js';
import { stateDir } from '../../../paths.js';
import { inboxLink, startNotifications, type Outcome } from '../../notify/index.js';
import { parseArgs, UsageError } from '../args.js';
import { askSecret } from '../form/secret.js';
import { EXIT, type CliIO, type Command } from '../io.js';

const USAGE = `usage: mcpx notify test [--config file] [--json]

Sends a sample question through every sink of the config's "notify" list (webhooks, commands, desktop) and
prints each one's outcome: sent, failed (and why) or skipped. A webhook with a "secret" whose key is not in the
secret store yet asks for it here, on a terminal. Exits 1 when a sink failed. See docs/notify.md.
`;

export const command: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, { booleans: ['json'], strings: ['config'] });
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  if (positional[0] !== 'test' || positional.length > 1)
    throw new UsageError(
      positional.length ? `unknown notify command ${JSON.stringify(positional.join(' '))}` : 'say what to do: mcpx notify test',
    );
  const configPath = findConfigPath(flags.config as string | undefined, io.cwd, io.env);
  const loaded = loadConfig({ config: configPath ?? { mcpServers: {} }, cwd: io.cwd, env: io.env });
  const sinks = loaded.config.notify ?? [];
  if (!sinks.length) {
    io.stderr.write(
      `mcpx notify test: ${loaded.path ? `${loaded.path} has no "notify" list` : 'no config file found'}; add one, e.g. "notify": [{"desktop": true}] (docs/notify.md)\n`,
    );
    return EXIT.FAILURE;
  }
  const secrets = await openSecretStore({ stateDir: stateDir(io.env) });
  for (const sink of sinks) await askMissingKey(sink, secrets, io);
  const broker = createBroker();
  const inbox = (await import('../../daemon/notifications.js')).daemonInbox(io.env, configPath);
  const notifications = startNotifications({
    broker,
    setup: () => ({ sinks, policy: loaded.policy }),
    secrets: async () => secrets,
    link: () => inboxLink(io.env.MCPX_INBOX_URL) ?? inbox(),
    path: io.env.PATH,
    // One try each: a test says at once what is wrong.
    retryDelaysMs: [],
  });
  try {
    const results = await notifications.deliver('test', sampleQuestion(Date.now()));
    const failed = results.some((r) => r.outcome.kind === 'failed');
    for (const { sink, outcome } of results)
      io.stdout.write(
        flags.json ? `${JSON.stringify({ sink: sink.name, ...outcome })}\n` : `${sink.name.padEnd(14)} ${describe(outcome)}\n`,
      );
    return failed ? EXIT.FAILURE : EXIT.OK;
  } finally {
    await notifications.stop(0);
    await broker.close();
  }
};

async function askMissingKey(sink: NotifySink, secrets: Awaited<ReturnType<typeof openSecretStore>>, io: CliIO): Promise<void> {
  if (!('webhook' in sink) || !sink.secret || !io.isTTY) return;
  const ref = notifySecretRef(sink);
  if ((await secrets.get(ref.service, ref.account)) !== undefined) return;
  const answer = await askSecret(
    { type: 'object', properties: { [CREDENTIAL_FIELD]: { type: 'string', title: `${sink.secret.ask} (signs ${sink.name})` } } },
    { input: io.stdin, output: io.stderr },
  );
  const value = answer.action === 'accept' ? answer.content?.[CREDENTIAL_FIELD] : undefined;
  if (typeof value === 'string' && value) await secrets.set(ref.service, ref.account, value);
}

function describe(outcome: Outcome): string {
  if (outcome.kind === 'skipped') return `skipped: ${outcome.reason}`;
  if (outcome.kind === 'failed') return `failed: ${outcome.reason}`;
  const details = [outcome.status !== undefined ? `HTTP ${outcome.status}` : '', outcome.signed ? 'signed' : ''].filter(Boolean);
  return `sent${details.length ? ` (${details.join(', ')})` : ''}`;
}

/** A question as a server would ask it, never stored: what every sink is sent. */
function sampleQuestion(now: number): ElicitRequest {
  return {
    id: 'elc-0000000000000000',
    server: 'mcpx',
    tool: 'notify-test',
    mode: 'form',
    message: 'A test notification from mcpx notify test: nothing is waiting for you.',
    requestedSchema: {
      type: 'object',
      properties: { approve: { type: 'boolean', title: 'Approve the sample?' } },
      required: ['approve'],
    },
    era: 'legacy',
    trace: 'cal-0000000000000000',
    session: 'notify-test',
    sessionSource: 'explicit',
    createdAt: now,
    expiresAt: now + 120_000,
    state: 'pending',
  };
}
