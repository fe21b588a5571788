// The got instance every request of the client goes through: the base URL's API prefix, timeouts, the
// proxy, retries (off unless a call asks), the redirect guard, and the --debug and --trace hooks.
import got, { type BeforeRedirectHook, type Got, type Response } from 'got';
import type { ClientOptions } from './sender.js';
import { traceHooks } from './har.js';
import { Secrets } from './redact.js';
import { registerAnswerSecrets } from './secret-names.js';
import { redirectRefused } from './network-errors.js';
import { isLoopback } from './base-url.js';
import { proxyAgents } from './proxy.js';

export function makeHttp(baseUrl: URL, opts: ClientOptions): Got {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const retryBase = opts.retryBaseMs ?? 250;
  const debug = opts.debug;
  const secrets = opts.secrets ?? new Secrets();
  const http = got.extend({
    prefixUrl: new URL('restapi/v1/', baseUrl.href.endsWith('/') ? baseUrl : new URL(baseUrl.href + '/'))
      .href,
    responseType: 'text',
    // The connect phase gets its own, shorter limit so that an unreachable host fails fast.
    timeout: { connect: Math.min(timeoutMs, 10_000), request: timeoutMs },
    agent: proxyAgents(baseUrl.href, opts.environ ?? {}),
    headers: { 'user-agent': opts.userAgent ?? 'mpay-cli', accept: 'application/json' },
    retry: {
      limit: 0,
      statusCodes: [500, 502, 503, 504],
      // A 503 that says when to come back is waited out by the client's rate-limit loop instead.
      calculateDelay: ({ attemptCount, computedValue, error }) =>
        computedValue === 0 || error.response?.headers['retry-after'] !== undefined
          ? 0
          : retryBase * 2 ** (attemptCount - 1),
    },
    hooks: {
      beforeRequest: debug
        ? [
            (o) => {
              const headers = secrets.headers(o.headers as Record<string, unknown>);
              // The URL and the body by value too: a token a scenario captured and a later step sends in
              // its query or body is the run's secret, whatever the field is called (issue 46).
              debug(`> ${o.method} ${secrets.text(String(o.url))}`);
              for (const [k, v] of Object.entries(headers)) debug(`> ${k}: ${String(v)}`);
              const shown = (o.context as { shownBody?: string }).shownBody;
              if (shown) debug(`> ${secrets.text(shown)}`);
            },
          ]
        : [],
      beforeRedirect: [guardRedirect(debug)],
      beforeRetry: debug ? [(err, n) => debug(`! retry ${n} after ${err.code ?? err.message}`)] : [],
      afterResponse: [
        // Every answer the client reads: a value under a secret's name (a token it mints, a key) is the
        // run's secret from now on, scrubbed by value wherever it is copied (a scenario's capture, a
        // report, --trace, --debug, the line below), before anything shows it (issue 46).
        (res: Response) => {
          if (typeof res.body === 'string') registerAnswerSecrets(res.body, (v) => secrets.register(v));
          return res;
        },
        ...(debug
          ? [
              (res: Response) => {
                debug(
                  `< ${res.statusCode} ${res.statusMessage ?? ''} (${res.timings.phases.total ?? '?'} ms)`,
                );
                for (const [k, v] of Object.entries(secrets.headers(res.headers)))
                  debug(`< ${k}: ${String(v)}`);
                if (typeof res.body === 'string' && res.body) debug(`< ${secrets.text(res.body)}`);
                return res;
              },
            ]
          : []),
      ],
    },
  });
  // --trace: each exchange, answered or failed, retries included, to the HAR recorder. got appends the
  // hooks of an extension, so they run after --debug's, not instead of them.
  return opts.trace ? http.extend({ hooks: traceHooks(opts.trace) }) : http;
}

/**
 * got already drops Authorization when the host changes; a downgrade to plain http is refused outright,
 * so that nothing of the merchant's crosses the network unencrypted.
 */
function guardRedirect(debug: ((line: string) => void) | undefined): BeforeRedirectHook {
  return (options, response) => {
    const to = new URL(String(options.url));
    const from = new URL(response.url);
    // The base URL's rules for every target: plain http only to loopback, never down from https, and
    // no user:pass@ (it would send Basic auth).
    if (to.protocol === 'http:' && (from.protocol === 'https:' || !isLoopback(to.hostname))) {
      throw Object.assign(new Error(`refused a redirect from ${from.origin} to plain ${to.origin}`), {
        code: redirectRefused,
      });
    }
    if (to.username || to.password) {
      throw Object.assign(new Error(`refused a redirect from ${from.origin} to a URL with user:pass@`), {
        code: redirectRefused,
      });
    }
    // Another host gets none of the headers mpay or the user added (got drops Authorization only).
    if (to.host !== from.host) {
      const headers = options.headers as Record<string, unknown>;
      for (const k of Object.keys(headers))
        if (!/^(accept|accept-encoding|user-agent)$/i.test(k)) delete headers[k];
    }
    debug?.(`! redirect ${response.statusCode} to ${to.href}`);
  };
}
