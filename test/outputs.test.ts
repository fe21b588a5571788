// Every output a command will write is checked, and opened, before the first request: a path it may not
// write (a link, a folder it cannot write to) is exit 2 with nothing sent (the sandbox's own request
// counts say so). A write that fails after requests left is never exit 2: the results are on stdout, and
// it exits 15 (output_failed), saying what was sent.
import { lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitCodes } from '../src/common/errors.js';
import { cliEnv, file, harEntry, harOf, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const initiate = (n: number) => `name: a deposit, then reads
steps:
  - name: initiate
    run: deposit initiate
    flags:
      currency: GHS
      country: GH
      amount: "10"
      first-name: Ama
      phone: "+233201234567"
      email: ama@example.com
      reference: "\${run.reference}-1"
${Array.from(
  { length: n },
  (_, i) => `  - name: read ${i + 1} with a long name so that the report grows quickly ${'x'.repeat(60)}
    request: { method: GET, path: /merchant/currencies }
`,
).join('')}`;

it('a --report path through a link is refused before anything is sent: exit 2, no request', async () => {
  const dir = tempDir();
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'keep me');
  const link = join(dir, 'report.xml');
  symlinkSync(victim, link);
  const before = await requestCounts(sb);
  for (const format of ['junit', 'tap']) {
    const r = await mpay(['run', file('s.yaml', initiate(1)), '--report', `${format}=${link}`], {
      env: cliEnv(sb, dir),
    });
    expect(r.code, r.stderr).toBe(exitCodes.usage);
    expect(r.stderr).toMatch(/Refusing to write the (junit|tap) report through the link/);
  }
  expect(await requestCounts(sb)).toEqual(before);
  expect(readFileSync(victim, 'utf8')).toBe('keep me');
});

it('--save-scenario through a link is refused before the scenario is made: exit 2, the link and its target untouched', async () => {
  const dir = tempDir();
  const victim = join(dir, 'victim.yaml');
  writeFileSync(victim, 'keep me');
  const link = join(dir, 'saved.yaml');
  symlinkSync(victim, link);
  const har = file(
    'one.har',
    harOf([
      harEntry(
        'payments/initiate',
        { currency_code: 'GHS', country_code: 'GH', amount: '10', customer_transaction_id: 'ref-1' },
        { text: JSON.stringify({ success: true, data: { hash_token: 'HASHtoken0000000A1' } }) },
      ),
    ]),
  );
  const r = await mpay(['replay', har, '--save-scenario', link, '--force'], { env: cliEnv(sb, dir) });
  expect(r.code, r.stderr).toBe(exitCodes.usage);
  expect(r.stderr).toMatch(/Refusing to write the scenario through the link/);
  expect(readFileSync(victim, 'utf8')).toBe('keep me');
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
});
