import type { Server as HttpServer } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/server';

export declare const DEFAULT_STATE_KEY: string;
export declare const FIXTURE_URL: string;
export declare const FORM_SCHEMA: { type: 'object'; properties: Record<string, Record<string, unknown>>; required: string[] };
export declare const CONFIRM_SCHEMA: { type: 'object'; properties: Record<string, Record<string, unknown>>; required: string[] };
export interface DualEraOptions {
  era?: 'legacy' | 'modern';
  stateKey?: string;
  stateTtlSeconds?: number;
}
export declare function createDualEraServer(options?: DualEraOptions): McpServer;
export declare function createDualEraHttpServer(
  options?: Omit<DualEraOptions, 'era'> & {
    /** Adds to each server made (a fixture's own tools). */
    extend?: (server: McpServer, era: 'legacy' | 'modern') => McpServer;
  },
): HttpServer;
