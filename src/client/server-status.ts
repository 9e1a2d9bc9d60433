/**
 * Whether a configured server can be reached, and in which era: what `mcpx list` shows for each server. Connecting
 * is the test (a stdio server is started, an http server is asked); a failure is a status with its reason, not an error.
 */
import { SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import { isMcpxError } from '../errors.js';
import type { Era } from '../types.js';

export interface ServerStatus {
  server: string;
  /** connected; failed (reason says why); needs-auth (an OAuth sign-in); needs-credentials (asked on first call). */
  status: 'connected' | 'failed' | 'needs-auth' | 'needs-credentials';
  era?: Era;
  reason?: string;
  /** What to do about it, as a command. */
  hint?: string;
}

/** Connects (or reuses the connection) and says how that went. */
export async function serverStatus(host: { era(server: string): Promise<Era> }, server: string): Promise<ServerStatus> {
  try {
    return { server, status: 'connected', era: await host.era(server) };
  } catch (error) {
    if (isMcpxError(error, 'SERVER_NOT_FOUND')) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    if (isMcpxError(error, 'SECRET_MISSING'))
      return { server, status: 'needs-credentials', reason, hint: `mcpx doctor ${server}` };
    if (needsSignIn(error)) return { server, status: 'needs-auth', reason, hint: `mcpx auth ${server}` };
    return { server, status: 'failed', reason };
  }
}

function needsSignIn(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UnauthorizedError) return true;
    if (e instanceof SdkHttpError && e.status === 401) return true;
  }
  return /\b401\b|unauthori[sz]ed/i.test(error instanceof Error ? error.message : '');
}
