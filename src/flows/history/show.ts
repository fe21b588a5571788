// `mpay history show KEY`: the record a key names in the journal (or where else it lives), and what a person
// does next with it.
import { UsageError } from '../../common/errors.js';
import type { Journal } from '../../journal/journal.js';
import {
  notResumable,
  landedUnfinished,
  resolvedAsEnded,
  settled,
  stepDone,
  type JournalRecord,
} from '../../journal/records.js';
import { resumeCommand, runAgain } from '../standing.js';

/**
 * A record by its reference or hash token, or by the start of its hash token as `history` shows it (an
 * ellipsis pasted with it is ignored), when only one record starts so. None: a usage error that names the
 * profile's and environment's journal searched, and another one's that has it, with the command that shows
 * it there.
 */
export function recordToShow(
  journal: Journal,
  key: string,
  searched: { profile: string; env: string },
): JournalRecord {
  const r = journal.recordsOf(journal.expand(key))[0];
  if (r) return r;
  // Another profile's or environment's journal may have it: say which, with the command that shows it.
  const other = journal.elsewhere(key).find((x) => x.place);
  throw new UsageError(
    `Nothing in the journal of profile ${searched.profile}, ${searched.env} for "${key}"`,
    {
      hint: other
        ? `It is in the journal of profile ${other.place!.profile}, ${other.place!.env}: \`${runAgain(['mpay', 'history', 'show', key], other.place, { local: true })}\``
        : `See \`mpay history\``,
    },
  );
}

/** What a person does next with a record: nothing, why not, or the command that continues it. */
export function nextOf(r: JournalRecord): {
  message: string | null;
  resume: string | null;
  /** a withdrawal waiting for its one-time code, as the flow that stopped there said */
  next?: 'otp';
} {
  const stranger = notResumable(r);
  if (stranger) return { message: `mpay continues it no further: ${stranger}`, resume: null };
  if (landedUnfinished(r))
    return {
      message:
        'landed, not finished by mpay: the API refused its reference as taken, and mpay never got its hash token, so it cannot finish it; ask the provider to finish or cancel it, then settle it with `history resolve --as landed` or `--as abandoned`',
      resume: null,
    };
  if (resolvedAsEnded(r))
    return { message: `mpay continues it no further: settled by hand as ${r.resolved!.as}`, resume: null };
  if (stepDone(r, 'processed')) return { message: null, resume: null };
  // a final status the API gave (a status update's success, failed, cancelled): the server takes no further
  // step on it (processed answers "not initiated"), so there is nothing to resume
  if (settled(r))
    return { message: `its status is ${r.status ?? 'final'}: mpay has no step left to send`, resume: null };
  if (!r.hash_token)
    // what --resume does with it: the initiate again, with the same reference
    return {
      message:
        r.resolved?.as === 'not-sent'
          ? 'settled by hand as not sent: the next step is the initiate again, with the same reference (resume)'
          : unansweredStep(r) === 'initiate'
            ? 'the initiate had no answer: resume sends it again with the same reference, which the API refuses if the first one landed'
            : 'mpay never got a hash token: the next step is the initiate again, with the same reference (resume)',
      resume: resumeCommand(r),
    };
  // the code was sent and the confirmation not made: what finishes it is the code, read from stdin
  if (r.kind === 'withdraw' && stepDone(r, 'otp'))
    return {
      message: 'the one-time code was sent to the customer: the confirmation with it finishes the withdrawal',
      resume: resumeCommand(r, undefined, ['--otp-stdin']),
      next: 'otp',
    };
  return { message: null, resume: resumeCommand(r) };
}

/** The step whose request had no answer, when the last one had none. */
function unansweredStep(r: JournalRecord): string | undefined {
  const last = r.steps.at(-1);
  return last && (last.outcome === 'sent' || last.outcome === 'ambiguous') ? last.step : undefined;
}
