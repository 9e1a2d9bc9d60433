/**
 * Config: the `mcpServers` file format, where it is found, and validation errors that name file, server and field.
 * Knows no connection: the client layer reads the validated result.
 */
export { checkConfig, configCandidates, loadConfig, parseConfig, readConfigFile } from './load.js';
export { configStamp } from './find.js';
export { addServerEntry, type NewServerEntry } from './edit.js';
export type { LoadConfigOptions, LoadedConfig } from './load.js';
export { readConfigJson } from './read-json.js';
export { eraSettingSchema, isHttpServer, SERVER_NAME } from './schema.js';
export type { EraSetting, HttpServerConfig, McpxConfig, ServerConfig, StdioServerConfig } from './schema.js';
export { isAdapterEntry, isOpenApiAdapter, READ_METHODS } from './adapters.js';
export type { AdapterConfig, CliAdapterConfig, CliCommandConfig, HttpMethod, OpenApiAdapterConfig } from './adapters.js';
export { parseNotifyBlock, NOTIFY_WHEN } from './notify-schema.js';
export type { NotifySink, NotifyMatch, NotifyWhen, WebhookSink, CommandSink, DesktopSink } from './notify-schema.js';
export type { WebListenConfig } from './web-schema.js';
