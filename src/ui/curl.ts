// A request as a curl command a person can paste: every secret is a reference to an environment variable
// ($MPAY_TOKEN, $MPAY_MERCHANT_KEY, $MPAY_API_KEY, $MPAY_OTP) that the shell fills in, so the command
// works as printed once they are set (`eval "$(mpay token --export)"` sets the token), and no secret is
// ever printed. Used by --dry-run and by `mpay history show --curl`.

import { singleQuoted } from '../api/shell-words.js';

/** The variable that stands for a secret field or header, if it is one. */
const secretVariables: Record<string, string> = {
  authorization: 'Bearer $MPAY_TOKEN',
  merchant_key: '$MPAY_MERCHANT_KEY',
  api_key: '$MPAY_API_KEY',
  otp: '$MPAY_OTP',
  token: '$MPAY_TOKEN',
};

/** Quoted for a POSIX shell: single quotes, or double quotes where a $VARIABLE must expand. */
export function shellWord(text: string, expand = false): string {
  if (!expand) return singleQuoted(text);
  // Inside double quotes only $VAR references of ours stay live: every other $, `, " and \ is escaped.
  const escaped = text.replace(/[\\"`$]/g, (c) => `\\${c}`).replace(/\\\$(MPAY_[A-Z_]+|HASH)\b/g, '$$$1');
  // An interactive bash expands ! inside double quotes (history): it goes single-quoted, between them.
  return `"${escaped.replace(/!/g, `"'!'"`).replace(/\r/g, () => `"$'\\r'"`)}"`;
}

export interface CurlRequest {
  method: 'GET' | 'POST';
  url: string;
  /** the token is always $MPAY_TOKEN */
  bearer: boolean;
  encoding: 'none' | 'json' | 'multipart';
  body?: Record<string, unknown>;
  /** other headers the request carries (mpay api -H) */
  headers?: Record<string, string>;
  /** a failed status makes curl exit non-zero, its answer still printed (a replay script stops there) */
  fail?: boolean;
}

export function curlCommand(req: CurlRequest): string {
  // -w '\n': the answer ends its line, so pasted commands print one answer a line.
  const parts = ['curl', '-sS', ...(req.fail ? ['--fail-with-body'] : []), '-w', shellWord('\\n')];
  parts.push('-X', req.method, shellWord(req.url));
  parts.push('-H', shellWord('accept: application/json'));
  if (req.bearer) parts.push('-H', shellWord(`authorization: ${secretVariables.authorization}`, true));
  for (const [k, v] of Object.entries(req.headers ?? {}))
    if (!/^(accept|authorization|content-type)$/i.test(k)) parts.push('-H', shellWord(`${k}: ${v}`));
  const fields = Object.entries(req.body ?? {}).filter(
    ([, v]) => v !== undefined && (v !== null || req.encoding === 'json'),
  );
  const value = (k: string, v: unknown) => secretVariables[k] ?? String(v);
  if (req.encoding === 'json' && fields.length) {
    parts.push('-H', shellWord('content-type: application/json'));
    // Markers stand where a variable goes, so that JSON escaping cannot touch it.
    const json = JSON.stringify(
      Object.fromEntries(fields.map(([k, v]) => [k, secretVariables[k] ? `@@mpay-secret:${k}@@` : v])),
    ).replace(/@@mpay-secret:(\w+)@@/g, (_m, k: string) => secretVariables[k]!);
    // --data-raw: curl reads a --data value that starts with @ as a file's name.
    parts.push('--data-raw', shellWord(json, /\$(MPAY_[A-Z_]+|HASH)\b/.test(json)));
  }
  // --form-string: -F reads a value that starts with @ or < from a local file, and would upload it.
  // mpay's own encoder (the platform's FormData) writes every line break of a value as CRLF: so does
  // the curl, so that it sends the same bytes.
  if (req.encoding === 'multipart')
    for (const [k, v] of fields)
      parts.push(
        '--form-string',
        shellWord(
          `${k}=${value(k, v).replace(/\r\n|\r|\n/g, '\r\n')}`,
          Boolean(secretVariables[k]) || /\$HASH/.test(String(v)),
        ),
      );
  return parts.join(' ');
}
