// Every command mpay prints runs as printed (bash -c): `history show` and `resolve` of an unknown row
// at a server that is not the profile's default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { file, loginArgs, requestCount, runPrinted, sandbox, setFaults, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let a: Awaited<ReturnType<typeof sandbox>>;
// Sections 2 to 8 share nothing that one counts (each has its own folders, and the servers it counts are its
// own), so they run at once, in two groups: the batch's paced waits (2) beside the sections whose work is in
// processes of their own (7, 8), so that its pace is kept by a worker with little else to do; then the
// in-process ones (3 to 6). Section 1 (every request to sandbox a counted) runs between the groups, the
// doctor's count of a's key checks after them.
beforeAll(async () => {
  a = await sandbox();
});
afterAll(async () => {
  await a?.close();
});

describe.concurrent('3. every command mpay prints runs as printed', () => {
  it('an unknown row at a server that is not the profile default: the printed show and resolve act on it where it lives', async () => {
    // the record's server drops the answer of each initiate (it applied it): the row is unknown
    const s = await sandbox({ faults: ['drop-after'], rate: 1, faultPaths: ['/payments/initiate'] });
    try {
      const cfg = tempDir();
      // the profile's own server is sandbox a; the batch goes to s with --base-url
      const login = await mpay(loginArgs('p', a.url), {
        env: {
          MPAY_CONFIG_DIR: cfg,
          MPAY_KEYRING: 'off',
          MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
          MPAY_API_KEY: demoMerchant.apiKey,
        },
      });
      expect(login.code, login.stderr).toBe(0);
      const env = { MPAY_CONFIG_DIR: cfg, MPAY_KEYRING: 'off', MPAY_RETRY_BASE_MS: '20' };
      const rows = file(
        'unknown.csv',
        'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,12,Ama,+233201234567,a@b.c,1\n',
      );
      const first = await mpay(['deposit', 'batch', rows, '--yes', '--base-url', s.url], { env });
      expect(first.code, first.stderr).toBe(10);
      const again = await mpay(['deposit', 'batch', rows, '--yes', '--base-url', s.url, '--json'], { env });
      expect(again.code, again.stderr).toBe(10);
      const text = again.stdout + again.stderr;
      // every command in backticks is one to paste: none has a word for the person to replace but a <placeholder>
      for (const c of [...(first.stderr + text).matchAll(/`(mpay [^`]+)`/g)].map((m) => m[1]!))
        expect(c.replace(/<[^>]+>/g, ''), c).not.toMatch(/\bREF\b|\|/);
      const backticked = [...text.matchAll(/`(mpay [^`]+)`/g)].map((m) => m[1]!);
      const show = backticked.find((c) => c.startsWith('mpay history show '));
      const resolve = backticked.find((c) => c.startsWith('mpay history resolve '));
      expect(show, text).toBeDefined();
      expect(resolve, text).toBeDefined();
      const reference = /history show (\S+)/.exec(show!)![1]!;
      // pasted where the variables point at yet another server, and the profile at its own default
      const elsewhere = { ...env, MPAY_BASE_URL: 'http://127.0.0.1:9' };
      const shown = await runPrinted(`${show!} --json`, elsewhere, 'bash');
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout).reference).toBe(reference);
      // the printed line, with its placeholder filled as the help offers: --check asks the record's server
      // (the faults off now), which refuses the same reference as taken: the first initiate landed
      await setFaults(s, { rate: 0 });
      const checks = await requestCount(s, 'POST /payments/initiate');
      const line = resolve!.replace('--as <not-sent|landed|abandoned>', '--check');
      const settled = await runPrinted(`${line} --json`, elsewhere, 'bash');
      expect(settled.code, settled.stderr).toBe(0);
      expect(JSON.parse(settled.stdout)).toMatchObject({ reference, as: 'landed', checked: 'taken' });
      expect(await requestCount(s, 'POST /payments/initiate')).toBe(checks + 1);
      const after = await mpay(['history', 'show', reference, '--json'], { env });
      expect(JSON.stringify(after.json()), after.stdout).toContain('landed');
      // landed, not finished by mpay (#47): not done, exit 10, until a person decides with the printed --as
      const landed = await mpay(['deposit', 'batch', rows, '--yes', '--base-url', s.url], { env });
      expect(landed.code, landed.stderr).toBe(10);
      const decide = [...landed.stderr.matchAll(/`(mpay history resolve \S+ --as landed [^`]+)`/g)][0]![1]!;
      expect((await runPrinted(decide, elsewhere, 'bash')).code).toBe(0);
      const last = await mpay(['deposit', 'batch', rows, '--yes', '--base-url', s.url], { env });
      expect(last.code, last.stderr).toBe(0);
    } finally {
      await s.close();
    }
  });
});
