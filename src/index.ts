/**
 * The root of the package: `createMcpx`, the vocabulary of questions, answers and outcomes, and errors.
 * Any export added here becomes public: name it deliberately. Everything else has its own subpath (src/entries/,
 * docs/api.md); test/api/exports.test.ts holds the exact list of names.
 */
export { createMcpx, DEFAULT_ELICIT_TTL_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './mcpx.js';
export type { Mcpx, McpxOptions } from './mcpx.js';
export type { DurableMcpx, PolicyOption, ResultOptions, StoreOption } from './mcpx-durable.js';
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
export type {
  CallOptions,
  CallOutcome,
  CompleteOutcome,
  Continuation,
  InputRequiredOutcome,
  LiveCall,
  PromptOutcome,
  ResourceOutcome,
} from './client/index.js';
export type { TaskRecord, TaskResult, TaskState } from './tasks/types.js';
// The MCP shapes the list, prompt and resource methods hand back, so hosts can type them without importing the SDK.
// A tool's result is `ToolResult` below.
export type { GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool } from './client/mcp-shapes.js';
// What a generated client imports from 'mcpx' (light: no ts-morph), and what its calls throw.
export { ToolError, bindServerTools, unwrapOutcome } from './codegen/client-runtime.js';
export type { ContentBlock, ToolCallOptions, ToolCaller, ToolResult } from './codegen/client-runtime.js';
