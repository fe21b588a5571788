// A self-signed certificate for `mpay sandbox --tls`: an EC P-256 key and an X.509 v3 certificate made by
// @peculiar/x509 over node's WebCrypto (no openssl), valid for the names and addresses the sandbox is
// reached by. A client trusts it as its own authority (NODE_EXTRA_CA_CERTS). Loaded only when --tls runs.
import { KeyObject, X509Certificate, randomBytes, webcrypto } from 'node:crypto';
import net from 'node:net';
// the Reflect polyfill @peculiar/x509 requires (its tsyringe refuses to load without one), before it
import 'reflect-metadata';
import {
  BasicConstraintsExtension,
  Name,
  SubjectAlternativeNameExtension,
  X509CertificateGenerator,
} from '@peculiar/x509';

export interface MadeCertificate {
  cert: string;
  key: string;
  /** SHA-256 fingerprint, as openssl and browsers show it (AB:CD:…) */
  fingerprint: string;
}

/**
 * A self-signed certificate for these DNS names and IP addresses, valid from a minute ago for `days` days.
 * `random`: the bytes of its serial number (tests give the unlucky ones). The serial is 16 bytes, the first
 * kept in 0x40-0x7f, so that it is positive and needs no padding byte whatever was drawn.
 */
export async function selfSignedCertificate(
  names: string[],
  days = 825,
  random: Buffer = randomBytes(16),
): Promise<MadeCertificate> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const serial = Buffer.from(random.subarray(0, 16));
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const now = Date.now();
  const made = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial.toString('hex'),
      // UTF8String, as the certificates before this library had it
      name: new Name([{ CN: [{ utf8String: 'mpay sandbox' }] }]),
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + days * 86_400_000),
      signingAlgorithm: alg,
      keys,
      extensions: [
        new BasicConstraintsExtension(true, undefined, true),
        new SubjectAlternativeNameExtension(
          [...new Set(names.filter(Boolean))].map((n) => ({
            type: net.isIP(n) ? ('ip' as const) : ('dns' as const),
            value: n,
          })),
        ),
      ],
    },
    webcrypto as Crypto,
  );
  const cert = `${made.toString('pem')}\n`;
  const key = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string;
  return { cert, key, fingerprint: new X509Certificate(cert).fingerprint256 };
}
