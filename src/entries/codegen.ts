/**
 * `mcpx/codegen`: typed tool clients and script declarations from servers' schemas. ts-morph loads only when a
 * generator runs. The generated code's own imports (bindServerTools, ToolCaller, ToolResult) are in the root.
 */
export {
  checkTypeScript,
  generateClient,
  generateScriptDeclarations,
  planClientFiles,
  planScriptDeclarations,
  readSchemaHash,
  schemaToTypeScript,
} from '../codegen/index.js';
export type {
  CodegenWarning,
  GenerateOptions,
  GenerateResult,
  GeneratedFile,
  ToolCallOutcome,
  ToolDefinition,
  ToolSpec,
  ToolsByServer,
} from '../codegen/index.js';
