/**
 * Adapters: services with no MCP server (an HTTP API described by OpenAPI, a command-line program) served as real
 * in-process MCP servers, so their tools are tools like any other (call, scripts, codegen, REST, serve) and a
 * confirmed write is a real elicitation through the broker and policy. Knows no surface; the heavy parts (the
 * OpenAPI parser, the MCP server) load only when an adapter is first connected.
 */
export { adapterConnectors } from './connectors.js';
export type { AdapterContext } from './connectors.js';
