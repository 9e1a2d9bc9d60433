import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/longest-first.js';

// Most tests wait on child processes, sockets and stores rather than the CPU, so files run six at a time even on
// two cores (vitest's default is cores - 1: one file at a time there). Both projects share that one pool: the
// e2e files use a fresh state dir, port and tmux socket each, so they can run beside each other and the unit files.
// `--maxWorkers=N` on the command line overrides it. Six kept two cores busy (4: 370 s, 6: 353 s, 8: 343 s in one
// session, bench/results/test-durations-2026-12-07-pass4.txt); the per-test timeouts leave room for a file getting
// a third of a core.
const maxWorkers = 6;
// MCPX_TEST_CPU=<file.jsonl> appends each file's CPU, wall time and spawns there (test/helpers/cpu-meter.ts).
const setupFiles = process.env.MCPX_TEST_CPU ? ['test/helpers/cpu-meter.ts'] : [];

export default defineConfig({
  test: {
    maxWorkers,
    // Every file of both projects, longest first (test/helpers/longest-first.ts): the suite ends with short files.
    sequence: { sequencer: LongestFirst },
    // npm test (MCPX_TEST_DTS=build): the declarations build beside the tests (test/helpers/declarations.ts).
    globalSetup: ['test/helpers/declarations-setup.ts'],
    projects: [
      {
        // Unit files share their worker processes (isolate: false): src, the MCP SDK and zod are loaded once per
        // worker rather than once per file, a fifth of these files' CPU (bench/results/test-durations-*-pass3.txt).
        // Nothing here mocks a module or changes process-wide state; each file starts its own servers and stores.
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          // test/install: real npm installs of the packed tarball, `npm run test:install` (vitest.install.config.ts).
          // test/claude-code: the real Claude Code binary, `npm run test:claude-code` (vitest.claude-code.config.ts).
          exclude: ['test/e2e/**', 'test/install/**', 'test/claude-code/**', 'node_modules/**'],
          isolate: false,
          setupFiles,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Spawns the built CLI (dist/): run after `npm run build`.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          setupFiles,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
