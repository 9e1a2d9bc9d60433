/**
 * The public API of mcpx. Any export added here becomes public: name it deliberately.
 */
export { McpxError, isMcpxError } from './errors.js';
export type { McpxErrorCode, Issue } from './errors.js';
export type {
  Action,
  Answer,
  ElicitContext,
  ElicitHandler,
  ElicitMode,
  ElicitationSchema,
  Era,
  PrimitiveSchema,
  Question,
} from './types.js';
export { checkContent } from './elicitation/validate.js';
export type { ContentCheck } from './elicitation/validate.js';
export { createMcpx, DEFAULT_ELICIT_TTL_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './mcpx.js';
export type { Mcpx, McpxOptions } from './mcpx.js';
export type { DurableMcpx, PolicyOption, ResultOptions, StoreOption } from './mcpx-durable.js';
export type { TaskRecord, TaskResult, TaskState } from './tasks/types.js';
// OAuth 2.1 for Streamable HTTP servers (docs/auth.md) over the secret store (keychain or 0600 file).
export { createAuth, McpxOAuthProvider } from './auth/index.js';
export type { Auth, AuthOptions, OAuthSettings, PresentSignIn } from './auth/index.js';
export { openSecretStore } from './secrets/index.js';
export type { SecretStore } from './secrets/index.js';
export type {
  CallOptions,
  CallOutcome,
  CompleteOutcome,
  Continuation,
  InputRequiredOutcome,
  LiveCall,
  PromptOutcome,
  ResourceOutcome,
  AskingMethod,
  EraCache,
  EraVerdict,
  ServerConnector,
} from './client/index.js';
export { createFileEraCache, createMemoryEraCache } from './client/index.js';
// The MCP shapes the list, call, prompt and resource methods hand back, so hosts can type them without importing the SDK.
export type * from './client/mcp-shapes.js';
export { loadConfig, parseConfig } from './config/index.js';
export type { EraSetting, HttpServerConfig, LoadedConfig, McpxConfig, ServerConfig, StdioServerConfig } from './config/index.js';
export {
  createBroker,
  createManualClock,
  openMemoryStore,
  openSqliteStore,
  openRedisStore,
  openPostgresStore,
  toBrokerStore,
  resolveSession,
  defaultSqlitePath,
} from './broker/index.js';
export type {
  Broker,
  BrokerEvent,
  BrokerEventKind,
  BrokerOptions,
  BrokerStore,
  ClaimOptions,
  Clock,
  ElicitRequest,
  OpenRequestInput,
  PendingEntry,
  PendingFilter,
  RequestState,
  RespondInput,
  StoredAnswer,
  StoreBroker,
  AnsweredBy,
  AuditQuery,
  SessionBinding,
} from './broker/index.js';
export { createElicitationPipeline } from './pipeline/pipeline.js';
export type { Answerer, PipelineOptions } from './pipeline/pipeline.js';
export { parsePolicy, evaluatePolicy, withMode } from './policy/index.js';
export type { Policy, PolicyMode, PolicyRule, PolicyDecision } from './policy/index.js';
// Codegen: the generated client's runtime, and the generator (ts-morph loads only when a generator runs).
export { ToolError, bindServerTools, unwrapOutcome } from './codegen/client-runtime.js';
export type {
  ContentBlock,
  ToolCallOptions,
  ToolCallOutcome,
  ToolCaller,
  ToolResult,
  ToolSpec,
} from './codegen/client-runtime.js';
export {
  checkTypeScript,
  generateClient,
  generateScriptDeclarations,
  readSchemaHash,
  schemaToTypeScript,
} from './codegen/index.js';
export type {
  CodegenWarning,
  GenerateOptions,
  GenerateResult,
  GeneratedFile,
  ToolDefinition,
  ToolsByServer,
} from './codegen/index.js';
// Runtime: scripts in a QuickJS sandbox behind HostBindings (QuickJS and esbuild load only when a script runs).
export {
  startScript,
  runScript,
  prepareScript,
  warmSandboxes,
  DEFAULT_LIMITS as DEFAULT_SCRIPT_LIMITS,
  parseSize,
  parseDuration,
} from './runtime/index.js';
export type {
  AskRequest,
  AskStop,
  ConsoleLevel,
  HostBindings,
  InputRequiredStop,
  RunOutcome,
  RunStats,
  ScriptLimits,
  ScriptRun,
  ScriptSource,
  StartScriptOptions,
  ToolCallReply,
} from './runtime/index.js';
