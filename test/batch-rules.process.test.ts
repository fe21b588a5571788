// A batch file and its copy with CRLF line ends, run at once by two processes, are one batch (the lock).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, file, sandbox, spawnMpay, tempDir } from './helpers.js';

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

it.concurrent(
  'a file and its copy with CRLF line ends, run at once, are one batch: the second refuses with exit 11',
  async () => {
    const env = cliEnv(sb, tempDir());
    const lines = [header, ...rows(30, 'Crlf')];
    const lf = file('race.csv', lines.join('\n'));
    const crlf = file('race-crlf.csv', lines.join('\r\n'));
    const [r1, r2] = await Promise.all([
      spawnMpay(['deposit', 'batch', lf, '--json'], env).done,
      spawnMpay(['deposit', 'batch', crlf, '--json'], env).done,
    ]);
    expect([r1.code, r2.code].sort(), `${r1.stderr}\n${r2.stderr}`).toEqual([0, 11]);
    const made = sb.state.list().filter((t) => t.customer.first_name === 'Crlf');
    expect(made).toHaveLength(30);
  },
);
