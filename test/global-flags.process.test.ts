// The global flags before the command (bin/run.js reorders them): the same run as after it, every form
// of a flag, a flag the command does not take refused by name, and the help saying so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, sandbox } from './helpers.js';
import { mpay, twoProfiles } from './in-process.js';
import { onTerminal } from './tmux.js';
import { without } from './tools.js';

let a: Awaited<ReturnType<typeof sandbox>>;
let b: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  [a, b] = await Promise.all([sandbox(), sandbox()]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

/**
 * A suite's tests at once (each in config folders, on terminals, of its own; the sandboxes shared, each
 * test with references of its own), with a deadline above their waits' for a loaded machine.
 */
const together = { concurrent: true, timeout: 120_000 };

describe('1. the global flags before the command', together, () => {
  it.skipIf(without('tmux'))(
    '`mpay --profile b doctor` on a terminal is `mpay doctor --profile b`: profile b, its server',
    async () => {
      const env = await twoProfiles(a, b);
      const [before, after] = await Promise.all([
        onTerminal('flags-before', ['--profile', 'b', 'doctor'], env),
        onTerminal('flags-after', ['doctor', '--profile', 'b'], env),
      ]);
      expect(before.screen).not.toMatch(/unknown command/);
      expect(before.exit, before.screen).toBe(0);
      expect(before.screen).toContain(`${b.url} (sandbox, profile b)`);
      expect(before).toEqual(after);
    },
  );

  it('`mpay --json countries` prints what `mpay countries --json` prints; every form of a flag moves', async () => {
    const env = await twoProfiles(a, b);
    const after = await mpay(['countries', '--json'], { env });
    expect(after.code, after.stderr).toBe(0);
    for (const args of [
      ['--json', 'countries'],
      ['--profile', 'a', '--json', 'countries'],
      ['--profile=a', '--env', 'sandbox', '--json', 'countries'],
      [`--base-url=${a.url}`, '--json', 'countries'],
      ['--query', '[].code', 'countries'],
    ]) {
      // bin/run.js's reordering (execute.ts argvFor), which the in-process runner applies too; the
      // first form runs as a process as well, as does the terminal test above
      const r = await mpay(args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      if (args.includes('--query'))
        expect(r.json()).toEqual(after.json().map((c: { code: string }) => c.code));
      else expect(r.stdout).toBe(after.stdout);
    }
    const spawned = await run(['--json', 'countries'], { env });
    expect(spawned.code, spawned.stderr).toBe(0);
    expect(spawned.stdout).toBe(after.stdout);
    // a topic's command, its own flags after it
    const topic = await mpay(['--json', '--profile', 'b', 'history', 'show', 'nosuch'], { env });
    const same = await mpay(['history', 'show', 'nosuch', '--json', '--profile', 'b'], { env });
    expect(topic.code).toBe(same.code);
    expect(topic.stdout).toBe(same.stdout);
    expect(topic.stdout).not.toMatch(/unknown command/);
  });

  it('a global flag the command does not take is refused by its name, before as after', async () => {
    const env = await twoProfiles(a, b);
    const before = await mpay(['--yes', 'countries'], { env });
    const after = await mpay(['countries', '--yes'], { env });
    expect(before.code).toBe(2);
    expect(before.stderr).toMatch(/--yes/);
    expect(before.stderr).toBe(after.stderr);
    // the entry's own answer, as a process: no command to run in this one
    const unknown = await run(['--json', 'nosuch'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "nosuch"/);
  });

  it('the help says so', async () => {
    const [root, one] = await Promise.all([
      run(['--help'], { env: { COLUMNS: '80' } }),
      run(['balances', '--help'], { env: { COLUMNS: '80' } }),
    ]);
    expect(root.stdout).toMatch(/\$ mpay \[global flags\] <command> \[flags\]/);
    expect(root.stdout).toMatch(/go before the command or after it/);
    expect(one.stdout).toContain('These may also come before the command: `mpay --json balances`');
  });
});
