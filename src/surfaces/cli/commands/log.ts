/**
 * `mcpx log`: the broker's audit trail (questions opened, answered by whom and after how long, expired, calls
 * resumed, policy rules fired). `--chain <id>` follows the links (trace, parent, elicit) from a resumed call back
 * through the question to the call that asked, and forward again.
 */
import type { BrokerEvent } from '../../../broker/index.js';
import { parseArgs, UsageError } from '../args.js';
import { openAudit } from '../connect.js';
import { EXIT, type Command } from '../io.js';
import { sanitizeLine } from '../sanitize.js';

const USAGE = `usage: mcpx log [options]

options:
  --chain <id>      only the events linked to this call (cal-...) or question (elc-...): the call that asked,
                    the question, its answer and the call that resumed with it
  --session <s>     only this session's events
  --limit <n>       the last n events (default 200)
  --json            one JSON event per line

The log is read from the state store (<state dir>/mcpx.sqlite; MCPX_STATE_DIR moves it).
`;

export const command: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, { booleans: ['json'], strings: ['chain', 'session', 'limit'] });
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  if (positional.length) throw new UsageError(`unexpected ${JSON.stringify(positional[0])}`);
  const limit = typeof flags.limit === 'string' ? Number(flags.limit) : 200;
  if (!Number.isInteger(limit) || limit <= 0) throw new UsageError('--limit takes a positive whole number');
  const chain = typeof flags.chain === 'string' ? flags.chain : undefined;
  if (chain !== undefined && !/^(cal|elc)-[0-9a-f]{16}$/.test(chain))
    throw new UsageError(`--chain takes a call id (cal-...) or a question id (elc-...), got ${JSON.stringify(chain)}`);

  const audit = await openAudit(io);
  try {
    let events = await audit.events(typeof flags.session === 'string' ? { session: flags.session } : {});
    if (chain) {
      events = chainOf(events, chain);
      if (!events.length) {
        io.stderr.write(`mcpx: nothing in the audit log mentions ${chain}.\n`);
        return EXIT.FAILURE;
      }
    } else {
      events = events.slice(-limit);
    }
    for (const event of events) io.stdout.write(flags.json ? `${JSON.stringify(event)}\n` : formatEvent(event));
    return EXIT.OK;
  } finally {
    await audit.close();
  }
};

/** The events connected to `id` through shared call ids, parents and question ids, in time order. */
export function chainOf(events: BrokerEvent[], id: string): BrokerEvent[] {
  const linked = new Set([id]);
  const idsOf = (e: BrokerEvent) => [e.trace, e.parent, e.elicit].filter((x): x is string => typeof x === 'string');
  let grew = true;
  while (grew) {
    grew = false;
    for (const event of events) {
      const ids = idsOf(event);
      if (!ids.some((x) => linked.has(x))) continue;
      for (const x of ids) {
        if (!linked.has(x)) {
          linked.add(x);
          grew = true;
        }
      }
    }
  }
  return events.filter((e) => idsOf(e).some((x) => linked.has(x))).sort((a, b) => a.at - b.at);
}

/** One event as the design record writes it: `elicit.answered  elicit=elc-… action=accept by=cli session=… pid=… answeredAfterMs=…`. */
export function formatEvent(event: BrokerEvent): string {
  const fields: Array<[string, unknown]> = [
    ['trace', event.trace],
    ['parent', event.parent],
    ['elicit', event.elicit],
    ['call', event.server ? `${event.server}.${event.tool ?? ''}` : undefined],
    ['action', event.action],
    ['by', event.by],
    ['session', event.session],
    ['pid', event.pid],
    ['answeredAfterMs', event.answeredAfterMs],
    ['rule', event.rule ? `#${event.rule.index}` : undefined],
  ];
  const text = fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${sanitizeLine(v)}`)
    .join(' ');
  return `${new Date(event.at).toISOString()} ${event.kind.padEnd(16)} ${text}\n`;
}
