/**
 * Codegen: typed tool clients and script declarations from servers' JSON Schemas (untrusted input).
 * Pure: takes tool lists, returns files; never connects, never touches the terminal. ts-morph loads on first use.
 */
export {
  generateClient,
  generateScriptDeclarations,
  planClientFiles,
  planScriptDeclarations,
  schemaToTypeScript,
} from './generate.js';
export type { GenerateOptions, GenerateResult, GeneratedFile } from './generate.js';
export type { ToolDefinition, ToolsByServer } from './server-model.js';
export type { CodegenWarning, ConvertLimits } from './convert-schema.js';
export { DEFAULT_LIMITS } from './convert-schema.js';
export { checkTypeScript } from './check.js';
export type { CheckOptions, TypeDiagnostic } from './check.js';
export { GENERATOR_VERSION, readSchemaHash, schemaHash } from './hash.js';
export { memberName, typeName } from './names.js';
export { ToolError, bindServerTools, unwrapOutcome } from './client-runtime.js';
export type { ContentBlock, ToolCallOptions, ToolCallOutcome, ToolCaller, ToolResult, ToolSpec } from './client-runtime.js';
