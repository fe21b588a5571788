// `mpay history show KEY`: one transaction's record, its steps, and its requests again as curl. The record
// and what comes next: flows/history/show.ts; the script's requests: ui/history-script.ts.
import type { Factory } from '../../../factory.js';
import { runAgain } from '../../../flows/standing.js';
import { nextOf, recordToShow } from '../../../flows/history/show.js';
import { renderTable } from '../../../ui/output.js';
import { fromRecord } from '../../../ui/envelope.js';
import { curlOf } from '../../../ui/history-script.js';
import { transactionSummary } from '../../../ui/summary.js';
import { fitWidth, printResult } from '../../../ui/print.js';

export interface HistoryShowOptions {
  json?: boolean;
  /** a reference, a hash token, or the start of one as `history` shows it */
  key: string;
  /** the requests again, as a bash script of curl commands */
  curl?: boolean;
}

export async function runHistoryShow(opts: HistoryShowOptions, f: Factory): Promise<void> {
  const ctx = await f.context();
  const journal = await f.journal();
  const r = recordToShow(journal, opts.key, { profile: ctx.profileName, env: ctx.env });
  const next = nextOf(r);
  if (opts.curl) {
    // A script that sends money again, outside the gate: for a live server only with --yes, and it says so.
    const gate = await f.gateFor(r.place?.server ?? ctx.baseUrl, r.place?.env ?? ctx.env, undefined);
    gate.printable(`the requests of ${r.reference}`);
    const commands = curlOf(
      r,
      journal.eventsOf(r.reference),
      r.place?.server ?? ctx.baseUrl,
      ctx.credentials.siteId,
    );
    return printResult(
      f.io,
      opts.json,
      { reference: r.reference, commands },
      () =>
        [
          ...(gate.liveHeader ? [gate.liveHeader] : []),
          `# The requests mpay sent for ${r.reference}, in order, as a bash script that sends them again:`,
          '# with a fresh reference ($MPAY_REF, replay-<time> unless set), each step once, stopping at the',
          "# first call that fails with the API's answer. Set the variables first:",
          `#   eval "$(${runAgain(['mpay', 'token', '--export'], r.place)})"; export MPAY_MERCHANT_KEY=… MPAY_API_KEY=…`,
          ...(r.kind === 'withdraw'
            ? [
                '# The one-time code: $MPAY_OTP, else asked on the terminal, else the script stops after the code',
                '# is sent and prints the one line that finishes that withdrawal with it.',
              ]
            : []),
          `# Each run makes a NEW ${r.kind === 'deposit' ? 'deposit' : 'withdrawal'}, which mpay does not journal: it is not in \`mpay history\`.`,
          '# The initiate keeps the hash token the API answers in $HASH (it needs jq).',
          ...commands,
        ].join('\n'),
      // a script, whole: a comment folded at a space would run its second half
      'verbatim',
    );
  }
  const out = fromRecord(r, next);
  await printResult(f.io, opts.json, out, async () => {
    const { steps, customer } = r;
    const who = customer
      ? [[customer.first_name, customer.last_name].filter(Boolean).join(' '), customer.phone, customer.email]
          .filter(Boolean)
          .join(', ')
      : undefined;
    const table = await renderTable(
      steps,
      [
        { key: 'at', header: 'At' },
        { key: 'step', header: 'Step' },
        { key: 'outcome', header: 'Outcome' },
        { key: 'detail', header: 'Detail' },
      ],
      fitWidth(f.io),
    );
    // what the envelope says (next, resume, message), as --json says it
    return `${await transactionSummary(out, { customer: who, started: r.created_at, message: out.message ?? undefined }, fitWidth(f.io))}\n${table}`;
  });
}
