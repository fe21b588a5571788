// npm run mutate: mutation testing (Stryker) of the modules that keep mpay's promises, against the
// in-process tests of vitest.stryker.config.ts. A whole run is long on two cores (docs/development.md,
// "Mutation testing"); one module at a time keeps it short:
//   npm run mutate -- --mutate src/api/money.ts
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
  mutate: [
    // the gate and its classifier
    'src/api/money.ts',
    'src/api/ticket.ts',
    'src/flows/gate/money-gate.ts',
    // the journal (the SQLite store's writes: synced before a request leaves, 0600, a foreign file
    // refused; journal.ts: secret-named keys never stored) and the locks of a transaction
    'src/journal/database.ts',
    'src/journal/journal.ts',
    'src/journal/locks.ts',
    // batch identity, and an answer naming the transaction asked about
    'src/flows/batch/batch-check.ts',
    'src/flows/gate/answer-check.ts',
    // the scrubber (the secret names it masks by) and shell quoting
    'src/api/secret-names.ts',
    'src/api/redact.ts',
    'src/api/redact-rules.ts',
    'src/common/shell-words.ts',
    // scenario and replay safety
    'src/flows/scenario/scenario-check.ts',
    'src/flows/replay/replay.ts',
    'src/flows/replay/replay-plan.ts',
    'src/flows/replay/replay-compare.ts',
  ],
  ignorePatterns: ['dist', '.cache', 'reports', 'coverage', 'bench/results.json'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 95, low: 90, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
