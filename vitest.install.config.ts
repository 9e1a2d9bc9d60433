import { defineConfig } from 'vitest/config';

// `npm run test:install`: the packed tarball installed for real (npm pack, npm install); not part of `npm test`.
export default defineConfig({
  test: {
    include: ['test/install/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
