// The one module that decides what is secret (docs/architecture.md). Every place that shows or writes a
// request or a response (--debug, --trace, the support bundle, history show, dry runs, error messages)
// passes it through here first. A secret is found two ways:
// - by name: headers (Authorization, Proxy-Authorization, Cookie, Set-Cookie, API keys), and query
//   parameters and body fields that hold keys, tokens, codes and passwords, at any depth, including HAR's
//   {name, value} pairs;
// - by value: every secret this run holds (the merchant and API keys, tokens, one-time codes) is
//   registered here, and replaced wherever it appears, whoever wrote it: a header, a URL, a body, a file.
import { createHash } from 'node:crypto';

const secretKeys =
  /^(merchant_key|api_key|apikey|api_user|otp|one_time_code|code_verifier|token|access_token|refresh_token|id_token|jwt|bearer|authorization|proxy-authorization|password|passwd|pass|secret|client_secret|private_key|session|sessionid|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-csrf-token|csrf_token|signature)$/i;
// In a URL's query only: an OAuth `code` (a currency `code` in a body is not secret).
const secretQueryKeys = /^(code|state|sig|key)$/i;
export const redacted = '***';

/** Whether a header, query parameter or field of this name holds a secret. */
export function isSecretName(name: string): boolean {
  return secretKeys.test(name.trim());
}

// The secrets of this run, by value, each replaced where it stands as a whole word: a one-time code 123456
// is scrubbed, the same digits inside a phone number +233201234567 are not. Values under 4 characters are
// left out: replacing "1" everywhere would say nothing.
const known = new Set<string>();
let knownPattern: RegExp | undefined;

/** Registers a secret of this run (a key, a token, a one-time code): from now on it is scrubbed anywhere. */
export function registerSecret(value: string | undefined | null): void {
  if (!value || value.length < 4 || known.has(value)) return;
  known.add(value);
  knownPattern = undefined;
}

/** Replaces every registered secret in a text, and the secrets carried by `key=value` pairs of secret names. */
export function scrubString(text: string): string {
  if (known.size) {
    knownPattern ??= new RegExp(
      `(?<![A-Za-z0-9])(?:${[...known]
        .sort((a, b) => b.length - a.length)
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|')})(?![A-Za-z0-9])`,
      'g',
    );
    text = text.replace(knownPattern, redacted);
  }
  return text;
}

/** Shows the first and last characters of a secret, enough to tell two keys apart. */
export function mask(secret: string | undefined | null): string {
  if (!secret) return '';
  if (secret.length <= 8) return '*'.repeat(secret.length);
  return `${secret.slice(0, 3)}…${secret.slice(-3)}`;
}

/**
 * A short, stable fingerprint of a secret (sha256, 12 hex digits): enough to tell two keys apart and to
 * key a cache by, without ever writing the secret itself.
 */
export function fingerprint(secret: string): string {
  return `sha256:${createHash('sha256').update(secret).digest('hex').slice(0, 12)}`;
}

/**
 * A deep copy of a JSON-like value with the values of secret keys replaced, {name, value} pairs whose name
 * is a secret's (HAR headers, cookies, query strings, form params) too, and every registered secret
 * replaced in any string, keys included.
 */
export function redactValue(value: unknown, key = ''): unknown {
  // A HAR body kept as base64 (a browser's choice for some answers): decoded, scrubbed, encoded again.
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (o.encoding === 'base64' && typeof o.text === 'string') {
      const text = Buffer.from(o.text, 'base64').toString('utf8');
      const scrubbed = redactText(text);
      if (scrubbed !== text)
        return {
          ...(redactValue({ ...o, text: '' }) as object),
          text: Buffer.from(scrubbed).toString('base64'),
        };
    }
  }
  // A HAR's cookies: every value is a credential, whatever the cookie is called.
  if (Array.isArray(value) && /^cookies$/i.test(key))
    return value.map((c) =>
      c && typeof c === 'object' && 'value' in c
        ? { ...(redactValue(c) as Record<string, unknown>), value: redacted }
        : redactValue(c),
    );
  if (Array.isArray(value)) return value.map((v) => redactValue(v));
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const pairName = typeof o.name === 'string' && 'value' in o ? o.name : undefined;
    return Object.fromEntries(
      Object.entries(o).map(([k, v]) => [
        scrubString(k),
        (isSecretName(k) || (k === 'value' && pairName !== undefined && isSecretName(pairName))) &&
        v != null &&
        v !== ''
          ? redacted
          : redactValue(v, k),
      ]),
    );
  }
  return typeof value === 'string' ? redactText(value) : value;
}

export function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => {
      if (/^(proxy-)?authorization$/i.test(k) && typeof v === 'string')
        return [k, v.replace(/^(\w+\s+).*/i, `$1${redacted}`)];
      if (isSecretName(k) || /cookie|api[-_]?key|token|secret|session/i.test(k)) return [k, redacted];
      return [k, typeof v === 'string' ? scrubString(v) : v];
    }),
  );
}

/**
 * Redacts a text: JSON key by key (kept as text), a URL's or form's `key=value` pairs of secret names, and
 * every registered secret wherever it is.
 */
export function redactText(text: string): string {
  const t = text.trim();
  // multipart/form-data: each part's value under a secret name.
  if (/Content-Disposition:\s*form-data/i.test(text))
    text = text.replace(
      /(Content-Disposition:\s*form-data;\s*name="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([^\r\n]*)/gi,
      (all, head: string, name: string) => (isSecretName(name) ? `${head}${redacted}` : all),
    );
  if ((t.startsWith('{') || t.startsWith('[')) && t.length > 1) {
    try {
      return JSON.stringify(redactValue(JSON.parse(text)));
    } catch {
      // not JSON after all: scrubbed as text below
    }
  }
  return scrubString(
    text
      // JSON inside other text: "name": "value" pairs of secret names.
      .replace(/"([\w.-]+)"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g, (all, k: string, sep: string) =>
        isSecretName(k) ? `"${k}"${sep}"${redacted}"` : all,
      )
      // An Authorization value in any text: its scheme kept, its credentials not.
      .replace(/\b(Bearer|Basic|Digest|Token)\s+[A-Za-z0-9._~+/=-]{6,}/g, `$1 ${redacted}`)
      .replace(/([?&;\s]|^)([\w.-]+)=([^&\s;#"']*)/g, (all, lead: string, k: string) =>
        isSecretName(k) || (lead === '?' || lead === '&' ? secretQueryKeys.test(k) : false)
          ? `${lead}${k}=${redacted}`
          : all,
      ),
  );
}
