// The deposit and withdraw flows of the spec, step by step: initiate, (wallet address update), status
// update, processed (with the one-time code on withdraw). Each step is journaled before it is sent and
// when its outcome is known. Questions go through a Prompter; without one, nothing is asked and a missing
// value is a usage error naming its flag. Single steps are exported for the one-step commands.
import { randomBytes } from 'node:crypto';
import type { Client, WithdrawProcessedResult } from '../api/client.js';
import { gatewayTypeOf as gatewayType } from '../api/enums.js';
import { CancelledError, MpayError, NetworkError, UsageError, ValidationError } from '../api/errors.js';
import type {
  GatewayConfiguration,
  InitiatedPayment,
  MerchantCurrency,
  MerchantService,
  StatusUpdateResult,
  Transaction,
  TransactionStatus,
  WalletAddressUpdateResult,
} from '../api/schemas.js';
import { stepDone, type JournalLike, type JournalRecord, type Kind, type Step } from '../journal/journal.js';
import { checked, fields, newReference, phoneNumber, problem, type Field } from './inputs.js';
import type { Prompter } from './prompter.js';
import { isCrypto, needsWalletUpdate, walletReason, type WalletContext } from './wallet-rule.js';

export interface FlowInputs {
  currency?: string;
  country?: string;
  amount?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  email?: string;
  reference?: string;
  gateway?: string;
  receiverEmail?: string;
  phoneNumber?: string;
  /** --wallet / --no-wallet: overrides the wallet rule */
  wallet?: boolean;
  otp?: string;
}

/** How a flow tells a person what is happening; the terminal one lives in ui/. */
export interface Reporter {
  step(title: string): void;
  info(line: string): void;
  wait<T>(label: string, work: Promise<T>): Promise<T>;
  address(address: string, asQr: boolean): Promise<void>;
}

export const silentReporter: Reporter = {
  step: () => {},
  info: () => {},
  wait: (_l, w) => w,
  address: async () => {},
};

export interface FlowDeps {
  client: Client;
  journal: JournalLike;
  /** absent when mpay must not ask (no terminal, --no-input, CI) */
  prompter?: Prompter;
  reporter?: Reporter;
  env: string;
  yes?: boolean;
  /** send an amount outside the merchant currency's limits anyway */
  force?: boolean;
  /** the command line that resumes, for messages: `mpay deposit` */
  command?: string;
  /** set once the person confirmed a live request in this run, so that a flow asks once */
  liveConfirmed?: boolean;
  /** the profile's wallet_gateways for this environment: when set, it settles the wallet rule */
  walletGateways?: number[];
}

export interface FlowResult {
  kind: Kind;
  reference: string;
  hash_token?: string;
  status?: string;
  gateway?: { id: number; name: string; payment_method?: string | null };
  initiated?: InitiatedPayment;
  wallet?: WalletAddressUpdateResult;
  status_update?: StatusUpdateResult;
  transaction?: Transaction;
  /** what the flow waits for when it stopped early */
  next?: 'otp';
  resume?: string;
  message?: string;
}

const title = (k: Kind) => (k === 'deposit' ? 'deposit' : 'withdrawal');

// Inputs ---------------------------------------------------------------------------------------------

/** A flag's value, else a prompt's answer, else a usage error naming the flag. */
async function ask(
  deps: FlowDeps,
  f: Field,
  given: string | undefined,
  message: string,
  opts: { default?: string; optional?: boolean } = {},
): Promise<string | undefined> {
  if (given !== undefined && given !== '') return checked(f, given);
  if (!deps.prompter) {
    if (opts.default !== undefined) return checked(f, opts.default);
    if (opts.optional) return undefined;
    throw new UsageError(`Missing ${f.flag}`, {
      fields: { [f.field]: ['required'] },
      hint: `Pass ${f.flag}; with no terminal (or --no-input) mpay does not ask`,
    });
  }
  const answer = await deps.prompter.input({
    message,
    default: opts.default,
    validate: (v) => (opts.optional && v.trim() === '' ? true : (problem(f, v) ?? true)),
  });
  if (opts.optional && answer.trim() === '') return undefined;
  return checked(f, answer);
}

function limitsOf(kind: Kind, c: MerchantCurrency): { min?: number | null; max?: number | null } {
  return kind === 'deposit'
    ? { min: c.minimum_deposite, max: c.maximum_deposite }
    : { min: c.min_withdraw, max: c.max_withdraw };
}

function enabled(kind: Kind, c: MerchantCurrency): boolean {
  return (kind === 'deposit' ? c.deposite : c.withdraw) !== false;
}

async function chooseCurrency(
  kind: Kind,
  inputs: FlowInputs,
  deps: FlowDeps,
  list: MerchantCurrency[],
): Promise<MerchantCurrency> {
  const code = inputs.currency === undefined ? undefined : checked(fields.currency, inputs.currency);
  const country = inputs.country === undefined ? undefined : checked(fields.country, inputs.country);
  const open = list.filter((c) => enabled(kind, c));
  const matches = open.filter((c) => (!code || c.code === code) && (!country || c.country?.code === country));
  if (code && matches.length === 1) return matches[0]!;
  if (code && matches.length === 0) {
    const known = list.find((c) => c.code === code);
    if (!deps.force) {
      throw new UsageError(
        known
          ? `${kind === 'deposit' ? 'Deposits' : 'Withdrawals'} are not enabled for ${code}${country ? ` in ${country}` : ''}`
          : `${code}${country ? ` in ${country}` : ''} is not one of the merchant's currencies`,
        {
          fields: { currency_code: ['not available'] },
          hint: `Open to ${title(kind)}s: ${open.map((c) => `${c.code} (${c.country?.code ?? '?'})`).join(', ') || 'none'}; --force sends it anyway`,
        },
      );
    }
    return { ...(known ?? ({ id: 0, name: code, code } as MerchantCurrency)), country: known?.country };
  }
  if (!deps.prompter) {
    if (!code)
      throw new UsageError('Missing --currency', {
        fields: { currency_code: ['required'] },
        hint: `One of: ${open.map((c) => c.code).join(', ')}`,
      });
    throw new UsageError(`${code} is offered in several countries: pass --country`, {
      fields: { country_code: ['required'] },
    });
  }
  const choices = (matches.length ? matches : open).map((c) => {
    const l = limitsOf(kind, c);
    return {
      name: `${c.code}  ${c.name} (${c.country?.code ?? '?'})  limits ${l.min ?? '?'}–${l.max ?? '?'}${c.total_balance != null ? `  balance ${c.total_balance}` : ''}`,
      value: c,
    };
  });
  if (choices.length === 0) throw new UsageError(`No currency is open to ${title(kind)}s for this merchant`);
  return deps.prompter.select({ message: 'Currency', choices });
}

function checkAmount(kind: Kind, amount: string, c: MerchantCurrency, deps: FlowDeps): string | undefined {
  const n = Number(amount);
  const { min, max } = limitsOf(kind, c);
  const balance = kind === 'withdraw' ? c.total_balance : undefined;
  let why: string | undefined;
  if (min != null && n < min) why = `below the ${title(kind)} minimum of ${min} ${c.code}`;
  else if (max != null && n > max) why = `above the ${title(kind)} maximum of ${max} ${c.code}`;
  else if (balance != null && n > balance) why = `above the merchant balance of ${balance} ${c.code}`;
  if (why && deps.force) {
    deps.reporter?.info(`warning: ${amount} is ${why}; sending anyway (--force)`);
    return undefined;
  }
  return why;
}

interface Gathered {
  currency: MerchantCurrency;
  request: {
    currency_code: string;
    country_code: string;
    customer_first_name: string;
    customer_last_name?: string;
    customer_phone: string;
    customer_email: string;
    customer_transaction_id: string;
    amount: string;
  };
}

async function gather(kind: Kind, inputs: FlowInputs, deps: FlowDeps): Promise<Gathered> {
  // Cheap local checks first, so a bad flag fails before any request.
  for (const [k, f] of Object.entries({
    currency: fields.currency,
    country: fields.country,
    amount: fields.amount,
    firstName: fields.firstName,
    lastName: fields.lastName,
    phone: fields.phone,
    email: fields.email,
    reference: fields.reference,
    gateway: fields.gateway,
    receiverEmail: fields.receiverEmail,
    otp: fields.otp,
  })) {
    const v = inputs[k as keyof FlowInputs];
    if (typeof v === 'string') checked(f, v);
  }
  if (inputs.phoneNumber !== undefined) checked(phoneNumber, inputs.phoneNumber);
  const list = await (deps.reporter ?? silentReporter).wait(
    'Reading the merchant currencies',
    deps.client.merchantCurrencies(),
  );
  const currency = await chooseCurrency(kind, inputs, deps, list);
  const l = limitsOf(kind, currency);
  const amountField: Field = {
    ...fields.amount,
    check: (v) => fields.amount.check(v) ?? checkAmount(kind, v, currency, deps),
  };
  const amount = (await ask(
    deps,
    amountField,
    inputs.amount,
    `Amount in ${currency.code} (${l.min ?? '?'}–${l.max ?? '?'})`,
  ))!;
  const firstName = (await ask(deps, fields.firstName, inputs.firstName, 'Customer first name'))!;
  const lastName = await ask(deps, fields.lastName, inputs.lastName, 'Customer last name (optional)', {
    optional: true,
  });
  const dial = currency.country?.dial_code ?? undefined;
  const phone = (await ask(deps, fields.phone, inputs.phone, `Customer phone${dial ? ` (${dial}…)` : ''}`))!;
  const email = (await ask(deps, fields.email, inputs.email, 'Customer e-mail'))!;
  const reference = (await ask(
    deps,
    fields.reference,
    inputs.reference,
    'Reference (customer_transaction_id)',
    {
      default: newReference(kind, () => randomBytes(3).toString('hex')),
    },
  ))!;
  return {
    currency,
    request: {
      currency_code: currency.code,
      country_code: checked(fields.country, inputs.country ?? currency.country?.code ?? ''),
      customer_first_name: firstName,
      customer_last_name: lastName,
      customer_phone: phone,
      customer_email: email,
      customer_transaction_id: reference,
      amount,
    },
  };
}

// Journaled steps -----------------------------------------------------------------------------------

/** Runs one API call between a 'sent' line and its outcome line in the journal. */
async function journaled<T>(
  deps: FlowDeps,
  at: { reference: string; kind: Kind; step: Step; hash_token?: string; data?: Record<string, unknown> },
  label: string,
  call: () => Promise<T>,
  outcome: (r: T) => { hash_token?: string; data?: Record<string, unknown> } = () => ({}),
): Promise<T> {
  // A dry run sends nothing, so it has nothing to confirm or journal: the client throws its DryRun
  // signal with the request it would have sent.
  if (deps.client.dryRun) return call();
  await confirmLive(deps, `${label} (${at.reference})`);
  try {
    deps.journal.append({ ...at, outcome: 'sent' });
  } catch (err) {
    // No record, no request: a payment mpay could not find again must never be sent.
    if (err instanceof MpayError) err.message = `Nothing was sent: ${err.message}`;
    throw err;
  }
  let result: T;
  try {
    result = await (deps.reporter ?? silentReporter).wait(label, call());
  } catch (err) {
    const ambiguous = err instanceof NetworkError && err.ambiguous;
    deps.journal.append({
      reference: at.reference,
      kind: at.kind,
      step: at.step,
      hash_token: at.hash_token,
      outcome: ambiguous ? 'ambiguous' : 'failed',
      data: {
        error: describe(err),
        status: err instanceof MpayError && err.kind === 'state' ? 'not initiated' : undefined,
      },
    });
    if (ambiguous && err instanceof MpayError)
      err.hint = ambiguityHint(deps, at.kind, at.step, at.reference, at.hash_token);
    throw err;
  }
  const o = outcome(result);
  deps.journal.append({
    reference: at.reference,
    kind: at.kind,
    step: at.step,
    outcome: 'ok',
    hash_token: o.hash_token ?? at.hash_token,
    data: o.data,
  });
  return result;
}

/** An error as one line for the journal: the message and the API's per-field messages. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const fields =
    err instanceof MpayError ? Object.entries(err.fields).map(([f, m]) => `${f}: ${m.join(' ')}`) : [];
  return [err.message, ...fields].join(' ');
}

function ambiguityHint(deps: FlowDeps, kind: Kind, step: Step, reference: string, hash?: string): string {
  const cmd = deps.command ?? `mpay ${kind}`;
  const ids = `reference ${reference}${hash ? `, hash token ${hash}` : ''}`;
  if (step === 'initiate') {
    return `The connection failed after the request was sent, so the ${title(kind)} may exist (${ids}). Nothing was re-sent. \`mpay history show ${reference}\` shows what is known; \`${cmd} --resume ${reference}\` sends initiate again with the same reference, which the API refuses as a duplicate if the first one arrived.`;
  }
  return `The connection failed after the ${step} request was sent, so it may have been applied (${ids}). Nothing was re-sent. Check with \`mpay history show ${reference}\` before \`${cmd} --resume ${reference}\`; a step already applied answers "not initiated" (exit 5).`;
}

/** Whether an earlier attempt at this step was sent and its outcome never came back (killed, dropped). */
function earlierAttemptUnknown(record: JournalRecord, steps: Step[]): boolean {
  const last = [...record.steps].reverse().find((s) => steps.includes(s.step));
  return last?.outcome === 'sent' || last?.outcome === 'ambiguous';
}

/**
 * Runs a step that an earlier, unanswered attempt may already have applied. When the API's refusal says
 * exactly that (the transaction is no longer initiated, the payment is already done, the reference is
 * taken), the error says so in words, instead of leaving a support engineer to guess.
 */
async function repeatOfUnknown<T>(record: JournalRecord, steps: Step[], run: () => Promise<T>): Promise<T> {
  const unknown = earlierAttemptUnknown(record, steps);
  try {
    return await run();
  } catch (err) {
    if (!unknown || !(err instanceof MpayError)) throw err;
    const applied =
      err.kind === 'state' ||
      (err.kind === 'validation' &&
        (err.fields.customer_transaction_id !== undefined ||
          /already been done/i.test((err.fields.hash_token ?? []).join(' '))));
    if (applied) {
      err.hint = `An earlier ${steps.join('/')} request for ${record.reference} was sent and its answer lost; the API's answer now says it was most likely applied. Nothing else was sent.${
        record.hash_token ? '' : ' mpay never got the hash token: ask the provider with the reference.'
      }`;
    }
    throw err;
  }
}

/** `gateway` is the one asked for by flag, if any: recorded so that a resumed flow keeps it. */
export async function initiateStep(
  kind: Kind,
  g: Gathered['request'],
  deps: FlowDeps,
  gateway?: number,
): Promise<InitiatedPayment> {
  const { customer_first_name, customer_last_name, customer_phone, customer_email } = g;
  return journaled(
    deps,
    {
      reference: g.customer_transaction_id,
      kind,
      step: 'initiate',
      data: {
        amount: g.amount,
        currency: g.currency_code,
        country: g.country_code,
        customer: {
          first_name: customer_first_name,
          last_name: customer_last_name,
          phone: customer_phone,
          email: customer_email,
        },
        gateway_id: gateway,
      },
    },
    `Initiating the ${title(kind)}`,
    () => (kind === 'deposit' ? deps.client.depositInitiate(g) : deps.client.withdrawInitiate(g)),
    (p) => ({
      hash_token: p.has_token,
      data: { status: 'initiated', gateways: p.gateway_configuration.map((c) => c.gateway.id) },
    }),
  );
}

export async function walletStep(
  r: Pick<JournalRecord, 'reference' | 'kind'>,
  hash: string,
  gatewayId: number,
  deps: FlowDeps,
): Promise<WalletAddressUpdateResult> {
  return journaled(
    deps,
    {
      reference: r.reference,
      kind: r.kind,
      step: 'wallet',
      hash_token: hash,
      data: { gateway_id: gatewayId },
    },
    'Updating the wallet address',
    () => deps.client.walletUpdate({ hash_token: hash, gateway_id: gatewayId }),
    (w) => ({ data: { wallet_address: w.wallet_address } }),
  );
}

export async function statusStep(
  r: Pick<JournalRecord, 'reference' | 'kind'>,
  hash: string,
  gatewayId: number,
  status: TransactionStatus,
  deps: FlowDeps,
): Promise<StatusUpdateResult> {
  return journaled(
    deps,
    {
      reference: r.reference,
      kind: r.kind,
      step: 'status',
      hash_token: hash,
      data: { gateway_id: gatewayId },
    },
    `Updating the status to ${status}`,
    () => deps.client.statusUpdate({ hash_token: hash, status, gateway_id: gatewayId }),
    (s) => ({ data: { status: s.status, transaction_id: s.transaction_id } }),
  );
}

export async function depositProcessStep(
  r: Pick<JournalRecord, 'reference' | 'kind'>,
  hash: string,
  phone: string,
  receiverEmail: string | undefined,
  deps: FlowDeps,
): Promise<Transaction> {
  return journaled(
    deps,
    { reference: r.reference, kind: 'deposit', step: 'processed', hash_token: hash },
    'Processing the deposit',
    () =>
      deps.client.depositProcessed({ hash_token: hash, phone_number: phone, receiver_email: receiverEmail }),
    (t) => ({ data: { status: t.status, transaction_id: t.transaction_id } }),
  );
}

export async function withdrawProcessStep(
  r: Pick<JournalRecord, 'reference' | 'kind'>,
  req: { hash: string; phone: string; email: string; receiverEmail?: string; otp?: string },
  deps: FlowDeps,
): Promise<WithdrawProcessedResult> {
  return journaled(
    deps,
    { reference: r.reference, kind: 'withdraw', step: req.otp ? 'processed' : 'otp', hash_token: req.hash },
    req.otp ? 'Confirming the withdrawal with the one-time code' : 'Processing the withdrawal',
    () =>
      deps.client.withdrawProcessed({
        hash_token: req.hash,
        phone_number: req.phone,
        customer_email: req.email,
        receiver_email: req.receiverEmail,
        otp: req.otp,
      }),
    (res) =>
      res.otpSent
        ? { data: { message: res.message } }
        : { data: { status: res.transaction.status, transaction_id: res.transaction.transaction_id } },
  );
}

/** "1 MTN Mobile Money, 2 MPay Wallet": the gateways a hint offers. */
function gatewayList(configs: GatewayConfiguration[]): string {
  return configs.map((c) => `${c.gateway.id} ${c.gateway.name}`).join(', ');
}

// Gateways ----------------------------------------------------------------------------------------------

async function chooseGateway(
  configs: GatewayConfiguration[],
  inputs: FlowInputs,
  deps: FlowDeps,
  wallet: WalletContext,
): Promise<GatewayConfiguration> {
  if (configs.length === 0) throw new UsageError('Initiate returned no gateway configuration to choose from');
  if (inputs.gateway !== undefined) {
    const id = Number(checked(fields.gateway, inputs.gateway));
    const found = configs.find((c) => Number(c.gateway.id) === id);
    if (!found) {
      throw new UsageError(`Gateway ${id} is not one of those initiate returned`, {
        fields: { gateway_id: ['not offered'] },
        hint: `Offered: ${gatewayList(configs)}`,
      });
    }
    return found;
  }
  if (configs.length === 1) return configs[0]!;
  if (!deps.prompter) {
    throw new UsageError('Missing --gateway', {
      fields: { gateway_id: ['required'] },
      hint: `Offered: ${gatewayList(configs)}`,
    });
  }
  return deps.prompter.select({
    message: 'Gateway',
    choices: configs.map((c) => ({
      name: `${c.gateway.id}  ${c.gateway.name}  (${c.gateway.payment_method ?? '?'}; fee ${c.fee_in_percentage ?? 0}%, min ${c.minimum_fees ?? 0})${walletReason(c.gateway, wallet) ? '  needs a wallet address' : ''}`,
      value: c,
    })),
  });
}

/** Before initiate, without a terminal: fail now if --gateway is missing and there is more than one. */
function precheckGateway(kind: Kind, currency: MerchantCurrency, inputs: FlowInputs, deps: FlowDeps): void {
  const configs = (currency.getway_configuration ?? []).filter((c) => c.type === gatewayType(kind));
  if (deps.prompter || inputs.gateway !== undefined || configs.length <= 1) {
    if (
      inputs.gateway !== undefined &&
      configs.length > 0 &&
      !configs.some((c) => String(c.gateway.id) === String(Number(inputs.gateway)))
    ) {
      throw new UsageError(`Gateway ${inputs.gateway} is not open to ${title(kind)}s in ${currency.code}`, {
        fields: { gateway_id: ['not offered'] },
        hint: `Open: ${gatewayList(configs)}`,
      });
    }
    return;
  }
  throw new UsageError('Missing --gateway', {
    fields: { gateway_id: ['required'] },
    hint: `Open to ${title(kind)}s in ${currency.code}: ${gatewayList(configs)}`,
  });
}

// The flow ------------------------------------------------------------------------------------------

export async function runPaymentFlow(kind: Kind, inputs: FlowInputs, deps: FlowDeps): Promise<FlowResult> {
  const rep = deps.reporter ?? silentReporter;
  const g = await gather(kind, inputs, deps);
  precheckGateway(kind, g.currency, inputs, deps);
  rep.step(`Summary of the ${title(kind)}`);
  const r = g.request;
  rep.info(
    `  ${r.amount} ${r.currency_code} (${r.country_code}) ${kind === 'deposit' ? 'from' : 'to'} ${r.customer_first_name}${r.customer_last_name ? ` ${r.customer_last_name}` : ''}, ${r.customer_phone}, ${r.customer_email}`,
  );
  rep.info(`  reference ${r.customer_transaction_id}; ${deps.env} environment`);
  await confirmLive(deps, `this ${title(kind)} of ${r.amount} ${r.currency_code}`);

  rep.step('Initiate');
  const initiated = await initiateStep(
    kind,
    r,
    deps,
    inputs.gateway === undefined ? undefined : Number(inputs.gateway),
  );
  rep.info(`  hash token ${initiated.has_token}`);
  const record: JournalRecord = deps.journal.find(r.customer_transaction_id)!;
  return continueFlow(record, initiated.gateway_configuration, inputs, deps, { initiated });
}

/** `mpay deposit initiate` / `mpay withdraw initiate`: the inputs, the summary, initiate, nothing more. */
export async function initiateOnly(
  kind: Kind,
  inputs: FlowInputs,
  deps: FlowDeps,
): Promise<InitiatedPayment> {
  const g = await gather(kind, inputs, deps);
  await confirmLive(deps, `this ${title(kind)} initiate of ${g.request.amount} ${g.request.currency_code}`);
  return initiateStep(kind, g.request, deps);
}

/**
 * The one gate in front of every request that moves money in the live environment: the flows, --resume
 * and each single step pass through it (journaled() calls it before anything is written or sent). It asks
 * once per run on a terminal, and needs --yes without one.
 */
async function confirmLive(deps: FlowDeps, what: string): Promise<void> {
  if (deps.env !== 'live' || deps.yes || deps.liveConfirmed || deps.client.dryRun) return;
  if (!deps.prompter)
    throw new UsageError(
      `Nothing was sent: ${what} would move real money in the live environment: pass --yes to confirm`,
      { hint: 'Or run it on a terminal to be asked' },
    );
  const ok = await deps.prompter.confirm({
    message: `LIVE environment, real money: ${what}. Send it?`,
    default: false,
  });
  if (!ok) throw new CancelledError('Cancelled at the live confirmation; nothing was sent');
  deps.liveConfirmed = true;
}

/** The steps after initiate, skipping those the journal says are done. */
async function continueFlow(
  record: JournalRecord,
  configs: GatewayConfiguration[] | undefined,
  inputs: FlowInputs,
  deps: FlowDeps,
  partial: Partial<FlowResult> = {},
  /** the merchant service of the transaction's currency, when known without an initiate answer */
  service?: MerchantService,
): Promise<FlowResult> {
  const rep = deps.reporter ?? silentReporter;
  const kind = record.kind;
  const hash = record.hash_token!;
  const result: FlowResult = { kind, reference: record.reference, hash_token: hash, ...partial };
  const walletCtx: WalletContext = {
    listed: deps.walletGateways,
    services: [partial.initiated?.merchant_service, service],
  };

  // Gateway: chosen now, or known from the journal when resuming.
  let gatewayId =
    inputs.gateway !== undefined ? Number(checked(fields.gateway, inputs.gateway)) : record.gateway_id;
  let gateway = configs?.find((c) => Number(c.gateway.id) === gatewayId)?.gateway;
  if (configs && (!gateway || gatewayId === undefined)) {
    const chosen = await chooseGateway(configs, inputs, deps, walletCtx);
    gateway = chosen.gateway;
    gatewayId = Number(chosen.gateway.id);
  }
  if (gatewayId === undefined)
    throw new UsageError('Missing --gateway', {
      fields: { gateway_id: ['required'] },
      hint: 'The journal does not know which gateway was chosen',
    });
  result.gateway = {
    id: gatewayId,
    name: gateway?.name ?? record.gateway_name ?? String(gatewayId),
    payment_method: gateway?.payment_method,
  };
  if (!deps.client.dryRun && (!stepDone(record, 'gateway') || record.gateway_id !== gatewayId)) {
    // A local step: the choice is recorded so that a resumed flow keeps it.
    deps.journal.append({
      reference: record.reference,
      kind,
      step: 'gateway',
      outcome: 'ok',
      hash_token: hash,
      data: { gateway_id: gatewayId, gateway_name: result.gateway.name },
    });
  }

  const wallet = gateway ? needsWalletUpdate(gateway, inputs.wallet, walletCtx) : (inputs.wallet ?? false);
  if (wallet && !stepDone(record, 'wallet')) {
    const why = inputs.wallet
      ? 'asked for'
      : gateway
        ? (walletReason(gateway, walletCtx) ?? 'asked for')
        : 'asked for';
    rep.step(`Wallet address update (${why})`);
    result.wallet = await walletStep(record, hash, gatewayId, deps);
    rep.info(
      `  send to ${result.wallet.wallet_address}${result.wallet.network ? ` (${result.wallet.code ?? ''} on ${result.wallet.network})` : ''}`,
    );
    await rep.address(result.wallet.wallet_address, gateway ? isCrypto(gateway) : false);
  }

  if (!stepDone(record, 'status')) {
    rep.step('Status update');
    // Processed needs status initiated, so inside a flow the update keeps it and binds the gateway.
    result.status_update = await statusStep(record, hash, gatewayId, 'initiated', deps);
    rep.info(`  transaction ${result.status_update.transaction_id}: ${result.status_update.status}`);
  }

  return processStage(record, inputs, deps, result);
}

/** The processed step (with the one-time code on withdraw), alone or as the end of a flow. */
export async function processStage(
  record: JournalRecord,
  inputs: FlowInputs,
  deps: FlowDeps,
  result: FlowResult = { kind: record.kind, reference: record.reference, hash_token: record.hash_token },
): Promise<FlowResult> {
  const rep = deps.reporter ?? silentReporter;
  const hash = record.hash_token!;
  rep.step(record.kind === 'deposit' ? 'Deposit processed' : 'Withdraw processed');
  const customer = record.customer ?? {};
  const phone = await ask(deps, phoneNumber, inputs.phoneNumber, 'Phone number for the payment', {
    default: inputs.phone ?? customer.phone,
  });
  const receiverEmail = await ask(
    deps,
    fields.receiverEmail,
    inputs.receiverEmail,
    'Receiver e-mail for the confirmation (optional)',
    { optional: true },
  );
  if (record.kind === 'deposit') {
    result.transaction = await repeatOfUnknown(record, ['processed'], () =>
      depositProcessStep(record, hash, phone!, receiverEmail, deps),
    );
    return done(result, rep);
  }
  const email = (await ask(
    deps,
    fields.email,
    inputs.email ?? customer.email,
    'Customer e-mail (the one-time code goes there)',
  ))!;
  return finishWithdraw(record, { hash, phone: phone!, email, receiverEmail }, inputs, deps, result);
}

async function finishWithdraw(
  record: JournalRecord,
  req: { hash: string; phone: string; email: string; receiverEmail?: string },
  inputs: FlowInputs,
  deps: FlowDeps,
  result: FlowResult,
): Promise<FlowResult> {
  const rep = deps.reporter ?? silentReporter;
  // The code is asked for once; a resumed flow whose code was already sent goes straight to it.
  if (!stepDone(record, 'otp')) {
    const first = await repeatOfUnknown(record, ['otp', 'processed'], () =>
      withdrawProcessStep(record, req, deps),
    );
    if (!first.otpSent) {
      result.transaction = first.transaction;
      return done(result, rep);
    }
    rep.info(`  ${first.message}`);
  } else {
    rep.info(`  a one-time code was already sent to ${req.email}`);
  }
  if (inputs.otp !== undefined) {
    const otp = checked(fields.otp, inputs.otp);
    const res = await repeatOfUnknown(record, ['processed'], () =>
      withdrawProcessStep(record, { ...req, otp }, deps),
    );
    if (res.otpSent) throw new UsageError('The API sent a new code instead of taking the one given');
    result.transaction = res.transaction;
    return done(result, rep);
  }
  if (!deps.prompter) {
    result.next = 'otp';
    result.status = 'initiated';
    result.resume = `${deps.command ?? 'mpay withdraw'} process ${req.hash} --otp <CODE>`;
    result.message = `A one-time code was sent to ${req.email}. Resume with: ${result.resume}`;
    rep.info(`  ${result.message}`);
    return result;
  }
  for (let attempt = 1; attempt <= 3; attempt++) {
    const otp = await deps.prompter.password({
      message: `One-time code sent to ${req.email}`,
      validate: (v) => problem(fields.otp, v) ?? true,
    });
    try {
      const res = await withdrawProcessStep(record, { ...req, otp: checked(fields.otp, otp) }, deps);
      if (res.otpSent) throw new UsageError('The API sent a new code instead of taking the one given');
      result.transaction = res.transaction;
      return done(result, rep);
    } catch (err) {
      if (!(err instanceof ValidationError && err.fields.otp) || attempt === 3) throw err;
      rep.info(
        `  wrong code (${err.fields.otp.join(' ')}); ${3 - attempt} ${3 - attempt === 1 ? 'try' : 'tries'} left`,
      );
    }
  }
  throw new UsageError('unreachable');
}

function done(result: FlowResult, rep: Reporter): FlowResult {
  const t = result.transaction!;
  result.status = t.status;
  rep.step(`Done: ${result.kind} ${t.transaction_id} is ${t.status}`);
  rep.info(
    `  ${t.amount ?? ''} ${t.currency_code ?? ''} (net ${t.net_amount ?? '?'}, fee ${t.fee_amount ?? '?'}) via ${t.payment_method ?? result.gateway?.name ?? '?'}`,
  );
  return result;
}

// Resume ---------------------------------------------------------------------------------------------

/** Picks a flow up at its next step, from what the journal knows. */
export async function resumeFlow(
  kind: Kind,
  key: string,
  inputs: FlowInputs,
  deps: FlowDeps,
): Promise<FlowResult> {
  const record = deps.journal.find(key);
  if (!record)
    throw new UsageError(`Nothing in the journal for "${key}"`, {
      hint: 'See `mpay history` for what mpay knows',
    });
  if (record.kind !== kind)
    throw new UsageError(`${key} is a ${record.kind}, not a ${kind}`, {
      hint: `Use \`mpay ${record.kind} --resume ${key}\``,
    });
  const rep = deps.reporter ?? silentReporter;
  if (stepDone(record, 'processed')) {
    throw new UsageError(
      `The ${title(kind)} ${record.reference} is already processed (status ${record.status ?? 'pending'})`,
      { hint: `mpay history show ${record.reference}` },
    );
  }
  await confirmLive(deps, `resuming the ${title(kind)} ${record.reference}`);
  if (!record.hash_token) {
    // Initiate never answered: send it again with the same reference; the API refuses a duplicate.
    rep.step(
      `Resuming ${record.reference}: initiate had no answer; sending it again with the same reference`,
    );
    const c = record.customer ?? {};
    const initiated = await repeatOfUnknown(record, ['initiate'], () =>
      initiateStep(
        kind,
        {
          currency_code: record.currency!,
          country_code: record.country!,
          customer_first_name: c.first_name!,
          customer_last_name: c.last_name,
          customer_phone: c.phone!,
          customer_email: c.email!,
          customer_transaction_id: record.reference,
          amount: record.amount!,
        },
        deps,
      ),
    );
    return continueFlow(deps.journal.find(record.reference)!, initiated.gateway_configuration, inputs, deps, {
      initiated,
    });
  }
  rep.step(`Resuming ${record.reference} (hash token ${record.hash_token})`);
  // The journal keeps the gateway id, not its record: the merchant currency list has the record, which
  // the wallet rule reads.
  const list = await rep.wait('Reading the merchant currencies', deps.client.merchantCurrencies());
  const currency = list.find(
    (c) => c.code === record.currency && (!record.country || c.country?.code === record.country),
  );
  const configs = currency?.getway_configuration?.filter((g) => g.type === gatewayType(kind));
  return continueFlow(record, configs, inputs, deps, {}, currency?.service ?? undefined);
}
