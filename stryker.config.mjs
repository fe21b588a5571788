// npm run mutate: mutation testing (Stryker) of the modules that keep mpay's promises, against the
// in-process tests of vitest.stryker.config.ts. A whole run is long on two cores (docs/development.md,
// "Mutation testing"); one module at a time keeps it short:
//   npm run mutate -- --mutate src/api/money.ts
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
