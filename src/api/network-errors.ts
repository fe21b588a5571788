// A failed request, as one of mpay's errors: a network failure (refused, reset, time-out, DNS), with
// whether the request may have reached the server (ambiguous: a money-moving POST is then never re-sent),
// a TLS failure with its hint, or a redirect mpay refused.
import { RequestError, TimeoutError } from 'got';
import { MpayError, NetworkError, ServerError } from '../common/errors.js';

const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'ERR_GOT_REQUEST_ERROR',
]);
const unsentEvents = new Set(['lookup', 'connect', 'secureConnect']);
export const redirectRefused = 'ERR_MPAY_REDIRECT_REFUSED';

export function networkError(err: unknown, c: { method: string; path: string }, baseUrl: URL): MpayError {
  if (err instanceof MpayError) return err;
  const e = err as RequestError;
  const code = e.code ?? '';
  if (code === redirectRefused) {
    return new ServerError(`${c.method} /${c.path}: ${e.message}`, {
      hint: 'The server redirected mpay where it does not go (plain http off this machine, down from https, or with a password in the URL); check the base URL, or ask who runs the server',
    });
  }
  const sent = !(err instanceof TimeoutError
    ? unsentEvents.has(err.event)
    : ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code));
  if (
    err instanceof RequestError &&
    (err instanceof TimeoutError ||
      networkCodes.has(code) ||
      /socket hang up|other side closed/i.test(e.message))
  ) {
    const what =
      err instanceof TimeoutError
        ? `timed out (${err.event})`
        : code === 'ECONNREFUSED'
          ? 'connection refused'
          : code === 'ENOTFOUND'
            ? `host ${baseUrl.hostname} not found`
            : e.message;
    // A TLS server closes a plain-http request's connection without an answer.
    const hungUp = baseUrl.protocol === 'http:' && /socket hang up|ECONNRESET/i.test(`${code} ${e.message}`);
    const ne = new NetworkError(`${c.method} ${baseUrl.origin}/restapi/v1/${c.path}: ${what}`, {
      cause: err,
      hint: hungUp
        ? `The server closed the connection without an answer. If it serves HTTPS, use --base-url ${otherScheme(baseUrl)}`
        : code === 'ECONNREFUSED'
          ? 'Is the server running? For the local sandbox: `mpay sandbox`'
          : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
            ? `The host ${baseUrl.hostname} was not found: check the base URL (\`mpay config get <env>.base_url\`, or --base-url)`
            : 'Check the network, or raise --timeout',
    });
    ne.ambiguous = c.method === 'POST' && sent;
    return ne;
  }
  // An https:// base URL that a plain-http server answered: OpenSSL reads its "HTTP/1.1 …" as a record.
  if (
    err instanceof RequestError &&
    baseUrl.protocol === 'https:' &&
    /wrong version number|packet length too long|http request|EPROTO/i.test(`${code} ${e.message}`)
  ) {
    return new NetworkError(
      `${c.method} ${baseUrl.origin}/restapi/v1/${c.path}: the server at ${baseUrl.host} did not answer in TLS (it may serve plain http)`,
      {
        cause: err,
        hint: `If it serves plain http, use --base-url ${otherScheme(baseUrl)} (plain http is allowed for loopback hosts only)`,
      },
    );
  }
  if (
    err instanceof RequestError &&
    /certificate|self.signed|CERT_|UNABLE_TO_VERIFY/i.test(`${code} ${e.message}`)
  ) {
    return new NetworkError(`TLS verification failed for ${baseUrl.host}: ${e.message}`, {
      cause: err,
      hint: 'For a private CA, point NODE_EXTRA_CA_CERTS at its certificate',
    });
  }
  return new NetworkError(`${c.method} /${c.path} failed: ${e?.message ?? String(err)}`, { cause: err });
}

/** The base URL with the other scheme: https for http, http for https (the same host and port). */
function otherScheme(baseUrl: URL): string {
  const other = new URL(baseUrl.href);
  const port = baseUrl.port;
  other.protocol = baseUrl.protocol === 'https:' ? 'http:' : 'https:';
  // a URL's default port is left out; the one given is kept whatever the scheme
  if (port) other.port = port;
  return other.href.replace(/\/$/, '');
}
