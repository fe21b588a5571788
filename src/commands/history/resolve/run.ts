// `mpay history resolve KEY`: a person settles a request that had no answer (flows/history/resolve.ts).
import { shownValue } from '../../../common/shell-words.js';
import { UsageError } from '../../../common/errors.js';
import type { Factory } from '../../../factory.js';
import { settled, type Resolution } from '../../../journal/records.js';
import { checkInitiate, settleByHand, unanswered } from '../../../flows/history/resolve.js';
import { printResult } from '../../../ui/print.js';

export interface ResolveOptions {
  json?: boolean;
  key: string;
  as?: Resolution;
  check?: boolean;
  note?: string;
}

export async function runHistoryResolve(opts: ResolveOptions, f: Factory): Promise<void> {
  if (opts.check) {
    const deps = await f.flowDeps({ command: 'mpay history resolve' });
    const out = await checkInitiate(deps, opts.key, opts.note);
    return printResult(f.io, opts.json, out, () =>
      out.checked === 'taken'
        ? `${out.reference}: the API refused the same initiate as a reference already taken, so the first one landed. Next: ${out.next}.`
        : `${out.reference}: the API accepted the initiate (hash token ${shownValue(out.hash_token ?? '')}). Next: ${out.next}.`,
    );
  }
  // mpay's own file: the record is found wherever it lives in this journal, and settled at its place.
  const all = await f.journal();
  const key = all.expand(opts.key);
  const records = all.recordsOf(key);
  const r = records.find((x) => unanswered(x)) ?? records.find((x) => !settled(x)) ?? records[0];
  if (!r)
    throw new UsageError(`Nothing in the journal for "${opts.key}"`, {
      hint: 'See `mpay history`; an unknown row names its reference',
    });
  const journal = r.place ? await f.journal(undefined, { at: r.place }) : all;
  const out = await settleByHand(journal, r, opts.as!, opts.note);
  await printResult(
    f.io,
    opts.json,
    out,
    () =>
      `${out.reference}: settled as ${out.as}${out.step ? ` (its ${out.step} request had no answer)` : ''}. Next: ${out.next}.`,
  );
}
