/** `mcpx/testing`: the store compliance suite and helpers for hosts that bring their own keyv store. */
export {};
