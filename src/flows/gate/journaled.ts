// The journaled send: one API call between a 'sent' line in the journal and its outcome line, through the
// run's money gate (money-gate.ts), whose ticket the sender asks for; what an answer that was lost means
// for the next try. The steps of a flow (steps.ts) and replay's calls send through it.
import { shownValue } from '../../common/shell-words.js';
import type { SendHooks, Via } from '../../api/sender.js';
import type { DryRun, RawAnswer } from '../../api/wire.js';
import { failureError } from '../../api/response.js';
import {
  CancelledError,
  JournalAfterSendError,
  MpayError,
  NetworkError,
  UnexpectedError,
} from '../../common/errors.js';
import { LockLostError } from '../../journal/locks.js';
import { anotherTransaction, differences } from './answer-check.js';
import { nothingSent, type OpenTicket } from './money-gate.js';
import { type JournalRecord, type Kind, type Step } from '../../journal/records.js';
import { ambiguityHint, historyShowCommand } from '../standing.js';
import { silentReporter, type FlowDeps } from '../types.js';

/**
 * After a Ctrl-C no step starts: nothing is sent, and no step's header is shown (a flow calls this before
 * it announces a step, so that no "→ Status update" is printed for a step that never went).
 */
export function stopIfAsked(deps: Pick<FlowDeps, 'stop'>, step: string, reference: string): void {
  if (deps.stop?.aborted)
    throw new CancelledError(`interrupted: the ${step} step of ${reference} was not sent`);
}

/** Runs one API call between a 'sent' line and its outcome line in the journal (replay's calls too). */
export async function journaled<T>(
  deps: FlowDeps,
  at: { reference: string; kind: Kind; step: Step; hash_token?: string; data?: Record<string, unknown> },
  label: string,
  call: (via: Via) => Promise<T>,
  outcome: (r: T) => { hash_token?: string; data?: Record<string, unknown> } = () => ({}),
  /** what the body carries, when not the step's own (`mpay api`: an initiate without a reference) */
  carries?: { value: string | undefined },
): Promise<T> {
  // A dry run sends nothing, so it has nothing to confirm or journal: the client throws its DryRun
  // signal with the request it would have sent.
  if (deps.client.dryRun) {
    deps.gate.printable(`${label} (${at.reference})`);
    try {
      return await call({});
    } catch (err) {
      const header = deps.gate.liveHeader;
      if (header && (err as DryRun).isDryRun) (err as DryRun).request.liveHeader = header;
      throw err;
    }
  }
  // A step that names no transaction is refused, nothing sent: its journal lines would be keyed by
  // nothing, and every later command would find them unreadable.
  if (!at.reference?.trim())
    throw new UnexpectedError(`Not sent: ${label} names no transaction (no reference, no hash token)`);
  // Ctrl-C: the step in flight finished; no step starts after it (flows/payment/payment-run.ts says what
  // the journal holds).
  stopIfAsked(deps, at.step, at.reference);
  // The gate (money-gate.ts): the live question, the transaction's lock, the synced 'sent' line, the ticket.
  // No record, no request: a payment mpay could not find again must never be sent.
  let opened: OpenTicket;
  try {
    opened = await deps.gate.open(deps.journal, deps.place, at, label, carries);
  } catch (err) {
    throw nothingSent(err);
  }
  // the call under the open ticket, between its journal lines
  const send = () =>
    sendJournaled(deps, at, label, (hooks) => call({ hooks, ticket: opened.ticket }), outcome, carries);
  try {
    return await send();
  } catch (err) {
    // An mpay proxy in front of a live server refused a money request mpay had not confirmed (428, nothing
    // forwarded): the gate now knows the server is live, and asks (or refuses without --yes) before it is
    // sent once more.
    if (!(err instanceof MpayError && err.status === 428 && deps.gate.live && !opened.live)) throw err;
    await opened.close();
    opened = await deps.gate.open(deps.journal, deps.place, at, label, carries);
    return await send();
  } finally {
    await opened.close();
  }
}

async function sendJournaled<T>(
  deps: FlowDeps,
  at: { reference: string; kind: Kind; step: Step; hash_token?: string; data?: Record<string, unknown> },
  label: string,
  call: (hooks: SendHooks) => Promise<T>,
  outcome: (r: T) => { hash_token?: string; data?: Record<string, unknown> },
  /** the reference the body carries, when not the step's own (`mpay api`: an initiate without one) */
  expected?: { value: string | undefined },
): Promise<T> {
  // A 429 was not processed: each refused try and each new one gets its line, so that the journal says
  // how many went out, and a kill during the wait leaves a step that is known not to have been applied.
  const hooks: SendHooks = {
    throttled: (t) =>
      deps.journal.append({
        ...at,
        outcome: 'throttled',
        data: { error: `HTTP ${t.status}: rate limited; waiting ${t.waitMs} ms` },
      }),
    resending: () => deps.journal.append({ ...at, outcome: 'sent' }),
    // Held back by a batch's pace before its first try: not on the wire, so a stop during the wait leaves
    // a step known not sent (the next run sends it), not one without an answer (unknown).
    held: (ms) =>
      deps.journal.append({
        ...at,
        outcome: 'throttled',
        data: {
          error: `not sent yet: waiting ${ms} ms for its turn at the pace the server allows (after a 429)`,
        },
      }),
  };
  let result: T;
  try {
    result = await (deps.reporter ?? silentReporter).wait(label, call(hooks));
  } catch (err) {
    if (err instanceof LockLostError) {
      // Not sent by this process (the ticket's check runs before each try): its 'sent' line says so, and
      // the other process's lines tell the rest.
      tookOver(deps, at, err);
      throw err;
    }
    const ambiguous = err instanceof NetworkError && err.ambiguous;
    recordAfterSending(deps, at, {
      reference: at.reference,
      kind: at.kind,
      step: at.step,
      hash_token: at.hash_token,
      outcome: ambiguous ? 'ambiguous' : 'failed',
      data: {
        error: describe(err),
        status: err instanceof MpayError && err.kind === 'state' ? 'not initiated' : undefined,
      },
    });
    if (ambiguous && err instanceof MpayError)
      err.hint = ambiguityHint(deps, at.kind, at.step, at.reference, at.hash_token);
    throw err;
  }
  // An answer about another transaction (the server's fault): journaled as such, and the run stops here.
  // The reference held against it: an initiate's, as its body carries it; a later step's, the record's
  // (none when the record is keyed by the hash token alone: `mpay api` on a transaction made elsewhere).
  const record = deps.journal.find(at.reference);
  const reference =
    at.step === 'initiate'
      ? expected
        ? expected.value
        : at.reference
      : record && record.reference !== at.hash_token
        ? record.reference
        : undefined;
  const differ = differences(result, { ...at, reference }, record);
  if (differ.length) {
    const err = anotherTransaction(label, at, differ);
    recordAfterSending(deps, at, {
      reference: at.reference,
      kind: at.kind,
      step: at.step,
      hash_token: at.hash_token,
      outcome: 'failed',
      data: { error: err.message, another_transaction: differ },
    });
    throw err;
  }
  const o = outcome(result);
  recordAfterSending(deps, at, {
    reference: at.reference,
    kind: at.kind,
    step: at.step,
    outcome: 'ok',
    hash_token: o.hash_token ?? at.hash_token,
    data: o.data,
  });
  return result;
}

/** What a process whose lock was taken over knows of the step it did not send. */
function tookOver(
  deps: FlowDeps,
  at: { reference: string; kind: Kind; step: Step; hash_token?: string },
  err: LockLostError,
) {
  try {
    deps.journal.append({ ...at, outcome: 'taken_over', data: { error: err.message } });
  } catch {
    // The journal cannot be written: its 'sent' line stays, read as a step with no answer (unknown).
  }
}

/**
 * The outcome line of a request that left. A journal that cannot be written now leaves the step as sent
 * with no answer: the error says so (unknown, never failed: the server may have applied it) and names the
 * hash token the answer carried, the one thing that finds the transaction again.
 */
function recordAfterSending(
  deps: FlowDeps,
  at: { reference: string; kind: Kind; step: Step },
  event: Parameters<FlowDeps['journal']['append']>[0],
): void {
  try {
    deps.journal.append(event);
  } catch (err) {
    const hash = event.hash_token;
    throw new JournalAfterSendError(
      `The ${at.step} request of ${at.reference} was sent, but the journal could not record its answer (${(err as Error).message})${hash ? `; its hash token is ${shownValue(hash)}` : ''}`,
      {
        hint: `Its outcome is unknown to mpay from now on: mend the journal's folder, then \`${historyShowCommand({ reference: at.reference, place: deps.place })}\``,
        cause: err,
        hash_token: hash,
      },
    );
  }
}

/**
 * A money call whose answer is wanted whatever its status (`mpay api`, replay): journaled like a flow's
 * step, the step recorded failed on an error status, and the answer returned as the server sent it.
 */
export async function journaledAnswer(
  deps: FlowDeps,
  at: { reference: string; kind: Kind; step: Step; hash_token?: string; data?: Record<string, unknown> },
  label: string,
  send: (via: Via) => Promise<RawAnswer>,
  outcome: (a: RawAnswer) => { hash_token?: string; data?: Record<string, unknown> },
  carries?: { value: string | undefined },
): Promise<RawAnswer> {
  const answered = new WeakMap<object, RawAnswer>();
  try {
    return await journaled(
      deps,
      at,
      label,
      async (via) => {
        const a = await send(via);
        if (a.status < 300) return a;
        const err = failureError(label, a.status, a.contentType, a.text);
        answered.set(err, a);
        throw err;
      },
      outcome,
      carries,
    );
  } catch (err) {
    const a = answered.get(err as object);
    if (a) return a;
    throw err;
  }
}

/** An error as one line for the journal: the message and the API's per-field messages. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const fields =
    err instanceof MpayError ? Object.entries(err.fields).map(([f, m]) => `${f}: ${m.join(' ')}`) : [];
  return [err.message, ...fields].join(' ');
}

/** Whether an earlier attempt at this step was sent and its outcome never came back (killed, dropped). */
function earlierAttemptUnknown(record: JournalRecord, steps: Step[]): boolean {
  const last = [...record.steps].reverse().find((s) => steps.includes(s.step));
  return last?.outcome === 'sent' || last?.outcome === 'ambiguous';
}

/**
 * Runs a step that an earlier, unanswered attempt may already have applied. When the API's refusal says
 * exactly that (the transaction is no longer initiated, the payment is already done, the reference is
 * taken), the error says so in words, instead of leaving a support engineer to guess.
 */
export async function repeatOfUnknown<T>(
  record: JournalRecord,
  steps: Step[],
  run: () => Promise<T>,
): Promise<T> {
  const unknown = earlierAttemptUnknown(record, steps);
  try {
    return await run();
  } catch (err) {
    if (!unknown || !(err instanceof MpayError)) throw err;
    const applied =
      err.kind === 'state' ||
      (err.kind === 'validation' &&
        (err.fields.customer_transaction_id !== undefined ||
          /already been done/i.test((err.fields.hash_token ?? []).join(' '))));
    if (applied) {
      err.hint = `An earlier ${steps.join('/')} request for ${record.reference} was sent and its answer lost; the API's answer now says it was most likely applied. Nothing else was sent.${
        record.hash_token ? '' : ' mpay never got the hash token: ask the provider with the reference.'
      }`;
    }
    throw err;
  }
}
