import { defineConfig } from 'vitest/config';
// @ts-expect-error: a plain ES module of the scripts, without types
import { allMutationTests, testsOf } from './scripts/mutation-modules.mjs';

// The tests `npm run mutate` (Stryker, stryker.config.mjs) runs against each mutant: the in-process test
// files that guard the module being mutated (MPAY_MUTATE_MODULE, set by scripts/mutate.mjs), or every
// safety module's files. The list lives in scripts/mutation-modules.mjs: docs/development.md, "Mutation
// testing".
const one = process.env.MPAY_MUTATE_MODULE;
const include: string[] = (one && testsOf(one)) || allMutationTests;

export default defineConfig({
  test: {
    include,
    // Builds the bundle when it is stale: in-process runs read oclif's manifest beside it.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
