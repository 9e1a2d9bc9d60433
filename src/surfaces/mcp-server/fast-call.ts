/**
 * serve --http's fast path for the request an agent sends most, a plain 2026-07-28 `tools/call` of an upstream tool:
 * answered without the SDK's per-request server and transport (about 0.7 ms of CPU per call). The checks and the
 * encoding live in src/fast (tool-call.ts); this wires them to the catalogue, the state seal and calls.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { plainToolCall, toolCallError, toolCallResult } from '../../fast/tool-call.js';
import { createCalls, type CallContext } from './calls.js';
import type { ServeCore } from './core.js';
import { isObject } from './json-values.js';
import { wantsRelay } from './relay.js';
import { declaresTasks } from './tasks/extension.js';
import type { RequestStateSeal } from './request-state.js';

export interface FastToolCalls {
  /** True: the request was answered here. False: nothing was done, and the SDK's path serves it. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown, session: string, signal: AbortSignal): Promise<boolean>;
}

export function createFastToolCalls(core: ServeCore, seal: RequestStateSeal, version: string): FastToolCalls {
  const serverInfo = { name: 'mcpx', version };

  const write = (res: ServerResponse, status: number, message: Record<string, unknown>): void => {
    const text = Buffer.from(JSON.stringify(message));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(text.length) }).end(text);
  };

  /** The request's verified state: undefined when it has none, null when it is not one this path may take. */
  const stateOf = async (requestState: string | undefined): Promise<unknown> => {
    if (requestState === undefined) return undefined;
    try {
      const state = await seal.verify(requestState, 'tools/call');
      return isObject(state) && 'task' in state ? state : null;
    } catch {
      return null;
    }
  };

  return {
    async serve(req, res, body, session, signal) {
      const call = plainToolCall(req, body);
      // A task-capable client's call may become a task: the SDK's path serves it (tasks/handlers.ts).
      if (!call || wantsRelay(call.capabilities) || declaresTasks(call.capabilities)) return false;
      // mcpx's own tools are never in the catalogue (their names are reserved): the SDK's path serves them.
      const ref = (await core.catalog()).byName.get(call.name);
      if (!ref) return false;
      const state = await stateOf(call.requestState);
      if (state === null) return false;
      const context: CallContext = {
        signal,
        capabilities: call.capabilities,
        state,
        inputResponses: call.inputResponses,
        notifications: undefined,
      };
      const calls = createCalls(core, seal, { era: 'modern', session });
      let result: Record<string, unknown>;
      try {
        result = toolCallResult(
          (await calls.run('tool', call.name, ref, call.args, context)) as Record<string, unknown>,
          serverInfo,
        );
      } catch (error) {
        const failed = toolCallError(error);
        if (!signal.aborted) write(res, failed.status, { jsonrpc: '2.0', id: call.id, error: failed.error });
        return true;
      }
      if (!signal.aborted) write(res, 200, { result, jsonrpc: '2.0', id: call.id });
      return true;
    },
  };
}
