// `mpay sandbox --tls`: a self-signed certificate made for it, its fingerprint and the one line a client
// needs printed; mpay (its got client, in a process of its own) trusts it through that line, end to end,
// on loopback and on an address other machines reach (where mpay refuses plain http, and money to it is
// live until a profile keeps it as its sandbox); a restart on the same --data serves the same certificate,
// so a client trusts it once.
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bin, cliEnv, customerArgs, run, tempDir } from './helpers.js';

/** Starts `mpay sandbox --json` with `args`: its URL, once printed, and its stderr so far. */
function start(args: string[]) {
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const url = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line).url);
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited ${code}: ${err}`)));
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, url, exited, stderr: () => err };
}

/** The certificate file and fingerprint the sandbox printed, from its line telling how to trust it. */
function trustOf(stderr: string) {
  const m =
    /TLS: a self-signed certificate made for this sandbox, (\S+), SHA-256 fingerprint ([0-9A-F:]{95})\. A client trusts it with: NODE_EXTRA_CA_CERTS=(\S+) mpay/.exec(
      stderr,
    );
  expect(m, stderr).not.toBeNull();
  expect(m![3]).toBe(m![1]);
  return { certFile: m![1]!, fingerprint: m![2]! };
}

const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('mpay sandbox --tls', () => {
  it('makes a certificate, prints how to trust it, and mpay trusts it with that line; a restart keeps it', async () => {
    const dir = tempDir();
    const data = join(dir, 'sandbox.log');
    const first = start(['--tls', '--data', data]);
    const url = await first.url;
    try {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const { certFile, fingerprint } = trustOf(first.stderr());
      expect(certFile).toBe(join(dir, 'sandbox.log.tls-cert.pem'));
      expect(fingerprint).toBe(new X509Certificate(readFileSync(certFile)).fingerprint256);
      expect(statSync(join(dir, 'sandbox.log.tls-key.pem')).mode & 0o777).toBe(0o600);

      // Without the line, TLS verification refuses it; with it, a whole deposit goes through.
      const refused = await run(['countries', '--json'], { env: cliEnv({ url }, tempDir()) });
      expect(refused.code).toBe(8);
      expect(refused.json().error.message).toMatch(/self.signed|TLS verification failed/i);
      const env = cliEnv({ url }, tempDir(), { NODE_EXTRA_CA_CERTS: certFile });
      const dep = await run(['deposit', ...customerArgs({ reference: 'tls-1' }), '--yes', '--json'], { env });
      expect(dep.code, dep.stderr).toBe(0);
      expect(dep.stdout).toContain('tls-1');

      first.child.kill('SIGINT');
      await first.exited;
      const second = start(['--tls', '--data', data]);
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

  it.skipIf(!outside)(
    'on an address other machines reach: plain http is refused by mpay, https with the printed line works',
    async () => {
      const plain = start(['--host', outside!]);
      const tls = start(['--host', outside!, '--tls']);
      try {
        const refused = await run(['countries', '--json'], {
          env: cliEnv({ url: await plain.url }, tempDir()),
        });
        expect(refused.code).toBe(2);
        const url = await tls.url;
        expect(url).toBe(`https://${outside}:${new URL(url).port}`);
        const { certFile } = trustOf(tls.stderr());
        const r = await run(['currencies', '--merchant', '--json'], {
          env: cliEnv({ url }, tempDir(), { NODE_EXTRA_CA_CERTS: certFile }),
        });
        expect(r.code, r.stderr).toBe(0);
        expect(r.json().length).toBeGreaterThan(0);
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
        expect(live.code, live.stderr).toBe(2);
        expect(live.stderr).toMatch(
          /Nothing was sent: .*live server .*no profile keeps it as a sandbox or stage/,
        );
        const set = await run(['config', 'set', 'sandbox.base_url', url], { env });
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
