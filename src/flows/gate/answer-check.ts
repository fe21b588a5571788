// An answer about another transaction is never taken as this one's (issue 46): every answer a journaled
// step gets (flows, single steps, resume, batches, replay, `mpay api` and scenarios all send money
// through journaled.ts) is held against the record mpay keeps of the transaction it asked about: the
// reference (`customer_transaction_id`), and the kind, amount and currency where the answer carries them.
// A difference is the server's fault (exit 7, kind server): the step is journaled failed, saying what
// differed, and nothing after it is sent.
import { ServerError } from '../../common/errors.js';
import { shownValue } from '../../common/shell-words.js';
import type { JournalRecord, Kind, Step } from '../../journal/records.js';

/** What an answer says about the transaction it is about, where it says it. */
interface Named {
  reference?: string;
  type?: string;
  amount?: string;
  currency?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  Boolean(v) && typeof v === 'object' && !Array.isArray(v);

const textOf = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

/** The body of an answer: a parsed one (the client's calls), or a raw one's text (`mpay api`, replay). */
function bodyOf(result: unknown): unknown {
  if (isObject(result) && typeof result.text === 'string' && typeof result.status === 'number') {
    if (result.status >= 300) return undefined;
    try {
      return JSON.parse(result.text);
    } catch {
      return undefined;
    }
  }
  return result;
}

/**
 * What an answer names. The amount and currency are read only where they are the transaction's own: an
 * initiate's `amount` and `currency.code`, a status update's `initiate_amount` and `currency_code` (a
 * processed answer's amount is in the gateway's currency, a crypto amount say, and is not compared).
 */
function namedIn(result: unknown, step: Step): Named {
  const body = bodyOf(result);
  // a raw answer's `data`, or the client's call's result (its `data` already)
  const data = isObject(body) ? (isObject(body.data) ? body.data : body) : undefined;
  if (!data) return {};
  const currency = isObject(data.currency) ? textOf(data.currency.code) : undefined;
  return {
    reference: textOf(data.customer_transaction_id),
    type: step === 'status' ? textOf(data.type) : undefined,
    amount:
      step === 'initiate'
        ? textOf(data.amount)
        : step === 'status'
          ? textOf(data.initiate_amount)
          : undefined,
    currency: step === 'initiate' ? currency : step === 'status' ? textOf(data.currency_code) : undefined,
  };
}

/** The gateway type each kind goes through (the API's word for it in a status update's answer). */
const typeOfKind: Record<Kind, string> = { deposit: 'collection', withdraw: 'disbursement' };

// As numbers where the answer's is one (25 is 25.00), else as text, blanks aside. Two texts equal but for
// blanks are the same number, so a number never equals a text that is not one, whichever way it is read.
const sameAmount = (a: string, b: string) => {
  const x = Number(a);
  return Number.isFinite(x) ? x === Number(b) : a.trim() === b.trim();
};

/** Each way the answer differs from the record, as `field: the answer's (this transaction's)`. */
export function differences(
  result: unknown,
  at: { reference?: string; kind: Kind; step: Step },
  record: Pick<JournalRecord, 'amount' | 'currency'> | undefined,
): string[] {
  const named = namedIn(result, at.step);
  const out: string[] = [];
  const say = (field: string, answer: string, ours: string) =>
    out.push(`${field} ${shownValue(answer)} (this transaction's is ${shownValue(ours)})`);
  if (named.reference !== undefined && at.reference !== undefined && named.reference !== at.reference)
    say('customer_transaction_id', named.reference, at.reference);
  const type = typeOfKind[at.kind];
  if (named.type !== undefined && type && named.type.toLowerCase() !== type) say('type', named.type, type);
  if (named.amount !== undefined && record?.amount !== undefined && !sameAmount(named.amount, record.amount))
    say('amount', named.amount, record.amount);
  if (
    named.currency !== undefined &&
    record?.currency !== undefined &&
    named.currency.toUpperCase() !== record.currency.toUpperCase()
  )
    say('currency', named.currency, record.currency);
  return out;
}

/** The error of an answer about another transaction: the server's (exit 7), saying what differed. */
export function anotherTransaction(
  label: string,
  at: { reference: string; hash_token?: string },
  differ: string[],
): ServerError {
  return new ServerError(
    `The answer to ${label} for ${shownValue(at.reference)} is about another transaction: ${differ.join('; ')}. mpay took it as no answer for this one, and sent nothing after it`,
    {
      hint: `Ask the provider which transaction${at.hash_token ? ` the hash token ${shownValue(at.hash_token)}` : ''} belongs to before anything else is sent for ${shownValue(at.reference)}; the journal records this step as failed with what differed`,
    },
  );
}
