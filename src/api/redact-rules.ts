// What the scrubber (api/redact.ts) decides by a name and in free text, without the run's secrets:
// which query and form pairs, headers and prose names hold a secret, what an API's `errors` say, whether a
// word after an Authorization scheme is a credential, and the spellings (encoded, escaped, base64 pieces) a
// secret's value takes in text. The one list of names is api/secret-names.ts.
import { isSecretName } from './secret-names.js';

// In a URL's query or a form only: an OAuth `state`, a signature, a `key`, and a `code` that is not an
// identifier (codeIsSecret).
export const secretQueryKeys = /^(state|sig|key)$/i;
export const redacted = '***';

/**
 * Whether a `code=` value of a query or form is a secret (a one-time code, an OAuth code) rather than an
 * identifier a person needs: a currency's or a country's ISO code (GHS, gh, GHA), a coin's code (USDT,
 * MATIC), a dial code (+233) are kept; anything else (digits, as a one-time code has, or a long opaque
 * word) is replaced.
 */
export function codeIsSecret(value: string): boolean {
  let v = value;
  try {
    v = decodeURIComponent(value.replace(/\+/g, ' ')).trim();
  } catch {
    // not percent-encoded text: compared as it is
  }
  return !/^(?:[A-Za-z]{2,3}|[A-Z]{2,6}|[+ ]\d{1,4})$/.test(v);
}

/** Whether a `name=value` pair of a URL's query or a form (after `?` or `&`) holds a secret. */
export function queryPairIsSecret(name: string, value: string): boolean {
  return isSecretName(name) || secretQueryKeys.test(name) || (/^code$/i.test(name) && codeIsSecret(value));
}

/** A name's values under an API's `errors` are the server's words about the field, not the field. */
export const errorsKey = /^errors?$/i;

/**
 * Whether a value under a secret's name in an API's `errors` is a message (words, as "is invalid" or
 * "The selected merchant key is invalid."): a credential never holds a space, so one without a space is
 * replaced like any secret's value.
 */
export function isMessage(v: unknown): boolean {
  if (typeof v === 'string') return /\S\s+\S/.test(v);
  return Array.isArray(v) && v.length > 0 && v.every(isMessage);
}

/**
 * A `Name: value` in free text (a log, a HAR's comment) whose name is a secret's: at a line's start it is a
 * header line (an X- header also under the header rule) and its value is the rest of the line; elsewhere
 * the value is one word, or a quoted string.
 */
export function isProseSecret(name: string, headerLine: boolean): boolean {
  return isSecretName(name) || (headerLine && /^x-/i.test(name) && isSecretHeader(name));
}

/** The header rule: a secret's name, or a name that speaks of a key, token, secret, session or cookie. */
export function isSecretHeader(name: string): boolean {
  return isSecretName(name) || /cookie|api[-_]?key|token|secret|session|passw|auth/i.test(name);
}

/**
 * The secrets of one run, by value: each replaced where it stands as a whole word (a one-time code 123456
 * is scrubbed, the same digits inside a phone number +233201234567 are not). Values under 4 characters are
 * left out: replacing "1" everywhere would say nothing. One a run (the Factory's): never shared between
 * runs, so two runs side by side in one process never scrub with each other's secrets.
 */

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The last name of a dotted or bracketed name (`ep.merchant_key`, `data[token]`): the field's own. */
export const lastSegment = (name: string) =>
  name
    .split(/[.[\]]/)
    .filter(Boolean)
    .pop() ?? name;

export const htmlEntities: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};
export const htmlDecoded = (s: string) => s.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => htmlEntities[e]!);

/** A query's or a form's value as the text it stands for (`+` a space, percent-escapes decoded). */
export function decodedValue(v: string): string {
  try {
    return decodeURIComponent(v.replace(/\+/g, ' '));
  } catch {
    return v;
  }
}

/** The spellings of a secret in text: as it is, URL- and form-encoded, JSON- and HTML-escaped. */
export function spellings(v: string): string[] {
  const url = encodeURIComponent(v);
  const html = v.replace(/[&<>"']/g, (c) => Object.entries(htmlEntities).find(([, x]) => x === c)![0]);
  return [...new Set([v, url, url.replace(/%20/g, '+'), JSON.stringify(v).slice(1, -1), html])];
}

/**
 * The pieces of a secret's base64 that stand in any base64 text holding it, whatever its offset there:
 * at each of the three alignments, the groups of four characters made of the secret's bytes alone
 * (standard and URL-safe). Pieces under 8 characters would match by chance, and are left out.
 */
export function base64Pieces(v: string): string[] {
  const bytes = Buffer.from(v);
  const out = new Set<string>();
  for (const pad of [0, 1, 2]) {
    const enc = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64');
    const start = pad ? 4 : 0;
    const end = Math.floor((pad + bytes.length) / 3) * 4;
    const piece = enc.slice(start, end);
    if (piece.length < 8) continue;
    out.add(piece);
    out.add(piece.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...out];
}

/**
 * Whether what follows a secret's name and colon is the server's or mpay's words about the field (a
 * journal's `merchant_key: The selected merchant key is invalid.`), not its value: a word of prose
 * (isCredential) followed by another word. A credential is one word, and never one of prose.
 */
export function readsAsSentence(rest: string): boolean {
  const m = /^["']?([A-Za-z]+(?:-[A-Za-z]+)*)[,.]?[ \t]+["']?[A-Za-z]/.exec(rest);
  return !!m && !isCredential(m[1]!);
}

// A name is a whole word of word characters and `-` (`2fa_pin` too), bare or in quotes of either kind (a
// JSON or Python key in a log: `"pin": 4711`, `{'token': 'X'}`).
export const proseName = /(?<![\w-])["']?([\w-]+)["']?[ \t]*:[ \t]*/g;
// A bare value ends at a `}` (`{token: X}`, an object printed by a log); a `)` or `]` may be the value's
// own (`abc$(id)`), and is taken with it.
export const proseValue = /"(?:[^"\\\r\n]|\\.)*"|'[^'\r\n]*'|[^\s"',;&}]+/y;

/**
 * `name: value` pairs in prose whose name is a secret's (`token: X`, `otp: 123456`), the value one word or
 * a quoted string: replaced, inside quotes too (`error "token: X"`), a name starting with `_`, `-` or a
 * digit too (a form's `_token: X`, `--pin: X`, `2fa_pin: X`), a name in quotes too (`'otp': 918273`); a
 * name is whole, not the end of a word. Names are found without taking the value, so `log: token: X`
 * finds `token`.
 * An Authorization is left to the rules that keep its scheme.
 */
export function proseSecrets(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(proseName)) {
    const name = m[1]!;
    if (m.index < last || !isProseSecret(name, false) || /^(proxy-)?authorization$/i.test(name)) continue;
    proseValue.lastIndex = m.index + m[0].length;
    const v = proseValue.exec(text)?.[0];
    if (!v || readsAsSentence(text.slice(m.index + m[0].length))) continue;
    const q = v[0] === '"' || v[0] === "'" ? v[0] : '';
    out += `${text.slice(last, m.index)}${m[0]}${q}${redacted}${q}`;
    last = proseValue.lastIndex;
  }
  return out + text.slice(last);
}

/**
 * Whether the word after an Authorization scheme's name is a credential rather than a word of prose: a
 * word of letters alone, in one case or capitalised (generated, Expired, EXPIRED, re-issued), shorter than
 * 24 characters, is prose, a full stop after it too; anything else (a digit, a dot, a slash, `=`, mixed case as base64 and random
 * tokens have, or a long run of letters) is a credential.
 */
export function isCredential(word: string): boolean {
  const prose = /^(?:[a-z]+(?:-[a-z]+)*|[A-Z][a-z]+(?:-[a-z]+)*|[A-Z]+(?:-[A-Z]+)*)$/;
  const bare = word.replace(/\.+$/, ''); // a sentence's full stop
  return bare.length >= 24 || !prose.test(bare);
}
