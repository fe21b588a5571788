// #33 "What a new user ran into, round three": each item as the user met it, run as the user ran it (the
// real bin/run.js, a real sandbox over HTTP, a real terminal through tmux where the issue says so).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { loginArgs, run, sandbox, tempDir } from './helpers.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';

let a: Awaited<ReturnType<typeof sandbox>>;
let b: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  [a, b] = await Promise.all([sandbox(), sandbox()]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

/** A config folder with profiles `a` (on sandbox a, current) and `b` (on sandbox b), the key file kept. */
async function twoProfiles(): Promise<Record<string, string>> {
  const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off' };
  const keys = { MPAY_MERCHANT_KEY: demoMerchant.merchantKey, MPAY_API_KEY: demoMerchant.apiKey };
  for (const [name, sb] of [
    ['b', b],
    ['a', a],
  ] as const) {
    const r = await run(loginArgs(name, sb.url), { env: { ...env, ...keys } });
    expect(r.code, r.stderr).toBe(0);
  }
  return env;
}

/** What a terminal 80 columns wide shows of one run, up to the shell's EXIT= line, and that exit. */
async function onTerminal(name: string, args: string[], env: Record<string, string>) {
  const t = new Tmux(name);
  try {
    t.start(args, env, undefined, 80);
    const screen = await t.waitFor(/EXIT=\d+/, 60_000);
    return {
      screen: screen.slice(0, screen.lastIndexOf('EXIT=')).trimEnd(),
      exit: Number(/EXIT=(\d+)/.exec(screen)![1]),
    };
  } finally {
    t.kill();
  }
}

describe('1. the global flags before the command', () => {
  it.skipIf(without('tmux'))(
    '`mpay --profile b doctor` on a terminal is `mpay doctor --profile b`: profile b, its server',
    async () => {
      const env = await twoProfiles();
      const before = await onTerminal('flags-before', ['--profile', 'b', 'doctor'], env);
      const after = await onTerminal('flags-after', ['doctor', '--profile', 'b'], env);
      expect(before.screen).not.toMatch(/unknown command/);
      expect(before.exit, before.screen).toBe(0);
      expect(before.screen).toContain(`${b.url} (sandbox, profile b)`);
      expect(before).toEqual(after);
    },
  );

  it('`mpay --json countries` prints what `mpay countries --json` prints; every form of a flag moves', async () => {
    const env = await twoProfiles();
    const after = await run(['countries', '--json'], { env });
    expect(after.code, after.stderr).toBe(0);
    for (const args of [
      ['--json', 'countries'],
      ['--profile', 'a', '--json', 'countries'],
      ['--profile=a', '--env', 'sandbox', '--json', 'countries'],
      [`--base-url=${a.url}`, '--json', 'countries'],
      ['--query', '[].code', 'countries'],
    ]) {
      const r = await run(args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      if (args.includes('--query'))
        expect(r.json()).toEqual(after.json().map((c: { code: string }) => c.code));
      else expect(r.stdout).toBe(after.stdout);
    }
    // a topic's command, its own flags after it
    const topic = await run(['--json', '--profile', 'b', 'history', 'show', 'nosuch'], { env });
    const same = await run(['history', 'show', 'nosuch', '--json', '--profile', 'b'], { env });
    expect(topic.code).toBe(same.code);
    expect(topic.stdout).toBe(same.stdout);
    expect(topic.stdout).not.toMatch(/unknown command/);
  });

  it('a global flag the command does not take is refused by its name, before as after', async () => {
    const env = await twoProfiles();
    const before = await run(['--yes', 'countries'], { env });
    const after = await run(['countries', '--yes'], { env });
    expect(before.code).toBe(2);
    expect(before.stderr).toMatch(/--yes/);
    expect(before.stderr).toBe(after.stderr);
    const unknown = await run(['--json', 'nosuch'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "nosuch"/);
  });

  it('the help says so', async () => {
    const root = await run(['--help'], { env: { COLUMNS: '80' } });
    expect(root.stdout).toMatch(/\$ mpay \[global flags\] <command> \[flags\]/);
    expect(root.stdout).toMatch(/go before the command or after it/);
    const one = await run(['balances', '--help'], { env: { COLUMNS: '80' } });
    expect(one.stdout).toContain('These may also come before the command: `mpay --json balances`');
  });
});
