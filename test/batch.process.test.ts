import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  cliEnv,
  file,
  holdingProxy,
  ndjson,
  printedCommand,
  requestCount,
  requestCounts,
  runPrinted,
  sandbox,
  setFaults,
  spawnMpay,
  tempDir,
  waitUntil,
  journalEvents,
} from './helpers.js';
import { mpay } from './in-process.js';
import { strictSandbox, type StrictSandbox } from './strict.js';

// Strict (test/strict.ts): reads go through; each test declares the money requests it means to send and
// verifies, so a request it did not expect fails it, whatever its route.
let sb: StrictSandbox;
beforeAll(async () => {
  sb = await strictSandbox();
  sb.allowReads();
});
afterAll(() => sb.close());

const header = 'currency,country,amount,first_name,last_name,phone,email,gateway';

it('Ctrl-C stops the starting of new rows, lets those in flight finish, exits 130, and prints the complete command that resumes', async () => {
  const target = await sandbox();
  // The initiates are held on their way until the signal was handled: which rows are in flight is known.
  const slow = await holdingProxy(target.url, '/payments/initiate');
  // Where the environment of the pasted line points: a server that must receive nothing.
  const other = await sandbox();
  try {
    const rows = Array.from(
      { length: 12 },
      (_, i) => `GHS,GH,${20 + i},Abla,,+2332012340${String(i).padStart(2, '0')},abla${i}@example.org,1`,
    );
    const path = file("it's interrupted $(x).csv", [header, ...rows].join('\n'));
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg);
    const { child, done } = spawnMpay(
      ['deposit', 'batch', path, '--concurrency', '2', '--json', '--base-url', slow.url],
      env,
    );
    const count = () => requestCount(target, 'POST /payments/initiate');
    // Interrupt once two initiates are in flight, the first two rows (two at a time: no third can start).
    await waitUntil('the initiates of the first two rows', () => slow.held() === 2, 45_000);
    let said = '';
    child.stderr!.on('data', (d) => (said += d));
    child.kill('SIGINT');
    await waitUntil('mpay to say it stops starting rows', () => /stopping: no new rows start/.test(said));
    slow.release();
    const { code, stdout, stderr } = await done;
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/stopping: no new rows start; those in flight finish/);
    expect(stderr).toMatch(
      /mpay: interrupted: \d+ done, 0 already done, 0 failed, 0 unknown; \d+ not started/,
    );
    const resume = printedCommand(stderr, 'Resume with: ');
    expect(resume).toBe(
      `mpay deposit batch '${path.replace(/'/g, `'\\''`)}' --concurrency 2 --json --profile default --env sandbox --base-url ${slow.url}`,
    );
    const first = ndjson(stdout);
    // The two rows in flight finished (done, not unknown); no new one started after the signal.
    expect(first.map((x) => x.row).sort((a, b) => a - b)).toEqual([1, 2]);
    expect(first.every((x) => x.outcome === 'done')).toBe(true);
    const sent = await count();
    expect(sent).toBe(first.length);
    // On disk: each row that started is processed in the journal, none left with a request unanswered.
    const events = journalEvents(cfg);
    const refs = new Set(events.map((e) => e.reference));
    expect([...refs].sort()).toEqual(first.map((x) => x.reference).sort());
    for (const ref of refs)
      expect(
        events.some((e) => e.reference === ref && e.step === 'processed' && e.outcome === 'ok'),
        ref,
      ).toBe(true);
    // The printed line, pasted as it is where MPAY_BASE_URL names another server: it goes to its own.
    const rest = await runPrinted(resume, { ...env, MPAY_BASE_URL: other.url });
    expect(rest.code, rest.stderr).toBe(0);
    const outcomes = ndjson(rest.stdout).map((r) => r.outcome);
    expect(outcomes.filter((o) => o === 'skipped')).toHaveLength(first.length);
    expect(outcomes.filter((o) => o === 'done')).toHaveLength(12 - first.length);
    expect(await count()).toBe(12);
    expect(await requestCounts(other)).toEqual({});
  } finally {
    slow.release();
    await slow.close();
    await target.close();
    await other.close();
  }
  // a loaded machine starts mpay slowly: the wait for the first two rows has a deadline of its own
}, 60_000);

it('after failed rows, the "Run again with" line is a command of its own that, pasted as printed, sends the failed rows where they failed', async () => {
  const failing = await sandbox({ faults: ['500'], rate: 1, faultPaths: ['/payments/initiate'] });
  // Where the environment of the pasted line points: a server that must receive nothing.
  const other = await sandbox();
  try {
    const rows = [0, 1, 2].map((i) => `GHS,GH,${30 + i},Kojo,,+23320123456${i},kojo${i}@example.org,1`);
    const path = file(`run again "ü" $(x).csv`, [header, ...rows].join('\n'));
    const env = cliEnv(failing, tempDir());
    const r = await mpay(['deposit', 'batch', path, '--concurrency', '2'], { env });
    expect(r.code, r.stderr).toBe(10);
    expect(r.stderr).toMatch(/^0 done, 0 already done, 3 failed, 0 unknown$/m);
    const again = printedCommand(r.stderr, 'Run again with: ');
    expect(again).toMatch(
      /^mpay deposit batch '.*' --concurrency 2 --profile default --env sandbox --base-url /,
    );
    expect(r.stderr).toMatch(
      /^ {2}\(done rows are skipped; failed ones are sent again as the file has them\)$/m,
    );
    await setFaults(failing, { rate: 0 });
    const rest = await runPrinted(again, { ...env, MPAY_BASE_URL: other.url });
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toMatch(/^3 done, 0 already done, 0 failed, 0 unknown$/m);
    expect(failing.state.list().map((t) => t.customer.first_name)).toEqual(['Kojo', 'Kojo', 'Kojo']);
    expect(await requestCounts(other)).toEqual({});
  } finally {
    await failing.close();
    await other.close();
  }
});
