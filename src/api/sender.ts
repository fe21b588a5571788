// How one call of the client goes out and comes back: the request built (a POST's redirect never
// followed, its body shown scrubbed to --debug and --trace), the pace a batch sets, the answer read up to a
// bound, 429s (and a GET's 503 with Retry-After) waited out and tried again, a refused redirect reported.
// The client (client.ts) is its endpoints, on this. A dry run sends no POST: DryRun carries what would go.
import { HTTPError, type Got, type OptionsInit, type Response } from 'got';
import type * as z from 'zod/mini';
import { checkBaseUrl } from './base-url.js';
import type { Credentials, TokenStore } from './credentials.js';
import { ServerError } from '../common/errors.js';
import type { Exchange } from './har.js';
import { makeHttp } from './http.js';
import { networkError } from './network-errors.js';
import {
  defaultRateLimitPolicy,
  isThrottle,
  nextWait,
  type Pacer,
  type RateLimitPolicy,
  type Throttle,
} from './rate-limit.js';
import { Secrets } from './redact.js';
import { runTickets, type Ticket, type VerifyTicket } from './ticket.js';
import { liveConfirmedHeader, upstreamHeader } from './live-headers.js';
import { failureError } from './response.js';
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
  /**
   * The run's tickets' verification (ticket.ts): a request that moves money goes out only with a ticket
   * it lets through. Absent, no money request goes out at all.
   */
  verifyTicket?: VerifyTicket;
  /** a batch's: after a 429, requests go out at the pace the server allows (rate-limit.ts) */
  pacer?: Pacer;
  /** the run's secrets, scrubbed by value from all it shows (the Factory's; a client of its own else) */
  secrets?: Secrets;
  /** told when an answer of this server says it is an mpay proxy in front of a live server (the run's gate) */
  onUpstreamLive?: (baseUrl: URL) => void;
}

/** What a call carries besides its request: its hooks, and the gate's ticket when it moves money. */
export interface Via {
  hooks?: SendHooks;
  ticket?: Ticket;
}

/** What one call's caller hears of its own tries: the journal records each one (flows/gate/journaled.ts). */
export interface SendHooks {
  /** a try was refused with a 429: the wait is about to start */
  throttled?: (t: Throttle) => void;
  /** the wait is over: the same request goes out again now (after a 429, or after being held) */
  resending?: () => void;
  /**
   * The first try waits its turn at a batch's pace (after a 429) for `ms`: it has not gone out, and goes
   * out after the wait (resending).
   */
  held?: (ms: number) => void;
}

/** One call of an endpoint: its request, and how its answer is read. */
export interface Call<T extends z.ZodMiniType> {
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
  /** the money gate's ticket: required when the call moves money (money.ts) */
  ticket?: Ticket;
}

export class Sender {
  readonly baseUrl: URL;
  private readonly http: Got;
  protected readonly opts: ClientOptions;
  private readonly policy: RateLimitPolicy;
  private readonly verifyTicket: VerifyTicket;
  /** Told of every wait, before it starts: the terminal line, or a batch's report of its own pace. */
  private readonly reportThrottle?: (t: Throttle) => void;
  /** a batch's: after a 429, requests go out at the pace the server allows (api/rate-limit.ts) */
  private readonly pacer?: Pacer;
  /** An answer of this server said it is an mpay proxy in front of a live server. */
  upstreamLive = false;
  private get maxBodyBytes(): number {
    return this.opts.maxBodyBytes ?? 8 * 2 ** 20;
  }

  /** True when POSTs are shown, not sent (--dry-run). */
  get dryRun(): boolean {
    return Boolean(this.opts.dryRun);
  }

  /** what this client holds and is handed, scrubbed by value from what it shows (api/redact.ts) */
  readonly secrets: Secrets;

  constructor(opts: ClientOptions) {
    this.secrets = opts.secrets ?? new Secrets();
    opts = { ...opts, secrets: this.secrets };
    this.opts = opts;
    this.baseUrl = checkBaseUrl(opts.baseUrl);
    this.http = makeHttp(this.baseUrl, opts);
    this.policy = { ...defaultRateLimitPolicy, ...opts.rateLimit };
    this.reportThrottle = opts.onThrottle;
    this.pacer = opts.pacer;
    // No verification handed: that of tickets never issued, which lets no money request through.
    this.verifyTicket = opts.verifyTicket ?? runTickets().verify;
  }

  /** The URL a path goes to, built as got builds it (the prefix, then the path as given). */
  urlOf(path: string): string {
    return `${this.http.defaults.options.prefixUrl}${path}`;
  }

  /** Builds the request the client would send: used by --dry-run and by the sender itself. */
  protected prepare(c: Call<z.ZodMiniType>, token?: string): PreparedRequest {
    return prepareRequest(c, new URL(c.path, this.http.defaults.options.prefixUrl).href, token);
  }

  protected async send(c: Call<z.ZodMiniType>, token: string | undefined): Promise<RawAnswer> {
    // A dry run prints what a POST would send; `mpay api` prints any request it was given, a GET too.
    if (this.opts.dryRun && (c.method === 'POST' || c.raw) && !c.dryRunExempt)
      throw new DryRun(this.prepare(c, token));
    // The money gate, at the wire: classified on the URL as got will build it (prefix + path).
    const ticketData = this.verifyTicket(c.ticket, {
      method: c.method,
      url: this.urlOf(c.path),
      body: c.body,
    });
    const req = await this.requestOf(c, token);
    if (ticketData?.live) req.headers = { ...req.headers, [liveConfirmedHeader]: 'yes' };
    for (let attempt = 1; ; attempt++) {
      // The pacer's turn. A first try held back by it has not gone out: its caller hears so before the
      // wait (the journal's 'sent' line of the gate then is followed by one that says it was not sent), and
      // hears it go out after, as after a 429.
      const turn = this.pacer?.turn() ?? 0;
      const held = attempt === 1 && turn > 0;
      if (held) c.hooks?.held?.(turn);
      if (turn > 0) await new Promise((r) => setTimeout(r, turn));
      // Just before each try of a money call, after any wait (the pacer's turn, a 429's): a lock lost
      // meanwhile (another mpay took it over) stops it here, before a try again gets its 'sent' line.
      ticketData?.check();
      if (attempt > 1 || held) c.hooks?.resending?.();
      let res: Response<string>;
      try {
        res = await this.tryOnce(c, req);
      } catch (err) {
        if (!(err instanceof HTTPError)) throw err;
        const r = err.response as Response<string>;
        this.noteUpstream(r);
        const retryAfter = r.headers['retry-after'];
        if (isThrottle(c.method, r.statusCode, retryAfter)) {
          await this.waitOut(c, r.statusCode, retryAfter, attempt);
          continue;
        }
        this.pacer?.answered();
        if (c.raw) return answer(r);
        throw failureError(`${c.method} /${c.path}`, r.statusCode, r.headers['content-type'], r.body ?? '');
      }
      this.pacer?.answered();
      this.noteUpstream(res);
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
  }

  private noteUpstream(res: Response<string>): void {
    if (String(res.headers[upstreamHeader] ?? '').toLowerCase() !== 'live') return;
    this.upstreamLive = true;
    this.opts.onUpstreamLive?.(this.baseUrl);
  }

  /** got's options for a call: its headers, its body as JSON or multipart, and its retries. */
  private async requestOf(c: Call<z.ZodMiniType>, token: string | undefined): Promise<OptionsInit> {
    // A POST carries credentials or moves money: a redirect of one is reported, never followed (a 307 or
    // 308 would re-send the body, merchant and API keys included, to wherever it points).
    const req: OptionsInit = { method: c.method, headers: {}, followRedirect: c.method !== 'POST' };
    // The live confirmation is the gate's word alone (set below from the ticket): one a caller wrote
    // (`mpay api -H`, a scenario's header) is dropped, whatever its case.
    const own = Object.entries(c.raw?.headers ?? {}).filter(([k]) => k.toLowerCase() !== liveConfirmedHeader);
    req.headers = { ...Object.fromEntries(own), ...(token ? { authorization: `Bearer ${token}` } : {}) };
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
        req.context = { shownBody: JSON.stringify(this.secrets.value(req.json ?? fields)) };
    }
    // Two more tries for GETs and token generate; never for a money-moving POST.
    if (c.retry) req.retry = { limit: 2, methods: [c.method] };
    return req;
  }

  /**
   * One try. An answer is read up to a bound (8 MB; `mpay api --max-size`): a server that sends more is
   * cut off and reported, instead of taking the machine's memory. An answer with an error status is
   * got's HTTPError; any other failure is mpay's network error.
   */
  private async tryOnce(c: Call<z.ZodMiniType>, req: OptionsInit): Promise<Response<string>> {
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
      return await pending;
    } catch (err) {
      if (over)
        throw new ServerError(
          `The answer to ${c.method} /${c.path} is larger than ${this.maxBodyBytes / 2 ** 20} MB (${over} bytes read, then mpay stopped): the API's answers are a few KB`,
          { hint: 'Check the base URL; `mpay api --max-size MB` reads a larger answer' },
        );
      if (!(err instanceof HTTPError)) throw networkError(err, c, this.baseUrl);
      throw err;
    }
  }

  /** A 429's wait, said first to --debug, the terminal line (or a batch's pace) and the call's hooks. */
  private async waitOut(
    c: Call<z.ZodMiniType>,
    status: number,
    retryAfter: string | string[] | undefined,
    attempt: number,
  ): Promise<void> {
    const at = { method: c.method, path: c.path, status, attempt };
    const t: Throttle = {
      ...at,
      tries: this.policy.tries,
      waitMs: nextWait(at, retryAfter, this.policy),
    };
    // the wait tells the pacer how long the server's window is (a minute's budget is not a second's)
    this.pacer?.throttled(t.waitMs);
    this.opts.debug?.(
      `! ${t.status} on ${t.method} /${t.path}: waiting ${(t.waitMs / 1000).toFixed(1)} s before try ${attempt + 1} of ${t.tries}`,
    );
    this.reportThrottle?.(t);
    c.hooks?.throttled?.(t);
    await new Promise((resolve) => setTimeout(resolve, t.waitMs));
  }
}
