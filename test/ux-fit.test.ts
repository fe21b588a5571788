import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../src/io/io.js';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

const widest = (text: string) => Math.max(0, ...text.split('\n').map((l) => stringWidth(l)));
const words = (text: string) => text.split(/\s+/).filter((w) => w && w !== '\\');

describe.concurrent('the IO folds prose for a person on a terminal, and nothing else', () => {
  const prose =
    'mpay: warning: no usable keyring (no D-Bus session bus); the merchant key, API key and tokens are kept in /home/ama/.config/mpay, in files only this user can read (mode 0600)';

  it('a note folds at spaces to the terminal, each continuation indented two more; no word is split', () => {
    const io = memoryIO({ tty: true, width: 40 });
    io.note(prose);
    io.note(`  currency_code: ${prose}`);
    const text = io.stderrText();
    expect(widest(text)).toBeLessThanOrEqual(40);
    expect(words(text)).toEqual([...words(prose), 'currency_code:', ...words(prose)]);
    const lines = text.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^ {2}\S/);
    expect(lines.find((l) => l.startsWith('  currency_code:'))).toBeDefined();
    expect(lines.at(-1)).toMatch(/^ {4}\S/);
  });

  it('in a pipe, a note, a warning and prose on stdout come whole; out() is never folded', () => {
    const io = memoryIO({ width: 40 });
    io.note(prose);
    io.warn('listening on every interface of this machine (0.0.0.0): anyone who can reach it can use it');
    io.say(prose);
    expect(io.stderrText().split('\n')[0]).toBe(prose);
    expect(io.stderrText().split('\n')[1]).toMatch(/^mpay: warning: listening .* can use it$/);
    expect(io.stdoutText()).toBe(`${prose}\n`);
    const tty = memoryIO({ tty: true, width: 40 });
    tty.out(prose);
    expect(tty.stdoutText()).toBe(`${prose}\n`);
  });
});

describe.concurrent(
  'tables fit the terminal, or an exported COLUMNS in a pipe; JSON and CSV never change',
  () => {
    let sb: Awaited<ReturnType<typeof sandbox>>;
    beforeAll(async () => {
      sb = await sandbox();
    });
    afterAll(() => sb.close());

    it(
      "the demo's closing tables: whole in a pipe, within COLUMNS=80 when it is set; --json the same document",
      { timeout: 90_000 },
      async () => {
        // the three runs at once, each with a config folder of its own (a demo makes its own sandbox)
        const env = () => ({ MPAY_CONFIG_DIR: tempDir() });
        const [whole, fitted, json] = await Promise.all([
          mpay(['demo'], { env: env(), timeoutMs: 60_000 }),
          mpay(['demo'], { env: { ...env(), COLUMNS: '80' } }),
          mpay(['demo', '--json'], { env: { ...env(), COLUMNS: '40' } }),
        ]);
        expect(whole.code, whole.stderr).toBe(0);
        expect(whole.stdout).toMatch(/│ hash_token\s+│ [0-9a-f]{64} │/);
        const table = (s: string) => s.split('\n').filter((l) => !l.startsWith('Next: '));
        expect(widest(table(whole.stdout).join('\n'))).toBeGreaterThan(80);
        expect(fitted.code, fitted.stderr).toBe(0);
        expect(widest(table(fitted.stdout).join('\n')), fitted.stdout).toBeLessThanOrEqual(80);
        expect(fitted.stdout).toMatch(/^hash_token {6}[0-9a-f]{64}$/m);
        // prose on stdout is not folded in a pipe, COLUMNS or not: a script may read it
        expect(fitted.stdout).toMatch(/^Next: .* then `mpay deposit`\.$/m);
        expect(json.stdout).toMatch(/^\[\n {2}\{\n {4}"kind": "deposit",\n/);
        expect(json.json()).toHaveLength(2);
      },
    );
  },
);

describe.concurrent('commands printed in a message still paste when the terminal folds them', () => {
  let sb: Awaited<ReturnType<typeof sandbox>>;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it("a flow's summary names the server, profile and gateway the money goes to; history show names the customer without a stray space", async () => {
    const env = cliEnv(sb, tempDir());
    const r = await mpay(['deposit', ...customerArgs({ reference: 'where-1' })], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`reference where-1; sandbox environment, ${sb.url} (profile default)`);
    // and the gateway given, by its name, before initiate
    expect(r.stderr).toMatch(/ {2}gateway 1 MTN Mobile Money\n[\s\S]*Initiat/);
    const show = await mpay(['history', 'show', 'where-1'], { env });
    expect(show.stdout).toMatch(/Ama, \+233201234567, ama@example\.com/);
    expect(show.stdout).not.toMatch(/Ama ,/);
  });
});
