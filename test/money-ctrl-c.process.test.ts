// One Ctrl-C on a real terminal while a money request is in flight (#33, #36): the request finishes with
// its real answer and is journaled, the run stops with 130, and the one signal is never counted twice.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  customerArgs,
  file,
  holdingProxy,
  sandbox,
  tempDir,
  waitUntil,
  allJournalEvents,
} from './helpers.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

function journalLines(cfg: string): Record<string, unknown>[] {
  return allJournalEvents(cfg) as unknown as Record<string, unknown>[];
}

/** `mpay deposit` of a GHS deposit on gateway 1, asking nothing */
const depositArgs = (reference: string) => ['deposit', ...customerArgs({ reference }), '--no-input'];

const scenario = `name: money first
steps:
  - name: the deposit
    run: deposit initiate
    flags: { currency: GHS, country: GH, amount: "10", first-name: Ama, phone: "+233201234567", email: a@example.com, reference: ctrl-c-1 }
  - name: the countries
    run: countries
`;

/** Its tests at once: each on a terminal, behind a holding proxy, in a config folder of its own. */
const together = { concurrent: true };
describe.skipIf(without('tmux'))('one Ctrl-C while a money request is in flight', together, () => {
  it('mpay run: step 1 finishes with its answer, journaled, exit 130, never "interrupted again"', async () => {
    const slow = await holdingProxy(sb.url, '/initiate');
    const t = new Tmux('money-ctrl-c-run');
    const cfg = tempDir();
    try {
      t.start(['run', file('money.yaml', scenario)], cliEnv(slow, cfg));
      await waitUntil('the initiate in flight', () => slow.held() === 1, 60_000);
      t.keys('C-c');
      await t.waitFor(/no step starts after it \(Ctrl-C again to stop now\)/);
      slow.release();
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/^EXIT=130$/m);
      expect(screen).not.toMatch(/interrupted again/);
      expect(screen).toMatch(/^ok {3}1\. the deposit/m);
      expect(screen).toMatch(/^skip 2\. the countries: not run: interrupted \(Ctrl-C\)$/m);
      const steps = journalLines(cfg).filter((l) => l.reference === 'ctrl-c-1');
      expect(steps.map((l) => l.outcome)).toEqual(['sent', 'ok']);
    } finally {
      t.kill();
      await slow.close();
    }
  }, 120_000);

  it('mpay deposit: the initiate finishes and is journaled, the spinner ended before the note, exit 130', async () => {
    const slow = await holdingProxy(sb.url, '/initiate');
    const t = new Tmux('money-ctrl-c-deposit');
    const cfg = tempDir();
    try {
      t.start(depositArgs('ctrl-c-2'), cliEnv(slow, cfg));
      await waitUntil('the initiate in flight', () => slow.held() === 1, 60_000);
      await t.waitFor(/Initiating/);
      t.keys('C-c');
      await t.waitFor(/the initiate request in flight finishes and is journaled with its answer/);
      slow.release();
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/^EXIT=130$/m);
      expect(screen).not.toMatch(/interrupted again/);
      // the spinner's line ended before the note, and no frame is left on the screen
      expect(screen).toMatch(
        /Initiating the deposit\.\.\. waiting for its answer \(interrupted\)\nmpay: interrupted: /,
      );
      expect(screen).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
      expect(screen).toMatch(/Initiating the deposit\.\.\. done/);
      // the initiate journaled with its answer (and the gateway it chose, a local line); no step after it
      const steps = journalLines(cfg).filter((l) => l.reference === 'ctrl-c-2');
      expect(steps.map((l) => `${String(l.step)} ${String(l.outcome)}`)).toEqual([
        'initiate sent',
        'initiate ok',
        'gateway ok',
      ]);
      expect(screen).toMatch(
        /mpay: interrupted after the initiate request of ctrl-c-2 was answered \(ok\); nothing more was sent/,
      );
      // no header of a step that never started
      expect(screen).not.toMatch(/Status update/);
      expect(screen).toMatch(/hint: continue with mpay deposit --resume ctrl-c-2 /);
    } finally {
      t.kill();
      await slow.close();
    }
  }, 120_000);

  it('mpay deposit: a second Ctrl-C stops at once, the spinner ended, saying the request may have been applied', async () => {
    const slow = await holdingProxy(sb.url, '/initiate');
    const t = new Tmux('money-ctrl-c-twice');
    const cfg = tempDir();
    try {
      t.start(depositArgs('ctrl-c-3'), cliEnv(slow, cfg));
      await waitUntil('the initiate in flight', () => slow.held() === 1, 60_000);
      await t.waitFor(/Initiating/);
      t.keys('C-c');
      await t.waitFor(/Ctrl-C again to stop now/);
      t.keys('C-c');
      // the request is still held: the run ended without its answer
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(slow.held()).toBe(1);
      expect(screen).toMatch(/^EXIT=130$/m);
      expect(screen).toMatch(
        /mpay: interrupted while the initiate request of ctrl-c-3 was in flight: it may have been applied/,
      );
      expect(screen).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
      const steps = journalLines(cfg).filter((l) => l.reference === 'ctrl-c-3');
      expect(steps.map((l) => `${String(l.step)} ${String(l.outcome)}`)).toEqual(['initiate sent']);
    } finally {
      t.kill();
      await slow.close();
    }
  }, 120_000);
});
