/** The CLI's cleaning of server text: shared with `mcpx serve`, so it lives with the elicitation core. */
export { sanitize, sanitizeLine, type SanitizeOptions } from '../../elicitation/sanitize.js';
