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
  },
});
