// Interactive `mpay login` on a real terminal (tmux).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { sandbox, tempDir } from './helpers.js';
import { loopbackServer } from './helpers.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';

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

describe.concurrent('7. interactive login', () => {
  it.skipIf(without('tmux'))(
    'a wrong API key is asked again (site id defaulting to the one typed); a base URL asked again offers the one typed',
    async () => {
      const t = new Tmux('login-api-key');
      const dir = tempDir();
      const closed = await loopbackServer((_q, r) => r.end());
      const nowhere = closed.url;
      await closed.close();
      try {
        t.start(['login'], { MPAY_CONFIG_DIR: dir, MPAY_KEYRING: 'off' }, undefined, 200);
        await t.waitFor(/Environment/);
        t.keys('Enter');
        await t.waitFor(/Base URL of the sandbox API/);
        t.keys('C-u');
        t.answer(nowhere);
        await t.waitFor(/Merchant key/);
        t.answer(demoMerchant.merchantKey);
        await t.waitFor(/give the base URL again/);
        // asked again with the URL typed as its default, to mend, not the old one
        const again = await t.waitFor(/again\n\? Base URL of the sandbox API.*\n?.*\)/);
        expect(again.slice(again.lastIndexOf('? Base URL'))).toContain(`(${nowhere})`);
        t.keys('C-u');
        t.answer(a.url);
        await t.waitFor(/Site ID/);
        t.answer('1');
        await t.waitFor(/API key/);
        t.answer('ak_wrong');
        const refused = await t.waitFor(/give the site id and API key again \(2 tries left\)/);
        expect(refused).toMatch(/The API key check failed/);
        // the site id asked again, the one typed its default: Enter keeps it
        await t.waitFor(/again[^]*\? Site ID \(1\)/);
        t.keys('Enter');
        await t.waitFor(/again[^]*\? API key/);
        t.answer(demoMerchant.apiKey);
        const screen = await t.waitFor(/EXIT=\d+/);
        expect(screen).toMatch(/EXIT=0/);
        expect(screen).toContain(`Logged in: profile default, sandbox at ${a.url}`);
      } finally {
        t.kill();
      }
    },
    60_000,
  );
});
