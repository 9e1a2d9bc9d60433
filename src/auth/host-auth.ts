/**
 * OAuth as a host that keeps questions in a broker wires it (the daemon, `mcpx run`): the secret store opened on
 * first need, each sign-in asked as a url question of the call that needs it, and the browser's return on this
 * process's loopback answering that question in the broker (so a headless call resumes when the redirect lands).
 */
import { join } from 'node:path';
import { McpxError } from '../errors.js';
import type { Broker } from '../broker/index.js';
import { openSecretStore } from '../secrets/index.js';
import { createAuth, type Auth } from './index.js';
import { answerSignInArrival } from './sign-in/answer.js';
import { presentAsQuestion } from './sign-in/question.js';

export interface HostAuthOptions {
  stateDir: string;
  env: Record<string, string | undefined>;
  broker: Broker;
}

export function createHostAuth(options: HostAuthOptions): Auth {
  const port = oauthPort(options.env);
  return createAuth({
    store: () => openSecretStore({ stateDir: options.stateDir }),
    present: presentAsQuestion,
    lockDir: join(options.stateDir, 'locks'),
    loopback: {
      ...(port !== undefined ? { port } : {}),
      // Nothing to report back to the browser: a question gone or answered meanwhile leaves its answer standing.
      onArrive: (params) => void answerSignInArrival(options.broker, params).catch(() => undefined),
    },
  });
}

/** MCPX_OAUTH_PORT: a fixed loopback port, for an authorization server that wants the exact redirect registered. */
function oauthPort(env: Record<string, string | undefined>): number | undefined {
  const value = env.MCPX_OAUTH_PORT;
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new McpxError('CONFIG_INVALID', `MCPX_OAUTH_PORT is "${value}"; give a port number from 1 to 65535, or unset it`);
  return port;
}
