// A way out of unknown rows (`mpay history resolve`): a request that had no answer may or may not have
// been applied, and mpay will not guess. A person finds out (the provider, the merchant's dashboard) and
// settles it, journaled: `not-sent` (the next run sends it again), `landed` or `abandoned` (no longer
// counted, never continued). Or asks the API, opt-in, for an initiate: the spec makes a reference unique
// (docs/spec-readings.md), so the same initiate sent again is refused on `customer_transaction_id` if the
// first one landed.
import { MpayError, UsageError } from '../../common/errors.js';
import type { JournalLike } from '../../journal/journal.js';
import {
  landedUnfinished,
  resolvedAsEnded,
  settled,
  type JournalRecord,
  type Place,
  type Resolution,
} from '../../journal/records.js';
import { holdTransaction } from '../gate/money-gate.js';
import { historyResolveCommand, historyShowCommand, resumeCommand } from '../standing.js';
import { initiateStep } from '../payment/steps.js';
import { title, type FlowDeps } from '../types.js';

/** The request of a record that had no answer, if its last one had none: the step's name. */
export function unanswered(r: JournalRecord): string | undefined {
  const last = r.steps.at(-1);
  return last && (last.outcome === 'sent' || last.outcome === 'ambiguous') ? last.step : undefined;
}

/** Why a record cannot be settled as `as`, or undefined when it can. */
function refusal(r: JournalRecord, as: Resolution, place?: Place, checked = false): string | undefined {
  const show = historyShowCommand(r, place);
  // landed, not finished by mpay (--check found it taken): it waits for a person's --as
  if (landedUnfinished(r))
    return as === 'not-sent'
      ? `${r.reference} landed (the API refused its reference as taken): it cannot be settled as not sent; --as landed or --as abandoned`
      : undefined;
  if (resolvedAsEnded(r)) return `${r.reference} was settled already, as ${r.resolved!.as} (\`${show}\`)`;
  if (settled(r)) return `${r.reference} is settled already (status ${r.status ?? 'processed'}): \`${show}\``;
  if (as !== 'abandoned' && !checked && !unanswered(r))
    return `Every request of ${r.reference} had its answer: there is nothing unknown to settle as ${as} (\`${show}\`); a transaction given up is settled with --as abandoned`;
  return undefined;
}

export interface Settled {
  reference: string;
  as: Resolution;
  /** the step whose request had no answer, when there was one */
  step: string | null;
  note: string | null;
  /** what happens next, in words */
  next: string;
}

/**
 * Journals a person's settling of `r` (in the journal of its own place), under its transaction's lock, so
 * that a batch running it meanwhile is not contradicted.
 */
export async function settleByHand(
  journal: JournalLike,
  r: JournalRecord,
  as: Resolution,
  note: string | undefined,
  /** the API's answer to a check settles it, though the check's own request had its answer */
  checked = false,
): Promise<Settled> {
  const refused = refusal(r, as, r.place, checked);
  if (refused) throw new UsageError(refused);
  const release = await holdTransaction(r.reference, r.kind, r.place, journal);
  try {
    const now = journal.find(r.reference) ?? r;
    const again = refusal(now, as, r.place, checked);
    if (again) throw new UsageError(again);
    const step = unanswered(now) ?? null;
    journal.append({
      reference: r.reference,
      kind: r.kind,
      step: 'resolved',
      outcome: 'ok',
      hash_token: now.hash_token,
      data: { as, note, step, ...(checked ? { checked: true } : {}) },
    });
    return { reference: r.reference, as, step, note: note ?? null, next: nextOf(now, as) };
  } finally {
    await release();
  }
}

function nextOf(r: JournalRecord, as: Resolution): string {
  if (as === 'not-sent')
    return `the next run of its batch (or \`${resumeCommand(r)}\`) sends the ${unanswered(r) ?? 'step'} request again`;
  if (as === 'landed' && r.resolved?.checked === true && !r.hash_token)
    return 'a batch counts it as done and sends it no more (you saw it finished or accept it as it is)';
  if (as === 'landed')
    return r.hash_token
      ? 'a batch counts it as done and sends it no more; mpay continues it no further'
      : 'a batch counts it as done and sends it no more; mpay never got its hash token, so it cannot continue it: ask the provider with the reference';
  return 'a batch counts it no more and sends it no more';
}

export interface Checked extends Settled {
  /** the check's own answer: the reference is taken (landed), or the check's initiate was accepted */
  checked: 'taken' | 'accepted';
  hash_token: string | null;
}

/**
 * The opt-in check of an initiate that had no answer: the same initiate, with the same reference, sent
 * again through the money gate (the live question, the lock, the journal, the ticket). Only the API's
 * refusal of the reference as taken means the first one landed (any other answer is no proof, and is
 * reported as it is); then mpay learns no hash token, and says so. An accepted check means the first never
 * landed, and this one is the transaction now.
 */
export async function checkInitiate(deps: FlowDeps, key: string, note: string | undefined): Promise<Checked> {
  const r = deps.journal.find(deps.journal.expand?.(key) ?? key);
  if (!r) throw new UsageError(`Nothing in the journal for "${key}"`, { hint: 'See `mpay history`' });
  const step = unanswered(r);
  if (step !== 'initiate' || r.hash_token)
    throw new UsageError(
      `--check asks the API about an initiate that had no answer; ${r.reference}'s last request was ${step ? `its ${step}` : 'answered'}`,
      {
        hint: `Find out from the provider, then settle it with --as not-sent, landed or abandoned (\`${historyShowCommand(r, deps.place)}\`)`,
      },
    );
  const c = r.customer ?? {};
  try {
    const initiated = await initiateStep(
      r.kind,
      {
        currency_code: r.currency!,
        country_code: r.country!,
        customer_first_name: c.first_name!,
        customer_last_name: c.last_name,
        customer_phone: c.phone!,
        customer_email: c.email!,
        customer_transaction_id: r.reference,
        amount: r.amount!,
      },
      deps,
      r.gateway_id,
    );
    return {
      reference: r.reference,
      as: 'not-sent',
      step,
      note: note ?? null,
      checked: 'accepted',
      hash_token: initiated.has_token,
      next: `the first initiate had not landed: this check's initiate made the ${title(r.kind)} now; the next run of its batch (or \`${resumeCommand(r, deps.place)}\`) continues it`,
    };
  } catch (err) {
    if (!(err instanceof MpayError && referenceTaken(err))) throw err;
    const done = await settleByHand(deps.journal, deps.journal.find(r.reference)!, 'landed', note, true);
    const now = deps.journal.find(r.reference)!;
    return {
      ...done,
      step,
      checked: 'taken',
      hash_token: null,
      next: `it is landed, not finished by mpay: mpay never got its hash token, so it cannot finish it, and on the server it stays initiated. A batch reports it so (exit 10) until you decide: ask the provider to finish or cancel it, then \`${historyResolveCommand(now, deps.place, 'landed')}\` or \`${historyResolveCommand(now, deps.place, 'abandoned')}\``,
    };
  }
}

/** The API's refusal of a reference as already used (422 on `customer_transaction_id`), and no other. */
export function referenceTaken(err: MpayError): boolean {
  return (
    err.kind === 'validation' &&
    (err.fields.customer_transaction_id ?? []).some((m) => /already been taken/i.test(m))
  );
}
