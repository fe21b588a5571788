// The refusal to continue, here, a transaction that lives at another place (journal/journal.ts find()).
import { ElsewhereError } from '../common/errors.js';
import { commandLine } from '../common/shell-words.js';
import { placeArgs, type JournalRecord, type Place } from './records.js';

/** The refusal to continue, here, a transaction that lives elsewhere: it names where, and how to go there. */
export function elsewhereError(found: JournalRecord[], here: Place): ElsewhereError {
  const where = (p: Place) =>
    `${p.server} (profile ${p.profile}, environment ${p.env}, merchant key ${p.merchant})`;
  const first = found[0]!;
  const there = first.place;
  // Every place the reference lives at, with where it stands there; the hint reaches the first, an
  // unfinished one when there is one.
  const places = found
    .map(
      (r) =>
        `${r.place ? where(r.place) : 'another profile or environment'}${found.length > 1 ? `, ${r.status ?? 'status unknown'}` : ''}`,
    )
    .join('; and to ');
  return new ElsewhereError(
    `${first.reference} belongs to ${places}, not to ${where(here)}; nothing was sent`,
    {
      hint: there
        ? `Continue it where it lives: pass ${commandLine(placeArgs(there))}`
        : 'See `mpay history --profile NAME` for the profile that made it',
      place: there,
    },
  );
}
