// The journal's record model: the events a journal holds, a row each (store.ts), and the record of a
// transaction folded from them. No storage here: journal.ts writes and reads the database.
import { shownValue } from '../common/shell-words.js';
import type { PaymentKind, Resolution } from '../api/enums.js';
export type { Resolution };

export type Kind = PaymentKind;
/**
 * `gateway` is local: the gateway the user chose, recorded so that a resumed flow keeps it. `resolved` is
 * local too: a person settled a request that had no answer (`mpay history resolve`), as not sent, landed
 * or abandoned. `moved`: a person moved the record to another base URL of the same merchant
 * (`mpay history move`): from then on it lives there.
 */
export type Step = 'initiate' | 'gateway' | 'wallet' | 'status' | 'otp' | 'processed' | 'resolved' | 'moved';

/**
 * `throttled`: the server answered 429 (or 503 with Retry-After), which it sends for a request it did not
 * process, or a batch's pace held the request back before it went out; mpay waits and sends the step
 * (again), each attempt journaled.
 */
export type Outcome = 'sent' | 'ok' | 'failed' | 'ambiguous' | 'throttled' | 'taken_over';
/*
 * `taken_over`: the step was journaled as sent, then its process found its transaction's lock taken over by
 * another mpay (journal/locks.ts) and sent it no more (the ticket's check runs before every try): any try it
 * did send was answered 429, which was not processed.
 */

/**
 * Where a transaction lives: the server (base URL) and merchant (key fingerprint) it was made with, and the
 * profile and environment that chose them. A transaction is continued only at its own server and merchant,
 * from its own journal (docs/spec-readings.md).
 */
export interface Place {
  server: string;
  merchant: string;
  profile: string;
  env: string;
}

/** The global flags that choose a place, to repeat in every command mpay prints for a person to run. */
export function placeArgs(p: Place): string[] {
  return ['--profile', p.profile, '--env', p.env, '--base-url', p.server];
}

/** Whether two places are one server and one merchant (the profile and environment only name them). */
export function samePlace(a: Place, b: Place): boolean {
  return a.server === b.server && a.merchant === b.merchant;
}

export interface JournalEvent {
  at: string;
  reference: string;
  kind: Kind;
  step: Step;
  outcome: Outcome;
  hash_token?: string;
  /** absent on lines written before mpay recorded it: such a record is continued wherever it is asked */
  place?: Place;
  /** facts learned at this step: amount, currency, gateway, status, customer contact, error */
  data?: Record<string, unknown>;
}

export interface StepRecord {
  step: Step;
  outcome: Outcome;
  at: string;
  detail?: string;
}

export interface JournalRecord {
  reference: string;
  kind: Kind;
  place?: Place;
  hash_token?: string;
  amount?: string;
  currency?: string;
  country?: string;
  customer?: { first_name?: string; last_name?: string; phone?: string; email?: string };
  gateway_id?: number;
  gateway_name?: string;
  wallet_address?: string;
  /** the transaction status as last seen from the API, or as mpay's steps imply */
  status?: string;
  transaction_id?: string;
  /** the fee the processed step's answer named (a batch's --out keeps it for a row skipped as done) */
  fee?: number;
  /** the last settling of it by a person (`mpay history resolve`), if any */
  resolved?: { as: Resolution; at: string; note?: string; checked?: true };
  created_at: string;
  updated_at: string;
  steps: StepRecord[];
  /** doctor's or login's credentials check (flows/gate/money-gate.ts probe()), not a customer's payment */
  probe?: true;
  /** what started it when not a command of a person's: `mpay mcp` (an assistant), from its lines' data.via */
  via?: string;
  /**
   * A withdrawal's code request as it was sent (its 'sent' line): the confirmation with the code goes with
   * the same phone and e-mails, so a resume takes them from here and never asks again.
   */
  code_request?: { phone_number: string; customer_email: string; receiver_email?: string };
}

/** Whether a parsed line is one of the journal's events (a line that is not is kept but not read). */
export function isEvent(v: unknown): v is JournalEvent {
  if (!v || typeof v !== 'object') return false;
  const e = v as Partial<JournalEvent>;
  return (
    typeof e.reference === 'string' &&
    (e.kind === 'deposit' || e.kind === 'withdraw') &&
    typeof e.step === 'string' &&
    typeof e.outcome === 'string' &&
    typeof e.at === 'string' &&
    (e.place === undefined ||
      (typeof e.place === 'object' &&
        e.place !== null &&
        typeof e.place.server === 'string' &&
        typeof e.place.merchant === 'string'))
  );
}

/** Folds one event into its transaction's record. */
export function fold(r: JournalRecord, e: JournalEvent): void {
  r.updated_at = e.at;
  if (e.step === 'resolved') return resolve(r, e);
  if (e.step === 'moved' && r.place && typeof e.data?.to === 'string') {
    // a copy: the place object is the first event's own
    r.place = { ...r.place, server: e.data.to };
    r.steps.push({
      step: 'moved',
      outcome: 'ok',
      at: e.at,
      detail: `from ${String(e.data.from)} to ${e.data.to}`,
    });
    return;
  }
  if (e.place && !r.place) r.place = e.place;
  if (e.hash_token) r.hash_token = e.hash_token;
  const d = e.data ?? {};
  if (typeof d.amount === 'string') r.amount = d.amount;
  if (typeof d.currency === 'string') r.currency = d.currency;
  if (typeof d.country === 'string') r.country = d.country;
  if (d.customer && typeof d.customer === 'object')
    r.customer = { ...r.customer, ...(d.customer as JournalRecord['customer']) };
  if (typeof d.gateway_id === 'number') r.gateway_id = d.gateway_id;
  if (typeof d.gateway_name === 'string') r.gateway_name = d.gateway_name;
  if (typeof d.wallet_address === 'string') r.wallet_address = d.wallet_address;
  if (typeof d.transaction_id === 'string') r.transaction_id = d.transaction_id;
  if (typeof d.fee === 'number') r.fee = d.fee;
  if (d.probe === true) r.probe = true;
  // the line that made the record: what started the transaction (a later step elsewhere does not change it)
  if (typeof d.via === 'string' && r.steps.length === 0) r.via = d.via;
  if (e.step === 'otp' && e.outcome === 'sent' && typeof d.phone_number === 'string')
    r.code_request = {
      phone_number: d.phone_number,
      customer_email: String(d.customer_email),
      ...(typeof d.receiver_email === 'string' ? { receiver_email: d.receiver_email } : {}),
    };
  // A step refused later as "not initiated" says the status moved on, not where to: a transaction already
  // processed, or whose status an answer gave since its initiate, keeps that status (the server's own).
  const movedOn =
    stepDone(r, 'processed') ||
    (d.status === 'not initiated' && !['initiated', undefined].includes(r.status));
  if (typeof d.status === 'string' && !(e.outcome === 'failed' && movedOn)) r.status = d.status;
  const detail =
    typeof d.error === 'string' ? d.error : typeof d.message === 'string' ? d.message : undefined;
  // A step's 'sent' line and its outcome line make one step record: its last 'sent' one, wherever another
  // process's lines of the same transaction fell in between. A step whose lock was taken over (during a
  // 429's wait) ends its last try, answered or not.
  const open = (o: Outcome) => o === 'sent' || (e.outcome === 'taken_over' && o === 'throttled');
  const mine =
    e.outcome === 'sent' ? undefined : lastOf(r.steps, (s) => s.step === e.step && open(s.outcome));
  if (mine) Object.assign(mine, { outcome: e.outcome, at: e.at, detail });
  else r.steps.push({ step: e.step, outcome: e.outcome, at: e.at, detail });
}

function lastOf<T>(xs: T[], p: (x: T) => boolean): T | undefined {
  for (let i = xs.length - 1; i >= 0; i--) if (p(xs[i]!)) return xs[i];
  return undefined;
}

/**
 * A person's settling of a request that had no answer: `not-sent` makes each step still unanswered a
 * failed one (the next run sends it again); `landed` and `abandoned` end mpay's part (settled()).
 */
function resolve(r: JournalRecord, e: JournalEvent): void {
  const as = e.data?.as as Resolution;
  const note = typeof e.data?.note === 'string' ? e.data.note : undefined;
  r.resolved = {
    as,
    at: e.at,
    ...(note ? { note } : {}),
    ...(e.data?.checked === true ? { checked: true } : {}),
  };
  if (as === 'not-sent')
    for (const s of r.steps)
      if (s.outcome === 'sent' || s.outcome === 'ambiguous') {
        s.outcome = 'failed';
        s.detail = 'settled by hand as not sent';
      }
  r.steps.push({ step: 'resolved', outcome: 'ok', at: e.at, detail: `as ${as}${note ? `: ${note}` : ''}` });
}

/** Whether a person settled the transaction as landed or abandoned: mpay continues it no further. */
/**
 * The status `mpay history` shows and filters by: `unknown` while the last request had no answer (sent,
 * and no answer came or it was lost: the server may or may not have applied it, until a person settles
 * it), else the status last seen from the API or implied by mpay's steps (`not initiated` after a 404).
 */
export function statusShown(r: JournalRecord): string | undefined {
  const last = r.steps.at(-1);
  if (last && (last.outcome === 'sent' || last.outcome === 'ambiguous')) return 'unknown';
  return r.status;
}

export function resolvedAsEnded(r: JournalRecord): boolean {
  return r.resolved?.as === 'landed' || r.resolved?.as === 'abandoned';
}

/**
 * Landed, not finished by mpay: `history resolve --check` found its initiate landed (the API refused the
 * reference as taken), and mpay never got its hash token, so it cannot finish it: on the server it stays
 * initiated. Not done, and not settled: a batch counts it as needing a person (exit 10) until one decides
 * with `history resolve --as`.
 */
export function landedUnfinished(r: JournalRecord): boolean {
  return r.resolved?.as === 'landed' && r.resolved.checked === true && !r.hash_token;
}

/**
 * Whether mpay's part of a transaction is over: processed, or a final status. Anything else is still in
 * progress (a flow to resume, a code to give, an answer that never came) and is never pruned.
 */
export function settled(r: JournalRecord): boolean {
  // A credentials check the API refused, as it should, made nothing: it is over once answered.
  const probeOver = r.probe && !r.hash_token && r.steps.at(-1)?.outcome === 'failed';
  return (
    probeOver ||
    stepDone(r, 'processed') ||
    (resolvedAsEnded(r) && !landedUnfinished(r)) ||
    ['success', 'failed', 'cancelled'].includes(r.status ?? '')
  );
}

/**
 * Why a record cannot be resumed as a flow, or undefined when it can: a flow picks up from its initiate,
 * so a record of steps sent to a hash token mpay never initiated (`mpay api`, a single step) has nothing
 * to resume from, and a credentials check is no payment.
 */
export function notResumable(r: JournalRecord): string | undefined {
  if (r.probe) return 'it is a credentials check (doctor), not a payment';
  if (!r.steps.some((s) => s.step === 'initiate'))
    return `mpay did not initiate it: its journal holds only the steps sent to hash token ${shownValue(r.hash_token ?? r.reference)}`;
  return undefined;
}

/** Whether a step ended well in a record. */
export function stepDone(r: JournalRecord, step: Step): boolean {
  return r.steps.some((s) => s.step === step && s.outcome === 'ok');
}

/**
 * The records of a set of events, in their order: one a reference and place (a reference may live at two
 * places: a batch run again elsewhere with --new-batch). A record from before places were written takes
 * the first place its reference meets.
 */
export function foldRecords(events: JournalEvent[]): JournalRecord[] {
  const records: JournalRecord[] = [];
  const byRef = new Map<string, JournalRecord[]>();
  for (const event of events) {
    let same = byRef.get(event.reference);
    if (!same) byRef.set(event.reference, (same = []));
    let r = same.find((x) =>
      event.place ? !x.place || samePlace(x.place, event.place) : !x.place || same.length === 1,
    );
    if (!r) {
      r = {
        reference: event.reference,
        kind: event.kind,
        created_at: event.at,
        updated_at: event.at,
        steps: [],
      };
      same.push(r);
      records.push(r);
    }
    fold(r, event);
  }
  return records;
}
