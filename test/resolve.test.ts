// #33 item 2, a way out of unknown rows: a batch row whose request had no answer is unknown (exit 10 on
// every run) until a person settles it with `mpay history resolve` (journaled): not-sent rows are sent by
// the next run, landed or abandoned ones no longer counted; --check asks the API through the money gate.
// A real sandbox (its faults drop the connection before or after it acts), the real command classes.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, file, requestCount, sandbox, setFaults, tempDir, journalEvents } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const header = 'currency,country,amount,first_name,last_name,phone,email,gateway';
const initiates = () => requestCount(sb, 'POST /payments/initiate');
const lines = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** A batch whose initiates all meet `fault` (drop: not applied; drop-after: applied), run once. */
async function unknownRows(fault: 'drop' | 'drop-after', rows: string[], env: Record<string, string>) {
  const path = file(`${fault}.csv`, [header, ...rows].join('\n'));
  await setFaults(sb, { faults: [fault], rate: 1, faultPaths: ['/payments/initiate'] });
  try {
    const r = await mpay(['deposit', 'batch', path, '--json', '--yes'], { env });
    expect(r.code, r.stderr).toBe(10);
    const res = lines(r.stdout);
    expect(res.map((x) => x.outcome)).toEqual(rows.map(() => 'unknown'));
    return { path, refs: res.sort((a, b) => a.row - b.row).map((x) => x.reference as string) };
  } finally {
    await setFaults(sb, { faults: [], rate: 0 });
  }
}

it('unknown rows stay unknown (exit 10, never sent again) until settled; then not-sent rows are sent and the batch exits 0', async () => {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const { path, refs } = await unknownRows(
    'drop',
    [
      'GHS,GH,11,Ama,Mensah,+233201234567,ama@example.com,1',
      'GHS,GH,12,Kofi,,+233201234568,kofi@example.com,1',
      'GHS,GH,13,Esi,,+233201234569,esi@example.com,1',
    ],
    env,
  );
  // Run again unchanged: nothing is sent, and each row says what unknown means and the way out.
  const before = await initiates();
  const again = await mpay(['deposit', 'batch', path, '--json', '--yes'], { env });
  expect(again.code).toBe(10);
  expect(await initiates()).toBe(before);
  // rows finish in any order: the message of the first row (by row number) names that row's reference
  const said = lines(again.stdout).sort((a, b) => a.row - b.row)[0].error.message as string;
  expect(said).toMatch(/had no answer, so mpay cannot know whether the server applied it; it will not guess/);
  expect(said).toContain(
    `mpay history resolve ${refs[0]} --as <not-sent|landed|abandoned> --profile default --env sandbox`,
  );
  expect(again.stderr).toMatch(/history resolve/);

  // Settled: the first as not sent, the second asked of the API (it never landed: the check is the
  // initiate now), the third abandoned.
  const first = await mpay(['history', 'resolve', refs[0]!, '--as', 'not-sent', '--json'], { env });
  expect(first.code, first.stderr).toBe(0);
  expect(first.json()).toMatchObject({ reference: refs[0], as: 'not-sent', step: 'initiate' });
  const check = await mpay(['history', 'resolve', refs[1]!, '--check', '--yes', '--json'], { env });
  expect(check.code, check.stderr).toBe(0);
  expect(check.json()).toMatchObject({ checked: 'accepted', hash_token: expect.any(String) });
  const third = await mpay(['history', 'resolve', refs[2]!, '--as', 'abandoned', '--note', 'given up'], {
    env,
  });
  expect(third.code, third.stderr).toBe(0);
  expect(third.stderr + third.stdout).toMatch(/settled as abandoned/);
  // settled twice: refused, nothing written
  const twice = await mpay(['history', 'resolve', refs[2]!, '--as', 'landed'], { env });
  expect(twice.code).toBe(2);
  expect(twice.stderr).toMatch(/settled already, as abandoned/);

  const sent = await initiates();
  const last = await mpay(['deposit', 'batch', path, '--json', '--yes'], { env });
  expect(last.code, last.stderr).toBe(0);
  const res = lines(last.stdout).sort((a, b) => a.row - b.row);
  expect(res.map((x) => x.outcome)).toEqual(['done', 'done', 'skipped']);
  expect(res[2].status).toBe('settled by hand as abandoned');
  // the not-sent row's initiate went once more; the checked one was continued, not initiated again
  expect(await initiates()).toBe(sent + 1);
  expect(last.stderr).toMatch(/^2 done, 1 already done, 0 failed, 0 unknown$/m);
  // every settling is a journal line
  const events = journalEvents(cfg);
  expect(events.filter((e) => e.step === 'resolved').map((e) => [e.reference, e.data?.as])).toEqual([
    [refs[0], 'not-sent'],
    [refs[2], 'abandoned'],
  ]);
  // abandoned: --resume refuses it
  const resume = await mpay(['deposit', '--resume', refs[2]!, '--yes'], { env });
  expect(resume.code).toBe(2);
  expect(resume.stderr).toMatch(/settled by hand as abandoned: mpay continues it no further/);
}, 60_000);

it('--check counts only the refusal of the reference: another 422 settles nothing', async () => {
  const env = cliEnv(sb, tempDir());
  // an amount the merchant's balance cannot cover is refused on another field
  const { refs } = await unknownRows('drop', ['GHS,GH,15,Adjoa,,+233201234571,adjoa@example.com,1'], env);
  await setFaults(sb, { faults: ['500'], rate: 1, faultPaths: ['/payments/initiate'] });
  try {
    const check = await mpay(['history', 'resolve', refs[0]!, '--check', '--json'], { env });
    expect(check.code).toBe(7);
  } finally {
    await setFaults(sb, { faults: [], rate: 0 });
  }
  const show = await mpay(['history', 'show', refs[0]!, '--json'], { env });
  expect(show.stdout).not.toMatch(/settled by hand/);
  expect(show.json().steps.some((s: { step: string }) => s.step === 'resolved')).toBe(false);
});
