/**
 * What a host on a shared store does once it lost its lease: it stalled past it (a suspended machine, SIGSTOP, a
 * starved host) and another process took its calls over, so it never drives a call again (two processes never drive
 * one call). One message for every host, said in the words of who reads it: an app's code, an agent over serve, or
 * whoever runs the daemon.
 */
import { McpxError } from '../errors.js';

/** Who is told: an app embedding createMcpx({ store }), the agent of an `mcpx serve`, or whoever runs the daemon. */
export type LeaseVoice = 'app' | 'serve' | 'daemon';

interface Wording {
  who: string;
  paused: string;
  self: string;
  restart: string;
  goOn: string;
  /** Why the calls in flight failed (the runner adds "; run the call again"). */
  reason: string;
}

const WORDING: Record<LeaseVoice, Wording> = {
  app: {
    who: 'this mcpx instance',
    paused: 'its process was paused',
    self: 'instance',
    restart: 'Close it and create a new one (createMcpx({ store }))',
    goOn:
      'answer them with answer() or `mcpx elicit answer`, read their results with result() on the new instance or ' +
      '`mcpx task result`',
    reason: 'this process stalled past its lease and another took its calls over',
  },
  serve: {
    who: 'this mcpx serve',
    paused: 'it was paused',
    self: 'process',
    restart: "Restart this MCP server in the client (reconnect or restart it in the client's MCP settings)",
    goOn: 'answer with mcpx_elicit_answer or `mcpx elicit answer`, read results with mcpx_call_result or `mcpx task result`',
    reason:
      'this mcpx serve was paused past its lease and another process took its calls over (restart this MCP server in the client)',
  },
  daemon: {
    who: 'this mcpx daemon',
    paused: 'it was paused',
    self: 'daemon',
    restart: 'It stops; start it again (mcpx daemon start, or any mcpx call)',
    goOn: 'answer them with `mcpx elicit answer`, read their results with `mcpx task result`',
    reason: 'this daemon was paused past its lease and another daemon took its calls over',
  },
};

/** Why the calls in flight when the lease was lost failed. */
export const lostReason = (voice: LeaseVoice): string => WORDING[voice].reason;

/** The LEASE_LOST error every new call gets: what happened and what to do. With `task`, an app's call that no one drives. */
export function leaseLostError(
  voice: LeaseVoice,
  lease: { holder: string; leaseMs: number; store: string },
  task?: string,
): McpxError {
  const { holder, leaseMs, store } = lease;
  const w = WORDING[voice];
  return new McpxError(
    'LEASE_LOST',
    `${w.who} runs no more calls: ${w.paused} longer than its lease on the shared ${store} store ` +
      `(MCPX_LEASE_MS ${leaseMs} ms: a suspended machine, a stopped or starved process), and another mcpx process ` +
      `took over the calls it held, so this ${w.self} stopped driving calls (two processes never drive one call). ` +
      `${w.restart} to make new calls. Calls that were waiting on questions go on where they were taken over: ` +
      w.goOn +
      (task ? ` (this call: ${task}; its answers are stored, and whoever asks for its result resumes it).` : '.'),
    { data: { holder, leaseMs, store, restart: true, ...(task ? { task } : {}) } },
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
