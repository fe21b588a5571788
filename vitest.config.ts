import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The benchmark's smoke test has its own script (npm run bench:smoke).
    exclude: ['test/bench/**', 'node_modules/**'],
    // Builds the bundle first, so that no test spawns a stale dist/mpay.cjs.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores here and in CI.
    maxWorkers: 2,
    // One module graph a worker, not one a file: the sandbox, oclif, got and the commands' sources that
    // most files import are evaluated once in each worker, instead of once in each of the ~70 files (in
    // a measured run of ten files, 38 s of CPU with isolation, 18 s without). No test file leaves global
    // state behind: none changes process.env or the working folder for good, fake timers are put back in
    // a finally, and an in-process run takes its IO and variables as arguments (test/in-process.ts).
    isolate: false,
  },
});
