// A request as a curl command a person can paste: every secret is a reference to an environment variable
// ($MPAY_TOKEN, $MPAY_MERCHANT_KEY, $MPAY_API_KEY, $MPAY_OTP, and $MPAY_SECRET_<NAME> for any other
// field or header the one list of secret names names) that the shell fills in, so the command
// works as printed once they are set (`eval "$(mpay token --export)"` sets the token), and no secret is
// ever printed. Used by --dry-run and by `mpay history show --curl`.
//
// A printed command is data, not code (SECURITY.md): every value that came from a user or a server is
// single-quoted, so the shell reads it literally whatever it holds ($VAR, ${…}, $(…), backticks, !, line
// breaks, quotes). The only words the shell expands are mpay's own placeholders, ShellVariable values,
// which stand between the quoted pieces, never inside one: no text of a value can ever become one.

import { isSecretHeader, isSecretName } from '../api/redact.js';
import { singleQuoted } from '../common/shell-words.js';

/** One of mpay's own placeholders ($MPAY_TOKEN, $MPAY_REF, $HASH): the shell fills it in. */
export class ShellVariable {
  constructor(readonly name: string) {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) throw new Error(`not a shell variable name: ${name}`);
  }
}

/** A word made of literal text and mpay's placeholders. */
export type ShellPiece = string | ShellVariable;

/** The variable that stands for a secret field or header, if it is one. */
const secretVariables: Record<string, ShellVariable> = {
  merchant_key: new ShellVariable('MPAY_MERCHANT_KEY'),
  api_key: new ShellVariable('MPAY_API_KEY'),
  otp: new ShellVariable('MPAY_OTP'),
  token: new ShellVariable('MPAY_TOKEN'),
};
const bearer = new ShellVariable('MPAY_TOKEN');

/**
 * One word for a POSIX shell: literal text single-quoted (read as it is, by any shell, interactive or
 * not), each placeholder as "$NAME" between the quoted pieces.
 */
export function shellWord(word: string | readonly ShellPiece[]): string {
  // adjacent texts are one quoted piece
  const pieces: ShellPiece[] = [];
  for (const p of typeof word === 'string' ? [word] : word)
    if (typeof p === 'string' && typeof pieces.at(-1) === 'string')
      pieces.push(`${pieces.pop() as string}${p}`);
    else if (p !== '') pieces.push(p);
  const out = pieces.map((p) => (p instanceof ShellVariable ? `"$${p.name}"` : singleQuoted(p))).join('');
  return out || "''";
}

export interface CurlRequest {
  method: 'GET' | 'POST';
  url: string;
  /** the token is always $MPAY_TOKEN */
  bearer: boolean;
  encoding: 'none' | 'json' | 'multipart';
  /** the fields; a ShellVariable value is one of mpay's placeholders, anything else is sent as it is */
  body?: Record<string, unknown>;
  /** other headers the request carries (mpay api -H) */
  headers?: Record<string, string>;
  /** a failed status makes curl exit non-zero, its answer still printed (a replay script stops there) */
  fail?: boolean;
}

/** The variable for a secret mpay has no name of its own for: MPAY_SECRET_<NAME>, set by the person. */
const secretOf = (name: string) =>
  new ShellVariable(
    `MPAY_SECRET_${name
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')}`,
  );

/**
 * A field's value as pieces: a secret's variable (mpay's own, or MPAY_SECRET_<NAME> for any other name the
 * one list of secret names names: the value itself is never printed), a placeholder, or its text.
 */
function pieceOf(k: string, v: unknown): ShellVariable | undefined {
  if (v instanceof ShellVariable) return v;
  return secretVariables[k] ?? (isSecretName(k) ? secretOf(k) : undefined);
}

/**
 * The JSON body as pieces: the same text as JSON.stringify(body) gives (the bytes mpay sends), with each
 * placeholder standing, between quotes, where its value goes.
 */
function jsonPieces(fields: Array<[string, unknown]>): ShellPiece[] {
  const out: ShellPiece[] = ['{'];
  fields.forEach(([k, v], i) => {
    out.push(`${i ? ',' : ''}${JSON.stringify(k)}:`);
    const variable = pieceOf(k, v);
    if (variable) out.push('"', variable, '"');
    else out.push(JSON.stringify(v));
  });
  out.push('}');
  return out;
}

export function curlCommand(req: CurlRequest): string {
  // -w '\n': the answer ends its line, so pasted commands print one answer a line. -g: brackets and
  // braces in the URL are the URL's, not curl's globs (which would send several requests).
  const parts = ['curl', '-sS', '-g', ...(req.fail ? ['--fail-with-body'] : []), '-w', shellWord('\\n')];
  parts.push('-X', req.method, shellWord(req.url));
  parts.push('-H', shellWord('accept: application/json'));
  if (req.bearer) parts.push('-H', shellWord(['authorization: Bearer ', bearer]));
  for (const [k, v] of Object.entries(req.headers ?? {}))
    // a header line that starts with @ is read by curl from a file
    if (!/^(accept|authorization|content-type)$/i.test(k) && !k.startsWith('@'))
      parts.push('-H', shellWord(isSecretHeader(k) ? [`${k}: `, secretOf(k)] : `${k}: ${v}`));
  const fields = Object.entries(req.body ?? {}).filter(
    ([, v]) => v !== undefined && (v !== null || req.encoding === 'json'),
  );
  if (req.encoding === 'json' && fields.length) {
    parts.push('-H', shellWord('content-type: application/json'));
    // --data-raw: curl reads a --data value that starts with @ as a file's name.
    parts.push('--data-raw', shellWord(jsonPieces(fields)));
  }
  // --form-string: -F reads a value that starts with @ or < from a local file, and would upload it.
  // mpay's own encoder (the platform's FormData) writes every line break of a value as CRLF: so does
  // the curl, so that it sends the same bytes.
  if (req.encoding === 'multipart')
    for (const [k, v] of fields) {
      const variable = pieceOf(k, v);
      parts.push('--form-string', shellWord([`${k}=`, variable ?? String(v).replace(/\r\n|\r|\n/g, '\r\n')]));
    }
  return parts.join(' ');
}
