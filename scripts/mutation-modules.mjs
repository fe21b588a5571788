// The modules that keep mpay's promises, each with the in-process test files that guard it: the one list
// that `npm run mutate` (scripts/mutate.mjs), stryker.config.mjs and vitest.stryker.config.ts read, and
// that test/mutation-setup.test.ts holds to the tree (a renamed test file is a failure there, not a
// module silently run against no tests).
//
// A module's tests are its own files, not every file that passes through it: each mutant runs every
// listed test that covers its line, and a line every request passes (the classifier, the scrubber)
// would run the flow and scenario files too, tripling a run. A file listed here may spawn a helper
// (bash, to read a printed line back) but never mpay, a terminal, a keyring daemon or the executable: a
// spawned mpay runs the bundle, which a mutant of the sources never reaches.

/** @type {{ module: string, promise: string, tests: string[] }[]} */
export const safetyModules = [
  {
    module: 'src/api/money.ts',
    promise: 'the classifier: which request moves money, whatever its spelling',
    tests: [
      'test/money-classifier.test.ts',
      'test/safety-money.test.ts',
      'test/money-gate.test.ts',
      'test/endpoints.test.ts',
    ],
  },
  {
    module: 'src/api/ticket.ts',
    promise: 'the ticket: a money request leaves only with the gate’s ticket for its kind',
    tests: ['test/money-classifier.test.ts', 'test/money-gate.test.ts', 'test/safety-money.test.ts'],
  },
  {
    module: 'src/flows/gate/money-gate.ts',
    promise: 'the gate: journaled and confirmed before a money request leaves',
    tests: ['test/money-gate.test.ts', 'test/safety-money.test.ts'],
  },
  {
    module: 'src/journal/database.ts',
    promise: 'the journal file: synced before a request leaves, private, a foreign file refused',
    tests: [
      'test/journal-sqlite.test.ts',
      'test/journal-file.test.ts',
      'test/private-journal.test.ts',
      'test/journal-disk.process.test.ts',
    ],
  },
  {
    module: 'src/journal/journal.ts',
    promise: 'the journal’s records: no secret-named key stored',
    tests: [
      'test/journal-file.test.ts',
      'test/journal-sqlite.test.ts',
      'test/private-journal.test.ts',
      'test/scrub-secrets.test.ts',
      'test/journal-queries.test.ts',
      'test/journal-disk.process.test.ts',
    ],
  },
  {
    module: 'src/journal/records.ts',
    promise:
      'where a transaction stands: a step done is not sent again, one in progress never pruned, a record continued only at its own place',
    tests: [
      'test/journal-records.test.ts',
      'test/journal-places.test.ts',
      'test/history-prune.test.ts',
      'test/resolve.test.ts',
    ],
  },
  {
    module: 'src/journal/locks.ts',
    promise: 'one process a transaction: its lock, taken over only from a holder that is gone',
    tests: ['test/locks.test.ts', 'test/private-path.test.ts', 'test/money-gate.test.ts'],
  },
  {
    module: 'src/flows/batch/batch-check.ts',
    promise: 'batch identity: a row is not sent twice, nor taken for another payment',
    tests: ['test/batch-check.test.ts'],
  },
  {
    module: 'src/flows/gate/answer-check.ts',
    promise: 'an answer names the transaction asked about',
    tests: ['test/answer-check.test.ts'],
  },
  {
    module: 'src/api/secret-names.ts',
    promise: 'the scrubber: the names whose values are secrets',
    tests: ['test/secret-names.test.ts', 'test/scrub-secrets.test.ts', 'test/secrets.test.ts'],
  },
  {
    module: 'src/api/redact.ts',
    promise: 'the scrubber: secrets masked by name and by value on every output',
    tests: [
      'test/secrets.test.ts',
      'test/scrub-document.test.ts',
      'test/scrub-rules.test.ts',
      'test/scrub-prose.test.ts',
      'test/scrub-secrets.test.ts',
      'test/trace.test.ts',
      'test/debug-errors.test.ts',
    ],
  },
  {
    module: 'src/api/redact-rules.ts',
    promise: 'the scrubber’s rules in headers, bodies and free text',
    tests: [
      'test/secrets.test.ts',
      'test/scrub-prose.test.ts',
      'test/scrub-rules.test.ts',
      'test/scrub-document.test.ts',
    ],
  },
  {
    module: 'src/common/shell-words.ts',
    promise: 'shell quoting: a printed command gives back the very bytes',
    tests: ['test/shell-words.process.test.ts', 'test/hostile-input.test.ts'],
  },
  {
    module: 'src/flows/scenario/scenario-check.ts',
    promise: 'scenario safety: which step moves money, a sandbox-only file never run live',
    tests: ['test/scenario-check.test.ts', 'test/scenario-safety.test.ts', 'test/scenario-money.test.ts'],
  },
  {
    module: 'src/flows/replay/replay.ts',
    promise: 'replay safety: stops at the first failure, sandbox only',
    tests: [
      'test/replay.test.ts',
      'test/replay-failure.test.ts',
      'test/replay-journal.test.ts',
      'test/replay-keys.test.ts',
      'test/replay-plan.test.ts',
      'test/replay-compare.test.ts',
      'test/replay-report.test.ts',
      'test/replay-messages.test.ts',
    ],
  },
  {
    module: 'src/flows/replay/replay-plan.ts',
    promise: 'replay: what is sent again, the recorded secrets and tokens replaced',
    tests: [
      'test/replay-plan.test.ts',
      'test/replay.test.ts',
      'test/replay-journal.test.ts',
      'test/replay-keys.test.ts',
      'test/replay-failure.test.ts',
      'test/replay-compare.test.ts',
      'test/replay-report.test.ts',
      'test/replay-messages.test.ts',
      // --save-scenario leaves out the calls the plan cannot replay (scenario-from-trace.ts)
      'test/scenario-save.test.ts',
    ],
  },
  {
    module: 'src/flows/replay/replay-compare.ts',
    promise: 'replay: the differences told',
    tests: [
      'test/replay-compare.test.ts',
      'test/replay.test.ts',
      'test/replay-failure.test.ts',
      'test/replay-journal.test.ts',
      'test/replay-keys.test.ts',
      'test/replay-plan.test.ts',
      'test/replay-report.test.ts',
      'test/replay-messages.test.ts',
    ],
  },
];

/** The union of every module's test files, for a run of the whole list. */
export const allMutationTests = [...new Set(safetyModules.flatMap((m) => m.tests))];

/** The test files of a module given as `npm run mutate` takes it (a path, optionally `:from-to`). */
export function testsOf(spec) {
  const path = spec.replace(/:\d+-\d+$/, '');
  return safetyModules.find((m) => m.module === path)?.tests;
}
