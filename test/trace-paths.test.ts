// A --trace path no file can be made in is refused before anything is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let a: Awaited<ReturnType<typeof sandbox>>;
// Sections 2 to 8 share nothing that one counts (each has its own folders, and the servers it counts are its
// own), so they run at once, in two groups: the batch's paced waits (2) beside the sections whose work is in
// processes of their own (7, 8), so that its pace is kept by a worker with little else to do; then the
// in-process ones (3 to 6). Section 1 (every request to sandbox a counted) runs between the groups, the
// doctor's count of a's key checks after them.
beforeAll(async () => {
  a = await sandbox();
});
afterAll(async () => {
  await a?.close();
});

describe('1. a --trace path that cannot be written', () => {
  it('`--trace /sys/x.har` (a folder no file can be made in, root or not) is refused before anything is sent', async () => {
    const env = cliEnv(a, tempDir());
    const before = await requestCounts(a);
    const r = await mpay(['deposit', ...customerArgs(), '--yes', '--trace', '/sys/x.har', '--json'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.json().error.kind).toBe('usage');
    expect(r.json().error.message).toBe(
      'Cannot write the trace to /sys/x.har: the folder /sys is not writable by this user',
    );
    expect(await requestCounts(a)).toEqual(before);
  });
});
