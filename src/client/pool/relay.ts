/**
 * The relay `mcpx serve` uses: a downstream client's request passed to a modern upstream as it came, its
 * input-required result returned for the client to answer, rather than asked here as the pool's own calls are.
 */
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { McpxError } from '../../errors.js';
import { newCallId } from '../../ids.js';
import type { ClientPool } from './pool.js';
import { asReceived, callError } from '../modern-call.js';
import type { Connections } from './connections.js';
import type { RequestMeta } from './request-meta.js';
import { notificationMeta, requestParams } from '../requests.js';

export function createRelay(connections: Connections, { follow, toolHeaders }: RequestMeta): ClientPool['relay'] {
  const { get, timeoutFor, onSuccess } = connections;
  return async (server, method, target, args, relayOptions) => {
    const pooled = await get(server);
    const { connection } = pooled;
    if (connection.era !== 'modern')
      throw new McpxError(
        'CALL_FAILED',
        `server "${server}" speaks protocol 2025-11-25: its questions cannot be relayed, only asked`,
        { data: { server, tool: target } },
      );
    const { notifications } = relayOptions;
    const token = notifications ? `${newCallId()}/relay` : undefined;
    const params: Record<string, unknown> = {
      ...requestParams(method, target, args),
      _meta: {
        [CLIENT_CAPABILITIES_META_KEY]: relayOptions.capabilities,
        ...(token ? notificationMeta(token, notifications!) : {}),
      },
    };
    if (relayOptions.inputResponses !== undefined) params.inputResponses = relayOptions.inputResponses;
    if (relayOptions.requestState !== undefined) params.requestState = relayOptions.requestState;
    const headers = method === 'tools/call' ? await toolHeaders(server, pooled, target, args).headers!() : undefined;
    const untrack = token ? follow(pooled, token, notifications!) : undefined;
    try {
      const result = await connection.client.request({ method, params } as never, asReceived, {
        allowInputRequired: true,
        timeout: timeoutFor(server),
        ...(relayOptions.signal ? { signal: relayOptions.signal } : {}),
        ...(headers && Object.keys(headers).length ? { headers } : {}),
      } as never);
      await onSuccess(server, pooled);
      return result as Record<string, unknown>;
    } catch (error) {
      throw callError(server, target, error, relayOptions.requestState !== undefined, method);
    } finally {
      untrack?.();
    }
  };
}
