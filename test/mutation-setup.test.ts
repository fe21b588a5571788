// `npm run mutate` (scripts/mutation-modules.mjs) is only as good as its list: a safety module run against
// a test file that was renamed since is run against nothing of its own, and every mutant of it survives
// or, worse, is scored by whatever other file happens to cover it. These hold the list to the tree.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the scripts, without types
import { allMutationTests, safetyModules, testsOf } from '../scripts/mutation-modules.mjs';
// @ts-expect-error: the same
import strykerConfig from '../stryker.config.mjs';

interface SafetyModule {
  module: string;
  promise: string;
  tests: string[];
}
const modules = safetyModules as SafetyModule[];

describe('the mutation-testing list', () => {
  it('names modules and test files that exist', () => {
    expect(modules.length).toBeGreaterThan(0);
    const missing = [...modules.map((m) => m.module), ...(allMutationTests as string[])].filter(
      (f) => !existsSync(f),
    );
    expect(missing).toEqual([]);
  });

  it('lists no test file that spawns mpay (a spawned mpay runs the bundle, which no mutant reaches)', () => {
    const spawning = (allMutationTests as string[]).filter((t) => {
      const text = readFileSync(t, 'utf8');
      const helpers = /import\s*{([^}]*)}\s*from\s*'\.\/helpers\.js'/.exec(text)?.[1] ?? '';
      return /\b(run|runPrinted|spawnMpay)\b/.test(helpers) || /process\.execPath/.test(text);
    });
    expect(spawning).toEqual([]);
  });

  it('is what Stryker mutates, and what a run of one module tests', () => {
    expect((strykerConfig as { mutate: string[] }).mutate).toEqual(modules.map((m) => m.module));
    expect(testsOf('src/journal/locks.ts:117-211')).toEqual(
      modules.find((m) => m.module === 'src/journal/locks.ts')?.tests,
    );
    expect(testsOf('src/not/a-module.ts')).toBeUndefined();
  });
});
