// What a base URL may be: the part before /restapi/v1, over https, or plain http only to a loopback host
// (credentials must never cross a network unencrypted).
import { UsageError } from '../common/errors.js';

// `*.localhost` is not among them: it is resolved by DNS like any name, and may point anywhere.
const loopbackHosts = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
export function isLoopback(hostname: string): boolean {
  return loopbackHosts.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * A base URL with `user:pass@` would store and show the password, and send Basic auth instead of the
 * bearer token: refused wherever a base URL comes in.
 */
export function refuseUserinfo(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return;
  }
  if (url.username || url.password)
    throw new UsageError('A base URL may not hold a user name or password (user:pass@)', {
      hint: `Give it without them: ${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}; mpay authenticates with the merchant key`,
    });
}

/**
 * A base URL as mpay keeps it: no trailing slash, and without the /restapi/v1 that mpay adds itself (the
 * commonest mistake when copying the URL from the API's documentation). `stripped` says it was there.
 */
export function normalizeBaseUrl(raw: string): { url: string; stripped: boolean } {
  const trimmed = raw.trim().replace(/\/+$/, '');
  // the slashes before the path too (`https://h//restapi/v1`): mpay puts its own one back
  const url = trimmed.replace(/\/+restapi\/v1$/i, '');
  return { url, stripped: url !== trimmed };
}

/** Checks a base URL: a parsable http(s) URL, and plain http only to a loopback host. */
export function checkBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`Invalid base URL: ${raw}`, {
      hint: 'Give the scheme and host, e.g. https://api.example.com',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`Unsupported scheme in base URL: ${url.protocol}`);
  refuseUserinfo(raw);
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new UsageError(
      `Refusing plain http:// to ${url.hostname}: credentials would cross the network unencrypted`,
      {
        hint: 'Use https://, or http:// only for a loopback host such as 127.0.0.1',
      },
    );
  }
  return url;
}
