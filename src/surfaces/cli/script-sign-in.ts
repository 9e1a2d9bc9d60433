/**
 * A sign-in a script needs that nobody here can answer (`mcpx run` with no terminal): handed to the daemon, as
 * `mcpx call` hands it its calls. The run's own loopback redirect ends with the run, so a question it opened could
 * never be completed; the daemon's outlives it. The daemon asks the sign-in as a url question of the script's call
 * (its policy, the store, every surface), the browser comes back to it, and the tokens go to the secret store,
 * where the next run of the script finds them and asks nothing.
 */
import type { ToolCallReply } from '../../runtime/index.js';
import { openBackend } from './connect.js';
import type { CliIO } from './io.js';
import { renderInputRequired } from './render.js';
import { commandSession } from './session.js';
import { findConfigPath } from '../../config/find.js';

/**
 * Signs in to `server` for a call of `tool` elsewhere (with `scope`: afresh for those scopes, a step-up): `signed-in`
 * (nothing to ask), or the run's stop at its question.
 */
export type SignInHandOff = (server: string, tool: string, scope?: string) => Promise<ToolCallReply | 'signed-in'>;

export function daemonSignIn(io: CliIO, config: string | undefined, elicitTtlMs: number): SignInHandOff {
  return async (server, tool, scope) => {
    const { session, sessionSource } = commandSession(io, config);
    const configPath = findConfigPath(config, io.cwd, io.env);
    const backend = await openBackend(io, { config, forCall: true });
    try {
      const response = await backend.call(
        server,
        tool,
        {},
        {
          session,
          sessionSource,
          elicitTtlMs,
          signInOnly: scope ? { scope } : true,
        },
      );
      if (response.status === 'complete') return 'signed-in';
      const { inputRequired } = response;
      const held = inputRequired.task && !response.inline ? inputRequired.task : undefined;
      const message = renderInputRequired({
        server,
        tool,
        questions: inputRequired.questions,
        session,
        pasteable: { ...(configPath ? { configPath } : {}), layout: 'row' },
        now: Date.now(),
        ...(held
          ? {
              task: held,
              tail:
                `The daemon holds the sign-in (mcpx task result ${held} says when it is done): once the browser has come ` +
                'back, run the script again; it finds the token and asks nothing.',
            }
          : {}),
      });
      return {
        status: 'input-required',
        message,
        data: { callId: inputRequired.callId, ...(held ? { task: held } : {}), server, tool, questions: inputRequired.questions },
      };
    } finally {
      await backend.close();
    }
  };
}
