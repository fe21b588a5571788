// #33, a second new user on the built round three: each finding as it was met, against a real sandbox over
// HTTP, through the command classes in this process (test/in-process.ts) or the real bin/run.js where the
// printed command itself is run (bash -c, as a person pastes it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let a: Awaited<ReturnType<typeof sandbox>>;
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
