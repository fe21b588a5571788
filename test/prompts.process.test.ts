// The guided prompts on a real terminal 80 columns wide (tmux): Ctrl-C at the first prompt, the +1 phone
// prompt's suggestion, and a long prompt folded at a space.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

/** A suite's tests at once, each in folders and on a terminal of its own, against the one sandbox. */
const together = { concurrent: true, timeout: 120_000 };

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
