// The typed client: one method per endpoint of the spec, on the sending of sender.ts (got, the pace, 429s).
// Every response is parsed with the wire schemas and every failure becomes one of the typed errors in
// errors.ts; a cached token refused with a 401 is replaced once. Knows nothing of terminals.
import * as z from 'zod/mini';
import { AuthError, MpayError } from '../common/errors.js';
import * as s from './schemas.js';
import { successData } from './response.js';
import { probeCredentials, type ProbeVerdict } from './credentials-probe.js';
import { missingCredentials } from './credentials.js';
import { Sender, type Call, type ClientOptions, type Via } from './sender.js';
import { endpoints, type EndpointId } from './endpoints.js';
import type { Ticket } from './ticket.js';
import type { Encoding, RawAnswer } from './wire.js';

export type WithdrawProcessedResult =
  { otpSent: true; message: string } | { otpSent: false; message: string; transaction: s.Transaction };

/** What the sender needs of an endpoint, from the one table (api/endpoints.ts). */
const wire = <I extends EndpointId>(id: I) => {
  const { method, path, data, encoding, bearer } = endpoints[id];
  return { method, path, data: data as (typeof endpoints)[I]['data'], encoding, bearer };
};

export class Client extends Sender {
  constructor(opts: ClientOptions) {
    super(opts);
    // What this client holds is scrubbed by value from everything mpay shows or writes (api/redact.ts).
    this.secrets.register(opts.credentials?.merchantKey);
    this.secrets.register(opts.credentials?.apiKey);
  }

  // Public ----------------------------------------------------------------------------------------------

  publicCurrencies(): Promise<s.Currency[]> {
    return this.call({ ...wire('publicCurrencies'), retry: true });
  }

  publicCountries(): Promise<s.Country[]> {
    return this.call({ ...wire('publicCountries'), retry: true });
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
        ...wire('tokenGenerate'),
        body: { merchant_key: merchantKey },
        retry: true,
        // A dry run of another call still needs a real token to show; it moves no money.
        dryRunExempt: implicit,
      });
      this.secrets.register(data.token);
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
    return this.call({ ...wire('merchantCurrencies'), retry: true });
  }

  depositInitiate(
    req: Omit<s.InitiateRequest, 'merchant_key' | 'site_id' | 'api_key'>,
    via?: Via,
  ): Promise<s.InitiatedPayment> {
    return this.post('depositInitiate', { ...this.merchantFields(), ...req }, via);
  }

  withdrawInitiate(
    req: Omit<s.InitiateRequest, 'merchant_key' | 'site_id' | 'api_key'>,
    via?: Via,
  ): Promise<s.InitiatedPayment> {
    return this.post('withdrawInitiate', { ...this.merchantFields(), ...req }, via);
  }

  depositProcessed(req: s.DepositProcessedRequest, via?: Via): Promise<s.Transaction> {
    return this.post('depositProcessed', req, via);
  }

  statusUpdate(req: s.StatusUpdateRequest, via?: Via): Promise<s.StatusUpdateResult> {
    return this.post('statusUpdate', req, via);
  }

  walletUpdate(req: s.WalletUpdateRequest, via?: Via): Promise<s.WalletAddressUpdateResult> {
    return this.post('walletUpdate', req, via);
  }

  async withdrawProcessed(req: s.WithdrawProcessedRequest, via?: Via): Promise<WithdrawProcessedResult> {
    this.secrets.register(req.otp === undefined ? undefined : String(req.otp));
    const { message, data } = await this.call({
      ...wire('withdrawProcessed'),
      body: req,
      retry: false,
      whole: true,
      ...via,
    });
    if (Array.isArray(data))
      return { otpSent: true, message: message ?? 'A one-time code was sent to the customer email' };
    return { otpSent: false, message: message ?? '', transaction: data };
  }

  /**
   * The credentials check of `mpay doctor` and `mpay login` (api/credentials-probe.ts): a withdraw
   * initiate of them alone, with the money gate's ticket for a probe.
   */
  probeCredentials(ticket: Ticket): Promise<ProbeVerdict> {
    return probeCredentials(() => this.post('withdrawInitiate', this.merchantFields(), { ticket }));
  }

  // Plumbing --------------------------------------------------------------------------------------------

  /** The cached token, registered as a secret of the run (scrubbed by value wherever it appears). */
  private storedToken(): string | undefined {
    const token = this.opts.tokens?.get();
    this.secrets.register(token);
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

  private post<I extends EndpointId>(
    id: I,
    body: object,
    via?: Via,
  ): Promise<z.infer<(typeof endpoints)[I]['data']>> {
    return this.call({ ...wire(id), body: body as Record<string, unknown>, retry: false, ...via }) as Promise<
      z.infer<(typeof endpoints)[I]['data']>
    >;
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
    return c.bearer ? this.withBearer(run) : run(undefined);
  }

  /**
   * A request with the bearer token. Token lifetime is not specified: a 401 on a cached token (thrown, or
   * the answer of `mpay api`, which returns every status) earns one new token and one repeat; a 401 on a
   * token just generated is the answer.
   */
  private async withBearer<R>(
    attempt: (token: string) => Promise<R>,
    refused: (answer: R) => boolean = () => false,
  ): Promise<R> {
    const cached = this.storedToken();
    const canRepeat = Boolean(cached && this.opts.credentials?.merchantKey);
    const repeat = async () => {
      await this.opts.tokens?.clear();
      this.opts.debug?.('! 401 on a cached token: generating a new one and repeating once');
      return attempt(await this.generateToken(undefined, true));
    };
    let first: R;
    try {
      first = await attempt(cached ?? (await this.generateToken(undefined, true)));
    } catch (err) {
      if (canRepeat && err instanceof AuthError && err.status === 401) return repeat();
      throw err;
    }
    return canRepeat && refused(first) ? repeat() : first;
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
    /** the journal's lines around a 429's wait, and the money gate's ticket (replay's and api's money calls) */
    via?: Via;
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
      ...req.via,
    };
    return req.bearer
      ? this.withBearer(
          (token) => this.send(c, token),
          (answer) => answer.status === 401,
        )
      : this.send(c, undefined);
  }
}
