/**
 * The lease of an `mcpx serve` on a shared store (Redis, Postgres), and what the serve does once it is lost: it
 * stalled past the lease (a suspended laptop, SIGSTOP, a starved host) and another process took its calls over, so
 * it must never drive a call again (two processes never drive one call).
 *
 * The daemon exits then (70): its starter brings a fresh one up on the next need. A serve over stdio was launched by
 * a host (Claude Desktop, Cursor, VS Code, Claude Code), which does not restart a stdio server that exits: its tools
 * would vanish mid-conversation with the reason only in a log file. So the serve stays connected and refuses every
 * new call with LEASE_LOST, a tool error the agent reads and passes on, saying what happened and what to do
 * (restart the server in the client). Everything that goes through the store keeps working: a retry or
 * mcpx_call_result follows a call to where it was taken over, and mcpx_elicit_list / mcpx_elicit_answer answer
 * questions. A serve over HTTP runs under a supervisor or behind a load balancer, which restart or drop a process
 * that exits: the `serve` command exits 70 then (`ServeCore.whenLost`), as the daemon does (docs/serve.md).
 */
import { McpxError } from '../../errors.js';
import { keepLease } from '../../tasks/handoff.js';
import type { Leases } from '../../tasks/leases.js';

export interface ServeLease {
  /** Set once the lease was lost: the error every new call gets. */
  readonly lost: McpxError | undefined;
  stop(): Promise<void>;
}

/** Why the calls in flight when the lease was lost failed (the runner adds "; run the call again"). */
export const LOST_REASON =
  'this mcpx serve was paused past its lease and another process took its calls over (restart this MCP server in the client)';

/** The refusal of a new call once the serve lost its lease. */
export function leaseLostError(holder: string, leaseMs: number, store: string): McpxError {
  return new McpxError(
    'LEASE_LOST',
    `this mcpx serve runs no more calls: it was paused longer than its lease on the shared ${store} store ` +
      `(MCPX_LEASE_MS ${leaseMs} ms: a suspended machine, a stopped or starved process), and another mcpx process ` +
      `took over the calls it held, so this process stopped driving calls (two processes never drive one call). ` +
      `Restart this MCP server in the client (reconnect or restart it in the client's MCP settings) to make new ` +
      `calls. Calls that were waiting on questions go on where they were taken over: answer with ` +
      `mcpx_elicit_answer or \`mcpx elicit answer\`, read results with mcpx_call_result or \`mcpx task result\`.`,
    { data: { holder, leaseMs, store, restart: true } },
  );
}

/** The refusal of a retry (or a wait) of a call nobody drives any more: its answers are stored, and it resumes elsewhere. */
export function leaseLostFor(lost: McpxError, task: string): McpxError {
  return new McpxError(
    'LEASE_LOST',
    `${lost.message} This call (${task}) is not lost: the answers given are stored, and \`mcpx task result ${task}\` ` +
      `(or mcpx_call_result in the restarted server) resumes it and returns its result or its next questions.`,
    { data: { ...(lost.data ?? {}), task } },
  );
}

/**
 * Holds the serve's lease (`keepLease`); once another process took it, `lost` is set, a line goes to stderr (the
 * host's log of the server) and `onLost` stops the runner.
 */
export async function keepServeLease(
  leases: Leases,
  options: { holder: string; leaseMs: number; instance: string; store: string; onLost: () => void },
): Promise<ServeLease> {
  let lost: McpxError | undefined;
  const lease = await keepLease(leases, options.holder, options.leaseMs, options.instance, () => {
    lost = leaseLostError(options.holder, options.leaseMs, options.store);
    process.stderr.write(
      `mcpx serve: another process took over our calls (our lease lapsed while we were paused): running no more calls; restart this server\n`,
    );
    options.onLost();
  });
  return {
    get lost() {
      return lost;
    },
    stop: () => lease.stop(),
  };
}
