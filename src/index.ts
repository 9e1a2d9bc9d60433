/**
 * The public API of mcpx. Any export added here becomes public: name it deliberately.
 */
export { McpxError, isMcpxError } from './errors.js';
export type { McpxErrorCode, Issue } from './errors.js';
export type { Action, Answer, ElicitContext, ElicitHandler, ElicitMode, ElicitationSchema, Era, PrimitiveSchema, Question } from './types.js';
export { checkContent } from './elicitation/validate.js';
export type { ContentCheck } from './elicitation/validate.js';
