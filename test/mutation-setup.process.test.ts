// `npm run mutate` refuses what it cannot run before Stryker starts: a file that is no safety module, or none
// at all, named as typed, with the list of the modules it takes (its table: scripts/mutation-modules.mjs).
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

const mutate = (...args: string[]) =>
  spawnSync(process.execPath, ['scripts/mutate.mjs', ...args], { encoding: 'utf8', timeout: 60_000 });

it('refuses a file that is no safety module, and one that does not exist, naming the modules it takes', () => {
  const other = mutate('./src/execute.ts');
  expect(other.status).toBe(2);
  expect(other.stderr).toContain('mutate: src/execute.ts is not a safety module');
  expect(other.stderr).toContain('\n  src/journal/locks.ts\n');
  const missing = mutate('src/journal/lock.ts:1-20');
  expect(missing.status).toBe(2);
  expect(missing.stderr).toContain('mutate: no such file: src/journal/lock.ts;');
});
