// The checks of an initiate request, in the order the API applies them: required fields, the merchant's
// credentials (a 403 on withdraw, a 422 on deposit), the e-mail and amount, the currency, its limits and
// the merchant's balance, and the uniqueness of the reference. The state stores what passes.
import type { PaymentKind } from '../api/enums.js';
import {
  emailPattern,
  messages,
  requiredMessage,
  shapeA,
  str,
  validationFailure,
  type Reply,
} from './replies.js';
import { demoMerchant, type CurrencySeed, type Seed } from './seed.js';

type Body = Record<string, unknown>;

/** The reply that refuses the request, or what the state needs to store it. */
export type InitiateCheck =
  | { reply: Reply }
  | { seed: CurrencySeed; amount: number; amountText: string; email: string; reference: string };

const requiredFields = [
  'merchant_key',
  'site_id',
  'api_key',
  'currency_code',
  'country_code',
  'customer_first_name',
  'customer_phone',
  'customer_email',
  'customer_transaction_id',
  'amount',
];

/** The credentials given that are not the demo merchant's. */
function wrongCredentials(body: Body): string[] {
  const wrong: string[] = [];
  if (str(body.merchant_key) && str(body.merchant_key) !== demoMerchant.merchantKey)
    wrong.push('merchant_key');
  if (str(body.site_id) && str(body.site_id) !== demoMerchant.siteId) wrong.push('site_id');
  if (str(body.api_key) && str(body.api_key) !== demoMerchant.apiKey) wrong.push('api_key');
  return wrong;
}

export function checkInitiate(
  kind: PaymentKind,
  body: Body,
  catalogSeed: Seed,
  balances: ReadonlyMap<string, number>,
  references: { has(reference: string): boolean },
): InitiateCheck {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  for (const f of requiredFields) if (str(body[f]) === undefined) add(f, requiredMessage(f));

  // Credentials: withdraw answers 403 for any of the three (spec, Authentication 3); deposit a 422 on the field.
  const badCreds = wrongCredentials(body);
  if (kind === 'withdraw' && badCreds.length > 0) {
    return {
      reply: { status: 403, body: { success: false, message: 'Invalid merchant credentials.', errors: [] } },
    };
  }
  for (const f of badCreds) add(f, `The selected ${f.replace(/_/g, ' ')} is invalid.`);

  const email = str(body.customer_email);
  if (email && !emailPattern.test(email))
    add('customer_email', 'The customer email must be a valid email address.');
  const amountText = str(body.amount);
  const amount = amountText === undefined ? NaN : Number(amountText);
  if (amountText !== undefined && (!Number.isFinite(amount) || amount <= 0))
    add('amount', 'The amount must be a positive number.');

  const code = str(body.currency_code)?.toUpperCase();
  const cc = str(body.country_code)?.toUpperCase();
  const seed = catalogSeed.currencies.find(
    (c) => c.currency.code === code && (!cc || c.currency.country?.code === cc),
  );
  if (code && !seed) {
    if (kind === 'withdraw' && Object.keys(errors).length === 0) {
      return {
        reply: { status: 412, body: { success: false, message: messages.currencyMissing, data: [] } },
      };
    }
    add('currency_code', 'The selected currency code is invalid.');
  }
  if (seed && Number.isFinite(amount) && amount > 0) checkAmount(kind, seed, amount, balances, add);

  const reference = str(body.customer_transaction_id);
  if (reference && references.has(reference))
    add('customer_transaction_id', 'The customer transaction id has already been taken.');
  if (Object.keys(errors).length > 0) return { reply: validationFailure(errors) };
  if (!seed || !reference || !email || amountText === undefined)
    return { reply: shapeA(500, messages.serverError) }; // unreachable: checked above
  return { seed, amount, amountText, email, reference };
}

function checkAmount(
  kind: PaymentKind,
  seed: CurrencySeed,
  amount: number,
  balances: ReadonlyMap<string, number>,
  add: (f: string, m: string) => void,
): void {
  const { currency: c, limits } = seed;
  if (kind === 'deposit') {
    if (!limits.deposite) return add('currency_code', 'Deposits are disabled for this currency.');
    if (amount < (c.minimum_deposite ?? 0))
      add('amount', `The amount must be at least ${c.minimum_deposite}.`);
    if (amount > (c.maximum_deposite ?? Infinity))
      add('amount', `The amount may not be greater than ${c.maximum_deposite}.`);
  } else {
    if (!limits.withdraw) return add('currency_code', 'Withdrawals are disabled for this currency.');
    if (amount < limits.min_withdraw) add('amount', `The amount must be at least ${limits.min_withdraw}.`);
    if (amount > limits.max_withdraw)
      add('amount', `The amount may not be greater than ${limits.max_withdraw}.`);
    if (amount > (balances.get(c.code) ?? 0))
      add('amount', 'The merchant balance is insufficient for this amount.');
  }
}
