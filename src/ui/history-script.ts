// `mpay history show KEY --curl`: the requests of one transaction, from the journal's 'sent' lines, as the
// lines of a bash script that sends them again (the endpoint table says each request's fields).
import { curlCommand, ShellVariable } from './curl.js';
import { singleQuoted } from '../common/shell-words.js';
import type { JournalEvent, JournalRecord } from '../journal/records.js';
import { apiBase, journaledField, moneyEndpointFor, requestFields, type Endpoint } from '../api/endpoints.js';

/**
 * The requests of one transaction, from the journal's 'sent' lines, as a bash script that sends them again
 * in order: secrets are $MPAY_* variables; the initiate goes out with a fresh reference ($MPAY_REF, so the
 * API does not refuse it as a duplicate) and its hash token is kept in $HASH; a step sent more than once
 * (a try again after a 429, another code) is sent once, a confirmation with its code once; and the script
 * stops at the first call that fails, with the API's answer.
 */
export function curlOf(
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
