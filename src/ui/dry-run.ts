// What --dry-run shows: the request with secrets redacted, and the same request as a curl command line
// that a support engineer can paste (with the secrets put back by hand).
import type { PreparedRequest } from '../api/client.js';
import { redactHeaders, redactValue } from '../api/redact.js';

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function dryRunView(req: PreparedRequest) {
  const headers = redactHeaders(req.headers) as Record<string, string>;
  const body = req.body ? (redactValue(req.body) as Record<string, string>) : undefined;
  const parts = ['curl', '-sS', '-X', req.method, shellQuote(req.url)];
  for (const [k, v] of Object.entries(headers)) parts.push('-H', shellQuote(`${k}: ${v}`));
  if (body && req.encoding === 'json') parts.push('--data', shellQuote(JSON.stringify(body)));
  if (body && req.encoding === 'multipart')
    for (const [k, v] of Object.entries(body)) parts.push('-F', shellQuote(`${k}=${v}`));
  const text = [
    `${req.method} ${req.url}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ...(body
      ? [
          '',
          `(${req.encoding === 'multipart' ? 'multipart/form-data' : 'application/json'})`,
          JSON.stringify(body, null, 2),
        ]
      : []),
  ].join('\n');
  return { request: { ...req, headers, body }, curl: parts.join(' '), text };
}
