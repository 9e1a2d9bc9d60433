/**
 * Client: upstream MCP connections in both eras, and the one elicitation seam.
 * Knows no broker and no surface: it calls the host's ElicitHandler and returns values.
 */
export {};
