// mpay support bundle: one archive for a ticket. Unpacked, none of its files holds a secret the test
// used, and customers' personal data is masked unless --include-personal-data (which warns).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const person = {
  'first-name': 'Kwabena',
  'last-name': 'Ofori',
  phone: '+233209876540',
  email: 'kwabena.ofori@example.org',
};

function unpack(archive: string): Record<string, string> {
  const dir = tempDir();
  execFileSync('tar', ['-xzf', archive, '-C', dir]);
  return Object.fromEntries(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
}

it.concurrent(
  'holds versions, settings, doctor, journal, traces and a README, and no secret and no personal data',
  async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    const trace = join(tempDir(), 'run.har');
    expect(
      (await mpay(['deposit', ...customerArgs({ ...person, reference: 'sb-d' }), '--trace', trace], { env }))
        .code,
    ).toBe(0);
    const w = await mpay(
      [
        'withdraw',
        ...customerArgs({ ...person, reference: 'sb-w' }),
        '--otp',
        demoMerchant.otp,
        '--trace',
        trace,
      ],
      { env },
    );
    expect(w.code, w.stderr).toBe(0);
    const out = join(tempDir(), 'ticket.tar.gz');
    const r = await mpay(['support', 'bundle', '--trace-file', trace, '--out', out, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({
      file: out,
      files: [
        'versions.json',
        'profile.json',
        'doctor.json',
        'journal.ndjson',
        'trace-1-run.har',
        'README.txt',
      ],
    });
    const files = unpack(out);
    const token = Object.values(
      JSON.parse(readFileSync(join(cfg, 'tokens.json'), 'utf8')) as Record<string, { token: string }>,
    )[0]!.token;
    for (const [name, text] of Object.entries(files)) {
      for (const secret of [demoMerchant.merchantKey, demoMerchant.apiKey, token, demoMerchant.otp])
        expect(text, `${name} holds ${secret}`).not.toContain(secret);
      for (const personal of ['Kwabena', 'Ofori', '209876540', 'kwabena.ofori'])
        expect(text, `${name} holds ${personal}`).not.toContain(personal);
    }
    expect(JSON.parse(files['versions.json']!)).toMatchObject({
      packaging: 'npm package',
      node: process.version,
    });
    expect(files['journal.ndjson']).toContain('"first_name":"K."');
    expect(files['journal.ndjson']).toContain('k•••@example.org');
    expect(files['journal.ndjson']).toContain('540');
    expect(files['trace-1-run.har']).toContain('K.');
    expect(JSON.parse(files['doctor.json']!).ok).toBe(true);
    expect(JSON.parse(files['profile.json']!).merchant_key_fingerprint).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(files['README.txt']).toMatch(/journal\.ndjson: the journal of default\/sandbox: \d+ events/);
    expect(files['README.txt']).toMatch(/personal data is masked/);
  },
);

it.concurrent(
  '--include-personal-data keeps it, with a warning; --reference keeps one transaction',
  async () => {
    const env = cliEnv(sb, tempDir());
    expect((await mpay(['deposit', ...customerArgs({ ...person, reference: 'sb-a' })], { env })).code).toBe(
      0,
    );
    expect((await mpay(['deposit', ...customerArgs({ ...person, reference: 'sb-b' })], { env })).code).toBe(
      0,
    );
    const out = join(tempDir(), 'full.tar.gz');
    const r = await mpay(
      ['support', 'bundle', '--include-personal-data', '--reference', 'sb-b', '--out', out],
      { env },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/mpay: warning: the bundle keeps customers' names, phones and e-mails/);
    const journal = unpack(out)['journal.ndjson']!;
    expect(journal).toContain('Kwabena');
    expect(journal).not.toContain('sb-a');
    expect(journal).toContain('sb-b');
  },
);
