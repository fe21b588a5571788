// What the deposit, withdraw, status and wallet commands share: their flags, the dependencies a flow
// needs, and how a flow's result is printed.
import * as Flags from '@oclif/core/flags';
import { text } from 'node:stream/consumers';
import type { Readable } from 'node:stream';
import type { FlowInputs, FlowResult } from '../flows/types.js';
import { renderRecord } from '../ui/output.js';

export const customerFlags = {
  currency: Flags.string({ description: 'currency code, from the merchant currency list (e.g. GHS)' }),
  country: Flags.string({ description: 'ISO 2-letter country code (e.g. GH)' }),
  amount: Flags.string({ description: 'amount in the currency (e.g. 25.50)' }),
  'first-name': Flags.string({ description: 'customer first name' }),
  'last-name': Flags.string({ description: 'customer last name (optional)' }),
  phone: Flags.string({ description: 'customer phone, international format (e.g. +233201234567)' }),
  email: Flags.string({ description: 'customer e-mail' }),
  reference: Flags.string({
    description: 'customer_transaction_id, unique per initiate (generated when not given)',
  }),
  force: Flags.boolean({ description: "send an amount outside the merchant currency's limits anyway" }),
};

export const processFlags = {
  'phone-number': Flags.string({ description: "phone number for processed (default: the customer's)" }),
  'receiver-email': Flags.string({ description: 'also send the confirmation to this e-mail' }),
};

export const flowFlags = {
  ...customerFlags,
  ...processFlags,
  gateway: Flags.string({ description: 'gateway id, one of those initiate returns' }),
  wallet: Flags.boolean({
    description: 'force (or with --no-wallet skip) the wallet address update',
    allowNo: true,
  }),
  resume: Flags.string({ description: 'pick up a stopped flow at its next step (hash token or reference)' }),
  'dry-run': Flags.boolean({
    description:
      'print the first request that would move money (redacted, and as curl) instead of sending it',
  }),
};

interface FlagBag {
  currency?: string;
  country?: string;
  amount?: string;
  'first-name'?: string;
  'last-name'?: string;
  phone?: string;
  email?: string;
  reference?: string;
  gateway?: string;
  'phone-number'?: string;
  'receiver-email'?: string;
  wallet?: boolean;
  otp?: string;
}

export function inputsFrom(f: FlagBag): FlowInputs {
  return {
    currency: f.currency,
    country: f.country,
    amount: f.amount,
    firstName: f['first-name'],
    lastName: f['last-name'],
    phone: f.phone,
    email: f.email,
    reference: f.reference,
    gateway: f.gateway,
    phoneNumber: f['phone-number'],
    receiverEmail: f['receiver-email'],
    wallet: f.wallet,
    otp: f.otp,
  };
}

export const otpFlags = {
  otp: Flags.string({ description: 'the one-time code, when you already have it' }),
  'otp-stdin': Flags.boolean({ description: 'read the one-time code from stdin', exclusive: ['otp'] }),
};
export interface OtpFlags {
  otp?: string;
  'otp-stdin'?: boolean;
}

/** --otp, or the code read from stdin with --otp-stdin. */
export async function otpInput(flags: OtpFlags, stdin: Readable): Promise<string | undefined> {
  if (!flags['otp-stdin']) return flags.otp;
  return (await text(stdin)).trim();
}

/** The flow's result: the whole object with --json, else its key facts. */
export async function flowSummary(r: FlowResult): Promise<string> {
  const t = r.transaction;
  return renderRecord({
    kind: r.kind,
    reference: r.reference,
    hash_token: r.hash_token,
    status: r.status,
    gateway: r.gateway ? `${r.gateway.id} ${r.gateway.name}` : undefined,
    wallet_address: r.wallet?.wallet_address,
    transaction_id: t?.transaction_id ?? r.status_update?.transaction_id,
    amount: t ? `${t.amount ?? ''} ${t.currency_code ?? ''}` : undefined,
    fee: t?.fee_amount,
    net: t?.net_amount,
    next: r.next,
    resume: r.resume,
  });
}
