// `mpay replay`: the API's calls of a recorded trace, sent again in order to the server of this run, with
// this run's credentials and a fresh token, a fresh customer_transaction_id for every initiate, and every
// hash_token mapped from the new answers (which calls can go, and from which initiates: replay-plan.ts).
// Each answer is set beside the recorded one (replay-compare.ts).
// Money calls pass the live gate first and are journaled as every flow's are (replay/send.ts); a call
// whose transaction was not initiated in the trace is never sent (its recorded hash token belongs to
// another run, and on the recording server to a real transaction); the recorded reference is never sent.
import { randomBytes } from 'node:crypto';
import type { Credentials, TokenStore } from '../../api/credentials.js';
import { missingCredentials } from '../../api/credentials.js';
import { UsageError } from '../../common/errors.js';
import { endpoint } from '../../api/endpoints.js';
import type { RecordedCall } from '../../api/har-read.js';
import type { RawAnswer } from '../../api/wire.js';
import { newReference } from '../payment/inputs.js';
import { differences, summarize, type AnswerSummary, type Difference } from './replay-compare.js';
import { dataOf } from '../../api/response.js';
import {
  isHashPlaceholder,
  placeholders,
  planReplay,
  recordedInitiates,
  textOf,
  unreplayable,
  type PlannedCall,
} from './replay-plan.js';
import { sendAgain, type Made, type ReplayRequest } from './send.js';
import type { FlowDeps } from '../types.js';

export interface ReplayInputs {
  calls: RecordedCall[];
  credentials: Credentials;
  /** the token store of `deps.client`: empty at the start, so the replay runs on a fresh token */
  tokens: TokenStore;
  /** --otp: the one-time code for a recorded withdraw processed that sent one */
  otp?: string;
  /** what the live confirmation names */
  source: string;
  /** --keep-going: after a call that failed, send the money calls after it anyway */
  keepGoing?: boolean;
  /** the server the calls go to, as the plan names it */
  server: string;
  /** neutral customer data instead of the recorded (any server but a sandbox, unless --keep-customer) */
  neutral: boolean;
}

export interface ReplayedCall {
  /** its place in the replay, from 1 */
  index: number;
  method: 'GET' | 'POST';
  /** the URL path after /restapi/v1, with its leading slash */
  path: string;
  recorded: AnswerSummary;
  /** null when the call was not sent (see `skipped`) */
  replayed: AnswerSummary | null;
  same: boolean;
  differences: Difference[];
  /** an initiate's new customer_transaction_id, and the one recorded (never sent) */
  reference?: string;
  recorded_reference?: string;
  hash_token?: string;
  skipped?: string;
}

/** Whether a call needs the one-time code: a recorded withdraw processed that sent one. */
const needsOtp = (c: RecordedCall) => c.endpoint === 'withdrawProcessed' && c.body?.otp !== undefined;

/** Checks before anything is sent: credentials, and the code a withdrawal confirmation needs. */
async function otpFor(inputs: ReplayInputs, deps: FlowDeps): Promise<string | undefined> {
  if (!inputs.calls.some(needsOtp)) return undefined;
  if (inputs.otp !== undefined) {
    deps.client.secrets.register(inputs.otp);
    return inputs.otp;
  }
  if (!deps.prompter)
    throw new UsageError(
      'Nothing was sent: the trace confirms a withdrawal with a one-time code, which traces never keep',
      {
        hint: 'Pass --otp CODE (the code sent to the customer e-mail; the sandbox: 123456), or run it on a terminal to be asked',
      },
    );
  const otp = await deps.prompter.password({
    message: 'The one-time code for the withdrawal the trace confirms',
    validate: (v) => (/^\d{4,8}$/.test(v.trim()) ? true : 'digits, as sent to the customer e-mail'),
  });
  deps.client.secrets.register(otp.trim());
  return otp.trim();
}

/** What the calls of one replay share as it goes. */
interface ReplayRun {
  inputs: ReplayInputs;
  deps: FlowDeps;
  otp: string | undefined;
  random: () => string;
  /** the recorded calls that cannot be replayed, and why */
  skipped: Map<number, string>;
  /** recorded hash token → the index of the initiate that made it */
  made: Map<string, number>;
  /** recorded hash token → the new transaction's */
  txs: Map<string, Made>;
  /** values that differ between any two runs (hash tokens, references): not a difference of the answers */
  volatile: string[];
  /** each call as it goes out (replay-plan.ts): what a dry run prints */
  plan: PlannedCall[];
}

export async function replay(inputs: ReplayInputs, deps: FlowDeps): Promise<ReplayedCall[]> {
  const { calls } = inputs;
  refuseMissingCredentials(calls, inputs.credentials);
  const skipped = unreplayable(calls);
  const money = calls.filter((c, i) => endpoint(c.endpoint).money && !skipped.has(i)).length;
  // One confirmation for the whole replay, before anything at all is sent (a token included).
  if (money)
    await deps.gate.pass(
      { what: `replay of ${calls.length} calls from ${inputs.source}, ${money} of them moving money` },
      deps.client.dryRun,
    );
  const run: ReplayRun = {
    inputs,
    deps,
    otp: await otpFor(inputs, deps),
    random: () => randomBytes(3).toString('hex'),
    skipped,
    made: recordedInitiates(calls),
    txs: new Map(),
    volatile: [],
    plan: planReplay(calls, {
      credentials: inputs.credentials,
      server: inputs.server,
      neutral: inputs.neutral,
    }),
  };
  const out: ReplayedCall[] = [];
  let failed: Answered | undefined;
  for (const [i, c] of calls.entries()) {
    // A call that answered otherwise than recorded stops the replay before any money call after it: a
    // processed after a status update refused here (and accepted in the recording) would move money the
    // recording never saw move. A failure answered as recorded is no reason to stop. --keep-going sends them.
    if (failed && endpoint(c.endpoint).money && !inputs.keepGoing) {
      out.push({
        index: i + 1,
        method: c.method,
        path: `/${c.path}`,
        recorded: recordedAnswer(run, c),
        replayed: null,
        same: false,
        differences: [],
        skipped: `not sent: call ${failed.index} (${failed.method} ${failed.path}) answered otherwise than recorded: ${failure(failed.replayed)}; --keep-going sends the money calls after it`,
      });
      continue;
    }
    const r = await replayCall(run, c, i);
    out.push(r);
    if (!failed && answeredOtherwise(r)) failed = r;
  }
  return out;
}

const failing = (a: AnswerSummary) => a.status === 0 || a.status >= 300;

/**
 * A call whose answer stops the money calls after it: one that answered with another status than the
 * recorded one, another success flag, another of its endpoint's answers (the code sent where the
 * withdrawal was processed) or another transaction status, or failed otherwise than it did. A failure
 * answered as recorded is the trace reproduced (the very 404 a support engineer wants to see again): the
 * replay goes on.
 */
const outcomeDiffers = new Set<Difference['what']>(['status', 'flag', 'answer', 'transaction status']);
type Answered = ReplayedCall & { replayed: AnswerSummary };
function answeredOtherwise(r: ReplayedCall): r is Answered {
  if (!r.replayed) return false;
  return r.differences.some((d) => outcomeDiffers.has(d.what)) || (failing(r.replayed) && !r.same);
}

/** What the API said of a failed call, in a few words: its status and message, or the connection's error. */
function failure(a: AnswerSummary): string {
  if (a.status === 0) return a.error ?? 'no answer';
  return `HTTP ${a.status}${a.message ? ` "${a.message}"` : ''}`;
}

/** The credentials the trace's calls need: a merchant key for a token, a site id and API key for initiates. */
export function refuseMissingCredentials(calls: RecordedCall[], cred: Credentials): void {
  if (calls.some((c) => endpoint(c.endpoint).bearer || endpoint(c.endpoint).token) && !cred.merchantKey)
    throw missingCredentials(
      cred,
      'No merchant key to replay with',
      'Run `mpay login`, or set MPAY_MERCHANT_KEY',
    );
  if (
    calls.some((c) => c.body && ('api_key' in c.body || 'site_id' in c.body)) &&
    !(cred.apiKey && cred.siteId)
  )
    throw missingCredentials(
      cred,
      'Missing credentials to replay the initiates: site id and API key',
      'Run `mpay login`, or set MPAY_SITE_ID and MPAY_API_KEY',
    );
}

/**
 * The recorded answer as the report shows it. Both answers pass the one scrubber, as a trace's did when
 * mpay wrote it: like is compared with like (a browser's trace keeps its answers whole).
 */
function recordedAnswer(run: ReplayRun, c: RecordedCall): AnswerSummary {
  return summarize(
    c.response.status,
    c.response.text === undefined ? undefined : run.deps.client.secrets.text(c.response.text),
    c.response.error,
    endpoint(c.endpoint).answers,
  );
}

/** One recorded call: sent again (or not, and why), its answer set beside the recorded one. */
async function replayCall(run: ReplayRun, c: RecordedCall, i: number): Promise<ReplayedCall> {
  const recorded = recordedAnswer(run, c);
  const base = { index: i + 1, method: c.method, path: `/${c.path}`, recorded };
  const recordedHash = textOf(c.body?.hash_token);
  const tx = recordedHash === undefined ? undefined : run.txs.get(recordedHash);
  const notSent =
    run.skipped.get(i) ??
    (recordedHash !== undefined && !tx?.hash_token
      ? 'not sent: the initiate of its transaction did not answer with a hash token here'
      : undefined);
  if (notSent) return { ...base, replayed: null, same: false, differences: [], skipped: notSent };
  const req = replayBody(run, c, i, tx);
  const { reference, recordedReference } = req;
  const { answer, error } = await sendAgain(run.deps, c, req, tx);
  const hash = await learnFrom(run, c, i, answer, req);
  const replayed = answer
    ? summarize(
        answer.status,
        run.deps.client.secrets.text(answer.text),
        undefined,
        endpoint(c.endpoint).answers,
      )
    : summarize(0, undefined, error);
  const diff = differences(recorded, replayed, run.volatile);
  return {
    ...base,
    replayed,
    same: diff.length === 0,
    differences: diff,
    ...(reference ? { reference, recorded_reference: recordedReference } : {}),
    ...(hash ? { hash_token: hash } : {}),
  };
}

/** The body: the plan's, its placeholders filled with a new reference, the new hash token, the code. */
function replayBody(run: ReplayRun, c: RecordedCall, i: number, tx: Made | undefined): ReplayRequest {
  const planned = run.plan[i]!.body;
  if (!planned || !c.body) return {};
  const ep = endpoint(c.endpoint);
  // no prototype: a field named __proto__ (or constructor) is a field like any other
  const body = Object.create(null) as Record<string, unknown>;
  let reference: string | undefined;
  let recordedReference: string | undefined;
  for (const [k, v] of Object.entries(planned)) {
    if (v === placeholders.reference()) {
      recordedReference = textOf(c.body[k]);
      reference ??= newReference(ep.money?.kind ?? 'deposit', run.random);
      body[k] = reference;
    } else if (isHashPlaceholder(v)) body[k] = tx?.hash_token;
    else if (v === placeholders.otp()) body[k] = run.otp;
    else body[k] = v;
  }
  return { body, reference, recordedReference };
}

/**
 * What an answer makes known: a new token to go on with, a new transaction's hash token (returned), and
 * the values of this run that the comparison passes over.
 */
async function learnFrom(
  run: ReplayRun,
  c: RecordedCall,
  i: number,
  answer: RawAnswer | undefined,
  { reference, recordedReference }: ReplayRequest,
): Promise<string | undefined> {
  const ep = endpoint(c.endpoint);
  const data = answer && answer.status < 300 ? dataOf(answer.text) : undefined;
  if (ep.token && typeof data?.token === 'string') {
    run.deps.client.secrets.register(data.token);
    await run.inputs.tokens.set(data.token);
  }
  if (ep.money?.step !== 'initiate') return undefined;
  const hash = textOf(data?.has_token);
  const recordedNew = [...run.made.entries()].find(([, at]) => at === i)?.[0];
  if (recordedNew) {
    run.txs.set(recordedNew, {
      hash_token: hash,
      reference: reference!,
      kind: ep.money.kind ?? 'deposit',
    });
    run.volatile.push(recordedNew);
  }
  if (hash) run.volatile.push(hash);
  if (recordedReference) run.volatile.push(recordedReference);
  if (reference) run.volatile.push(reference);
  return hash;
}
