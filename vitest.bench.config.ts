import { defineConfig } from 'vitest/config';

// `npm run bench:smoke`: the benchmark's smoke test, outside the default suite (it takes ~15 s of a
// quiet machine and measures rather than checks).
export default defineConfig({
  test: {
    include: ['test/bench/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 400_000,
  },
});
