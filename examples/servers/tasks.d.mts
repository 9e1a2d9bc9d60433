import type { Server as HttpServer } from 'node:http';
export declare const TASKS_EXTENSION: 'io.modelcontextprotocol/tasks';
/** The task fixture on Streamable HTTP (2026-07-28 only); listen on a port and serve `/mcp`. */
export declare function createTasksHttpServer(): HttpServer;
