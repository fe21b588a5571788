// Checks of every value a person or a script gives, before any request: a bad value is a usage error
// that names its flag. The spec gives no formats for phones, emails or references, so these are the
// forms a payment API can be expected to take, and no wider.
import { UsageError } from '../../common/errors.js';
import { domainToASCII } from 'node:url';
import type { FlowInputs } from '../types.js';

export interface Field {
  /** the flag that carries it, for the error message */
  flag: string;
  /** the API field, for the JSON error's `fields` */
  field: string;
  check: (v: string) => string | undefined;
  normalize?: (v: string) => string;
}

// eslint-disable-next-line no-control-regex
const control = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const limit = (n: number) => (v: string) => (v.length > n ? `at most ${n} characters` : undefined);
const pattern = (re: RegExp, what: string) => (v: string) => (re.test(v) ? undefined : what);

export const fields = {
  amount: {
    flag: '--amount',
    field: 'amount',
    // The form only: how large is for the merchant currency's limits to say ("above the maximum").
    check: pattern(
      /^(?:0|[1-9]\d*)(?:\.\d{1,2})?$/,
      'a positive decimal with up to 2 decimals, no sign, commas or exponent (e.g. 25 or 25.50)',
    ),
    normalize: (v: string) => v.trim(),
  },
  currency: {
    flag: '--currency',
    field: 'currency_code',
    check: pattern(/^[A-Z]{3,5}$/, 'a currency code of 3 to 5 letters, e.g. GHS'),
    normalize: (v: string) => v.trim().toUpperCase(),
  },
  country: {
    flag: '--country',
    field: 'country_code',
    check: pattern(/^[A-Z]{2}$/, 'an ISO 2-letter country code, e.g. GH'),
    normalize: (v: string) => v.trim().toUpperCase(),
  },
  firstName: {
    flag: '--first-name',
    field: 'customer_first_name',
    check: (v: string) => name(v),
    normalize: (v: string) => v.trim(),
  },
  lastName: {
    flag: '--last-name',
    field: 'customer_last_name',
    check: (v: string) => name(v),
    normalize: (v: string) => v.trim(),
  },
  phone: {
    flag: '--phone',
    field: 'customer_phone',
    // International (+ or 00 and the country code), or national with its 0: the flow adds the country's
    // dial code to a national number (internationalPhone).
    check: pattern(
      /^(?:\+[1-9]\d{5,14}|00[1-9]\d{5,14}|0[1-9]\d{4,13}|[1-9]\d{5,14})$/,
      'a phone number: international (+233201234567) or national with its 0 (0201234567)',
    ),
    normalize: (v: string) => v.trim().replace(/[\s().-]/g, ''),
  },
  email: {
    flag: '--email',
    field: 'customer_email',
    check: (v: string) => email(v),
    normalize: (v: string) => v.trim(),
  },
  receiverEmail: {
    flag: '--receiver-email',
    field: 'receiver_email',
    check: (v: string) => email(v),
    normalize: (v: string) => v.trim(),
  },
  reference: {
    flag: '--reference',
    field: 'customer_transaction_id',
    check: pattern(
      /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
      'letters, digits and . _ : - (up to 64), starting with a letter or digit',
    ),
  },
  hashToken: {
    flag: 'HASH_TOKEN',
    field: 'hash_token',
    check: pattern(/^[A-Za-z0-9]{8,128}$/, 'letters and digits only (8 to 128), as initiate returned it'),
  },
  gateway: {
    flag: '--gateway',
    field: 'gateway_id',
    check: pattern(/^[1-9]\d{0,9}$/, 'a gateway id, a positive whole number'),
  },
  otp: {
    flag: '--otp',
    field: 'otp',
    check: pattern(/^\d{4,8}$/, 'the one-time code: 4 to 8 digits'),
    normalize: (v: string) => v.trim(),
  },
} satisfies Record<string, Field>;

export const phoneNumber: Field = { ...fields.phone, flag: '--phone-number', field: 'phone_number' };

function name(v: string): string | undefined {
  if (!v) return 'must not be empty';
  if (control.test(v)) return 'must not contain control or formatting characters';
  if (!/^[\p{L}\p{M}][\p{L}\p{M}' .-]*$/u.test(v))
    return 'letters, spaces, apostrophes, dots and hyphens only';
  return limit(100)(v);
}

/**
 * An address as RFC 5322 writes a dot-atom, with the UTF-8 letters RFC 6531 allows: a local part of
 * letters, digits and !#$%&'*+/=?^_`{|}~- in runs joined by single dots (o'brien, zoë; not a..b or .a),
 * and a domain that IDNA accepts (exämple.com) with two labels at least and a top-level one of letters.
 */
function email(v: string): string | undefined {
  if (v.length > 254) return 'at most 254 characters';
  const bad = 'an e-mail address such as ama@example.com';
  const at = v.lastIndexOf('@');
  if (control.test(v) || at < 1) return bad;
  const local = v.slice(0, at);
  const domain = v.slice(at + 1);
  if (
    local.length > 64 ||
    !/^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u.test(local)
  )
    return bad;
  const ascii = /^[\p{L}\p{N}.-]+$/u.test(domain) ? domainToASCII(domain) : '';
  const labels = ascii.split('.');
  if (
    labels.length < 2 ||
    !labels.every((l) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l)) ||
    !/[A-Za-z]/.test(labels.at(-1)!)
  )
    return bad;
  return undefined;
}

/** The reason a value is bad, or undefined; for prompts' validate callbacks. */
export function problem(f: Field, raw: string): string | undefined {
  const v = f.normalize ? f.normalize(raw) : raw;
  return f.check(v);
}

/** The normalized value, or a usage error naming the flag. */
export function checked(f: Field, raw: string): string {
  const v = f.normalize ? f.normalize(raw) : raw;
  const why = f.check(v);
  if (why) {
    const shown = JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
    throw new UsageError(`Invalid ${f.flag} ${shown}: ${why}`, { fields: { [f.field]: [why] } });
  }
  return v;
}

/** A one-time code that passed its check: the type says it was checked, so nothing checks it again. */
export type Otp = string & { readonly checkedCode: unique symbol };

/** The code, checked once (a flag, stdin, a prompt or a row): a usage error naming --otp when it is bad. */
export function otpOf(raw: string): Otp {
  return checked(fields.otp, raw) as Otp;
}

/** A gateway id as given (a flag, a row), checked once: a number from here on. */
export function gatewayOf(raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : Number(checked(fields.gateway, raw));
}

/** A flow's inputs as a flag or a file row gives them: every value a string. */
export type RawInputs = Omit<FlowInputs, 'gateway' | 'otp'> & { gateway?: string; otp?: string };

/**
 * The one check of what came in, before anything is read or sent: each value given is checked (the first
 * bad one is a usage error naming its flag), the gateway becomes a number and the code an Otp. The values
 * keep their spelling: a flow normalizes each where it uses it, with what it then knows (a phone's dial
 * code comes from the currency).
 */
export function parseInputs(raw: RawInputs): FlowInputs {
  const text: Record<string, Field> = {
    currency: fields.currency,
    country: fields.country,
    amount: fields.amount,
    firstName: fields.firstName,
    lastName: fields.lastName,
    phone: fields.phone,
    email: fields.email,
    reference: fields.reference,
    receiverEmail: fields.receiverEmail,
    phoneNumber,
  };
  for (const [k, f] of Object.entries(text)) {
    const v = raw[k as keyof RawInputs];
    if (typeof v === 'string') checked(f, v);
  }
  const { gateway, otp, ...rest } = raw;
  return {
    ...rest,
    ...(gateway !== undefined && { gateway: gatewayOf(gateway) }),
    ...(otp !== undefined && { otp: otpOf(otp) }),
  };
}

/** A reference unique enough to never collide: time, then randomness. */
export function newReference(kind: 'deposit' | 'withdraw', random: () => string): string {
  return `mpay-${kind === 'deposit' ? 'd' : 'w'}-${Date.now().toString(36)}-${random()}`;
}
