// The certificate `mpay sandbox` serves HTTPS with: the one given (--tls-cert, --tls-key), or one made for
// it (--tls), and the lines that tell a client how to trust it.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { reachOf } from './reach.js';

/** What the sandbox is asked for: its flags that name a certificate, its data file and its address. */
export interface TlsWanted {
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  data?: string;
  host: string;
}

export interface Tls {
  cert: Buffer;
  key: Buffer;
  certFile: string;
  fingerprint: string;
  /** the lines that tell a client how to trust it */
  trust: string;
  /** the temporary folder it was made in (--tls without --data), removed at exit */
  temporary?: string;
}

/**
 * How a client trusts the certificate, in lines that read at 80 columns: the fingerprint (95 characters)
 * in two halves of 16 bytes, which joined are the whole (as openssl and browsers print it).
 */
function trustLines(certFile: string, fingerprint: string, made: boolean): string {
  const half = fingerprint.length >> 1;
  return [
    `TLS: ${made ? 'a self-signed certificate made for this sandbox' : 'the certificate of --tls-cert'}, ${certFile} (copy it to the client's machine)`,
    `  SHA-256 fingerprint, to compare there:`,
    `    ${fingerprint.slice(0, half + 1)}`,
    `    ${fingerprint.slice(half + 1)}`,
    `  a client trusts it with:`,
    `    NODE_EXTRA_CA_CERTS=${certFile} mpay …`,
  ].join('\n');
}

/**
 * The certificate to serve: --tls-cert and --tls-key, or with --tls a self-signed one, made once and kept
 * (beside --data, so that a client trusts it once; else in a new temporary folder, removed at exit). With
 * it, the lines that make mpay (or any Node client) on another machine trust it.
 */
export async function tlsOf(opts: TlsWanted): Promise<Tls | undefined> {
  const tlsFor = (certFile: string, cert: Buffer, key: Buffer, made: boolean, temporary?: string) => {
    const fingerprint = new X509Certificate(cert).fingerprint256;
    return { cert, key, certFile, fingerprint, trust: trustLines(certFile, fingerprint, made), temporary };
  };
  if (opts.tlsCert && opts.tlsKey)
    return tlsFor(opts.tlsCert, readFileSync(opts.tlsCert), readFileSync(opts.tlsKey), false);
  if (!opts.tls) return undefined;
  const temporary = opts.data ? undefined : mkdtempSync(join(tmpdir(), 'mpay-sandbox-tls-'));
  const dir = temporary ?? dirname(resolve(opts.data!));
  const base = opts.data ? basename(opts.data) : 'sandbox';
  const certFile = join(dir, `${base}.tls-cert.pem`);
  const keyFile = join(dir, `${base}.tls-key.pem`);
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    const names = [
      'localhost',
      '127.0.0.1',
      '::1',
      hostname(),
      ...Object.values(networkInterfaces()).flatMap((list) =>
        (list ?? []).map((a) => a.address.replace(/%.*$/, '')),
      ),
      // the address it listens on, unless that is every interface's (listed above)
      ...(reachOf(opts.host, '').everywhere ? [] : [opts.host.replace(/^\[|\]$/g, '')]),
    ];
    // the X.509 library only now: not for --tls-cert, nor for one made at an earlier start
    const { selfSignedCertificate } = await import('./self-signed.js');
    const made = await selfSignedCertificate(names);
    writeFileSync(keyFile, made.key, { mode: 0o600, flag: 'wx' });
    writeFileSync(certFile, made.cert, { mode: 0o644, flag: 'wx' });
  }
  return tlsFor(certFile, readFileSync(certFile), readFileSync(keyFile), true, temporary);
}
