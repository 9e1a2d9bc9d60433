/** The MCP shapes the pool's list, call, prompt and resource methods hand back, named once for the pool and the public API. */
export type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/client';
