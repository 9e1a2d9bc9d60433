/**
 * For commands whose stdout is a wire (`mcpx serve`: JSON-RPC over stdio, or the URL a host reads): every console
 * method a library may call (the MCP SDK's `console.debug`, a dependency's `console.log`) writes to stderr instead.
 * The methods are replaced on the global console itself, so modules that keep a reference to it are covered too.
 */
import { Console } from 'node:console';

export function consoleToStderr(stderr: NodeJS.WritableStream): void {
  const toStderr = new Console({ stdout: stderr, stderr });
  const target = console as unknown as Record<string, unknown>;
  const source = toStderr as unknown as Record<string, unknown>;
  for (const name of Object.keys(source)) {
    const method = source[name];
    if (typeof method === 'function' && typeof target[name] === 'function') target[name] = method.bind(toStderr);
  }
}
