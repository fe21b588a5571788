// The tools `mpay mcp` offers, in one table: each one's name, what it says it does (and whether it moves
// money), its input schema and its run. The input schemas are made of the checks the commands use
// (flows/inputs.ts `fields`, api/schemas.ts's statuses), so a value a flag would refuse is refused here too,
// naming the argument. The runs are the flows the commands run; a money tool's gate and one-time code come
// from the call (mcp/server.ts). When the endpoint table (api/endpoints.ts) lands, this is the module that
// reads it.
import * as z from 'zod/mini';
import { historyStatuses, paymentKinds, transactionStatuses } from '../api/enums.js';
import { UsageError } from '../api/errors.js';
import { fields, otpOf, phoneNumber, problem, type Field } from '../flows/inputs.js';
import type { FlowDeps, FlowInputs, FlowResult } from '../flows/types.js';
import type { JournalRecord } from '../journal/records.js';
import { fromFlowResult, fromRecord, stepEnvelope } from '../ui/envelope.js';

/** What a tool's run gets: the flow's dependencies of this call, and the questions it may ask the person. */
export interface ToolCall {
  deps: () => Promise<FlowDeps>;
  /** the one-time code of a withdrawal, asked through elicitation; undefined when the client cannot ask */
  askCode(email: string): Promise<string | undefined>;
  now(): Date;
  /** doctor: its checks, with the API-key check through the call's gate (or skipped, read-only) */
  doctor(checkApiKey: boolean): Promise<unknown>;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** sends a request that moves money (through the gate): left out with --read-only */
  money: boolean;
  input: z.ZodMiniObject;
  run(args: Record<string, unknown>, call: ToolCall): Promise<unknown>;
}

/** A string argument checked as its flag is: its reason, naming the argument, when it is bad. */
function arg(f: Field, description: string) {
  return z
    .string()
    .check(
      z.superRefine((v, ctx) => {
        const why = problem(f, v);
        if (why) ctx.addIssue({ code: 'custom', message: why, input: v });
      }),
    )
    .check(z.describe(description));
}

const opt = <T extends z.ZodMiniType>(t: T) => z.optional(t);

/** The argument each flow input comes from, and the field it checks as. */
const customer = {
  currency: arg(fields.currency, "currency code, one of the merchant's (see the balances tool), e.g. GHS"),
  country: opt(arg(fields.country, 'ISO 2-letter country code, when the currency is offered in several')),
  amount: arg(fields.amount, 'amount in the currency, e.g. 25 or 25.50'),
  first_name: arg(fields.firstName, "customer's first name"),
  last_name: opt(arg(fields.lastName, "customer's last name")),
  phone: arg(fields.phone, "customer's phone, international (+233201234567) or national with its 0"),
  email: arg(fields.email, "customer's e-mail (a withdrawal's one-time code goes there)"),
  reference: opt(arg(fields.reference, 'customer_transaction_id; mpay makes a unique one when left out')),
  gateway: opt(
    arg(fields.gateway, 'gateway id, one of those initiate offers (required when it offers several)'),
  ),
};
const processing = {
  phone_number: opt(arg(phoneNumber, 'phone for the payment (default: the customer phone)')),
  receiver_email: opt(arg(fields.receiverEmail, 'also send the confirmation to this e-mail')),
};
const otp = {
  otp: opt(
    arg(
      fields.otp,
      'the one-time code sent to the customer e-mail; when left out it is asked of the person through the client',
    ),
  ),
};
const key = {
  key: z
    .string()
    .check(z.minLength(1), z.describe('the hash token, or the reference of a transaction mpay started')),
};

/** Tool arguments as the flows take them (every value a string; the gateway a number, the code an Otp). */
export function flowInputs(a: Record<string, unknown>): FlowInputs {
  const s = (k: string) => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
  const out: FlowInputs = {
    currency: s('currency'),
    country: s('country'),
    amount: s('amount'),
    firstName: s('first_name'),
    lastName: s('last_name'),
    phone: s('phone'),
    email: s('email'),
    reference: s('reference'),
    receiverEmail: s('receiver_email'),
    phoneNumber: s('phone_number'),
    ...(typeof a.wallet === 'boolean' ? { wallet: a.wallet } : {}),
    ...(s('gateway') !== undefined ? { gateway: Number(s('gateway')) } : {}),
    ...(s('otp') !== undefined ? { otp: otpOf(s('otp')!) } : {}),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as FlowInputs;
}

/**
 * The flag each argument stands for, and the API field it is sent as: a flow's message says
 * `--first-name` and `customer_first_name`, the tool's says `first_name`.
 */
export const argumentOf: Record<string, string> = {
  '--currency': 'currency',
  '--country': 'country',
  '--amount': 'amount',
  '--first-name': 'first_name',
  '--last-name': 'last_name',
  '--phone': 'phone',
  '--email': 'email',
  '--reference': 'reference',
  '--gateway': 'gateway',
  '--phone-number': 'phone_number',
  '--receiver-email': 'receiver_email',
  '--otp': 'otp',
  '--status': 'status',
  HASH_TOKEN: 'key',
  currency_code: 'currency',
  country_code: 'country',
  customer_first_name: 'first_name',
  customer_last_name: 'last_name',
  customer_phone: 'phone',
  customer_email: 'email',
  customer_transaction_id: 'reference',
  gateway_id: 'gateway',
  hash_token: 'key',
};

type Ran = { result: FlowResult; record?: JournalRecord };

/** A whole withdrawal or its processed step: the code, given or asked, finishes it. */
async function withCode(
  first: Ran,
  a: Record<string, unknown>,
  call: ToolCall,
  deps: FlowDeps,
): Promise<Ran> {
  const { result } = first;
  if (result.next !== 'otp' || !result.hash_token) return first;
  const record = deps.journal.find(result.reference) ?? first.record;
  const email = record?.code_request?.customer_email ?? (a.email as string | undefined) ?? 'the customer';
  const code = await call.askCode(email);
  if (code === undefined) {
    // No code (the client cannot ask, or the person gave none): the assistant gives it to withdraw_process.
    return {
      ...first,
      result: {
        ...result,
        message: `A one-time code was sent to ${email}. Ask the person for it, then call withdraw_process with key ${result.reference} and otp`,
      },
    };
  }
  const { processByKey } = await import('../flows/single-step.js');
  const done = await processByKey(result.reference, 'withdraw', { otp: otpOf(code) }, deps, call.now());
  // what the flow learned before the code (its initiate, gateway, status update), and the end
  return {
    record: done.record,
    result: { ...result, ...done.result, next: undefined, resume: undefined, message: undefined },
  };
}

const envelope = (r: Ran) => fromFlowResult(r.result, r.record);

/** A flow that ends with the processed step: a withdrawal's code, given or asked, finishes it. */
async function paying(
  kind: 'deposit' | 'withdraw',
  a: Record<string, unknown>,
  call: ToolCall,
  start: (deps: FlowDeps) => Promise<Ran>,
) {
  const deps = await call.deps();
  const first = await start(deps);
  return envelope(kind === 'withdraw' ? await withCode(first, a, call, deps) : first);
}

function flowTool(kind: 'deposit' | 'withdraw'): Tool {
  const noun = kind === 'deposit' ? 'deposit' : 'withdrawal';
  return {
    name: kind,
    title: kind === 'deposit' ? 'Deposit' : 'Withdraw',
    description: `MOVES MONEY. Runs a whole ${noun}: initiate, the wallet address update when the gateway needs it, status update, processed${kind === 'withdraw' ? ' (with the one-time code sent to the customer e-mail, asked of the person or given as otp)' : ''}. Journaled before each request (mpay history); on a live server sent only after the person accepts the confirmation the client shows.`,
    money: true,
    input: z.strictObject({
      ...customer,
      ...processing,
      ...(kind === 'withdraw' ? otp : {}),
      wallet: opt(
        z
          .boolean()
          .check(
            z.describe(
              'force (true) or skip (false) the wallet address update; default: the gateway decides',
            ),
          ),
      ),
    }),
    async run(a, call) {
      const { runPaymentFlow } = await import('../flows/payment.js');
      return paying(kind, a, call, async (deps) => ({
        result: await runPaymentFlow(kind, flowInputs(a), deps),
      }));
    },
  };
}

const { gateway: _chosenLater, ...initiateArgs } = customer;

function initiateTool(kind: 'deposit' | 'withdraw'): Tool {
  const noun = kind === 'deposit' ? 'deposit' : 'withdrawal';
  return {
    name: `${kind}_initiate`,
    title: `${kind === 'deposit' ? 'Deposit' : 'Withdraw'}: initiate only`,
    description: `MOVES MONEY. The initiate step of a ${noun} alone: its hash token and the gateways it offers; continue with status_update, wallet_update and ${kind}_process. Journaled first; on a live server sent only after the person accepts.`,
    money: true,
    input: z.strictObject(initiateArgs),
    async run(a, call) {
      const { initiateStage } = await import('../flows/payment.js');
      return envelope({ result: await initiateStage(kind, flowInputs(a), await call.deps()) });
    },
  };
}

function processTool(kind: 'deposit' | 'withdraw'): Tool {
  return {
    name: `${kind}_process`,
    title: `${kind === 'deposit' ? 'Deposit' : 'Withdraw'}: processed step`,
    description: `MOVES MONEY. The processed step of a ${kind === 'deposit' ? 'deposit' : 'withdrawal'} already initiated (status initiated)${kind === 'withdraw' ? ': the API sends a one-time code to the customer e-mail, which is asked of the person (or given as otp), then confirms with it' : ''}. Journaled first; on a live server sent only after the person accepts.`,
    money: true,
    input: z.strictObject({
      ...key,
      ...processing,
      ...(kind === 'withdraw'
        ? { email: opt(arg(fields.email, 'customer e-mail, when the journal has none')), ...otp }
        : {}),
    }),
    async run(a, call) {
      const { processByKey } = await import('../flows/single-step.js');
      return paying(kind, a, call, (deps) =>
        processByKey(a.key as string, kind, flowInputs(a), deps, call.now()),
      );
    },
  };
}

const gatewayArg = {
  gateway: opt(arg(fields.gateway, 'gateway id (default: the one the journal recorded)')),
};

/** A read of one of the API's lists, as its command reads it. */
function list(
  name: string,
  title: string,
  description: string,
  read: (client: FlowDeps['client']) => Promise<unknown>,
): Tool {
  return {
    name,
    title,
    description: `${description} Moves no money.`,
    money: false,
    input: z.strictObject({}),
    run: async (_a, call) => read((await call.deps()).client),
  };
}

export const tools: Tool[] = [
  list('countries', 'Countries', 'Reads the public list of supported countries.', (c) => c.publicCountries()),
  list('currencies', 'Currencies', 'Reads the public list of supported currencies and their limits.', (c) =>
    c.publicCurrencies(),
  ),
  list(
    'balances',
    "The merchant's currencies and balances",
    "Reads the merchant's own currencies: balance (total_balance), deposit and withdraw limits, and the gateways open to each.",
    (c) => c.merchantCurrencies(),
  ),
  {
    name: 'history',
    title: 'History',
    description:
      'The transactions mpay started at this profile and environment, newest first, from mpay\'s journal (those started through mpay mcp carry via: "mpay mcp"). Moves no money.',
    money: false,
    input: z.strictObject({
      kind: opt(z.enum(paymentKinds).check(z.describe('deposit or withdraw'))),
      status: opt(z.enum(historyStatuses).check(z.describe('a status as history shows it'))),
      limit: opt(
        z.int().check(z.positive(), z.maximum(1000), z.describe('how many, newest first (default 30)')),
      ),
    }),
    async run(a, call) {
      const { statusShown } = await import('../journal/records.js');
      const { journal } = await call.deps();
      const out: JournalRecord[] = [];
      const limit = (a.limit as number | undefined) ?? 30;
      for (const r of (journal as import('../journal/journal.js').Journal).newest({})) {
        if (out.length >= limit) break;
        if (r.probe && !r.hash_token) continue;
        if (a.kind && r.kind !== a.kind) continue;
        if (a.status && statusShown(r) !== a.status) continue;
        out.push(r);
      }
      return out;
    },
  },
  {
    name: 'transaction',
    title: 'One transaction',
    description:
      "What mpay's journal knows of one transaction it started, by its reference or hash token: its steps, status and customer. Moves no money.",
    money: false,
    input: z.strictObject(key),
    async run(a, call) {
      const { journal } = await call.deps();
      const r = journal.find(a.key as string);
      if (!r)
        throw new UsageError(`Nothing in the journal for "${String(a.key)}"`, {
          fields: { key: ['not in the journal'] },
          hint: 'The history tool lists the transactions mpay started',
        });
      return fromRecord(r, { message: null, resume: null });
    },
  },
  {
    name: 'doctor',
    title: 'Doctor',
    description:
      "Checks the server, the credentials, the token and the merchant's currencies. Its API-key check is a withdraw initiate of the credentials alone (which the API refuses, creating nothing): it is journaled, passes the money gate, is skipped on a live server unless check_api_key, and is left out with mpay mcp --read-only.",
    money: false,
    input: z.strictObject({
      check_api_key: opt(
        z
          .boolean()
          .check(z.describe('on a live server, send the API-key check too (the person is asked first)')),
      ),
    }),
    run: (a, call) => call.doctor(a.check_api_key === true),
  },
  flowTool('deposit'),
  flowTool('withdraw'),
  initiateTool('deposit'),
  initiateTool('withdraw'),
  processTool('deposit'),
  processTool('withdraw'),
  {
    name: 'status_update',
    title: 'Status update',
    description:
      'MOVES MONEY. Updates the status of a transaction in status initiated (payment status update). Journaled first; on a live server sent only after the person accepts.',
    money: true,
    input: z.strictObject({
      ...key,
      status: z.enum(transactionStatuses).check(z.describe('the status to set')),
      ...gatewayArg,
    }),
    async run(a, call) {
      const { statusStep } = await import('../flows/steps.js');
      const { stepTarget, stepGateway } = await import('../flows/single-step.js');
      const { record, deps } = stepTarget(a.key as string, undefined, await call.deps(), call.now());
      const gateway = stepGateway(record, a.gateway === undefined ? undefined : Number(a.gateway));
      const status = a.status as (typeof transactionStatuses)[number];
      const r = await statusStep(record, record.hash_token!, gateway, status, deps);
      return stepEnvelope(record, gateway, { status: r.status, status_update: r });
    },
  },
  {
    name: 'wallet_update',
    title: 'Crypto wallet address update',
    description:
      'MOVES MONEY. The crypto wallet address update of a transaction in status initiated, for the gateways that need it before the status update. Journaled first; on a live server sent only after the person accepts.',
    money: true,
    input: z.strictObject({ ...key, ...gatewayArg }),
    async run(a, call) {
      const { walletStep } = await import('../flows/steps.js');
      const { stepTarget, stepGateway } = await import('../flows/single-step.js');
      const { record, deps } = stepTarget(a.key as string, undefined, await call.deps(), call.now());
      const gateway = stepGateway(record, a.gateway === undefined ? undefined : Number(a.gateway));
      const w = await walletStep(record, record.hash_token!, gateway, deps);
      return stepEnvelope(record, gateway, { status: 'initiated', wallet: w });
    },
  },
];

/** The tools a server offers: the read tools alone with --read-only. */
export const offered = (readOnly: boolean): Tool[] => tools.filter((t) => !readOnly || !t.money);
