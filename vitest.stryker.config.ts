import { defineConfig } from 'vitest/config';

// The tests `npm run mutate` (Stryker, stryker.config.mjs) runs against each mutant: in-process tests of
// the modules that keep the promises, none that spawns mpay, a terminal, a keyring daemon or the
// executable (a spawned process runs the bundle, which a mutant of the sources never reaches, and is slow).
// A file listed here must stay in-process: docs/development.md, "Mutation testing". Files that reach these
// modules only on their way to something else (the wallet rule's ~100 HTTP runs, history's commands) are
// left out: each mutant runs every test that covers it, and they would triple a run's time.
export default defineConfig({
  test: {
    include: [
      // the gate, its classifier and its tickets
      'test/money-classifier.test.ts',
      'test/safety-money.test.ts',
      'test/money-gate.test.ts',
      // the journal and locks
      'test/journal-file.test.ts',
      'test/journal-sqlite.test.ts',
      'test/locks.test.ts',
      'test/private-path.test.ts',
      'test/private-journal.test.ts',
      // batch identity
      'test/batch-check.test.ts',
      'test/answer-check.test.ts',
      // the scrubber and shell quoting
      'test/secrets.test.ts',
      'test/secret-names.test.ts',
      'test/scrub-rules.test.ts',
      'test/scrub-document.test.ts',
      'test/shell-words.test.ts',
      'test/trace.test.ts',
      'test/debug-errors.test.ts',
      // scenario and replay safety
      'test/scenario-money.test.ts',
      'test/scenario-safety.test.ts',
      'test/scenario.test.ts',
      'test/scenario-check.test.ts',
      'test/replay-failure.test.ts',
      'test/replay.test.ts',
      'test/replay-compare.test.ts',
      'test/replay-journal.test.ts',
      'test/replay-plan.test.ts',
      'test/replay-keys.test.ts',
      'test/scrub-secrets.test.ts',
      'test/flows.test.ts',
    ],
    // Builds the bundle when it is stale: in-process runs read oclif's manifest beside it.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
