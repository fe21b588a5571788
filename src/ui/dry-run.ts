// What --dry-run shows: the request with secrets redacted, and the same request as a curl command line
// that a support engineer can paste as it is: its secrets are $MPAY_* variables the shell fills in.
import type { PreparedRequest } from '../api/wire.js';
import type { Secrets } from '../api/redact.js';
import { curlCommand } from './curl.js';

export function dryRunView(req: PreparedRequest, secrets: Secrets) {
  const headers = secrets.headers(req.headers) as Record<string, string>;
  const body = req.body ? (secrets.value(req.body) as Record<string, unknown>) : undefined;
  const curl = curlCommand({
    method: req.method,
    url: req.url,
    bearer: 'authorization' in req.headers,
    encoding: req.encoding,
    body: req.body,
    headers: req.headers,
  });
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
  const { liveHeader, ...request } = req;
  return {
    request: { ...request, headers, body },
    curl: liveHeader ? `${liveHeader}\n${curl}` : curl,
    text: liveHeader ? `${liveHeader}\n${text}` : text,
  };
}
