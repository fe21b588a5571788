// A batch's closing lines say what to fix (#47 item 6): a refused code names its row and the file to correct
// first; unknown rows name `history resolve REF --check` first and what it asks the server; a resumed
// batch's --out keeps the fee of the rows skipped as done (#47 item 8). Each printed command is run as
// printed, through a shell, with the environment pointing elsewhere.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import {
  cliEnv,
  file,
  ndjson,
  printedCommand,
  requestCount,
  runPrinted,
  sandbox,
  setFaults,
  tempDir,
} from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

/** Variables that point a pasted command elsewhere: only its own flags can bring it back here. */
const elsewhere = (cfg: string) => ({
  ...cliEnv(undefined, cfg),
  MPAY_BASE_URL: 'http://127.0.0.1:9',
  MPAY_PROFILE: 'other',
  MPAY_ENV: 'stage',
  MPAY_KEYRING: 'off',
  HOME: tempDir(),
});
const backticked = (text: string) => [...text.matchAll(/`(mpay [^`]+)`/g)].map((m) => m[1]!);

it('a refused code names its row and the file to correct first; corrected, the printed line finishes it', async () => {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const rows = [
    'currency,country,amount,first_name,phone,email,gateway',
    'GHS,GH,11,Yaa,+233201230001,yaa@example.org,1',
    'GHS,GH,12,Esi,+233201230002,esi@example.org,1',
  ].join('\n');
  const started = await mpay(['withdraw', 'batch', file('hint-w.csv', rows), '--json'], { env });
  expect(started.code, started.stderr).toBe(0);
  const refs = ndjson(started.stdout)
    .sort((a, b) => a.row - b.row)
    .map((x) => x.reference as string);
  const codes = (second: string) =>
    ['reference,otp', `${refs[0]},${demoMerchant.otp}`, `${refs[1]},${second}`].join('\n');
  const path = file('hint-codes.csv', codes('000000'));
  const first = await mpay(['withdraw', 'batch', 'confirm', path], { env, width: 80 });
  expect(first.code, first.stderr).toBe(10);
  expect(first.stderr).toContain(
    `Before you run it again:\n  row 2 (${refs[1]}): its code was refused: correct the otp column of row 2 of ${path} before you run again`,
  );
  expect(first.stderr).toMatch(/unchanged, the same code is sent again and spends one of the tries/);
  // --json carries it on the row, for a script
  const json = await mpay(['withdraw', 'batch', 'confirm', path, '--json'], { env });
  const row2 = ndjson(json.stdout).find((x) => x.row === 2);
  expect(row2.fix).toMatch(/correct the otp column of row 2/);
  // corrected, the "Run again with" line, pasted where the variables point elsewhere, finishes it
  writeFileSync(path, codes(demoMerchant.otp));
  const line = printedCommand(first.stderr, 'Run again with: ');
  const again = await runPrinted(line, elsewhere(cfg));
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(/^1 done, 1 already done, 0 failed, 0 unknown$/m);
});

it('unknown rows name `history resolve REF --check` first; run as printed, it settles them and the batch ends', async () => {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const path = file(
    'hint-unknown.csv',
    [
      'currency,country,amount,first_name,phone,email,gateway',
      'GHS,GH,21,Ama,+233201234567,ama@example.com,1',
      'GHS,GH,22,Kofi,+233201234568,kofi@example.com,1',
    ].join('\n'),
  );
  await setFaults(sb, { faults: ['drop'], rate: 1, faultPaths: ['/payments/initiate'] });
  try {
    const r = await mpay(['deposit', 'batch', path, '--yes'], { env });
    expect(r.code, r.stderr).toBe(10);
  } finally {
    await setFaults(sb, { faults: [], rate: 0 });
  }
  // the next run sends nothing, and ends with what settles each row
  const before = await requestCount(sb, 'POST /payments/initiate');
  const next = await mpay(['deposit', 'batch', path, '--yes'], { env, width: 80 });
  expect(next.code).toBe(10);
  expect(await requestCount(sb, 'POST /payments/initiate')).toBe(before);
  expect(next.stderr).toMatch(
    /Before you run it again \(2 rows\):\n {2}row 1 \(\S+\): `mpay history resolve \S+ --check/,
  );
  expect(next.stderr).toMatch(/which the API refuses as taken if the first one landed/);
  const checks = [...new Set(backticked(next.stderr).filter((c) => / --check /.test(c)))];
  expect(checks).toHaveLength(2);
  for (const c of checks) {
    const ran = await runPrinted(c, elsewhere(cfg));
    expect(ran.code, `${c}\n${ran.stderr}`).toBe(0);
    expect(ran.stdout).toMatch(/the API accepted the initiate/);
  }
  const last = await mpay(['deposit', 'batch', path, '--yes', '--json'], { env });
  expect(last.code, last.stderr).toBe(0);
  expect(ndjson(last.stdout).map((x) => x.outcome)).toEqual(['done', 'done']);
});
