import type { Server as HttpServer } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export interface LegacyOptions {
  elicitTimeoutMs?: number;
}
export declare function createLegacyServer(options?: LegacyOptions): McpServer;
export declare function createLegacyHttpServer(options?: LegacyOptions): HttpServer;
