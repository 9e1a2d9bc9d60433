/**
 * Notifications as a host starts them: the config's `notify` list (read again when the file changes, so an edit
 * applies without a restart), the secret store opened on first need, the web inbox link from MCPX_INBOX_URL.
 */
import type { Broker } from '../../broker/index.js';
import { configStamp, loadConfig } from '../../config/index.js';
import { stateDir } from '../../paths.js';
import { openSecretStore, type SecretStore } from '../../secrets/index.js';
import { startNotifications, type Notifications, type NotifySetup } from './start.js';

type Env = Record<string, string | undefined>;

export interface FromConfigOptions {
  broker: Broker;
  env: Env;
  cwd: string;
  configPath?: string | undefined;
  /** The web inbox where this host serves one (the daemon's loopback port); MCPX_INBOX_URL wins. */
  inbox?: () => string | undefined;
}

/** Notifications for the config at `configPath`; one that sends nothing when the config has no `notify` list. */
export function notificationsFromConfig(options: FromConfigOptions): Notifications {
  const { env, cwd, configPath } = options;
  let stamp: string | undefined;
  let setup: NotifySetup | undefined;
  const current = (): NotifySetup => {
    const now = configStamp(configPath);
    if (setup && now === stamp) return setup;
    try {
      const loaded = loadConfig({ config: configPath ?? { mcpServers: {} }, cwd, env });
      setup = { sinks: loaded.config.notify ?? [], policy: loaded.policy };
      stamp = now;
    } catch {
      // A config broken while we run keeps the sinks it had; the next host to start reports the problem.
      setup ??= { sinks: [], policy: { mode: 'ask', rules: [] } };
    }
    return setup;
  };
  let secrets: Promise<SecretStore> | undefined;
  return startNotifications({
    broker: options.broker,
    setup: current,
    secrets: () => (secrets ??= openSecretStore({ stateDir: stateDir(env) })),
    link: () => inboxLink(env.MCPX_INBOX_URL) ?? options.inbox?.(),
    path: env.PATH,
  });
}

/** `<base>/ui/` for an inbox base URL (a tunnel, a reverse proxy); undefined when unset or not http(s). */
export function inboxLink(base: string | undefined): string | undefined {
  if (!base?.trim()) return undefined;
  try {
    const url = new URL(base.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return new URL(url.pathname.endsWith('/ui/') ? url.pathname : `${url.pathname.replace(/\/$/, '')}/ui/`, url).toString();
  } catch {
    return undefined;
  }
}
