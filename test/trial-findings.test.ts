// What a new user's trial of the last round found (#33's follow-up), each run as the user ran it: the real
// command classes or bin/run.js, a real sandbox, a real terminal (tmux) for the prompts.
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, loginArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

/** A suite's tests at once, each in folders and on a terminal of its own, against the one sandbox. */
const together = { concurrent: true, timeout: 120_000 };

const keys = { MPAY_MERCHANT_KEY: demoMerchant.merchantKey, MPAY_API_KEY: demoMerchant.apiKey };

it.concurrent('config set <env>.base_url none unsets it: the default again, or none', async () => {
  const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off' };
  expect((await mpay(loginArgs('p', sb.url), { env: { ...env, ...keys } })).code).toBe(0);
  expect((await mpay(['config', 'set', 'stage.base_url', 'https://stage.example.com'], { env })).code).toBe(
    0,
  );
  const unset = await mpay(['config', 'set', 'stage.base_url', 'none', '--json'], { env });
  expect(unset.code, unset.stderr).toBe(0);
  expect(unset.json()).toMatchObject({ key: 'stage.base_url', value: null });
  const sandboxUnset = await mpay(['config', 'set', 'sandbox.base_url', 'none'], { env });
  expect(sandboxUnset.stdout + sandboxUnset.stderr).toMatch(
    /unset \(the default http:\/\/127\.0\.0\.1:4010 is used\)/,
  );
  const all = (await mpay(['config', 'list', '--json'], { env })).json();
  expect(all['stage.base_url']).toBeNull();
  expect(all['sandbox.base_url']).toBe('http://127.0.0.1:4010');
});

it.concurrent(
  'profiles remove without --yes and without a terminal is refused (exit 2), and keeps the profile',
  async () => {
    const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off' };
    // (in this process, which has no terminal either: memoryIO's streams are not one)
    expect((await mpay(loginArgs('gone', sb.url), { env: { ...env, ...keys } })).code).toBe(0);
    const r = await mpay(['profiles', 'remove', 'gone'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Not removed: removing profile gone takes its credentials with it/);
    expect(r.stderr).toMatch(/--yes/);
    expect((await mpay(['profiles', 'list', '--json'], { env })).stdout).toMatch(/"gone"/);
    const yes = await mpay(['profiles', 'remove', 'gone', '--yes'], { env });
    expect(yes.code, yes.stderr).toBe(0);
  },
);

it.concurrent(
  "a live login on another profile's sandbox server warns that it is live for every profile from now on",
  async () => {
    const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off', ...keys };
    expect((await mpay(loginArgs('dev', sb.url), { env })).code).toBe(0);
    const live = await mpay(
      ['login', '--profile', 'prod', '--env', 'live', '--base-url', sb.url, '--site-id', '1', '--no-verify'],
      { env },
    );
    expect(live.code, live.stderr).toBe(0);
    expect(live.stderr.replace(/\n\s+/g, ' ')).toContain(
      `${sb.url} is profile dev's sandbox server; as profile prod's live server it is live from now on for every profile`,
    );
    const other = await mpay(
      [
        'login',
        '--profile',
        'prod2',
        '--env',
        'live',
        '--base-url',
        'https://api.example.com',
        '--site-id',
        '1',
        '--no-verify',
      ],
      { env },
    );
    expect(other.stderr).not.toMatch(/is profile .*'s sandbox server/);
  },
);

it.concurrent(
  'no such warning on the default sandbox URL, which every profile shares as its local sandbox',
  async () => {
    const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off', ...keys };
    const at = (profile: string, ...more: string[]) =>
      mpay(['login', '--profile', profile, '--site-id', '1', '--no-verify', ...more], { env });
    // one profile keeps it as its sandbox, another stores none (the default is its sandbox all the same)
    expect((await at('dev', '--env', 'sandbox', '--base-url', 'http://127.0.0.1:4010')).code).toBe(0);
    expect((await at('ops', '--env', 'stage', '--base-url', 'https://stage.example.com')).code).toBe(0);
    for (const url of ['http://127.0.0.1:4010', 'http://localhost:4010/']) {
      const live = await at('prod', '--env', 'live', '--base-url', url);
      expect(live.code, live.stderr).toBe(0);
      expect(live.stderr).not.toMatch(/warning/);
    }
  },
);

it.concurrent('the port-in-use hint of mpay sandbox names a port that is free', async () => {
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve(s));
    });
  const first = await listen(0);
  const port = (first.address() as { port: number }).port;
  // the next port busy too (when it can be had): the hint must skip it
  const next = await listen(port + 1).catch(() => undefined);
  try {
    const r = await mpay(['sandbox', '--port', String(port), '--json']);
    expect(r.code).toBe(2);
    const hint: string = r.json().error.hint;
    const offered = Number(/--port (\d+) \(free now\)/.exec(hint)?.[1]);
    expect(offered, hint).toBeGreaterThan(port + 1);
    const s = await listen(offered);
    s.close();
  } finally {
    first.close();
    next?.close();
  }
});

it.concurrent(
  'a settlement whose gateway has no payment method names the gateway, never "via ;"',
  async () => {
    const alt = await sandbox({ seed: 'alt' });
    try {
      const r = await mpay(
        ['deposit', ...customerArgs({ currency: 'GHS', country: 'GH', gateway: '14', reference: 'via-1' })],
        { env: cliEnv(alt, tempDir()) },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/ via Airtel Money/);
      expect(r.stderr).not.toMatch(/via ;|via $/m);
    } finally {
      await alt.close();
    }
  },
);

it.concurrent('replay of a trace of one call: "The one call answered as recorded"', async () => {
  const dir = tempDir();
  const env = cliEnv(sb, dir);
  const trace = `${dir}/one.har`;
  expect((await mpay(['countries', '--trace', trace], { env })).code).toBe(0);
  const r = await mpay(['replay', trace], { env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/The one call answered as recorded/);
  expect(r.stdout).not.toMatch(/All 1 calls/);
});

describe.skipIf(without('tmux'))('on a terminal 80 columns wide', together, () => {
  it('Ctrl-C at the first prompt says nothing was sent (not "nothing more")', async () => {
    const t = new Tmux('first-prompt');
    try {
      t.start(['deposit'], cliEnv(sb, tempDir()), undefined, 80);
      await t.waitFor(/Currency/, 60_000);
      t.keys('C-c');
      const screen = await t.waitFor(/EXIT=\d+/, 30_000);
      expect(screen).toMatch(/EXIT=130/);
      expect(screen).toMatch(/cancelled; nothing was sent/);
      expect(screen).not.toMatch(/nothing more was sent/);
    } finally {
      t.kill();
    }
  });

  it('the +1 phone prompt suggests a national form the tool takes; folded prompt lines keep their indent', async () => {
    const t = new Tmux('plus-one');
    try {
      t.start(['deposit', '--currency', 'USD', '--amount', '20'], cliEnv(sb, tempDir()), undefined, 80);
      await t.waitFor(/Customer first name/, 60_000);
      await t.dialogue([
        [/Customer first name/, 'Ama'],
        [/Customer last name/, ''],
      ]);
      const asked = await t.waitFor(/Customer phone .*\)/, 30_000);
      const national =
        /or national: ([^)]*\)[^)]*)\)/.exec(asked)?.[1] ?? /or national: ([^)]+)\)/.exec(asked)![1]!;
      t.answer(national);
      const screen = await t.waitFor(/Customer e-mail/, 30_000);
      expect(screen).not.toMatch(/not a possible phone number|no country code/);
      for (const line of screen.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    } finally {
      t.kill();
    }
  }, 120_000);

  it('a prompt too long for the line folds at a space, its next line indented', async () => {
    const t = new Tmux('fold-prompt');
    const email = `a.customer.with.a.rather.long.address.${'x'.repeat(12)}@example-organisation.com`;
    try {
      t.start(
        ['withdraw', ...customerArgs({ email, reference: 'fold-1' })],
        cliEnv(sb, tempDir()),
        undefined,
        80,
      );
      const screen = await t.waitFor(/One-time code sent to/, 60_000);
      const lines = screen.split('\n');
      const at = lines.findIndex((l) => /One-time code sent to/.test(l));
      expect(lines[at]).toMatch(/One-time code sent to$/);
      expect(lines[at + 1]).toBe(`  ${email}`);
      t.keys('C-c');
    } finally {
      t.kill();
    }
  });
});
