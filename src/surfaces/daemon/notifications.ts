/**
 * Notifications of a host on the config's state store (the daemon, `mcpx serve`, `mcpx run`): the config's `notify`
 * list over its broker, with the web inbox on the daemon's loopback port as the link once it has one (the inbox
 * lists every question in the store, so it answers those of serve and run too).
 */
import type { Broker } from '../../broker/index.js';
import { notificationsFromConfig } from '../notify/index.js';
import type { Notifications } from '../notify/index.js';
import { daemonPaths, readDaemonState } from './paths.js';

type Env = Record<string, string | undefined>;

export function startDaemonNotifications(
  broker: Broker,
  options: { env: Env; cwd: string; configPath?: string | undefined },
): Notifications {
  return notificationsFromConfig({ broker, ...options, inbox: daemonInbox(options.env, options.configPath) });
}

/** The web inbox of this config's daemon, read when asked: its loopback `/ui/` once it has a port. */
export function daemonInbox(env: Env, configPath: string | undefined): () => string | undefined {
  const paths = daemonPaths(env, configPath);
  return () => {
    const port = readDaemonState(paths)?.port;
    return port === undefined ? undefined : `http://127.0.0.1:${port}/ui/`;
  };
}
