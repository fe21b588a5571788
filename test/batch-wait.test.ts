// #33 item 7: a batch's rate-limit wait is visible. On a terminal the bar counts each wait down, and the
// pace the batch reports at its end is the one it kept (measured: rows over the time since the first 429),
// in a unit that reads. A real terminal (tmux), the real bin/run.js, a sandbox with a small rate limit.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { paceInWords } from '../src/flows/batch/pace.js';
import { sandbox } from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox({ rateLimit: { limit: 3, windowMs: 8000 } });
});
afterAll(() => sb.close());

it('a pace reads in the unit that fits', () => {
  expect(paceInWords(5, 2000)).toBe('2.5 rows a second');
  expect(paceInWords(4, 60_000)).toBe('4 rows a minute');
  expect(paceInWords(1, 3_600_000)).toBe('1 row an hour');
});
