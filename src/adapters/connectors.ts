/**
 * Each adapter entry of the config as a ServerConnector: connecting builds (once, then reused) the adapter's tool
 * set and serves it from a fresh in-process MCP server over an in-memory transport pair. The legacy era on purpose:
 * a confirmation is a live `elicitation/create` answered by the broker, which a client cannot forge by sending
 * `inputResponses` of its own.
 */
import type { ServerConnector } from '../client/index.js';
import type { AdapterConfig } from '../config/adapters.js';
import type { SecretForms } from '../secrets/redact.js';
import type { AdapterServerFactory } from './serve.js';

export interface AdapterContext {
  /** Where relative paths of the config (an OpenAPI file, a CLI's cwd) are resolved: the config file's directory. */
  baseDir: string;
  env: Record<string, string | undefined>;
  /** The HTTP client of the OpenAPI adapter (default: the global fetch). */
  fetch?: typeof fetch;
  /** The config's `${VAR}` values: a command line shown in a description, question or message shows the reference. */
  secretForms?: SecretForms;
}

export function adapterConnectors(
  adapters: Record<string, AdapterConfig> | undefined,
  context: AdapterContext,
): Record<string, ServerConnector> {
  const out: Record<string, ServerConnector> = {};
  for (const [name, adapter] of Object.entries(adapters ?? {})) {
    // A failed build is not kept: the next connect tries again (the file may have been fixed meanwhile).
    let factory: Promise<AdapterServerFactory> | undefined;
    const build = (): Promise<AdapterServerFactory> => {
      factory ??= import('./serve.js').then((serve) => serve.buildAdapter(name, adapter, context));
      factory.catch(() => (factory = undefined));
      return factory;
    };
    out[name] = {
      era: 'legacy',
      // Its only questions are write confirmations: mcpx's own, for a person alone.
      asksForMcpx: true,
      // The adapter keeps its own deadline (timeoutMs); the pool's is a little longer, so the adapter's message wins.
      ...(adapter.timeoutMs ? { timeoutMs: adapter.timeoutMs + 5_000 } : {}),
      connect: async () => (await build()).connect(),
    };
  }
  return out;
}
