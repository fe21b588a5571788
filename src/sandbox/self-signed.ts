// A self-signed certificate for `mpay sandbox --tls`, made with node:crypto alone: an EC P-256 key and an
// X.509 v3 certificate written in DER by hand (no openssl, no package), valid for the names and addresses
// the sandbox is reached by. A client trusts it as its own authority (NODE_EXTRA_CA_CERTS).
import { X509Certificate, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import net from 'node:net';

const der = (tag: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  const n = body.length;
  const len =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
};
const seq = (...p: Buffer[]) => der(0x30, ...p);
const oid = (dotted: string): Buffer => {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [40 * a + b];
  for (const v of rest) {
    const out = [v & 0x7f];
    for (let x = v >> 7; x > 0; x >>= 7) out.unshift((x & 0x7f) | 0x80);
    bytes.push(...out);
  }
  return der(0x06, Buffer.from(bytes));
};
const utf8 = (s: string) => der(0x0c, Buffer.from(s, 'utf8'));
const time = (d: Date) => {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return d.getUTCFullYear() < 2050
    ? der(0x17, Buffer.from(`${s.slice(2)}Z`))
    : der(0x18, Buffer.from(`${s}Z`));
};
const ipBytes = (ip: string): Buffer => {
  if (net.isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand "::" and write the eight groups
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
};

export interface MadeCertificate {
  cert: string;
  key: string;
  /** SHA-256 fingerprint, as openssl and browsers show it (AB:CD:…) */
  fingerprint: string;
}

/**
 * A certificate's serial number, as DER wants it: positive (the top bit clear) and written in its fewest
 * bytes. A first byte of 0 before one under 0x80 is padding that OpenSSL refuses ("illegal padding"), so
 * the first byte is kept in 0x40-0x7f: 16 bytes always, 126 of them random.
 */
export function serialNumber(random: Buffer): Buffer {
  const serial = Buffer.from(random.subarray(0, 16));
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  return serial;
}

/**
 * A self-signed certificate for these DNS names and IP addresses, valid from now for `days` days.
 * `random`: the bytes of its serial number (tests give the unlucky ones).
 */
export function selfSignedCertificate(
  names: string[],
  days = 825,
  random: Buffer = randomBytes(16),
): MadeCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(der(0x31, seq(oid('2.5.4.3'), utf8('mpay sandbox'))));
  const serial = serialNumber(random);
  const now = new Date();
  const validity = seq(
    time(new Date(now.getTime() - 60_000)),
    time(new Date(now.getTime() + days * 86_400_000)),
  );
  const unique = [...new Set(names.filter(Boolean))];
  const altNames = seq(
    ...unique.map((n) => (net.isIP(n) ? der(0x87, ipBytes(n)) : der(0x82, Buffer.from(n, 'ascii')))),
  );
  const extensions = der(
    0xa3,
    seq(
      seq(oid('2.5.29.19'), der(0x01, Buffer.from([0xff])), der(0x04, seq(der(0x01, Buffer.from([0xff]))))),
      seq(oid('2.5.29.17'), der(0x04, altNames)),
    ),
  );
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    ecdsaSha256,
    name,
    validity,
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certDer = seq(tbs, ecdsaSha256, der(0x03, Buffer.from([0]), signature));
  const cert = `-----BEGIN CERTIFICATE-----\n${certDer
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return { cert, key, fingerprint: new X509Certificate(cert).fingerprint256 };
}

/** The SHA-256 fingerprint of a PEM certificate. */
export function fingerprintOf(cert: string | Buffer): string {
  return new X509Certificate(cert).fingerprint256;
}
