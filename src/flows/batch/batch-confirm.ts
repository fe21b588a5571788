// `mpay withdraw batch confirm FILE`: withdrawals of a batch finished with their one-time codes. Each row
// (reference, otp) is checked against the journal before anything is sent, then run as a resumed
// withdrawal: skipped when processed, never re-sent after a lost answer.
import { ElsewhereError, ValidationError, toMpayError } from '../../common/errors.js';
import { stepDone, type JournalRecord } from '../../journal/records.js';
import { whereName, type BatchRow, type RowProblem } from './batch-check.js';
import { emptyResult, journalVerdict, settle, type RowResult } from './batch-row.js';
import { fields, otpOf, problem } from '../payment/inputs.js';
import { resumeFlow } from '../payment/resume.js';
import type { FlowDeps } from '../types.js';

/** The columns of `mpay withdraw batch confirm`. */
export const confirmColumns = ['reference', 'otp'] as const;

/**
 * Checks a row of codes against the journal: a withdrawal mpay started, whose code was sent. `seen` holds
 * the references met so far in the file, for duplicates.
 */
export function checkConfirmRow(
  r: BatchRow,
  journal: { find(key: string): JournalRecord | undefined },
  seen: Map<string, number>,
): RowProblem[] {
  const problems: RowProblem[] = [];
  const add = (field: string, message: string) => problems.push({ row: r.row, field, message });
  const reference = r.values.reference?.trim() ?? '';
  const otp = r.values.otp?.trim() ?? '';
  if (!otp) add('otp', 'required');
  else {
    const why = problem(fields.otp, otp);
    if (why) add('otp', why);
  }
  if (!reference) {
    add('reference', 'required');
    return problems;
  }
  const before = seen.get(reference);
  if (before !== undefined) add('reference', `the same as row ${before}`);
  else seen.set(reference, r.row);
  let rec: JournalRecord | undefined;
  try {
    rec = journal.find(reference);
  } catch (err) {
    if (!(err instanceof ElsewhereError)) throw err;
    add('reference', `belongs to ${err.place ? whereName(err.place) : 'another profile'}: confirm it there`);
    return problems;
  }
  if (!rec) add('reference', 'not in the journal: run `mpay withdraw batch FILE` for it first');
  else if (rec.kind !== 'withdraw') add('reference', `a ${rec.kind}, not a withdrawal`);
  else if (!stepDone(rec, 'otp') && !stepDone(rec, 'processed'))
    add('reference', 'no one-time code was sent for it yet');
  return problems;
}

/**
 * Finishes one withdrawal with its code: skipped when processed, never re-sent after a lost answer. A code
 * the API refuses names the row and the file to mend: run unchanged, the same wrong code would go again.
 */
export async function confirmRow(r: BatchRow, deps: FlowDeps, file?: string): Promise<RowResult> {
  const given = r.values.reference!.trim();
  const known = deps.journal.find(given);
  const reference = known?.reference ?? given;
  const base = emptyResult(r.row, reference);
  const verdict = journalVerdict(known, base, (rec) => stepDone(rec, 'processed'), deps.place);
  if (verdict) return verdict;
  let refusedCode = false;
  const where = file === undefined || file === '-' ? 'the file' : file;
  const result = await settle(base, deps, async () => {
    try {
      return await resumeFlow('withdraw', reference, { otp: otpOf(r.values.otp!.trim()) }, deps);
    } catch (err) {
      const e = toMpayError(err);
      if (e.kind !== 'validation' || !e.fields.otp) throw err;
      refusedCode = true;
      throw new ValidationError(
        `the code of row ${r.row} (${reference}) was refused: put the right one in the otp column of row ${r.row} of ${where}, then run again`,
        { status: e.status, fields: e.fields, cause: err },
      );
    }
  });
  // The closing lines repeat it: run unchanged, the same wrong code would be sent again and spend a try.
  if (refusedCode && result.outcome === 'failed')
    result.fix = `its code was refused: correct the otp column of row ${r.row} of ${where} before you run again (unchanged, the same code is sent again and spends one of the tries the API allows)`;
  return result;
}
