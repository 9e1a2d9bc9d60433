/** `mcpx serve` over stdio: one connection, either era (the SDK's serveStdio decides from the opening message). */
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Transport } from '@modelcontextprotocol/server';
import type { ServeCore } from './core.js';
import { relayStdioListens } from './listens.js';
import { createRequestStateSeal } from './request-state.js';
import { createServeServer } from './server.js';

export interface StdioServe {
  close(): Promise<void>;
}

export function serveOverStdio(
  core: ServeCore,
  options: { env: Record<string, string | undefined>; version: string; transport?: Transport; onerror?: (error: Error) => void },
): StdioServe {
  const seal = createRequestStateSeal(core.stateKey, core.ttlMs);
  // One connection per process: its questions belong to MCPX_SESSION_ID when the host set it, else to this process.
  const transport = options.transport ?? new StdioServerTransport();
  relayStdioListens(transport, core);
  const handle = serveStdio(({ era }) => createServeServer(core, seal, { session: core.defaultSession, era }, options.version), {
    transport,
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  return { close: () => handle.close() };
}
