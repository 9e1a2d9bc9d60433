import type { Server as HttpServer } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export interface LegacyOptions {
  elicitTimeoutMs?: number;
  /** How a question names the call it serves (default: MCPX_FIXTURE_LINK, else none). */
  link?: Array<'stream' | 'token' | string>;
}
export declare function createLegacyServer(options?: LegacyOptions): McpServer;
export declare function createLegacyHttpServer(options?: LegacyOptions): HttpServer;
