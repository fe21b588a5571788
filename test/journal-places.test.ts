// Where a journal lives: profiles whose names differ only in punctuation keep journals of their own.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, file, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox({ latencyMs: 10 });
});
afterAll(() => sb.close());

const header = 'currency,country,amount,first_name,last_name,phone,email,gateway';
const rows = (n: number, tag: string, amount = 10) =>
  Array.from(
    { length: n },
    (_, i) => `GHS,GH,${amount},${tag},,+2332013${String(i).padStart(5, '0')},t${i}@example.org,1`,
  );

it.concurrent('profiles whose names differ only in punctuation keep journals of their own', async () => {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const path = file('two.csv', [header, ...rows(2, 'Punct')].join('\n'));
  const a = await mpay(['deposit', 'batch', path, '--profile', 'we ird$(id)'], { env });
  expect(a.code, a.stderr).toBe(0);
  const b = await mpay(['deposit', 'batch', path, '--profile', 'we_ird__id_'], { env });
  expect(b.code, b.stderr).toBe(2);
  expect(b.stderr).toContain('(profile we ird$(id), env sandbox)');
  const history = await mpay(['history', '--json', '--profile', 'we_ird__id_'], { env });
  expect(history.json()).toEqual([]);
});
