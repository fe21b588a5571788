// `mpay sandbox --tls`: a self-signed certificate made for it, its fingerprint and the one line a client
// needs printed; mpay (its got client, in a process of its own) trusts it through that line, end to end,
// on loopback and on an address other machines reach (where mpay refuses plain http, and money to it is
// live until a profile keeps it as its sandbox); a restart on the same --data serves the same certificate,
// so a client trusts it once.
import { X509Certificate } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { cliEnv, customerArgs, firstJsonLine, run, sandboxProcess, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { selfSignedCertificate } from '../src/sandbox/self-signed.js';

type Finished = TestContext['onTestFinished'];

/**
 * Starts `mpay sandbox --json` with `args`: its URL, once printed, the facts it printed as JSON, and its
 * stderr so far.
 */
function start(args: string[], onTestFinished: Finished) {
  const child = sandboxProcess(['--json', ...args], onTestFinished);
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  let facts: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
  const url = firstJsonLine(child, () => err).then((f) => (facts = f).url as string);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, url, exited, stderr: () => err, facts: () => facts };
}

/**
 * The certificate file and fingerprint the sandbox printed, from its lines telling how to trust it: the
 * fingerprint in two halves, one a line, so that each fits 80 columns.
 */
function trustOf(stderr: string) {
  const m =
    /TLS: a self-signed certificate made for this sandbox, (\S+) \(copy it to the client's machine\)\n {2}SHA-256 fingerprint, to compare there:\n {4}([0-9A-F:]{48})\n {4}([0-9A-F:]{47})\n {2}a client trusts it with:\n {4}NODE_EXTRA_CA_CERTS=(\S+) mpay …\n/.exec(
      stderr,
    );
  expect(m, stderr).not.toBeNull();
  expect(m![4]).toBe(m![1]);
  for (const line of m![0].split('\n').slice(1)) expect(line.length).toBeLessThanOrEqual(80);
  return { certFile: m![1]!, fingerprint: m![2]! + m![3]! };
}

describe('the certificate mpay sandbox --tls makes', () => {
  // A serial number is random: its DER must be minimal and positive whatever the bytes drawn, or OpenSSL
  // refuses the certificate ("illegal padding"), which failed one start of the sandbox in 256.
  for (const [what, bytes] of [
    ['all zero', Buffer.alloc(16, 0)],
    ['zero, then a byte under 0x80', Buffer.from([0, 1, ...Array<number>(14).fill(7)])],
    ['zero, then a byte over 0x7f', Buffer.from([0, 0x80, ...Array<number>(14).fill(7)])],
    ['all 0xff', Buffer.alloc(16, 0xff)],
    ['0x80, then zeros', Buffer.from([0x80, ...Array<number>(15).fill(0)])],
  ] as const) {
    it(`is read by OpenSSL whatever the serial's random bytes: ${what}`, async () => {
      const made = await selfSignedCertificate(['localhost', '127.0.0.1'], 825, bytes);
      const cert = new X509Certificate(made.cert);
      expect(cert.fingerprint256).toBe(made.fingerprint);
      // 16 bytes, the first in 0x40-0x7f: positive, and no padding byte
      expect(cert.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
      expect(cert.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    });
  }
});

const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

// The tests share nothing (each its own sandboxes, ports and folders) and run at once. What needs the
// printed line runs in a process of its own (NODE_EXTRA_CA_CERTS is read at a process's start); what is
// refused before any trust is asked runs in-process.
describe('mpay sandbox --tls', { concurrent: true }, () => {
  it('makes a certificate, prints how to trust it, and mpay trusts it with that line; a restart keeps it', async ({
    onTestFinished,
  }) => {
    const dir = tempDir();
    const data = join(dir, 'sandbox.log');
    const first = start(['--tls', '--data', data], onTestFinished);
    const url = await first.url;
    try {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const { certFile, fingerprint } = trustOf(first.stderr());
      expect(certFile).toBe(join(dir, 'sandbox.log.tls-cert.pem'));
      expect(fingerprint).toBe(new X509Certificate(readFileSync(certFile)).fingerprint256);
      expect(first.facts().settings).toMatchObject({
        tls: true,
        tls_certificate: certFile,
        tls_fingerprint: fingerprint,
      });
      expect(statSync(join(dir, 'sandbox.log.tls-key.pem')).mode & 0o777).toBe(0o600);

      // Without the line, TLS verification refuses it; with it, a whole deposit goes through.
      const refused = await mpay(['countries', '--json'], { env: cliEnv({ url }, tempDir()) });
      expect(refused.code).toBe(8);
      expect(refused.json().error.message).toMatch(/self.signed|TLS verification failed/i);
      const env = cliEnv({ url }, tempDir(), { NODE_EXTRA_CA_CERTS: certFile });
      const dep = await run(['deposit', ...customerArgs({ reference: 'tls-1' }), '--yes', '--json'], { env });
      expect(dep.code, dep.stderr).toBe(0);
      expect(dep.stdout).toContain('tls-1');

      first.child.kill('SIGINT');
      await first.exited;
      const second = start(['--tls', '--data', data], onTestFinished);
      try {
        const url2 = await second.url;
        expect(trustOf(second.stderr())).toEqual({ certFile, fingerprint });
        const again = await run(['countries', '--json'], {
          env: cliEnv({ url: url2 }, tempDir(), { NODE_EXTRA_CA_CERTS: certFile }),
        });
        expect(again.code, again.stderr).toBe(0);
      } finally {
        second.child.kill('SIGINT');
        await second.exited;
      }
    } finally {
      first.child.kill('SIGINT');
    }
  }, 120_000);

  it('without --data: the temporary folder with the private key is removed at exit, on SIGINT and on SIGTERM; the banner says TLS is on', async ({
    onTestFinished,
  }) => {
    // the two signals, and the banner in words, at once: three sandboxes of their own
    const signalled = (['SIGINT', 'SIGTERM'] as const).map(async (signal) => {
      const sb = start(['--tls'], onTestFinished);
      await sb.url;
      const { certFile } = trustOf(sb.stderr());
      const folder = dirname(certFile);
      expect(basename(folder)).toMatch(/^mpay-sandbox-tls-/);
      expect(readdirSync(folder).sort()).toEqual(['sandbox.tls-cert.pem', 'sandbox.tls-key.pem']);
      expect(sb.facts().settings.tls).toBe(true);
      sb.child.kill(signal);
      await sb.exited;
      expect(existsSync(folder), `${signal}: ${folder} left behind`).toBe(false);
    });
    // awaited below, after the banner: a failure meanwhile is not an unhandled one
    for (const p of signalled) p.catch(() => {});
    // the banner in words
    const child = sandboxProcess(['--tls'], onTestFinished);
    let out = '';
    const shown = new Promise<void>((resolve) =>
      child.stdout.on('data', (d) => {
        out += d;
        if (/Ctrl-C stops it/.test(out)) resolve();
      }),
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await shown;
      expect(out).toMatch(
        /^ {2}TLS: +on \(https\), a self-signed certificate made for it, \S+\.tls-cert\.pem$/m,
      );
      expect(out).toMatch(/listening on https:/);
      // its Try line trusts the certificate
      expect(out).toMatch(
        /Try: printf %s mk_sandbox_demo \| NODE_EXTRA_CA_CERTS=\S+\.tls-cert\.pem MPAY_API_KEY=/,
      );
    } finally {
      child.kill('SIGINT');
      await exited;
    }
    await Promise.all(signalled);
  }, 120_000);

  it.skipIf(!outside)(
    'on an address other machines reach: plain http is refused by mpay, https with the printed line works',
    async ({ onTestFinished }) => {
      const plain = start(['--host', outside!], onTestFinished);
      const tls = start(['--host', outside!, '--tls'], onTestFinished);
      try {
        const refused = await run(['countries', '--json'], {
          env: cliEnv({ url: await plain.url }, tempDir()),
        });
        expect(refused.code).toBe(2);
        const url = await tls.url;
        expect(url).toBe(`https://${outside}:${new URL(url).port}`);
        const { certFile } = trustOf(tls.stderr());
        // the warning of an address others reach speaks of plain http only where it is plain http
        expect(plain.stderr()).toMatch(
          /mpay refuses plain http to an address that is not loopback \(serve with --tls/,
        );
        expect(tls.stderr()).toMatch(/listening on \S+, which other machines can reach/);
        expect(tls.stderr()).not.toMatch(/plain http/);
        const r = await run(['currencies', '--merchant', '--json'], {
          env: cliEnv({ url }, tempDir(), { NODE_EXTRA_CA_CERTS: certFile }),
        });
        expect(r.code, r.stderr).toBe(0);
        expect(r.json().length).toBeGreaterThan(0);
        // A login to it as the sandbox environment: its API-key check is skipped (no profile kept it as a
        // sandbox before), in words that match what is saved, not "a live server".
        const logged = await run(
          [
            'login',
            '--env',
            'sandbox',
            '--base-url',
            url,
            '--site-id',
            '1',
            '--merchant-key-stdin',
            '--json',
          ],
          {
            env: {
              MPAY_CONFIG_DIR: tempDir(),
              MPAY_KEYRING: 'off',
              MPAY_API_KEY: 'ak_sandbox_demo',
              NODE_EXTRA_CA_CERTS: certFile,
            },
            input: 'mk_sandbox_demo',
          },
        );
        expect(logged.code, logged.stderr).toBe(0);
        expect(logged.json()).toMatchObject({ env: 'sandbox', base_url: url, api_key: { checked: false } });
        expect(logged.json().api_key.detail).not.toMatch(/live server/);
        expect(logged.json().api_key.detail).toMatch(
          /until this login no profile kept .* as a sandbox or stage server, so it counted as live.*now that this profile keeps it as its sandbox server, `mpay doctor` runs it/,
        );
        // Money to it: live by the money gate's rule (not loopback) until a profile keeps it as a sandbox.
        const cfg = tempDir();
        const env = cliEnv({ url }, cfg, { NODE_EXTRA_CA_CERTS: certFile });
        const deposit = (ref: string) =>
          run(
            [
              'api',
              'POST',
              'payments/initiate',
              '--credentials',
              '-f',
              'currency_code=GHS',
              '-f',
              'country_code=GH',
            ]
              .concat([
                '-F',
                'amount=10',
                '-f',
                'customer_first_name=Ama',
                '-f',
                'customer_phone=+233201234567',
              ])
              .concat([
                '-f',
                'customer_email=ama@example.com',
                '-f',
                `customer_transaction_id=${ref}`,
                '--json',
              ]),
            { env },
          );
        const live = await deposit('tls-outside-1');
        expect(live.code, live.stderr).toBe(16);
        expect(live.stderr).toMatch(
          /Nothing was sent: .*live server .*no profile keeps it as a sandbox or stage/,
        );
        const set = await mpay(['config', 'set', 'sandbox.base_url', url], { env });
        expect(set.code, set.stderr).toBe(0);
        const sent = await deposit('tls-outside-2');
        expect(sent.code, sent.stderr).toBe(0);
        expect(sent.stdout).toContain('tls-outside-2');
      } finally {
        plain.child.kill('SIGINT');
        tls.child.kill('SIGINT');
      }
    },
    120_000,
  );
});
