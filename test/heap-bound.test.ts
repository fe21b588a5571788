// The batch's bound on garbage (src/flows/batch/heap-bound.ts): past the bound, a call collects; under it, it
// does not. The peak RSS it buys is measured by npm run bench, not here.
import { getHeapStatistics } from 'node:v8';
import { expect, it } from 'vitest';
import { heapBound } from '../src/flows/batch/heap-bound.js';

const used = () => getHeapStatistics().used_heap_size / 2 ** 20;

it('collects the garbage of finished work once the heap holds more than the bound', () => {
  const tidy = heapBound(1);
  let garbage: unknown[] = [];
  for (let i = 0; i < 200_000; i++) garbage.push({ i, s: `row ${i}` });
  garbage = [];
  const before = used();
  tidy();
  expect(before - used()).toBeGreaterThan(5);
});

it('leaves the heap alone under the bound', () => {
  const tidy = heapBound(100_000);
  let garbage: unknown[] = [];
  for (let i = 0; i < 200_000; i++) garbage.push({ i, s: `row ${i}` });
  garbage = [];
  const before = used();
  tidy();
  expect(before - used()).toBeLessThan(1);
  expect(garbage).toHaveLength(0);
});
