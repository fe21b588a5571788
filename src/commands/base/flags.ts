// The flag tables the oclif commands share, and the one place each turns into the Options a run function
// takes (each command's run.ts). Knows oclif; holds no business logic.
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import type { FlowInputs } from '../../flows/types.js';
import type { ListOptions } from '../../ui/list-output.js';
import type { BatchOptions } from '../../flows/batch/batch-run.js';
import { defaultConcurrency, maxConcurrency } from '../../flows/batch/concurrency.js';
import { parseInputs } from '../../flows/payment/inputs.js';
import { checkOutputFolder } from '../../common/out-file.js';

/** The transaction a single step acts on. */
export const hashTokenArg = {
  hash_token: Args.string({
    description: 'hash token from initiate (or the reference, when mpay started it)',
    required: true,
  }),
};

/** On every command that sends a POST. */
export const dryRunFlag = {
  'dry-run': Flags.boolean({
    description: 'print the request (redacted, and as curl) instead of sending it',
  }),
};

export const outputFlags = {
  csv: Flags.boolean({ description: 'print CSV on stdout', exclusive: ['json'] }),
  columns: Flags.string({ description: 'comma-separated columns to show (table and CSV)' }),
  filter: Flags.string({
    description: 'keep rows where KEY=VALUE (repeatable; case-insensitive)',
    multiple: true,
  }),
  wide: Flags.boolean({ description: 'every column, not only the default ones' }),
};

export const customerFlags = {
  currency: Flags.string({ description: 'currency code, from the merchant currency list (e.g. GHS)' }),
  country: Flags.string({ description: 'ISO 2-letter country code (e.g. GH)' }),
  amount: Flags.string({ description: 'amount in the currency (e.g. 25.50)' }),
  'first-name': Flags.string({ description: 'customer first name' }),
  'last-name': Flags.string({ description: 'customer last name (optional)' }),
  phone: Flags.string({
    description:
      "customer phone: international (+233201234567), or national with its 0 (the country's dial code is added)",
  }),
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
  gateway: Flags.string({
    description: 'gateway id, one of those initiate returns (the ids per currency: mpay balances --wide)',
  }),
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

export const otpFlags = {
  otp: Flags.string({ description: 'the one-time code, when you already have it' }),
  'otp-stdin': Flags.boolean({ description: 'read the one-time code from stdin', exclusive: ['otp'] }),
};

interface FlowFlagValues {
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

/** The flow's inputs, named as the flows name them, checked once here (parseInputs). */
export function inputsFrom(f: FlowFlagValues): FlowInputs {
  return parseInputs({
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
  });
}

export function listOptionsFrom(f: {
  json?: boolean;
  csv?: boolean;
  columns?: string;
  filter?: string[];
  wide?: boolean;
}): ListOptions {
  return { json: f.json, csv: f.csv, columns: f.columns, filter: f.filter, wide: f.wide };
}

/** The argument and flags of `mpay deposit batch` and `mpay withdraw batch`. */
export const batchArgs = { file: Args.string({ description: 'the file, or - for stdin', required: true }) };
export const batchFlags = {
  format: Flags.string({
    description: 'csv or ndjson (default: by the extension)',
    options: ['csv', 'ndjson'],
  }),
  concurrency: Flags.integer({
    description: `rows at a time, 1 to ${maxConcurrency} (fewer while the server rate-limits)`,
    default: defaultConcurrency,
    min: 1,
    max: maxConcurrency,
  }),
  out: Flags.string({
    description: "also write the results to FILE (.csv or .ndjson), in the file's row order",
  }),
  'dry-run': Flags.boolean({ description: 'check every row and print the summary; send nothing' }),
  force: Flags.boolean({ description: "send amounts outside the currency's limits anyway" }),
  'allow-repeats': Flags.boolean({
    description:
      'send rows like ones sent in the last seven days (same customer, amount, currency) under other references',
  }),
  'new-batch': Flags.boolean({
    description:
      'rows of this file sent before with another server, merchant or profile are sent here as new ones',
  }),
  // a batch prints a record a line, not one document: the global flag's help would not be true here
  json: Flags.boolean({
    description: "one JSON record a line on stdout (NDJSON): each problem, or each row's result",
    helpGroup: 'GLOBAL',
  }),
};
/**
 * `mpay withdraw batch confirm`: the same, less --force (the amounts were checked when the rows began) and
 * --new-batch (a code confirms a withdrawal where it was made, nowhere else).
 */
const {
  force: _force,
  'new-batch': _newBatch,
  'allow-repeats': _allowRepeats,
  ...confirmFlagsLessForce
} = batchFlags;
export const confirmFlags = confirmFlagsLessForce;

export function batchOptionsFrom(
  f: {
    json?: boolean;
    format?: string;
    concurrency: number;
    out?: string;
    'dry-run'?: boolean;
    force?: boolean;
    'new-batch'?: boolean;
    'allow-repeats'?: boolean;
  },
  file: string,
): BatchOptions {
  // before the rows are read and checked, a question asked or anything sent
  if (f.out) checkOutputFolder(f.out, 'the results');
  return {
    json: f.json,
    file,
    format: f.format as BatchOptions['format'],
    concurrency: f.concurrency,
    out: f.out,
    dryRun: f['dry-run'],
    force: f.force,
    newBatch: f['new-batch'],
    allowRepeats: f['allow-repeats'],
  };
}
