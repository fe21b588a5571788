// Secrets never reach a log, an error message or a dry-run: every place that shows a request or a
// response passes it through here first.
import { createHash } from 'node:crypto';

const secretKeys =
  /^(merchant_key|api_key|api_user|otp|token|access_token|refresh_token|authorization|password|secret)$/i;
export const redacted = '***';

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

/** A deep copy of a JSON-like value with the values of secret keys replaced. */
export function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        secretKeys.test(k) && v != null && v !== '' ? redacted : redactValue(v),
      ]),
    );
  }
  return value;
}

export function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => {
      if (k.toLowerCase() === 'authorization' && typeof v === 'string')
        return [k, v.replace(/^(Bearer\s+).*/i, `$1${redacted}`)];
      if (/cookie|api[-_]?key|token/i.test(k)) return [k, redacted];
      return [k, v];
    }),
  );
}

/** Redacts a body that is text: JSON bodies key by key, anything else by its `key=value` pairs. */
export function redactText(text: string): string {
  try {
    return JSON.stringify(redactValue(JSON.parse(text)));
  } catch {
    return text.replace(/((?:merchant_key|api_key|otp|token)=)[^&\s]*/gi, `$1${redacted}`);
  }
}
