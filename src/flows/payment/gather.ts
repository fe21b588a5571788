// Asking and parsing a flow's inputs, once: a flag's value, else a prompt's answer, else a usage error
// naming the flag. The currency is chosen from the merchant's own list and the amount checked against
// its limits before anything is sent.
import { gatewayTypeOf } from '../../api/enums.js';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../../common/errors.js';
import { nearest } from '../../common/nearest.js';
import type { MerchantCurrency } from '../../api/schemas.js';
import { type Kind } from '../../journal/records.js';
import { gatewayList } from './gateways.js';
import { checked, fields, newReference, problem, type Field } from './inputs.js';
import { internationalPhone, loadPhoneRules, phonePrompt } from './phones.js';

import { merchantCurrencies, silentReporter, title, type FlowDeps, type FlowInputs } from '../types.js';

// Inputs ---------------------------------------------------------------------------------------------

/**
 * Whether the flags named every value a flow needs (currency, amount, the customer's first name, phone
 * and e-mail, and the gateway): then the person has said all they mean to, and values that are optional
 * or have a default (last name, reference, payment phone, confirmation e-mail) are not asked for, as gh
 * asks only for what is missing.
 */
export function flagsComplete(inputs: FlowInputs): boolean {
  return [inputs.currency, inputs.amount, inputs.firstName, inputs.phone, inputs.email, inputs.gateway].every(
    (v) => v !== undefined && v !== '',
  );
}

/**
 * A flag's value, else a prompt's answer, else a usage error naming the flag. `settled`: the flags were
 * complete (flagsComplete), so an optional value or one with a default is taken without asking.
 */
export async function ask(
  deps: FlowDeps,
  f: Field,
  given: string | undefined,
  message: string,
  opts: { default?: string; optional?: boolean; settled?: boolean } = {},
): Promise<string | undefined> {
  if (given !== undefined && given !== '') return checked(f, given);
  if (!deps.prompter || (opts.settled && (opts.optional || opts.default !== undefined))) {
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

export function limitsOf(kind: Kind, c: MerchantCurrency): { min?: number | null; max?: number | null } {
  return kind === 'deposit'
    ? { min: c.minimum_deposite, max: c.maximum_deposite }
    : { min: c.min_withdraw, max: c.max_withdraw };
}

export function enabled(kind: Kind, c: MerchantCurrency): boolean {
  return (kind === 'deposit' ? c.deposite : c.withdraw) !== false;
}

/**
 * Why no merchant currency answers to this code (and country), when none does: the code is no currency of
 * the merchant's (with the nearest that is), or the country is none of the code's (with those it is
 * offered in). The text starts in lower case, as a batch's problem cell does; undefined when one matches.
 */
export function currencyMismatch(
  list: MerchantCurrency[],
  code: string,
  country: string | undefined,
): { field: 'currency' | 'country'; message: string; near?: string } | undefined {
  const byCode = list.filter((c) => c.code === code);
  if (byCode.length === 0) {
    const near = nearest(code, [...new Set(list.map((c) => c.code))])[0];
    return {
      field: 'currency',
      message: `unknown currency ${code}: not one of the merchant's currencies${near ? ` (the nearest: ${near})` : ''}`,
      near,
    };
  }
  if (!country || byCode.some((c) => c.country?.code === country)) return undefined;
  const where = [...new Set(byCode.map((c) => c.country?.code).filter((c): c is string => Boolean(c)))];
  const knownCountry = list.some((c) => c.country?.code === country);
  return {
    field: 'country',
    message: `${knownCountry ? `${code} is not offered in ${country}` : `unknown country ${country}: none of the merchant's currencies is in it`}; ${code} is offered in ${where.join(', ') || 'no country given'}`,
    near: where[0],
  };
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

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
    const mismatch = currencyMismatch(list, code, country);
    if (!deps.force) {
      const openList = `Open to ${title(kind)}s: ${open.map((c) => `${c.code} (${c.country?.code ?? '?'})`).join(', ') || 'none'}`;
      throw new UsageError(
        mismatch
          ? sentence(mismatch.message)
          : `${kind === 'deposit' ? 'Deposits' : 'Withdrawals'} are not enabled for ${code}${country ? ` in ${country}` : ''}`,
        {
          fields: mismatch
            ? { [mismatch.field === 'currency' ? 'currency_code' : 'country_code']: ['not available'] }
            : { currency_code: ['not available'] },
          // --force sends a currency that is known and closed; one that exists nowhere needs another code
          hint: !mismatch
            ? `${openList}; --force sends it anyway`
            : mismatch.near
              ? `Did you mean --${mismatch.field} ${mismatch.near}? ${openList}`
              : openList,
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

export function checkAmount(
  kind: Kind,
  amount: string,
  c: MerchantCurrency,
  deps: Pick<FlowDeps, 'force' | 'reporter'>,
): string | undefined {
  const n = Number(amount);
  const { min, max } = limitsOf(kind, c);
  const balance = kind === 'withdraw' ? c.total_balance : undefined;
  let why: string | undefined;
  if (min != null && n < min) why = `below the ${title(kind)} minimum of ${min} ${c.code}`;
  else if (max != null && n > max) why = `above the ${title(kind)} maximum of ${max} ${c.code}`;
  else if (balance != null && n > balance) why = `above the merchant balance of ${balance} ${c.code}`;
  if (why && deps.force) {
    // Even --force does not send a number that JSON and the API cannot hold exactly.
    if (amount.split('.')[0]!.length > 15) return `${why}, and too large to send exactly (at most 15 digits)`;
    deps.reporter?.info(`warning: ${amount} is ${why}; sending anyway (--force)`);
    return undefined;
  }
  if (!why && amount.split('.')[0]!.length > 15) return 'too large to send exactly (at most 15 digits)';
  return why;
}

export interface Gathered {
  currency: MerchantCurrency;
  /** the merchant's currencies as read for these inputs: the rest of the flow reads them from here */
  currencies: MerchantCurrency[];
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

/**
 * With nothing to ask on, every value the flow needs and did not get is named in one error, so a script
 * is fixed in one run rather than one flag per run. --gateway counts when the currency has more than one
 * gateway open (the flows; initiate alone takes none).
 */
function reportMissing(kind: Kind, inputs: FlowInputs, list: MerchantCurrency[], gateway: boolean): void {
  const required: Array<[keyof FlowInputs, string, string]> = [
    ['currency', '--currency', 'currency_code'],
    ['amount', '--amount', 'amount'],
    ['firstName', '--first-name', 'customer_first_name'],
    ['phone', '--phone', 'customer_phone'],
    ['email', '--email', 'customer_email'],
  ];
  const missing = required.filter(([k]) => inputs[k] === undefined || inputs[k] === '');
  let gateways: string | undefined;
  // A currency given that is not the merchant's is a problem of its own, named in the same error.
  const unknown =
    inputs.currency && !list.some((c) => c.code === inputs.currency!.trim().toUpperCase())
      ? inputs.currency.trim().toUpperCase()
      : undefined;
  if (gateway && inputs.gateway === undefined && inputs.currency) {
    const open = list
      .filter(
        (c) =>
          c.code === inputs.currency!.toUpperCase() &&
          (!inputs.country || c.country?.code === inputs.country.toUpperCase()),
      )
      .flatMap((c) => c.getway_configuration ?? [])
      .filter((g) => g.type === gatewayTypeOf(kind));
    // A currency that is not the merchant's opens no gateway to choose from: --gateway is named too,
    // so that the one run that fixes the currency does not meet a second error for the gateway.
    if (open.length > 1 || unknown) missing.push(['gateway', '--gateway', 'gateway_id']);
    // the ids to choose from, as an unknown currency names the merchant's currencies
    if (open.length > 1) gateways = gatewayList(open);
  }
  if (missing.length === 0) return;
  const fields: Record<string, string[]> = Object.fromEntries(
    missing.map(([, , field]) => [field, ['required']]),
  );
  if (gateways) fields.gateway_id = [`required: one of ${gateways}`];
  if (unknown)
    fields.currency_code = [
      `${unknown} is not one of the merchant's currencies (${[...new Set(list.map((c) => c.code))].join(', ') || 'none'})`,
    ];
  throw new UsageError(
    `Missing ${missing.map(([, flag]) => flag).join(', ')}${unknown ? `; and --currency ${unknown} is not one of the merchant's currencies` : ''}`,
    { fields, hint: 'Pass them as flags; with no terminal (or --no-input) mpay does not ask' },
  );
}

export async function gather(
  kind: Kind,
  inputs: FlowInputs,
  deps: FlowDeps,
  opts: { gateway?: boolean } = {},
): Promise<Gathered> {
  // The inputs were checked where they came in (parseInputs): a bad flag failed before any request.
  const list = await (deps.reporter ?? silentReporter).wait(
    'Reading the merchant currencies',
    merchantCurrencies(deps),
  );
  if (!deps.prompter) reportMissing(kind, inputs, list, opts.gateway ?? false);
  const currency = await chooseCurrency(kind, inputs, deps, list);
  const amount = await askAmount(kind, currency, inputs, deps);
  const customer = await askCustomer(currency, inputs, deps);
  const reference = (await ask(
    deps,
    fields.reference,
    inputs.reference,
    'Reference (customer_transaction_id)',
    {
      default: newReference(kind, () => randomBytes(3).toString('hex')),
      settled: flagsComplete(inputs),
    },
  ))!;
  return {
    currency,
    currencies: list,
    request: {
      currency_code: currency.code,
      country_code: checked(fields.country, inputs.country ?? currency.country?.code ?? ''),
      customer_first_name: customer.firstName,
      customer_last_name: customer.lastName,
      customer_phone: customer.phone,
      customer_email: customer.email,
      customer_transaction_id: reference,
      amount,
    },
  };
}

/** The amount, checked against the currency's limits (and the merchant's balance, on withdraw). */
async function askAmount(
  kind: Kind,
  currency: MerchantCurrency,
  inputs: FlowInputs,
  deps: FlowDeps,
): Promise<string> {
  const l = limitsOf(kind, currency);
  const amountField: Field = {
    ...fields.amount,
    check: (v) => fields.amount.check(v) ?? checkAmount(kind, v, currency, deps),
  };
  return (await ask(
    deps,
    amountField,
    inputs.amount,
    `Amount in ${currency.code} (${l.min ?? '?'}–${l.max ?? '?'})`,
  ))!;
}

/** The customer: names, e-mail, and a phone in international form (the currency's country's dial code). */
async function askCustomer(
  currency: MerchantCurrency,
  inputs: FlowInputs,
  deps: FlowDeps,
): Promise<{ firstName: string; lastName?: string; phone: string; email: string }> {
  const firstName = (await ask(deps, fields.firstName, inputs.firstName, 'Customer first name'))!;
  const lastName = await ask(deps, fields.lastName, inputs.lastName, 'Customer last name (optional)', {
    optional: true,
    settled: flagsComplete(inputs),
  });
  await loadPhoneRules();
  const country = currency.country?.code;
  const phone = (await ask(
    deps,
    internationalPhone(country),
    inputs.phone,
    phonePrompt('Customer phone', country),
  ))!;
  if (inputs.phone && phone !== fields.phone.normalize!(inputs.phone))
    (deps.reporter ?? silentReporter).info(
      `  phone ${inputs.phone} is ${phone} (numbering plan of ${country ?? '?'})`,
    );
  const email = (await ask(deps, fields.email, inputs.email, 'Customer e-mail'))!;
  return { firstName, lastName, phone, email };
}
