// The typed client: one method per endpoint of the spec, on got. Every response is parsed with the wire
// schemas and every failure becomes one of the typed errors in errors.ts. Knows nothing of terminals.
import { HTTPError, type Got, type Response, type OptionsInit } from 'got';
import type { Exchange } from './har.js';
import * as z from 'zod/mini';
import { AuthError, MpayError, ServerError } from './errors.js';
import * as s from './schemas.js';
import { failureError, successData } from './response.js';
import { redactValue, registerSecret } from './redact.js';
import { probeCredentials, type ProbeVerdict } from './credentials-probe.js';
import { checkBaseUrl } from './base-url.js';
import { networkError } from './network-errors.js';
import { makeHttp } from './http.js';
import {
  defaultRateLimitPolicy,
  isThrottle,
  nextWait,
  type Pacer,
  type RateLimitPolicy,
  type Throttle,
} from './rate-limit.js';
import { missingCredentials, type Credentials, type TokenStore } from './credentials.js';
import {
  DryRun,
  answer,
  multipart,
  prepareRequest,
  type Encoding,
  type PreparedRequest,
  type RawAnswer,
} from './wire.js';

export interface ClientOptions {
  /** the run's environment variables: the proxy settings are read from them */
  environ?: NodeJS.ProcessEnv;
  /** the part before /restapi/v1 */
  baseUrl: string;
  credentials?: Credentials;
  tokens?: TokenStore;
  /** per request, connect included */
  timeoutMs?: number;
  /** where --debug lines go */
  debug?: (line: string) => void;
  dryRun?: boolean;
  /** first back-off delay of a retry, doubled each time */
  retryBaseMs?: number;
  /** where --trace sends each exchange (api/har.ts) */
  trace?: (x: Exchange) => void;
  userAgent?: string;
  /** how 429s (and a GET's 503 with Retry-After) are waited out */
  rateLimit?: Partial<RateLimitPolicy>;
  /** told of every wait, before it starts: the terminal line (factory.ts) */
  onThrottle?: (t: Throttle) => void;
  /** the largest answer read (default 8 MB) */
  maxBodyBytes?: number;
}

/** What one call's caller hears of its own tries: the journal records each one (flows/steps.ts). */
export interface SendHooks {
  /** a try was refused with a 429: the wait is about to start */
  throttled?: (t: Throttle) => void;
  /** the wait is over: the same request goes out again now */
  resending?: () => void;
}

export type WithdrawProcessedResult =
  { otpSent: true; message: string } | { otpSent: false; message: string; transaction: s.Transaction };

interface Call<T extends z.ZodMiniType> {
  method: 'GET' | 'POST';
  path: string;
  data: T;
  encoding: Encoding;
  body?: Record<string, unknown>;
  bearer: boolean;
  /** GETs and token generate only: never a money-moving POST */
  retry: boolean;
  dryRunExempt?: boolean;
  /** `mpay api`: headers of the caller's, nulls kept, and any status answered rather than thrown */
  raw?: { headers?: Record<string, string> };
  hooks?: SendHooks;
}

export class Client {
  readonly baseUrl: URL;
  private readonly http: Got;
  private readonly opts: ClientOptions;
  private readonly policy: RateLimitPolicy;
  /**
   * Told of every wait, before it starts: the terminal line (ClientOptions.onThrottle), which a batch
   * replaces for its run with a report of its own pace.
   */
  reportThrottle?: (t: Throttle) => void;
  private get maxBodyBytes(): number {
    return this.opts.maxBodyBytes ?? 8 * 2 ** 20;
  }

  /** set by a batch: after a 429, requests go out at the pace the server allows (api/rate-limit.ts) */
  pacer?: Pacer;

  /** True when POSTs are shown, not sent (--dry-run). */
  get dryRun(): boolean {
    return Boolean(this.opts.dryRun);
  }

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.baseUrl = checkBaseUrl(opts.baseUrl);
    this.http = makeHttp(this.baseUrl, opts);
    this.policy = { ...defaultRateLimitPolicy, ...opts.rateLimit };
    this.reportThrottle = opts.onThrottle;
    // What this client holds is scrubbed by value from everything mpay shows or writes (api/redact.ts).
    registerSecret(opts.credentials?.merchantKey);
    registerSecret(opts.credentials?.apiKey);
  }

  // Public ----------------------------------------------------------------------------------------------

  publicCurrencies(): Promise<s.Currency[]> {
    return this.call({
      method: 'GET',
      path: 'public/currencies',
      data: z.array(s.Currency),
      encoding: 'none',
      bearer: false,
      retry: true,
    });
  }

  publicCountries(): Promise<s.Country[]> {
    return this.call({
      method: 'GET',
      path: 'public/countries',
      data: z.array(s.Country),
      encoding: 'none',
      bearer: false,
      retry: true,
    });
  }

  /** Exchanges the merchant key for a bearer token and stores it. A rejected key is an auth error. */
  async generateToken(merchantKey = this.opts.credentials?.merchantKey, implicit = false): Promise<string> {
    if (!merchantKey)
      throw missingCredentials(
        this.opts.credentials ?? {},
        'No merchant key',
        'Run `mpay login`, or set MPAY_MERCHANT_KEY',
      );
    try {
      const data = await this.call({
        method: 'POST',
        path: 'auth/merchant/token/generate',
        data: s.TokenData,
        encoding: 'multipart',
        body: { merchant_key: merchantKey },
        bearer: false,
        retry: true,
        // A dry run of another call still needs a real token to show; it moves no money.
        dryRunExempt: implicit,
      });
      registerSecret(data.token);
      await this.opts.tokens?.set(data.token);
      return data.token;
    } catch (err) {
      if (err instanceof MpayError && err.kind === 'validation' && err.fields.merchant_key) {
        throw new AuthError(`Merchant key rejected: ${err.fields.merchant_key.join(' ')}`, {
          status: err.status,
          fields: err.fields,
          hint: 'Check the Merchant Key under your merchant profile, then run `mpay login` again',
        });
      }
      throw err;
    }
  }

  // Merchant --------------------------------------------------------------------------------------------

  merchantCurrencies(): Promise<s.MerchantCurrency[]> {
    return this.call({
      method: 'GET',
      path: 'merchant/currencies',
      data: z.array(s.MerchantCurrency),
      encoding: 'none',
      bearer: true,
      retry: true,
    });
  }

  depositInitiate(
    req: Omit<s.InitiateRequest, 'merchant_key' | 'site_id' | 'api_key'>,
    hooks?: SendHooks,
  ): Promise<s.InitiatedPayment> {
    return this.post(
      'payments/initiate',
      s.InitiatedPayment,
      'json',
      { ...this.merchantFields(), ...req },
      hooks,
    );
  }

  withdrawInitiate(
    req: Omit<s.InitiateRequest, 'merchant_key' | 'site_id' | 'api_key'>,
    hooks?: SendHooks,
  ): Promise<s.InitiatedPayment> {
    return this.post(
      'payments/withdraw/initiate',
      s.InitiatedPayment,
      'json',
      { ...this.merchantFields(), ...req },
      hooks,
    );
  }

  depositProcessed(req: s.DepositProcessedRequest, hooks?: SendHooks): Promise<s.Transaction> {
    return this.post('payments/processed', s.Transaction, 'json', req, hooks);
  }

  statusUpdate(req: s.StatusUpdateRequest, hooks?: SendHooks): Promise<s.StatusUpdateResult> {
    return this.post('payments/status/update', s.StatusUpdateResult, 'multipart', req, hooks);
  }

  walletUpdate(req: s.WalletUpdateRequest, hooks?: SendHooks): Promise<s.WalletAddressUpdateResult> {
    return this.post(
      'payments/crypto/wallet/address/update',
      s.WalletAddressUpdateResult,
      'multipart',
      req,
      hooks,
    );
  }

  async withdrawProcessed(
    req: s.WithdrawProcessedRequest,
    hooks?: SendHooks,
  ): Promise<WithdrawProcessedResult> {
    registerSecret(req.otp === undefined ? undefined : String(req.otp));
    const { message, data } = await this.call({
      method: 'POST',
      path: 'payments/withdraw/processed',
      data: s.WithdrawProcessedData,
      encoding: 'json',
      body: req,
      bearer: true,
      retry: false,
      whole: true,
      hooks,
    });
    if (Array.isArray(data))
      return { otpSent: true, message: message ?? 'A one-time code was sent to the customer email' };
    return { otpSent: false, message: message ?? '', transaction: data };
  }

  /** The credentials check of `mpay doctor` (api/credentials-probe.ts): a withdraw initiate of them alone. */
  probeCredentials(): Promise<ProbeVerdict> {
    return probeCredentials(() =>
      this.post('payments/withdraw/initiate', s.InitiatedPayment, 'json', this.merchantFields()),
    );
  }

  // Plumbing --------------------------------------------------------------------------------------------

  /** The cached token, registered as a secret of the run (scrubbed by value wherever it appears). */
  private storedToken(): string | undefined {
    const token = this.opts.tokens?.get();
    registerSecret(token);
    return token;
  }

  private merchantFields() {
    const c = this.opts.credentials ?? {};
    const missing = (['merchantKey', 'siteId', 'apiKey'] as const).filter((k) => !c[k]);
    if (missing.length > 0) {
      throw missingCredentials(
        c,
        `Missing credentials: ${missing.join(', ')}`,
        'Run `mpay login`, or set MPAY_MERCHANT_KEY, MPAY_SITE_ID and MPAY_API_KEY',
      );
    }
    // site_id is an integer in the spec; a numeric one goes out as a JSON number.
    const siteId = /^\d+$/.test(c.siteId!) ? Number(c.siteId) : c.siteId!;
    return { merchant_key: c.merchantKey!, site_id: siteId, api_key: c.apiKey! };
  }

  private post<T extends z.ZodMiniType>(
    path: string,
    data: T,
    encoding: Encoding,
    body: object,
    hooks?: SendHooks,
  ): Promise<z.infer<T>> {
    return this.call({
      method: 'POST',
      path,
      data,
      encoding,
      body: body as Record<string, unknown>,
      bearer: true,
      retry: false,
      hooks,
    });
  }

  private call<T extends z.ZodMiniType>(
    c: Call<T> & { whole: true },
  ): Promise<{ message?: string | null; data: z.infer<T> }>;
  private call<T extends z.ZodMiniType>(c: Call<T>): Promise<z.infer<T>>;
  private async call<T extends z.ZodMiniType>(c: Call<T> & { whole?: boolean }): Promise<unknown> {
    const run = async (token: string | undefined) => {
      const res = await this.send(c, token);
      const parsed = successData(`${c.method} /${c.path}`, res.status, res.contentType, res.text, c.data);
      return c.whole ? parsed : parsed.data;
    };
    if (!c.bearer) return run(undefined);
    let token = this.storedToken();
    const fresh = !token;
    if (!token) token = await this.generateToken(undefined, true);
    try {
      return await run(token);
    } catch (err) {
      // Token lifetime is not specified: a 401 on a cached token earns one new token and one repeat.
      if (err instanceof AuthError && err.status === 401 && !fresh && this.opts.credentials?.merchantKey) {
        await this.opts.tokens?.clear();
        this.opts.debug?.('! 401 on a cached token: generating a new one and repeating once');
        return run(await this.generateToken(undefined, true));
      }
      throw err;
    }
  }

  /** Builds the request the client would send: used by --dry-run and by the sender itself. */
  private prepare(c: Call<z.ZodMiniType>, token?: string): PreparedRequest {
    return prepareRequest(c, new URL(c.path, this.http.defaults.options.prefixUrl).href, token);
  }

  private async send(c: Call<z.ZodMiniType>, token: string | undefined): Promise<RawAnswer> {
    if (this.opts.dryRun && c.method === 'POST' && !c.dryRunExempt) throw new DryRun(this.prepare(c, token));
    // A POST carries credentials or moves money: a redirect of one is reported, never followed (a 307 or
    // 308 would re-send the body, merchant and API keys included, to wherever it points).
    const req: OptionsInit = { method: c.method, headers: {}, followRedirect: c.method !== 'POST' };
    req.headers = { ...c.raw?.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    if (c.body) {
      const fields = this.prepare(c).body ?? {};
      if (c.encoding === 'multipart') {
        const form = await multipart(fields);
        req.body = form.body;
        req.headers = { ...req.headers, 'content-type': form.contentType };
      } else {
        req.json = Object.fromEntries(
          Object.entries(c.body).filter(([, v]) => v !== undefined && (v !== null || c.raw)),
        );
      }
      // The body as --debug and --trace show it, scrubbed: made only when one of them will show it.
      if (this.opts.debug || this.opts.trace)
        req.context = { shownBody: JSON.stringify(redactValue(req.json ?? fields)) };
    }
    // Two more tries for GETs and token generate; never for a money-moving POST.
    if (c.retry) req.retry = { limit: 2, methods: [c.method] };
    let res: Response<string>;
    for (let attempt = 1; ; attempt++) {
      await this.pacer?.take();
      // An answer is read up to a bound (8 MB; `mpay api --max-size`): a server that sends more is cut
      // off and reported, instead of taking the machine's memory.
      const pending = this.http(c.path, req) as unknown as Promise<Response<string>> & {
        cancel(): void;
        on(event: 'downloadProgress', listener: (p: { transferred: number }) => void): void;
      };
      let over = 0;
      pending.on('downloadProgress', (p: { transferred: number }) => {
        if (p.transferred > this.maxBodyBytes && !over) {
          over = p.transferred;
          pending.cancel();
        }
      });
      try {
        res = await pending;
        this.pacer?.answered();
        break;
      } catch (err) {
        if (over)
          throw new ServerError(
            `The answer to ${c.method} /${c.path} is larger than ${this.maxBodyBytes / 2 ** 20} MB (${over} bytes read, then mpay stopped): the API's answers are a few KB`,
            { hint: 'Check the base URL; `mpay api --max-size MB` reads a larger answer' },
          );
        if (!(err instanceof HTTPError)) throw networkError(err, c, this.baseUrl);
        const r = err.response as Response<string>;
        const retryAfter = r.headers['retry-after'];
        if (isThrottle(c.method, r.statusCode, retryAfter)) {
          this.pacer?.throttled();
          const at = { method: c.method, path: c.path, status: r.statusCode, attempt };
          const t: Throttle = {
            ...at,
            tries: this.policy.tries,
            waitMs: nextWait(at, retryAfter, this.policy),
          };
          this.opts.debug?.(
            `! ${t.status} on ${t.method} /${t.path}: waiting ${(t.waitMs / 1000).toFixed(1)} s before try ${attempt + 1} of ${t.tries}`,
          );
          this.reportThrottle?.(t);
          c.hooks?.throttled?.(t);
          await new Promise((resolve) => setTimeout(resolve, t.waitMs));
          c.hooks?.resending?.();
          continue;
        }
        this.pacer?.answered();
        if (c.raw) return answer(r);
        throw failureError(`${c.method} /${c.path}`, r.statusCode, r.headers['content-type'], r.body ?? '');
      }
    }
    if (res.statusCode >= 300 && res.statusCode < 400) {
      throw new ServerError(
        `The API answered ${c.method} /${c.path} with a redirect (HTTP ${res.statusCode}) to ${res.headers.location ?? 'nowhere'}; mpay does not follow a redirect of a POST`,
        {
          status: res.statusCode,
          hint: 'Check the base URL (scheme, host and path): `mpay config get <env>.base_url`, or --base-url',
        },
      );
    }
    return answer(res);
  }

  /**
   * `mpay api`: any endpoint, with the bearer token added (and refreshed once on a 401 of a cached one)
   * when `bearer`, the answer returned as sent whatever its status. GETs are retried like every GET; a
   * POST never is.
   */
  async raw(req: {
    method: 'GET' | 'POST';
    path: string;
    encoding: Encoding;
    body?: Record<string, unknown>;
    headers?: Record<string, string>;
    bearer: boolean;
    /** the journal's lines around a 429's wait (replay's money calls) */
    hooks?: SendHooks;
  }): Promise<RawAnswer> {
    const c: Call<z.ZodMiniType> = {
      method: req.method,
      path: req.path,
      data: z.unknown(),
      encoding: req.encoding,
      body: req.body,
      bearer: req.bearer,
      retry: req.method === 'GET',
      raw: { headers: req.headers },
      hooks: req.hooks,
    };
    if (!req.bearer) return this.send(c, undefined);
    let token = this.storedToken();
    const fresh = !token;
    if (!token) token = await this.generateToken(undefined, true);
    const first = await this.send(c, token);
    if (first.status !== 401 || fresh || !this.opts.credentials?.merchantKey) return first;
    await this.opts.tokens?.clear();
    this.opts.debug?.('! 401 on a cached token: generating a new one and repeating once');
    return this.send(c, await this.generateToken(undefined, true));
  }
}
