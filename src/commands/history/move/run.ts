// `mpay history move`: records to another base URL of the same merchant (flows/history/move.ts).
import { UsageError } from '../../../common/errors.js';
import type { Factory } from '../../../factory.js';
import { livesAt, moveRecord, targetUrl, type Moved } from '../../../flows/history/move.js';
import { printResult } from '../../../ui/print.js';

export interface MoveOptions {
  json?: boolean;
  key?: string;
  from?: string;
  to: string;
}

export async function runHistoryMove(opts: MoveOptions, f: Factory): Promise<void> {
  if ((opts.key === undefined) === (opts.from === undefined))
    throw new UsageError('Give a reference (or hash token), or --from URL for every record of a server', {
      hint: 'e.g. `mpay history move --from http://127.0.0.1:4020 --to https://api.example.com`',
    });
  const to = targetUrl(opts.to);
  const all = await f.journal();
  const chosen = opts.key
    ? all.recordsOf(all.expand(opts.key))
    : [...all.newest()].filter((r) => livesAt(r, opts.from!)).reverse();
  if (!chosen.length)
    throw new UsageError(
      opts.key
        ? `Nothing in the journal for "${opts.key}"`
        : `No record of the journal lives at ${opts.from}`,
      { hint: 'See `mpay history`' },
    );
  const moved: Moved[] = [];
  for (const r of chosen) {
    const others = all.recordsOf(r.reference);
    const journal = r.place ? await f.journal(undefined, { at: r.place }) : all;
    moved.push(await moveRecord(journal, r, to, others));
  }
  await printResult(f.io, opts.json, { moved }, () =>
    moved.length === 1
      ? `Moved ${moved[0]!.reference} from ${moved[0]!.from} to ${to}.`
      : `Moved ${moved.length} records to ${to}.`,
  );
}
