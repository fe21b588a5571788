// A batch allocates far more than it keeps: each row's requests, answers and journal lines are garbage
// once the row ends, but with rows in flight much of it survives two young collections, is promoted,
// and V8 grows its old space lazily before it collects there. A 1,000-row batch peaked at 170 MB of RSS
// with 15 MB live. A full collection whenever the heap holds more than a bound keeps the peak near
// 125-135 MB for about 10% more time (docs/performance.md "Batches"); a small batch never reaches the
// bound and pays nothing. V8's heap limits cannot be changed once the process runs (setFlagsFromString
// does not resize the heap), so this is the lever a running command has.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A function to call between units of work: it collects garbage when the heap holds more than limitMb. */
export function heapBound(limitMb: number): () => void {
  // A context made while --expose-gc is set has V8's gc(); the flag is put back at once, so no later
  // context gets it.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  const limit = limitMb * 2 ** 20;
  return () => {
    if (getHeapStatistics().used_heap_size > limit) gc();
  };
}

/**
 * A walk through the whole journal makes much that dies at once (a line, its record, its JSON): V8 would
 * grow its young generation to 16 MB a half for it, and the process's memory with it (150+ MB at a million
 * transactions). Kept at its first size, the walk stays near 100 MB, at a small cost in time
 * (docs/performance.md).
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
