// What a base URL may be: the part before /restapi/v1, over https, or plain http only to a loopback host
// (credentials must never cross a network unencrypted).
import { UsageError } from './errors.js';

const loopbackHosts = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
export function isLoopback(hostname: string): boolean {
  return (
    loopbackHosts.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname.endsWith('.localhost')
  );
}

/**
 * A base URL as mpay keeps it: no trailing slash, and without the /restapi/v1 that mpay adds itself (the
 * commonest mistake when copying the URL from the API's documentation). `stripped` says it was there.
 */
export function normalizeBaseUrl(raw: string): { url: string; stripped: boolean } {
  const trimmed = raw.trim().replace(/\/+$/, '');
  const url = trimmed.replace(/\/restapi\/v1$/i, '');
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
