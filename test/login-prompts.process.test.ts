// Interactive `mpay login` on a real terminal (tmux): a mistyped base URL asked again, and a default kept
// however the line was edited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, loopbackServer, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
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

/**
 * A suite's tests at once (each in config folders, on terminals, of its own; the sandboxes shared, each
 * test with references of its own), with a deadline above their waits' for a loaded machine.
 */
const together = { concurrent: true, timeout: 120_000 };

// The trial of the round above, by a new user again: what was still wrong, each as the user ran it.
describe.skipIf(without('tmux'))('the trial at 80 columns, on a real terminal', together, () => {
  it('interactive `mpay login`: a mistyped base URL is said and asked again, not the end', async () => {
    const t = new Tmux('login-typo');
    const dir = tempDir();
    const closed = await loopbackServer((_q, r) => r.end());
    const nowhere = closed.url;
    await closed.close();
    try {
      t.start(['login'], { MPAY_CONFIG_DIR: dir, MPAY_KEYRING: 'off' }, undefined, 80);
      await t.waitFor(/Environment/, 60_000);
      t.keys('Enter');
      // a scheme mistyped: said under the question, which stays
      await t.waitFor(/Base URL of the sandbox API/);
      t.keys('C-u');
      t.answer(a.url.replace('http://', 'htp://'));
      await t.waitFor(/Unsupported scheme in base URL: htp:/);
      // mended: a port no server answers (found once the merchant key is tried): asked again, with why
      t.keys('C-u');
      t.answer(nowhere);
      await t.waitFor(/Merchant key/);
      t.answer(demoMerchant.merchantKey);
      const again = await t.waitFor(/give\s+the\s+base\s+URL\s+again/);
      expect(again).toMatch(/connection\s+refused/);
      await t.waitFor(/again\n\? Base URL of the sandbox API/);
      t.keys('C-u');
      t.answer(a.url);
      await t.waitFor(/Site ID/);
      t.answer('1');
      await t.waitFor(/API key/);
      t.answer(demoMerchant.apiKey);
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/EXIT=0/);
      expect(screen).toContain(`Logged in: profile default, sandbox at ${a.url}`);
    } finally {
      t.kill();
    }
  });

  it('a prompt with a default keeps it however the line was edited: an emptied answer is the default', async () => {
    const env = cliEnv(a, tempDir());
    const t = new Tmux('reference-default');
    try {
      const args = ['deposit', ...customerArgs({ gateway: '' })];
      t.start(args, env, undefined, 80);
      await t.waitFor(/Customer last name/, 60_000);
      await t.dialogue([[/Customer last name/, '']]);
      const asked = await t.waitFor(/Reference \(customer_transaction_id\)\s+\(\S+\)/);
      const shown = /Reference \(customer_transaction_id\)\s+\((\S+)\)/.exec(asked)![1]!;
      // typed, then rubbed out, one backspace more than it took (which made inquirer forget its default);
      // Tab, which puts the default on the line to edit, then rubbed out too
      t.keys('-l', 'abc');
      t.keys(...Array<string>(5).fill('BSpace'), 'Tab', ...Array<string>(shown.length + 2).fill('BSpace'));
      // the question still shows the default, and an empty line answers it
      const edited = await t.waitFor(/Reference \(customer_transaction_id\) \(\S+\)\s*$/m);
      expect(edited).toContain(`(${shown})`);
      t.keys('Enter');
      const summary = await t.waitFor(/reference \S+; sandbox environment/);
      expect(summary).toContain(`✔ Reference (customer_transaction_id) ${shown}`);
      expect(summary).toContain(`reference ${shown}; sandbox environment`);
      await t.dialogue([
        [/Gateway/, ['Enter']],
        [/Also send the confirmation/, ''],
      ]);
      expect(await t.waitFor(/EXIT=\d+/, 60_000)).toMatch(/EXIT=0/);
    } finally {
      t.kill();
    }
    const shown = await mpay(['history', '--json'], { env });
    expect(shown.json()).toHaveLength(1);
  });
});
