// The one module that decides what is secret (docs/architecture.md). Every place that shows or writes a
// request or a response (--debug, --trace, the support bundle, history show, dry runs, error messages)
// passes it through here first. A secret is found two ways:
// - by name: headers, query parameters, body fields at any depth and HAR's {name, value} pairs whose name
//   is a secret's by the one list (api/secret-names.ts: `secretNames` whole, once case and separators
//   are folded away, so merchant-key, merchantKey and X-Merchant-Key are one name; a secret's word in it;
//   every `*_key`); a value of a secret's shape (sk_live_…, whsec_…) anywhere; a header, and a HAR header
//   pair, also when its name speaks of a key, token, secret, session, cookie or password (the header rule);
// - by value: every secret the run holds (the merchant and API keys, tokens, one-time codes) is
//   registered with the run's `Secrets` (the Factory makes one a run and hands it to the client and to
//   every place that scrubs), and replaced wherever it appears, whoever wrote it.
import { createHash } from 'node:crypto';
import { isSecretName, secretValuePattern } from './secret-names.js';

// The names and values that look like a secret: one list (api/secret-names.ts), which --save-scenario reads too.
export { foldName, isSecretName, secretNames } from './secret-names.js';
import {
  base64Pieces,
  decodedValue,
  errorsKey,
  escapeRegExp,
  htmlDecoded,
  isCredential,
  isMessage,
  isProseSecret,
  isSecretHeader,
  lastSegment,
  proseSecrets,
  queryPairIsSecret,
  readsAsSentence,
  redacted,
  spellings,
} from './redact-rules.js';
export { codeIsSecret, isCredential, isSecretHeader, redacted } from './redact-rules.js';

export class Secrets {
  /** the values registered, each as it was given */
  private readonly values = new Set<string>();
  /** their spellings (as they are, URL-, form-, JSON-, HTML-escaped): matched as whole words */
  private readonly known = new Set<string>();
  /** pieces of the base64 of a secret: matched inside longer base64 text, where no word boundary is */
  private readonly pieces = new Set<string>();
  private pattern?: RegExp;
  private piecePattern?: RegExp;

  /**
   * Registers a secret of this run (a key, a token, a one-time code): from now on it is scrubbed anywhere,
   * as it is and URL-, form-, JSON- or HTML-escaped, and inside base64 text.
   */
  register(value: string | undefined | null): void {
    // a value that is another's spelling (its URL encoding, registered too) has spellings of its own
    if (!value || value.length < 4 || this.values.has(value) || value === redacted) return;
    this.values.add(value);
    for (const s of spellings(value)) this.known.add(s);
    for (const piece of base64Pieces(value)) this.pieces.add(piece);
    this.pattern = undefined;
    this.piecePattern = undefined;
  }

  /**
   * Registers every value the document shows to be secret (api/redact.ts's names, the endpoint table's
   * secret fields): a field of a secret's name at any depth, a HAR header under the header rule, every
   * cookie, a `name=value` pair of a query, a form or a beacon's text/plain body (`ep.merchant_key=…`),
   * a multipart part, a bearer or basic credential, an HTML input or a script's `key: "…"`, in JSON and
   * base64 text too. Then `value`, `text` and `scrub` replace each wherever it appears, before or after
   * the place it was found.
   */
  learn(doc: unknown, key = ''): void {
    if (typeof doc === 'string') return this.learnText(doc, key);
    if (Array.isArray(doc)) {
      const cookies = /^cookies$/i.test(key);
      const headers = /^headers$/i.test(key);
      for (const item of doc) {
        const pair = item as { name?: unknown; value?: unknown } | null;
        // (a string or a number in the array has no name)
        if (pair && typeof pair.name === 'string' && typeof pair.value === 'string')
          if (cookies || (headers ? isSecretHeader(pair.name) : isSecretName(pair.name)))
            this.registerFound(pair.value, pair.name);
        this.learn(item, key);
      }
      return;
    }
    if (doc === null || typeof doc !== 'object') return;
    const o = doc as Record<string, unknown>;
    if (o.encoding === 'base64' && typeof o.text === 'string')
      this.learnText(Buffer.from(o.text, 'base64').toString());
    for (const [k, v] of Object.entries(o)) {
      // a number too: a PIN, a one-time code sent as one
      if (isSecretName(k) && !errorsKey.test(key) && (typeof v === 'string' || typeof v === 'number'))
        this.registerFound(String(v), k);
      this.learn(v, k);
    }
  }

  /** A value found under a secret's name: the credential of an Authorization, the value of a cookie line. */
  private registerFound(value: string, name: string): void {
    // (an empty value, or one already redacted, registers nothing: register's own check)
    const v = value.trim();
    if (/^cookie$/i.test(name)) return this.learnCookies(v);
    // a Set-Cookie's first pair is the cookie; its attributes (path, expires) are not secrets
    if (/^set-cookie$/i.test(name)) return this.learnCookies(v.split(';')[0]!);
    // One word is the value whole (a key, a token, an Authorization without a scheme); words (a server's
    // message about the field) are not its value. The credential after a scheme (`Bearer …`) is learned
    // where every string of the document is read (learnText).
    if (!isMessage(v)) this.register(v);
  }

  private learnCookies(text: string): void {
    for (const part of text.split(';')) {
      const i = part.indexOf('=');
      if (i <= 0) continue;
      // a cookie's value as it stands, and percent-decoded (no form encoding: a + is a +)
      const v = part.slice(i + 1).trim();
      this.register(v);
      try {
        this.register(decodeURIComponent(v));
      } catch {
        // not percent-encoded
      }
    }
  }

  /** The secrets of a text: JSON in it, `name=value` pairs, multipart parts, credentials, HTML and scripts. */
  private learnText(text: string, key = ''): void {
    const t = text.trim();
    if (/^[[{]/.test(t)) {
      try {
        return this.learn(JSON.parse(t), key);
      } catch {
        // not JSON: read as text below
      }
    }
    for (const m of text.matchAll(/\b(Bearer|Basic|Token)\s+([A-Za-z0-9._~+/=-]{6,})/g)) {
      if (!isCredential(m[2]!)) continue;
      this.register(m[2]);
      // Basic: user:password, base64
      if (m[1] === 'Basic')
        this.register(Buffer.from(m[2]!, 'base64').toString().split(':').slice(1).join(':'));
    }
    for (const m of text.matchAll(/(?:^|[?&;\s])([\w.[\]-]+)=([^&\s;#"'<>]*)/g))
      if (queryPairIsSecret(lastSegment(m[1]!), m[2]!)) {
        this.register(m[2]);
        this.register(decodedValue(m[2]!));
      }
    for (const m of text.matchAll(/name="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n([^\r\n]*)/g))
      if (isSecretName(m[1]!)) this.register(m[2]);
    // HTML: <input name="merchant_key" value="…">, and a script's merchantKey: "…" or merchant_key = '…'
    for (const m of text.matchAll(/name=["']([^"']+)["'][^>]*?\svalue=["']([^"']*)["']/gi))
      if (isSecretName(lastSegment(m[1]!))) this.register(htmlDecoded(m[2]!));
    for (const m of text.matchAll(/([\w.-]+)["']?\s*[:=]\s*["']([^"'<>\s]{4,})["']/g))
      if (isSecretName(lastSegment(m[1]!))) this.register(htmlDecoded(m[2]!));
    if (/^cookie$/i.test(key)) this.learnCookies(text);
  }

  /** Replaces every registered secret in a text. */
  scrub(text: string): string {
    // a secret by its shape (sk_live_…, whsec_…), whoever's it is
    text = text.replace(secretValuePattern, redacted);
    if (!this.known.size) return text;
    this.pattern ??= new RegExp(
      `(?<![A-Za-z0-9])(?:${[...this.known]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|')})(?![A-Za-z0-9])`,
      'g',
    );
    this.piecePattern ??= this.pieces.size
      ? new RegExp(
          [...this.pieces]
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join('|'),
          'g',
        )
      : undefined;
    const scrubbed = text.replace(this.pattern, redacted);
    return this.piecePattern ? scrubbed.replace(this.piecePattern, redacted) : scrubbed;
  }

  /**
   * A deep copy of a JSON-like value with the values of secret names replaced ({name, value} pairs too:
   * HAR headers under the header rule, cookies, query strings, form params), and every registered
   * secret replaced in any string, keys included.
   */
  value(value: unknown, key = ''): unknown {
    // A HAR body kept as base64 (a browser's choice for some answers): decoded, scrubbed, encoded again.
    // (a string, a number or an array has no encoding)
    const body = value as { encoding?: unknown; text?: unknown } | null | undefined;
    if (body?.encoding === 'base64' && typeof body.text === 'string') {
      const text = Buffer.from(body.text, 'base64').toString();
      const scrubbed = this.text(text);
      if (scrubbed !== text) {
        const { text: _encoded, ...rest } = body;
        return { ...(this.value(rest) as object), text: Buffer.from(scrubbed).toString('base64') };
      }
    }
    // A HAR's cookies: every value is a credential, whatever the cookie is called.
    if (Array.isArray(value) && /^cookies$/i.test(key))
      return value.map((c) =>
        c && typeof c === 'object' && 'value' in c
          ? { ...(this.value(c) as Record<string, unknown>), value: redacted }
          : this.value(c),
      );
    // A HAR's headers: each {name, value} pair under the header rule.
    if (Array.isArray(value) && /^headers$/i.test(key))
      return value.map((h) => {
        const pair = h as { name?: unknown; value?: unknown } | null;
        if (pair === null || typeof pair !== 'object' || !('value' in pair)) return this.value(h);
        const [, v] = Object.entries(this.headers({ [String(pair.name)]: pair.value }))[0]!;
        return { ...(this.value(pair) as object), value: v };
      });
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (value && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries(o).map(([k, v]) => [
          this.scrub(k),
          (isSecretName(k) || (k === 'value' && typeof o.name === 'string' && isSecretName(o.name))) &&
          v != null &&
          v !== '' &&
          // the server's messages about a secret's field (errors.merchant_key: ["is invalid"]) are kept
          !(errorsKey.test(key) && isMessage(v))
            ? redacted
            : this.value(v, k),
        ]),
      );
    }
    return typeof value === 'string' ? this.text(value) : value;
  }

  /**
   * A deep copy of a record with every registered secret replaced in its strings, keys included, but under
   * the names in `keep` (what names the transaction, which must stay findable): by value only, the names
   * being the record's owner's to leave out.
   */
  byValue<T>(value: T, keep: ReadonlySet<string>, key = ''): T {
    if (keep.has(key)) return value;
    if (typeof value === 'string') return this.scrub(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.byValue(v, keep)) as T;
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [keep.has(k) ? k : this.scrub(k), this.byValue(v, keep, k)]),
      ) as T;
    return value;
  }

  /** Headers: Authorization keeps its scheme, a secret's header (the header rule) is replaced. */
  headers(headers: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(headers).map(([k, v]) => {
        // a value of one word has no scheme to keep: all of it is the credential
        if (/^(proxy-)?authorization$/i.test(k) && typeof v === 'string')
          return [k, v.replace(/(\w+\s+)?.*/s, (_m, scheme?: string) => `${scheme ?? ''}${redacted}`)];
        if (isSecretHeader(k)) return [k, redacted];
        // any other: its URL's or text's pairs of secret names (a Location's ?code=), and the run's secrets
        return [k, typeof v === 'string' ? this.text(v) : v];
      }),
    );
  }

  /**
   * A text: JSON key by key (kept as text), a URL's or form's `key=value` pairs of secret names, and
   * every registered secret wherever it is.
   */
  text(text: string): string {
    const t = text.trim();
    // multipart/form-data: each part's value under a secret name.
    text = text.replace(
      /(Content-Disposition:\s*form-data;\s*name="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([^\r\n]*)/gi,
      (all, head: string, name: string) => (isSecretName(name) ? `${head}${redacted}` : all),
    );
    // (`{` or `[` alone is no JSON: the parse fails)
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return JSON.stringify(this.value(JSON.parse(text)));
      } catch {
        // not JSON after all: scrubbed as text below
      }
    }
    const named = text
      // JSON inside other text: "name": "value" pairs of secret names.
      .replace(/"([\w.-]+)"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g, (all, k: string, sep: string) =>
        isSecretName(k) ? `"${k}"${sep}"${redacted}"` : all,
      )
      // An Authorization value in any text: its scheme kept, its credentials not. After the header's
      // name whatever follows the scheme is the credential; elsewhere a word of prose after the scheme's
      // name ("Token generated successfully.") is not one (isCredential).
      .replace(
        /(authorization["']?\s*[:=]\s*["']?(?:Bearer|Basic|Digest|Token)\s+)[^\s"',;]+/gi,
        `$1${redacted}`,
      )
      .replace(
        /\b(Bearer|Basic|Digest|Token)(\s+)([A-Za-z0-9._~+/=-]{6,})/g,
        (all, scheme: string, sp: string, c: string) => (isCredential(c) ? `${scheme}${sp}${redacted}` : all),
      )
      // A header line (`X-Merchant-Key: …`, `Cookie: …`): its value to the line's end. An Authorization
      // line keeps its scheme (the rules above have replaced what follows it).
      .replace(
        /^([ \t]*)([A-Za-z][\w-]*)([ \t]*:[ \t]*)([^\r\n]*\S)/gm,
        (all, indent: string, name: string, sep: string, v: string) =>
          !isProseSecret(name, true) || readsAsSentence(v)
            ? all
            : `${indent}${name}${sep}${
                /^(proxy-)?authorization$/i.test(name)
                  ? v.replace(
                      /((?:Bearer|Basic|Digest|Token)\s+)?.*/i,
                      (_m, scheme?: string) => `${scheme ?? ''}${redacted}`,
                    )
                  : redacted
              }`,
      );
    return this.scrub(
      // `token: X` in prose: one word, or a quoted string.
      proseSecrets(named)
        // `name=value` pairs: a value ends at `&`, `;`, `,`, a space or a quote (`token=abc,next=1`).
        .replace(/([?&;,\s]|^)([\w.-]+)=([^&\s;,#"']*)/g, (all, lead: string, k: string, v: string) =>
          isSecretName(k) || ((lead === '?' || lead === '&') && queryPairIsSecret(k, v))
            ? `${lead}${k}=${redacted}`
            : all,
        ),
    );
  }
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
