/** MCP Tasks, the client side: a tool called as a task in either era (task-call.ts), its wire shapes (wire.ts). */
export { followTask, LEAVE_MCP_TASK, leavesMcpTask, runTaskCall } from './task-call.js';
export type { McpTaskHandle, TaskCallOptions } from './task-call.js';
export { needsTasksExtension, TASKS_EXTENSION, wrapCreatedTask } from './wire.js';
