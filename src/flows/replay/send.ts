// A call of `mpay replay` as it goes out: its request sent again through the client, and a money call
// between its journal lines (journaled.ts) as every flow's step writes them.
import { MpayError } from '../../common/errors.js';
import { endpoint, type Endpoint } from '../../api/endpoints.js';
import type { RecordedCall } from '../../api/har-read.js';
import type { Via } from '../../api/sender.js';
import type { RawAnswer } from '../../api/wire.js';
import type { JournalRecord, Kind, Step } from '../../journal/records.js';
import { journaledAnswer } from '../gate/journaled.js';
import { dataOf } from '../../api/response.js';
import { textOf } from './replay-plan.js';
import type { FlowDeps } from '../types.js';

/**
 * A transaction the replay made, as the journal records it: its reference, kind and new hash token (none
 * when its initiate did not answer one).
 */
export type Made = Pick<JournalRecord, 'reference' | 'kind' | 'hash_token'>;

type MoneyEndpoint = Endpoint & { money: NonNullable<Endpoint['money']> };

/** A call as the replay sends it: its body, and an initiate's new reference beside the recorded one. */
export interface ReplayRequest {
  body?: Record<string, unknown>;
  reference?: string;
  recordedReference?: string;
}

/**
 * The call sent: a money call journaled as every flow's are. An answer with an error status is an
 * answer; so is a network failure (status 0, `error`); a refusal of mpay's (the gate, the journal) stops
 * the replay.
 */
export async function sendAgain(
  deps: FlowDeps,
  c: RecordedCall,
  req: ReplayRequest,
  tx: Made | undefined,
): Promise<{ answer?: RawAnswer; error?: string }> {
  const ep = endpoint(c.endpoint);
  const send = (via: Via = {}) =>
    deps.client.raw({
      method: c.method,
      path: c.path,
      encoding: c.encoding,
      body: req.body,
      bearer: ep.bearer,
      via,
    });
  try {
    if (!ep.money) return { answer: await send() };
    return { answer: await sendJournaled(deps, c, ep as MoneyEndpoint, req, tx, send) };
  } catch (err) {
    if (!(err instanceof MpayError) || err.kind !== 'network') throw err;
    return { error: err.message };
  }
}

/** A money call between its journal lines, under the transaction the replay made for it. */
function sendJournaled(
  deps: FlowDeps,
  c: RecordedCall,
  ep: MoneyEndpoint,
  { body, reference, recordedReference }: ReplayRequest,
  tx: Made | undefined,
  send: (via: Via) => Promise<RawAnswer>,
): Promise<RawAnswer> {
  const kind: Kind = ep.money.kind ?? tx?.kind ?? 'deposit';
  const step: Step =
    ep.money.step === 'processed' && kind === 'withdraw' && !body?.otp ? 'otp' : (ep.money.step as Step);
  return journaledAnswer(
    deps,
    {
      reference: (reference ?? tx?.reference)!,
      kind,
      step,
      hash_token: tx?.hash_token,
      data: stepData(step, kind, body, recordedReference),
    },
    `Replaying ${c.method} /${c.path}`,
    send,
    (a) => {
      const hash = textOf(dataOf(a.text).has_token);
      const status = textOf(dataOf(a.text).status);
      return step === 'initiate'
        ? { hash_token: hash, data: { status: hash ? 'initiated' : undefined } }
        : { data: { status } };
    },
  );
}

/** What the journal's 'sent' line of a money call holds, as a flow's step would write it. */
function stepData(
  step: Step,
  kind: Kind,
  body: Record<string, unknown> | undefined,
  recordedReference: string | undefined,
): Record<string, unknown> {
  if (step === 'initiate')
    return {
      amount: textOf(body?.amount),
      currency: body?.currency_code,
      country: body?.country_code,
      customer: body && {
        first_name: body.customer_first_name,
        last_name: body.customer_last_name,
        phone: body.customer_phone,
        email: body.customer_email,
      },
      replay_of: recordedReference,
    };
  return {
    gateway_id: body?.gateway_id,
    requested_status: step === 'status' ? body?.status : undefined,
    phone_number: body?.phone_number,
    with_otp: step === 'processed' && kind === 'withdraw' ? true : undefined,
  };
}
