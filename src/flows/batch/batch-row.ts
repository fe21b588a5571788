// The run of a batch's rows, once every row passed its checks (batch-check.ts): each row as the same
// journaled flow as `mpay deposit`, a few at a time. A row's reference, when the file gives none, is
// derived from the row's content and position, so running the same file again finds each row in the
// journal: done rows are skipped, stopped ones continued, and a row whose last request had no answer is
// reported, never sent again. Finishing withdrawals with their codes is batch-confirm.ts.
import type { PaymentKind } from '../../api/enums.js';
import { BusyError, JournalAfterSendError, MpayError, toMpayError } from '../../common/errors.js';
import { LockLostError } from '../../journal/locks.js';
import {
  landedUnfinished,
  resolvedAsEnded,
  stepDone,
  type JournalRecord,
  type Place,
} from '../../journal/records.js';
import { inputsOf, type BatchRow } from './batch-check.js';
import { runPaymentFlow } from '../payment/payment.js';
import { resumeFlow } from '../payment/resume.js';
import { holdTransaction } from '../gate/money-gate.js';
import { historyCheckCommand, historyResolveCommand, historyShowCommand, placeholder } from '../standing.js';
import type { FlowDeps, FlowResult } from '../types.js';

export type RowOutcome = 'done' | 'failed' | 'unknown' | 'skipped';

export interface RowResult {
  row: number;
  reference: string;
  outcome: RowOutcome;
  hash_token: string | null;
  status: string | null;
  transaction_id: string | null;
  fee: number | null;
  next: 'otp' | null;
  error: { kind: string; message: string } | null;
  /** what a person must do about this row before the batch can end well (the closing lines repeat it) */
  fix?: string;
}

export const emptyResult = (row: number, reference: string) => ({
  row,
  reference,
  hash_token: null,
  status: null,
  transaction_id: null,
  fee: null,
  next: null,
  error: null,
});

/**
 * What the journal already says of a row: done (skipped), settled by a person as landed or abandoned
 * (skipped: `mpay history resolve`), or a last request that had no answer (unknown, never re-sent);
 * undefined when the row is to run.
 */
export function journalVerdict(
  known: JournalRecord | undefined,
  base: ReturnType<typeof emptyResult>,
  finished: (rec: JournalRecord) => boolean,
  place: Place | undefined,
): RowResult | undefined {
  if (known && finished(known))
    return {
      ...base,
      outcome: 'skipped',
      hash_token: known.hash_token ?? null,
      status: known.status ?? null,
      transaction_id: known.transaction_id ?? null,
      // the fee the journal kept: a resumed batch's --out lists every row's, not only the new ones'
      fee: known.fee ?? null,
    };
  if (known && landedUnfinished(known))
    return {
      ...base,
      outcome: 'unknown',
      status: landedStatus,
      error: {
        kind: 'state',
        message: `the API refused its reference as taken, so its initiate landed, but mpay never got its hash token and cannot finish it: on the server it stays initiated`,
      },
      fix: landedFix(known, place),
    };
  if (known && resolvedAsEnded(known))
    return {
      ...base,
      outcome: 'skipped',
      hash_token: known.hash_token ?? null,
      status: `settled by hand as ${known.resolved!.as}`,
      transaction_id: known.transaction_id ?? null,
    };
  const last = known?.steps.at(-1);
  if (known && (last?.outcome === 'sent' || last?.outcome === 'ambiguous'))
    return {
      ...base,
      outcome: 'unknown',
      hash_token: known.hash_token ?? null,
      error: {
        kind: 'network',
        // an initiate is asked of the API first (--check); another step only the provider can tell
        message:
          last.step === 'initiate' && !known.hash_token
            ? `the initiate request had no answer, so mpay cannot know whether the server applied it; it will not guess, and sends it no more. What is known: \`${historyShowCommand(known, place)}\`. Settle it: ${unknownFix(known, place)}`
            : `the ${last.step} request had no answer, so mpay cannot know whether the server applied it; it will not guess, and sends it no more. Find out (\`${historyShowCommand(known, place)}\`, the provider), then settle it: \`${historyResolveCommand(known, place)}\``,
      },
      fix: unknownFix(known, place),
    };
  return undefined;
}

/** How a batch reports a row whose initiate `history resolve --check` found landed, without its hash token. */
export const landedStatus = 'landed, not finished by mpay';

/** What a person does about a row landed, not finished by mpay: the provider, then a decision. */
function landedFix(r: JournalRecord, place: Place | undefined): string {
  return `ask the provider to finish or cancel ${r.reference} (mpay cannot: it has no hash token), then decide: \`${historyResolveCommand(r, place, 'landed')}\` once it is finished, or \`${historyResolveCommand(r, place, 'abandoned')}\``;
}

/**
 * What settles a row whose last request had no answer. An initiate without a hash token is asked of the API
 * first (--check sends it again with the same reference: refused as taken means the first landed, accepted
 * means this one is the transaction now); any other step only the provider can tell.
 */
export function unknownFix(r: JournalRecord, place: Place | undefined): string {
  const step = r.steps.at(-1)?.step;
  if (step === 'initiate' && !r.hash_token)
    return `\`${historyCheckCommand(r, place)}\` first: it sends the same initiate again with the same reference, which the API refuses as taken if the first one landed (then mpay says so) and accepts if it never did (then the next run continues it); if you know better, \`${historyResolveCommand(r, place)}\``;
  return `its ${step ?? 'last'} request had no answer and only the provider can tell whether it was applied: see \`${historyShowCommand(r, place)}\`, ask them, then \`${historyResolveCommand(r, place, placeholder('not-sent|landed|abandoned'))}\``;
}

/** Runs a flow for a row and turns its end, good or bad, into the row's result. */
export async function settle(
  base: ReturnType<typeof emptyResult>,
  deps: FlowDeps,
  run: () => Promise<FlowResult>,
): Promise<RowResult> {
  try {
    const result = await run();
    const t = result.transaction;
    return {
      ...base,
      outcome: 'done',
      hash_token: result.hash_token ?? null,
      status: result.status ?? null,
      transaction_id: t?.transaction_id ?? result.status_update?.transaction_id ?? null,
      fee: t?.fee_amount ?? null,
      next: result.next ?? null,
    };
  } catch (err) {
    const e: MpayError = toMpayError(err);
    const rec = journalOrNothing(deps, base.reference);
    // Unknown, never failed: a request that had no answer, one whose answer the journal could not record,
    // and a row another mpay took over (its lock lost) may each have been applied.
    const unknown =
      (e.kind === 'network' && (e as { ambiguous?: boolean }).ambiguous) ||
      e instanceof JournalAfterSendError ||
      e instanceof LockLostError;
    return {
      ...base,
      outcome: unknown ? 'unknown' : 'failed',
      ...(unknown && rec ? { fix: unknownFix(rec, deps.place) } : {}),
      hash_token: (e instanceof JournalAfterSendError ? e.hashToken : undefined) ?? rec?.hash_token ?? null,
      status: rec?.status ?? null,
      // The API's field errors say which value it refused (a wrong code, a duplicate reference).
      error: { kind: e.kind, message: withFields(e) },
    };
  }
}

/** The journal's record of a row, or nothing when the journal cannot be read now (the error says why). */
function journalOrNothing(deps: FlowDeps, reference: string) {
  try {
    return deps.journal.find(reference);
  } catch {
    return undefined;
  }
}

function withFields(e: MpayError): string {
  const detail = Object.entries(e.fields)
    .map(([k, v]) => `${k}: ${[v].flat().join(' ')}`)
    .join('; ');
  return detail ? `${e.message} (${detail})` : e.message;
}

/**
 * Runs one row: skipped when the journal says it is done, continued when it stopped, never re-sent blind.
 * The row holds its transaction's lock while it sends, and reads the journal under it: another mpay
 * sending the same reference (a copy of the file, another file) makes the row fail as busy, unsent.
 */
export async function runRow(kind: PaymentKind, r: BatchRow, deps: FlowDeps): Promise<RowResult> {
  const inputs = inputsOf(kind, r);
  const reference = inputs.reference!;
  const base = emptyResult(r.row, reference);
  let release: () => Promise<void>;
  try {
    release = await holdTransaction(reference, kind, deps.place, deps.journal);
  } catch (err) {
    if (!(err instanceof BusyError)) throw err;
    return { ...base, outcome: 'failed', error: { kind: err.kind, message: err.message } };
  }
  try {
    const known = deps.journal.find(reference);
    const verdict = journalVerdict(
      known,
      base,
      (rec) => stepDone(rec, 'processed') || (kind === 'withdraw' && stepDone(rec, 'otp')),
      deps.place,
    );
    if (verdict) return verdict;
    return await settle(base, deps, () =>
      known ? resumeFlow(kind, reference, inputs, deps, { held: true }) : runPaymentFlow(kind, inputs, deps),
    );
  } finally {
    await release();
  }
}

/** Runs the rows `concurrency` at a time, in order of arrival; `stop()` ends the starting of new rows. */
export async function runRows(
  rows: AsyncIterable<BatchRow>,
  concurrency: number,
  run: (r: BatchRow) => Promise<RowResult>,
  onResult: (r: RowResult) => void,
  stopped: () => boolean = () => false,
  /** called after each row: heap-bound.ts keeps the heap's garbage in check there */
  afterRow: () => void = () => {},
): Promise<void> {
  const iterator = rows[Symbol.asyncIterator]();
  const worker = async () => {
    for (;;) {
      if (stopped()) return;
      const next = await iterator.next();
      if (next.done) return;
      onResult(await run(next.value));
      afterRow();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
