import { defineConfig } from 'vitest/config';

// `npm run test:claude-code`: the real Claude Code binary (scripts/install-claude-code.sh) with mcpx as its
// Elicitation hook; not part of `npm test`. One Claude Code at a time: each is a large native process.
export default defineConfig({
  test: {
    include: ['test/claude-code/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
