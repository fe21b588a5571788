// `mpay history`: the transactions mpay started, newest first, as a table, CSV or JSON.
import { UsageError } from '../../common/errors.js';
import type { Factory } from '../../factory.js';
import { statusShown, type JournalRecord } from '../../journal/records.js';
import { streamList, type ListOptions } from '../../ui/list-output.js';
import { historyColumns } from '../shared/columns.js';
import { parseWhen } from '../../common/when.js';
import { keepYoungGenerationSmall } from '../../flows/batch/heap-bound.js';

export interface HistoryOptions extends ListOptions {
  kind?: string;
  status?: string;
  reference?: string;
  /** YYYY-MM-DD */
  since?: string;
  until?: string;
  /** the newest N (default 30) */
  limit?: number;
  /** every record, newest first */
  all?: boolean;
  /** doctor's and login's API-key checks too (hidden otherwise: see probeHidden) */
  probes?: boolean;
}

/** How many records `mpay history` shows without --limit or --all (as `gh run list`). */
export const defaultHistoryLimit = 30;

export async function runHistory(opts: HistoryOptions, f: Factory): Promise<void> {
  const since = opts.since === undefined ? undefined : parseWhen(opts.since, '--since', f.now());
  const until = opts.until === undefined ? undefined : parseWhen(opts.until, '--until', f.now());
  if (since !== undefined && until !== undefined && since > until)
    throw new UsageError(`--since ${opts.since} is after --until ${opts.until}`, {
      hint: 'Give the earlier moment to --since',
    });
  const journal = await f.journal();
  const limit = opts.all ? Infinity : (opts.limit ?? defaultHistoryLimit);
  if (opts.all) keepYoungGenerationSmall();
  let hidden = 0;
  const shown = (r: JournalRecord) => {
    if (opts.probes || opts.reference !== undefined || !probeHidden(r)) return true;
    hidden++;
    return false;
  };
  const wanted = (r: JournalRecord) =>
    (!opts.kind || r.kind === opts.kind) &&
    (!opts.status || statusShown(r) === opts.status) &&
    (!opts.reference || r.reference === opts.reference) &&
    (until === undefined || Date.parse(r.created_at) <= until) &&
    shown(r);
  // Newest first, read back from the end of the journal only as far as the page needs (a reference is
  // looked up in the index).
  const source: Iterable<JournalRecord> = opts.reference
    ? journal.recordsOf(opts.reference).reverse()
    : journal.newest({ since });
  let more = false;
  function* page(): Generator<JournalRecord> {
    let n = 0;
    for (const r of source) {
      if (!wanted(r) || (since !== undefined && Date.parse(r.created_at) < since)) continue;
      if (n >= limit) {
        more = true;
        return;
      }
      yield r;
      n++;
    }
  }
  await streamList(f.io, page(), historyColumns, opts);
  // A table says that it is a page; JSON and CSV are for scripts, which ask for what they want.
  if (more && !opts.json && !opts.csv) f.io.note(`The newest ${limit}; --limit N or --all for more.`);
  if (hidden && !opts.json && !opts.csv)
    f.io.note(
      `${hidden} API-key check${hidden === 1 ? '' : 's'} of doctor or login left out, none of which made anything; --probes shows them.`,
    );
}

/**
 * doctor's and login's API-key check (a withdraw initiate of credentials only, through the money gate, so
 * journaled before it leaves like every money request: it must be, should a server take it) is no
 * customer's payment: `history` leaves it out unless --probes, or --reference names it. One that made
 * something (a hash token) or whose answer was lost is shown: a person has to look at it.
 */
export function probeHidden(r: JournalRecord): boolean {
  return Boolean(r.probe) && !r.hash_token && statusShown(r) !== 'unknown';
}
