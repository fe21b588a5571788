import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores here and in CI; each test file spawns CLI processes of its own.
    maxWorkers: 2,
  },
});
