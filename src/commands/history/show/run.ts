// `mpay history show KEY`: one transaction's record, its steps, and its requests again as curl.
import { UsageError } from '../../../api/errors.js';
import type { Factory } from '../../../factory.js';
import type { Journal } from '../../../journal/journal.js';
import {
  notResumable,
  landedUnfinished,
  resolvedAsEnded,
  stepDone,
  type JournalEvent,
  type JournalRecord,
} from '../../../journal/records.js';
import { curlCommand, ShellVariable } from '../../../ui/curl.js';
import { singleQuoted } from '../../../api/shell-words.js';
import { renderTable } from '../../../ui/output.js';
import { resumeCommand, runAgain } from '../../../flows/next-command.js';
import { fromRecord } from '../../../ui/envelope.js';
import { transactionSummary } from '../../../ui/summary.js';
import { fitWidth, printResult } from '../../../ui/print.js';
import {
  apiBase,
  journaledField,
  moneyEndpointFor,
  requestFields,
  type Endpoint,
} from '../../../api/endpoints.js';

/**
 * A record by its reference or hash token, or by the start of its hash token as `history` shows it (an
 * ellipsis pasted with it is ignored), when only one record starts so.
 */
function findByKeyOrPrefix(journal: Journal, key: string): JournalRecord | undefined {
  return journal.recordsOf(journal.expand(key))[0];
}

export async function runHistoryShow(
  opts: { json?: boolean; key: string; curl?: boolean },
  f: Factory,
): Promise<void> {
  const ctx = await f.context();
  const journal = await f.journal();
  const r = findByKeyOrPrefix(journal, opts.key);
  if (!r) {
    // Another profile's or environment's journal may have it: say which, with the command that shows it.
    const other = journal.elsewhere(opts.key).find((x) => x.place);
    throw new UsageError(
      `Nothing in the journal of profile ${ctx.profileName}, ${ctx.env} for "${opts.key}"`,
      {
        hint: other
          ? `It is in the journal of profile ${other.place!.profile}, ${other.place!.env}: \`${runAgain(['mpay', 'history', 'show', opts.key], other.place, { local: true })}\``
          : `See \`mpay history\``,
      },
    );
  }
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

/**
 * The requests of one transaction, from the journal's 'sent' lines, as a bash script that sends them again
 * in order: secrets are $MPAY_* variables; the initiate goes out with a fresh reference ($MPAY_REF, so the
 * API does not refuse it as a duplicate) and its hash token is kept in $HASH; a step sent more than once
 * (a try again after a 429, another code) is sent once, a confirmation with its code once; and the script
 * stops at the first call that fails, with the API's answer.
 */
function curlOf(
  r: JournalRecord,
  events: JournalEvent[],
  baseUrl: string,
  siteId: string | undefined,
): string[] {
  const url = (path: string) => `${baseUrl}${apiBase}${path}`;
  const once = lastTries(events.filter((e) => e.reference === r.reference && e.outcome === 'sent'));
  const out: string[] = [];
  if (!once.some((e) => e.step === 'initiate') && r.hash_token)
    out.push(`HASH=${singleQuoted(r.hash_token)}`);
  for (const e of once) {
    const d = (e.data ?? {}) as Record<string, unknown>;
    if (e.step === 'initiate') out.push(...initiateLines(r.kind, d, url, siteId));
    else if (e.step === 'wallet' || e.step === 'status') out.push(updateCommand(e.step, d, url));
    else if (r.kind === 'withdraw' && d.with_otp && (e.step === 'processed' || e.step === 'otp')) {
      // Everything before the code is skipped when the script is run again to finish its withdrawal.
      out.splice(0, out.length, ...finishable(out), ...askCode);
      out.push(...processedLines(r.kind, d, url));
    } else if (e.step === 'processed' || e.step === 'otp') out.push(...processedLines(r.kind, d, url));
  }
  const what = r.kind === 'deposit' ? 'deposit' : 'withdrawal';
  out.unshift(
    `printf '%s\\n' 'This script makes a NEW ${what} (a fresh reference), which mpay does not journal' >&2`,
  );
  return ['set -euo pipefail', ...out];
}

/**
 * Each step once, its last try: a resume sends an initiate again after a lost answer, a code may be
 * tried twice, a status sent again after a 429.
 */
function lastTries(sent: JournalEvent[]): JournalEvent[] {
  const once: JournalEvent[] = [];
  for (const e of sent) {
    const i = once.findIndex((x) => x.step === e.step);
    if (i >= 0) once.splice(i, 1);
    once.push(e);
  }
  return once;
}

/** the hash token the script's initiate answered (or the transaction's own) */
const hashVariable = new ShellVariable('HASH');

/**
 * A step's request again, as the endpoint table describes it: each field of its request schema, from where
 * the journal's 'sent' line keeps it (the table's `journal`); the credentials the table names ($MPAY_
 * variables for the secret ones, the profile's site id), the transaction's name a placeholder (a fresh
 * $MPAY_REF for an initiate, else $HASH), a secret sent ($MPAY_OTP) only where the journal says one was.
 */
function stepCurl(ep: Endpoint, d: Record<string, unknown>, url: (path: string) => string, siteId?: string) {
  const site = siteId && /^\d+$/.test(siteId) ? Number(siteId) : siteId;
  const body: Record<string, unknown> = {};
  for (const k of requestFields(ep)) {
    if (ep.credentials.includes(k)) body[k] = ep.secret.includes(k) ? 'secret' : site;
    else if (ep.names.includes(k))
      body[k] = ep.money?.step === 'initiate' ? new ShellVariable('MPAY_REF') : hashVariable;
    else if (ep.secret.includes(k)) body[k] = journaledField(ep, d, k) ? 'secret' : undefined;
    else body[k] = journaledField(ep, d, k);
  }
  return curlCommand({
    method: ep.method,
    url: url(ep.path),
    bearer: ep.bearer,
    encoding: ep.encoding,
    fail: true,
    body,
  });
}

/** The initiate, with a fresh reference; the hash token it answers kept in $HASH. */
function initiateLines(
  kind: JournalRecord['kind'],
  d: Record<string, unknown>,
  url: (path: string) => string,
  siteId: string | undefined,
): string[] {
  const cmd = stepCurl(moneyEndpointFor(kind, 'initiate'), d, url, siteId);
  return [
    'MPAY_REF=${MPAY_REF:-replay-$(date +%s)}',
    `RES=$(${cmd}) || { printf '%s\\n' "$RES"; exit 1; }`,
    'printf \'%s\\n\' "$RES"; HASH=$(printf %s "$RES" | jq -r .data.has_token)',
  ];
}

/** The wallet address update or the status update, of the transaction in $HASH. */
function updateCommand(
  step: 'wallet' | 'status',
  d: Record<string, unknown>,
  url: (path: string) => string,
): string {
  return stepCurl(moneyEndpointFor('deposit', step), d, url);
}

/** The steps before a withdrawal's code, skipped when $MPAY_FINISH_HASH names the withdrawal to finish. */
const finishable = (before: string[]) => [
  'if [ -z "${MPAY_FINISH_HASH:-}" ]; then',
  ...before,
  'else',
  '  HASH=$MPAY_FINISH_HASH',
  'fi',
];

/**
 * The one-time code: $MPAY_OTP, else asked on the terminal, else the script stops (exit 2) and prints the
 * one line that finishes this withdrawal with the code, without making another.
 */
const askCode = [
  'if [ -z "${MPAY_OTP:-}" ] && [ -t 2 ] && ( : </dev/tty ) 2>/dev/null; then',
  "  printf '%s' 'The one-time code the customer received: ' >&2",
  '  IFS= read -r MPAY_OTP </dev/tty || true',
  'fi',
  'if [ -z "${MPAY_OTP:-}" ]; then',
  "  printf '%s\\n' 'No one-time code: the withdrawal above waits for it. Finish it (and make no new one) with:' >&2",
  '  printf \'  MPAY_FINISH_HASH=%q MPAY_OTP=<CODE> bash %q\\n\' "$HASH" "$0" >&2',
  '  exit 2',
  'fi',
];

/** The processed call of the transaction in $HASH; a withdrawal's confirmation carries $MPAY_OTP. */
function processedLines(
  kind: JournalRecord['kind'],
  d: Record<string, unknown>,
  url: (path: string) => string,
): string[] {
  return [stepCurl(moneyEndpointFor(kind, 'processed'), d, url)];
}

/** What a person does next with a record: nothing, why not, or the command that continues it. */
function nextOf(r: JournalRecord): { message: string | null; resume: string | null } {
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
  return { message: null, resume: resumeCommand(r) };
}

/** The step whose request had no answer, when the last one had none. */
function unansweredStep(r: JournalRecord): string | undefined {
  const last = r.steps.at(-1);
  return last && (last.outcome === 'sent' || last.outcome === 'ambiguous') ? last.step : undefined;
}
