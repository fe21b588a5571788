// Stryker's settings for `npm run mutate` (scripts/mutate.mjs), which runs it one safety module at a time
// against that module's own test files (scripts/mutation-modules.mjs):
//   npm run mutate -- src/api/money.ts
// `npx stryker run` alone mutates every module against the union of their test files: longer, and a mutant
// may then be killed by a test of another module.
import { safetyModules } from './scripts/mutation-modules.mjs';

// One module (scripts/mutate.mjs sets it): its own report and incremental file, so that runs of
// several modules keep each other's results.
const one = process.env.MPAY_MUTATE_MODULE;
const slug = one ? one.replace(/^src\//, '').replace(/[^\w.-]+/g, '_') : 'all'; // as scripts/mutate.mjs names it

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: true },
  // A mutant that does not compile is no test's to kill: the checker drops it before any test runs.
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.stryker.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  // The machine is shared (two cores): one test process at a time.
  concurrency: 1,
  timeoutMS: 30_000,
  // The modules and the tests that guard each: scripts/mutation-modules.mjs.
  mutate: one ? [one] : safetyModules.map((m) => m.module),
  ignorePatterns: ['dist', '.cache', 'reports', 'coverage', 'bench/results.json'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${slug}.html` },
  jsonReporter: { fileName: `reports/mutation/${slug}.json` },
  // A run again tests only the mutants whose code, or whose covering tests, changed.
  incremental: true,
  incrementalFile: `reports/mutation/${slug}.incremental.json`,
  thresholds: { high: 95, low: 90, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
