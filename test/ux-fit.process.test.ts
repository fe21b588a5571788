// #24 "Everything fits", in-process: the IO's one rule for what a person reads (prose folded at spaces on a
// terminal, a command continued only with ` \`, nothing folded in a pipe, JSON and CSV never), and the
// width tables fit (the terminal's; in a pipe an exported COLUMNS; else whole). The screens themselves on
// a real terminal are in pty-widths.process.test.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../src/io/io.js';
import { cliEnv, commandOnScreen, customerArgs, loginArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

const widest = (text: string) => Math.max(0, ...text.split('\n').map((l) => stringWidth(l)));
/** A hash token (64 characters) is never cut or split: at 60 columns nothing can hold it. */
const hashOnly = (line: string) => /^\s*\S*[0-9a-f]{64}\S*$/.test(line);

/** What bash makes of a command line pasted as it is: its words, one a line, `mpay` standing for mpay. */
async function pastedWords(text: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('bash', [
    '-c',
    `mpay() { printf '%s\\n' mpay "$@"; }\n${text}`,
  ]);
  return stdout.trimEnd().split('\n');
}

describe.concurrent('the IO folds prose for a person on a terminal, and nothing else', () => {
  it('a command in a hint moves whole to the next line, or continues with ` \\` and still pastes into bash', async () => {
    const command =
      "mpay deposit --resume dep-1 --profile 'my shop' --env sandbox --base-url http://127.0.0.1:4010";
    for (const width of [40, 60, 80, 200]) {
      const io = memoryIO({ tty: true, width });
      io.note(`hint: Continue it with \`${command}\``);
      const text = io.stderrText();
      expect(widest(text), text).toBeLessThanOrEqual(width);
      // shown without its backticks: a whole line pasted must not run the command inside them
      expect(text).not.toContain('`');
      const span = commandOnScreen(text, 'Continue it with');
      // folded only at its ends or with a continuation
      for (const line of span.split('\n').slice(0, -1)) expect(line).toMatch(/ \\$/);
      expect(await pastedWords(span)).toEqual(await pastedWords(command));
      if (width === 40) expect(span.split('\n').length).toBeGreaterThan(2);
    }
  });

  it('a labelled command line (the sandbox Try: line) folds only with ` \\`, and still pastes', async () => {
    const command =
      'printf %s mk_sandbox_demo | MPAY_API_KEY=ak_sandbox_demo mpay login --env sandbox --base-url http://127.0.0.1:4010 --site-id 1 --merchant-key-stdin';
    const io = memoryIO({ tty: true, width: 60 });
    io.say({ label: 'Try: ', command });
    const text = io.stdoutText();
    expect(widest(text)).toBeLessThanOrEqual(60);
    expect(text.split('\n').length).toBeGreaterThan(2);
    const pasted = text.replace(/^Try: /, '');
    expect(await pastedWords(pasted)).toEqual(await pastedWords(command));
    const piped = memoryIO({ width: 60 });
    piped.say({ label: 'Try: ', command });
    expect(piped.stdoutText()).toBe(`Try: ${command}\n`);
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

    it("a deposit's summary and history show (its steps table too) fit COLUMNS in a pipe, and the terminal", async () => {
      const env = cliEnv(sb, tempDir());
      const wrong = await mpay(['withdraw', ...customerArgs({ reference: 'fit-w1' }), '--otp', '000000'], {
        env,
      });
      expect(wrong.code, wrong.stderr).toBe(4);
      const whole = await mpay(['history', 'show', 'fit-w1'], { env });
      expect(widest(whole.stdout)).toBeGreaterThan(100);
      for (const run of [
        (args: string[], width: number) => mpay(args, { env: { ...env, COLUMNS: String(width) } }),
        (args: string[], width: number) => mpay(args, { env, tty: true, width }),
      ])
        for (const width of [60, 80]) {
          const show = await run(['history', 'show', 'fit-w1'], width);
          expect(show.code, show.stderr).toBe(0);
          const wide = show.stdout.split('\n').filter((l) => stringWidth(l) > width && !hashOnly(l));
          expect(wide, show.stdout).toEqual([]);
          // the steps, cut to fit; the resume command (the code refused: another, read from stdin) folded
          // with ` \`, and pasteable
          expect(show.stdout).toMatch(/│ processed │ failed {2}│ Valid[^│]*…/);
          const resume = /^resume {10}(mpay withdraw[^]*?)\n(?! {20})/m.exec(show.stdout)![1]!;
          expect(await pastedWords(resume)).toEqual(
            await pastedWords(
              `mpay withdraw --resume fit-w1 --otp-stdin --profile default --env sandbox --base-url ${sb.url}`,
            ),
          );
          const dep = await run(['deposit', ...customerArgs()], width);
          expect(dep.code, dep.stderr).toBe(0);
          expect(dep.stdout.split('\n').filter((l) => stringWidth(l) > width && !hashOnly(l))).toEqual([]);
        }
      const csv = await mpay(['history', '--csv'], { env: { ...env, COLUMNS: '20' } });
      expect(csv.stdout.split('\n')[0]).toBe(
        (await mpay(['history', '--csv'], { env })).stdout.split('\n')[0],
      );
      expect(widest(csv.stdout)).toBeGreaterThan(20);
    });
  },
);

describe.concurrent('commands printed in a message still paste when the terminal folds them', () => {
  let sb: Awaited<ReturnType<typeof sandbox>>;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());
  /** The command after `label`, as the terminal shows it (folded with ` \` or not), with no backticks. */
  const spanAfter = (text: string, label: string) => {
    expect(text).not.toContain('`');
    return commandOnScreen(text, label);
  };

  it("a withdrawal stopped at its code: the stderr line's resume command, folded at 80 and 60, pastes whole", async () => {
    for (const width of [80, 60]) {
      const env = cliEnv(sb, tempDir());
      const args = ['withdraw', ...customerArgs({ amount: String(40 + width / 10) }), '--no-input'];
      const r = await mpay(args, { env, tty: true, width });
      expect(r.code, r.stderr).toBe(0);
      const span = spanAfter(r.stderr, 'Resume with:');
      expect(span.split('\n').length, r.stderr).toBeGreaterThan(1);
      for (const line of span.split('\n').slice(0, -1)) expect(line).toMatch(/ \\$/);
      const words = await pastedWords(span.replace('<CODE>', '123456'));
      expect(words.slice(0, 3)).toEqual(['mpay', 'withdraw', 'process']);
      expect(words[3]).toMatch(/^[0-9a-f]{64}$/);
      expect(words).toEqual(expect.arrayContaining(['--otp', '123456', '--base-url', sb.url]));
      // the summary's resume row too: at 80 every line fits, the ` \` ends its line, and it pastes
      const fromSummary = commandOnScreen(r.stdout, 'resume');
      if (width === 80) expect(widest(r.stdout), r.stdout).toBeLessThanOrEqual(80);
      expect(await pastedWords(fromSummary.replace('<CODE>', '123456'))).toEqual(words);
    }
  });

  it('the "Back with" line after a login of another profile, folded at 40, pastes whole', async () => {
    const dir = tempDir();
    const login = (profile: string) =>
      mpay(loginArgs(profile, sb.url), {
        env: { MPAY_CONFIG_DIR: dir, MPAY_KEYRING: 'off', MPAY_MERCHANT_KEY: 'k', MPAY_API_KEY: 'a' },
        tty: true,
        width: 40,
      });
    expect((await login(`o'neil shop`)).code).toBe(0);
    const r = await login('two');
    expect(widest(r.stdout), r.stdout).toBeLessThanOrEqual(40);
    expect(await pastedWords(spanAfter(r.stdout, 'Back with:'))).toEqual([
      'mpay',
      'profiles',
      'use',
      `o'neil shop`,
    ]);
  });
});
