// #24 "Everything fits": the main screens on a real pseudo-terminal (tmux) 60, 80 and 120 columns wide.
// A screen is read with its wrapped lines joined (capture-pane -J), so that a line the terminal had to wrap
// is seen whole, as too long: none is wider than the terminal, but a hash token (64 characters, never cut
// or split; at 60 nothing can hold it). And no word is split at the edge: every word on a screen is a word
// of the same screen 250 columns wide, where nothing folds (the values a run makes anew stood in for; a
// table's cell cut with … is the start of one). Every wait is on the screen showing what it should.
// The screens are tests of their own, run concurrently, and one screen's widths run concurrently too:
// each run in a tmux server of its own, with its own config folder where it writes one.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import {
  cliEnv,
  commandOnScreen,
  customerArgs,
  mpayOnPath,
  runPrinted,
  sandbox,
  tempDir,
} from './helpers.js';
import { mpay } from './in-process.js';
import { slots, Tmux } from './tmux.js';
import { without } from './tools.js';

const widths = [60, 80, 120];
/** Wide enough that nothing folds: the words of a screen as they are. */
const unfolded = 250;

interface Screen {
  args: string[];
  env: () => Record<string, string>;
  exit: number;
  /** answers the prompts on the terminal, `width` columns wide */
  dialogue?: (t: Tmux, width: number) => Promise<void>;
  /** a server: its screen once this shows, then Ctrl-C */
  serving?: RegExp;
  /** what a run makes anew (a reference, a hash token, a port), stood in for before words are compared */
  anew?: boolean;
  /** the widths it must fit, when not all of them (a path of the test's temporary folder is long) */
  widths?: number[];
  /**
   * its runs share what a run holds (the sandbox's --data) or changes (doctor's cached token): one after
   * another
   */
  inTurn?: boolean;
}

/** A copy of a config folder, in a folder of its own. */
function copyOf(dir: string): string {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** Four runs at a time in this file (the others wait their turn before their terminal starts). */
const turn = slots(4);

/** The screen of one run, up to the shell's EXIT= line. */
function render(name: string, s: Screen, width: number): Promise<string> {
  return turn(() => renderNow(name, s, width));
}
async function renderNow(name: string, s: Screen, width: number): Promise<string> {
  const t = new Tmux(`${name}-${width}`);
  try {
    t.start(s.args, s.env(), undefined, width);
    await s.dialogue?.(t, width);
    if (s.serving) {
      // (or its end, which fails below at once rather than at the deadline)
      const shown = await t.waitFor(new RegExp(`${s.serving.source}|EXIT=\\d+`), 60_000);
      expect(shown, shown).toMatch(s.serving);
      t.keys('C-c');
      await t.waitFor(/EXIT=\d+/);
      return shown.trimEnd();
    }
    const screen = await t.waitFor(/EXIT=\d+/, 60_000);
    expect(screen, screen).toMatch(new RegExp(`EXIT=${s.exit}\\b`));
    return screen.slice(0, screen.lastIndexOf('EXIT=')).trimEnd();
  } finally {
    t.kill();
  }
}

const anew: Array<[RegExp, string]> = [
  [/[0-9a-f]{64}/g, '<hash>'],
  [/mpay-[dw]-[a-z0-9]+-[0-9a-f]+|pty-fit-\d+/g, '<reference>'],
  // a Tron address is random and may begin TXN, as a transaction id does: it is stood in for first
  [/\bT[1-9A-HJ-NP-Za-km-z]{33}\b/g, '<address>'],
  [/\bTXN[A-Z0-9]+\b/g, '<transaction>'],
  [/127\.0\.0\.1:\d+/g, '<host>'],
  [/\[sandbox \d\d:\d\d:\d\d\]/g, '[sandbox <time>]'],
  [/\bin\s+\d+\.\d+ s\b/g, 'in <seconds> s'],
];
/** The words of a screen: no table borders, no QR code, no shell continuation. */
function words(screen: string, s: Screen): string[] {
  const text = s.anew ? anew.reduce((t, [re, to]) => t.replace(re, to), screen) : screen;
  return text.split(/\s+/).filter((w) => w && w !== '\\' && !/^[│┌┐└┘├┤┬┴┼─▄▀█]+$/.test(w));
}

/** Every line fits `width` (a hash token alone excepted), and no word was split to fit it. */
function expectFits(name: string, s: Screen, screen: string, width: number, whole: string): void {
  const wide = screen.split('\n').filter((l) => stringWidth(l) > width);
  expect(
    wide.filter((l) => !/^\s*"?[0-9a-f]{64}"?,?$/.test(l)),
    `${name} at ${width} columns:\n${screen}`,
  ).toEqual([]);
  const known = new Set(words(whole, s));
  // a table that left a column out to fit says so in a line the wide screen has no need of
  const shown = screen.replace(/^\(left out to fit: .*\)$/m, '');
  // a column's short form (history's Started: "11-24 17:40" of "2026-11-24 17:40:12") is part of a word
  const split = words(shown, s).filter(
    (w) =>
      !known.has(w) &&
      !(w.endsWith('…') && [...known].some((k) => k.startsWith(w.slice(0, -1)))) &&
      !(/^[\d:-]+$/.test(w) && [...known].some((k) => k.includes(w))),
  );
  expect(split, `${name} at ${width} columns, words not on the unfolded screen:\n${screen}`).toEqual([]);
}

it('what a run makes anew is stood in for whole, a Tron address that begins TXN too', () => {
  const line =
    'send to TXN3dSm4B1ao7iu4KP8sxJUHV56vFZMdQ5 (USDT on TRC20), transaction TXNMWVB3TBR63C158: done';
  expect(words(line, { anew: true } as Screen)).toEqual(
    'send to <address> (USDT on TRC20), transaction <transaction>: done'.split(' '),
  );
});

describe.skipIf(without('tmux'))('the main screens fit 60, 80 and 120 columns on a real terminal', () => {
  let sb: Awaited<ReturnType<typeof sandbox>>;
  let config: string;
  /** a copy of config for doctor, which clears the cached token the others read, and makes a new one */
  let doctorConfig: string;
  const tlsFolder = tempDir();
  const logged = () => ({ MPAY_CONFIG_DIR: config, MPAY_KEYRING: 'off' });
  beforeAll(async () => {
    // the --tls screen's data file, made before: each screen reads it back alike
    const made = sandbox({ dataFile: join(tlsFolder, 'sandbox.log') }).then((tls) => tls.close());
    sb = await sandbox();
    await made;
    config = tempDir();
    // Logged in as a person is (the key on stdin), a deposit and a withdrawal whose code was wrong in the
    // journal, and a token cached, so that every run below sees the same state (the commands in this
    // process: the state they leave is what the screens are about, not their own process).
    const login = await mpay(
      ['login', '--env', 'sandbox', '--base-url', sb.url, '--site-id', '1', '--merchant-key-stdin'],
      { env: { ...logged(), MPAY_API_KEY: demoMerchant.apiKey }, input: demoMerchant.merchantKey },
    );
    expect(login.code, login.stderr).toBe(0);
    const dep = await mpay(['deposit', ...customerArgs({ reference: 'fit-dep' })], { env: logged() });
    expect(dep.code, dep.stderr).toBe(0);
    const wd = await mpay(['withdraw', ...customerArgs({ reference: 'fit-wd' }), '--otp', '000000'], {
      env: logged(),
    });
    expect(wd.code, wd.stderr).toBe(4);
    expect((await mpay(['token'], { env: logged() })).code).toBe(0);
    doctorConfig = copyOf(config);
  }, 60_000);
  afterAll(() => sb.close());

  const screens: Record<string, Screen> = {
    demo: { args: ['demo'], env: () => ({ MPAY_CONFIG_DIR: tempDir() }), exit: 0, anew: true },
    'a guided deposit': {
      args: ['deposit'],
      env: () => cliEnv(sb, tempDir()),
      exit: 0,
      anew: true,
      dialogue: async (t, width) => {
        await t.waitFor(/❯ GHS/, 60_000);
        t.keys('Enter');
        await t.dialogue([
          [/Amount in GHS/, '5'],
          [/Customer first name/, 'Ama'],
          [/Customer last name/, 'Mensah'],
          [/Customer phone/, '+233201234567'],
          [/Customer e-mail/, 'ama@example.com'],
          [/Reference \(/, `pty-fit-${width}`],
          [/❯ 1\s+MTN Mobile Money/, ['Enter']],
          [/Phone number for the payment/, ''],
          [/Also send the confirmation/, ''],
        ]);
      },
    },
    // in a copy of that state (its path is on the screen: one copy for its runs, one after another)
    doctor: {
      args: ['doctor'],
      env: () => ({ ...logged(), MPAY_CONFIG_DIR: doctorConfig }),
      exit: 0,
      inTurn: true,
    },
    whoami: { args: ['whoami'], env: logged, exit: 0 },
    history: { args: ['history'], env: logged, exit: 0 },
    'history show': { args: ['history', 'show', 'fit-wd'], env: logged, exit: 0 },
    'an unknown currency': {
      args: ['deposit', ...customerArgs({ currency: 'XYZ', reference: 'fit-xyz' })],
      env: logged,
      exit: 2,
    },
    'the sandbox': {
      // a seed of its own, so that the banner's fault seed is one number on every screen compared
      args: ['sandbox', '--port', '0', '--fault-seed', '7'],
      env: () => ({ MPAY_CONFIG_DIR: tempDir() }),
      exit: 130,
      serving: /Ctrl-C stops it\./,
      anew: true,
    },
    // its certificate made once beside the data file (so the same on every screen compared): the
    // fingerprint, 95 characters, in two lines that fit
    'the sandbox with --tls': {
      args: [
        'sandbox',
        '--port',
        '0',
        '--fault-seed',
        '7',
        '--tls',
        '--data',
        join(tlsFolder, 'sandbox.log'),
      ],
      env: () => ({ MPAY_CONFIG_DIR: tempDir() }),
      exit: 130,
      serving: /Ctrl-C stops it\./,
      anew: true,
      widths: [80, 120],
      inTurn: true,
    },
  };

  for (const [name, s] of Object.entries(screens))
    it.concurrent(`${name}`, { timeout: 180_000 }, async () => {
      // the unfolded screen and every width at once, each on a terminal of its own
      const ws = s.widths ?? widths;
      const all = [unfolded, ...ws];
      const [whole, ...fitted] = s.inTurn
        ? await all.reduce<Promise<string[]>>(
            async (done, w) => [...(await done), await render(name, s, w)],
            Promise.resolve([]),
          )
        : await Promise.all(all.map((w) => render(name, s, w)));
      for (const [i, width] of ws.entries()) expectFits(name, s, fitted[i]!, width, whole!);
    });

  it.concurrent(
    "the sandbox's Try line, folded at 60 columns, pasted into bash as it shows, logs in",
    { timeout: 120_000 },
    async () => {
      const t = new Tmux('try');
      try {
        t.start(['sandbox', '--port', '0'], { MPAY_CONFIG_DIR: tempDir() }, undefined, 60);
        const lines = (await t.waitFor(/Ctrl-C stops it\./, 60_000)).split('\n');
        const from = lines.findIndex((l) => l.startsWith('Try: '));
        const to = lines.findIndex((l, i) => i >= from && !l.endsWith(' \\'));
        expect(to).toBeGreaterThan(from);
        expect(Math.max(...lines.map((l) => stringWidth(l)))).toBeLessThanOrEqual(60);
        const pasted = lines
          .slice(from, to + 1)
          .join('\n')
          .slice('Try: '.length);
        const r = await runPrinted(pasted, { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off' }, 'bash');
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(
          /^Logged in: profile default, sandbox at http:\/\/127\.0\.0\.1:\d+.*\(accepted by the API\)/,
        );
      } finally {
        t.kill();
      }
    },
  );

  it.concurrent(
    'a resume hint folded at 60 columns, pasted into bash on the terminal, continues the deposit',
    { timeout: 120_000 },
    async () => {
      const t = new Tmux('paste-resume');
      const env = { ...cliEnv(sb, tempDir()), PATH: mpayOnPath(), PS1: '$ ' };
      try {
        t.start(['--norc', '--noprofile'], env, ['bash'], 60);
        await t.waitFor(/^\$ ?$/m, 60_000);
        t.answer(
          `mpay deposit ${customerArgs({ reference: 'fit-paste', gateway: '', 'last-name': 'Mensah' }).join(' ')}`,
        );
        await t.waitFor(/❯ 1\s+MTN Mobile Money/, 60_000);
        t.keys('C-c');
        const screen = await t.waitFor(/hint: Continue it with[\s\S]*sandbox[^\n\\]*\n\$ ?$/m);
        const hint = screen.slice(screen.lastIndexOf('hint: Continue it with'));
        expect(Math.max(...hint.split('\n').map((l) => stringWidth(l)))).toBeLessThanOrEqual(60);
        // no backticks on a terminal: a whole line pasted must not run what is inside them
        expect(hint).not.toContain('`');
        const command = commandOnScreen(hint, 'Continue it with');
        expect(command.split('\n').length).toBeGreaterThan(1);
        expect(command).toMatch(/^mpay deposit --resume fit-paste .* \\\n/);
        const gateways = (screen: string) => screen.match(/❯ 1\s+MTN Mobile Money/g)?.length ?? 0;
        const before = gateways(t.screen());
        t.paste(command);
        t.keys('Enter');
        // the resumed deposit asks for the gateway again: a new list on the screen
        await t.waitFor(/Gateway/, 60_000);
        await t.waitUntilScreen('a gateway prompt after the paste', (screen) => gateways(screen) > before);
        t.keys('Enter');
        // a resume asks no customer value again (the payment phone is the journal's): straight to the end
        await t.waitFor(/Done: deposit TXN\w+ is pending/);
        expect(t.screen()).not.toMatch(/Phone number for the payment/);
      } finally {
        t.kill();
      }
      expect(sb.state.list().find((x) => x.reference === 'fit-paste')?.status).toBe('pending');
    },
  );
});
