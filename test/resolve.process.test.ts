import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, file, requestCount, runPrinted, sandbox, setFaults, tempDir } from './helpers.js';
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

it('--check of an initiate that landed: the reference is taken, so it landed, not finished by mpay: the batch exits 10 until a person decides with --as', async () => {
  const env = cliEnv(sb, tempDir());
  const { path, refs } = await unknownRows(
    'drop-after',
    ['GHS,GH,14,Yaa,,+233201234570,yaa@example.com,1'],
    env,
  );
  const before = await initiates();
  const check = await mpay(['history', 'resolve', refs[0]!, '--check', '--json'], { env });
  expect(check.code, check.stderr).toBe(0);
  expect(check.json()).toMatchObject({ checked: 'taken', as: 'landed', hash_token: null });
  expect(check.json().next).toMatch(
    /landed, not finished by mpay: mpay never got its hash token, so it cannot finish it/,
  );
  expect(await initiates()).toBe(before + 1);
  // not done: reported as landed, not finished by mpay, with what to do; nothing sent
  const last = await mpay(['deposit', 'batch', path, '--json', '--yes'], { env });
  expect(last.code, last.stderr).toBe(10);
  const row = lines(last.stdout)[0];
  expect(row).toMatchObject({ outcome: 'unknown', status: 'landed, not finished by mpay' });
  expect(row.fix).toContain(`mpay history resolve ${refs[0]} --as landed --profile default --env sandbox`);
  expect(last.stderr).toMatch(
    /Before you run it again:\n {2}row 1 \(\S+\): ask the provider to finish or cancel/,
  );
  expect(await initiates()).toBe(before + 1);
  // the person decides: then it counts as done
  // the command the check printed, run as printed where the variables point elsewhere
  const decide = /`(mpay history resolve \S+ --as landed [^`]+)`/.exec(check.json().next)![1]!;
  const decided = await runPrinted(decide, {
    ...env,
    MPAY_BASE_URL: 'http://127.0.0.1:9',
    MPAY_PROFILE: 'other',
  });
  expect(decided.code, decided.stderr).toBe(0);
  expect(decided.stdout).toMatch(/settled as landed/);
  const after = await mpay(['deposit', 'batch', path, '--json', '--yes'], { env });
  expect(after.code, after.stderr).toBe(0);
  expect(lines(after.stdout)[0]).toMatchObject({ outcome: 'skipped', status: 'settled by hand as landed' });
  expect(await initiates()).toBe(before + 1);
  // a record with nothing unknown is not settled as landed or not sent
  const none = await mpay(['history', 'resolve', refs[0]!, '--as', 'not-sent'], { env });
  expect(none.code).toBe(2);
});
