import { defineConfig } from 'vitest/config';

// Two tiers (docs/development.md says which to run when):
//   quick    every file but *.process.test.ts: the commands run in this process (test/in-process.ts),
//            against a real sandbox over loopback HTTP. It starts no process of its own: its setup file
//            makes every child_process call throw, so a test that needs one has to live in the other tier.
//   process  *.process.test.ts: where a process is the subject (signals, a terminal, kill -9, the keyring,
//            the environment read at start-up, the executable, two processes at once). These spawn
//            bin/run.js, so the bundle is built first (test/global-setup.ts).
// `npm run test:quick` runs the first; `npm test` (and .ci/run) runs both.
const processFiles = 'test/**/*.process.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores here and in CI.
    maxWorkers: 2,
    // One module graph a worker, not one a file: the sandbox, oclif, got and the commands' sources that
    // most files import are evaluated once in each worker, instead of once in each of the ~70 files (in
    // a measured run of ten files, 38 s of CPU with isolation, 18 s without). No test file leaves global
    // state behind: none changes process.env or the working folder for good, fake timers are put back in
    // a finally, and an in-process run takes its IO and variables as arguments (test/in-process.ts).
    // Vitest gives each project workers of its own, so the quick tier's setup never reaches the other's.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'quick',
          include: ['test/**/*.test.ts'],
          // The benchmark's smoke test has its own script (npm run bench:smoke).
          exclude: [processFiles, 'test/bench/**', 'node_modules/**'],
          setupFiles: ['test/quick-tier.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: [processFiles],
          exclude: ['test/bench/**', 'node_modules/**'],
          // Builds the bundle first, so that no test spawns a stale dist/mpay.cjs.
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
