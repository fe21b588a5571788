// A tool's arguments, made from the endpoint table (api/endpoints.ts): each request field of an endpoint
// but the credentials the run supplies becomes the argument its flag names (`customer_first_name` is
// `--first-name`, so `first_name`), checked as the flag is (flows/payment/inputs.ts `fields`), or else by the
// request schema's own check of the field (the status update's statuses). What this file adds is what
// the table cannot say: what an argument means to the person's assistant, and which fields the flows
// fill in when a call leaves them out.
import * as z from 'zod/mini';
import { requestFields, type Endpoint } from '../api/endpoints.js';
import { fields, otpOf, phoneNumber, problem, type Field } from '../flows/payment/inputs.js';
import type { FlowInputs } from '../flows/types.js';

/** Every checked field of the flows' inputs, by the API field it is sent as. */
const checks: readonly Field[] = [...Object.values(fields), phoneNumber];

/** The argument a flag stands for: `--first-name` is first_name; the hash token's is `key`. */
const argumentName = (f: Field) =>
  f.flag === 'HASH_TOKEN' ? 'key' : f.flag.replace(/^--/, '').replace(/-/g, '_');

/**
 * The flag and the API field each argument stands for, and the argument: a flow's message says
 * `--first-name` and `customer_first_name`, the tool's says `first_name`.
 */
export const argumentOf: Readonly<Record<string, string>> = Object.fromEntries([
  ...checks.flatMap((f) => [
    [f.flag, argumentName(f)],
    [f.field, argumentName(f)],
  ]),
  ['--status', 'status'],
]);

/**
 * Where an argument is used: in a whole flow or an initiate (a new transaction), or in a step on a
 * transaction the journal holds (which supplies what it recorded).
 */
export type Use = 'new' | 'journaled';

/** A transaction mpay journaled, by its hash token or its reference (the `key` argument). */
export const transactionKey = z.string().check(z.minLength(1));

interface Meaning {
  /** what it is, for the assistant (by use, when it differs) */
  say: string | Record<Use, string>;
  /** the flow fills it in when the call leaves it out: always, or on a transaction the journal holds */
  filled?: 'always' | 'journaled';
  /** its check, when not the flag's (a key is a reference or a hash token) */
  check?: z.ZodMiniType;
}

/** What each API field means as an argument; a field not here is its request schema's, undescribed. */
const meanings: Readonly<Record<string, Meaning>> = {
  currency_code: { say: "currency code, one of the merchant's (see the balances tool), e.g. GHS" },
  country_code: {
    say: 'ISO 2-letter country code, when the currency is offered in several',
    filled: 'always',
  },
  amount: { say: 'amount in the currency, e.g. 25 or 25.50' },
  customer_first_name: { say: "customer's first name" },
  customer_last_name: { say: "customer's last name" },
  customer_phone: { say: "customer's phone, international (+233201234567) or national with its 0" },
  customer_email: {
    say: {
      new: "customer's e-mail (a withdrawal's one-time code goes there)",
      journaled: 'customer e-mail, when the journal has none',
    },
    filled: 'journaled',
  },
  customer_transaction_id: {
    say: 'customer_transaction_id; mpay makes a unique one when left out',
    filled: 'always',
  },
  gateway_id: {
    say: {
      new: 'gateway id, one of those initiate offers (required when it offers several)',
      journaled: 'gateway id (default: the one the journal recorded)',
    },
    filled: 'always',
  },
  phone_number: { say: 'phone for the payment (default: the customer phone)', filled: 'always' },
  receiver_email: { say: 'also send the confirmation to this e-mail' },
  otp: {
    say: 'the one-time code sent to the customer e-mail; when left out it is asked of the person through the client',
  },
  hash_token: {
    say: 'the hash token, or the reference of a transaction mpay started',
    check: transactionKey,
  },
  status: { say: 'the status to set' },
};

/** A string argument checked as its flag is: its reason, naming the argument, when it is bad. */
function checkedAs(f: Field) {
  return z.string().check(
    z.superRefine((v, ctx) => {
      const why = problem(f, v);
      if (why) ctx.addIssue({ code: 'custom', message: why, input: v });
    }),
  );
}

type Shape = Record<string, z.ZodMiniType>;

/** The arguments an endpoint's request makes, by their names, in its order (its credentials left out). */
export function argumentsOf(e: Endpoint, use: Use): Shape {
  const shape = (e.request as { shape?: Shape } | undefined)?.shape ?? {};
  const out: Shape = {};
  for (const field of requestFields(e)) {
    if (e.credentials.includes(field)) continue;
    const flag = checks.find((f) => f.field === field);
    const m = meanings[field];
    const own = shape[field]!;
    const type = m?.check ?? (flag ? checkedAs(flag) : own);
    const say = typeof m?.say === 'string' ? m.say : m?.say[use];
    const described = say ? type.check(z.describe(say)) : type;
    const optional =
      own._zod.def.type === 'optional' ||
      m?.filled === 'always' ||
      (m?.filled === 'journaled' && use === 'journaled');
    out[flag ? argumentName(flag) : field] = optional ? z.optional(described) : described;
  }
  return out;
}

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
