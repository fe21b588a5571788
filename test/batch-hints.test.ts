// A batch's closing lines say what to fix (#47 item 6): a refused code names its row and the file to correct
// first; unknown rows name `history resolve REF --check` first and what it asks the server; a resumed
// batch's --out keeps the fee of the rows skipped as done (#47 item 8). Each printed command is run as
// printed, through a shell, with the environment pointing elsewhere.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, file, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it("a resumed batch's --out keeps the fee of each row skipped as done", async () => {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const path = file(
    'hint-fee.csv',
    [
      'currency,country,amount,first_name,phone,email,gateway',
      'GHS,GH,31,Abena,+233201234569,ab@example.com,1',
    ].join('\n'),
  );
  const out1 = join(tempDir(), 'one.csv');
  const out2 = join(tempDir(), 'two.csv');
  expect((await mpay(['deposit', 'batch', path, '--yes', '--out', out1], { env })).code).toBe(0);
  expect((await mpay(['deposit', 'batch', path, '--yes', '--out', out2], { env })).code).toBe(0);
  const fee = (f: string) => {
    const [head, row] = readFileSync(f, 'utf8').trim().split('\n');
    return row!.split(',')[head!.split(',').indexOf('fee')];
  };
  expect(fee(out1)).toMatch(/^\d+(\.\d+)?$/);
  expect(fee(out2)).toBe(fee(out1));
});
