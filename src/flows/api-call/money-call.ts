// A request of `mpay api` to a money endpoint, however its path was spelled: through the money gate like
// every flow's step, journaled under the transaction it names; or, in a dry run, printed under the gate's
// rule for a live server.
import { randomBytes } from 'node:crypto';
import type { Client } from '../../api/client.js';
import type { MoneyEndpoint } from '../../api/money.js';
import { isSecretName } from '../../api/redact.js';
import { dataOf } from '../../api/response.js';
import type { DryRun, RawAnswer } from '../../api/wire.js';
import type { Kind, Place, Step } from '../../journal/records.js';
import type { JournalLike } from '../../journal/journal.js';
import type { MoneyGate } from '../gate/money-gate.js';
import type { FlowDeps } from '../types.js';
import type { ApiRequest } from './request.js';

/** A dry run of a money request: printed for a live server only with --yes, under the live header. */
export async function printMoney(
  req: ApiRequest,
  bearer: boolean,
  client: Client,
  gate: MoneyGate,
): Promise<void> {
  gate.printable(`${req.method} /${req.path}`);
  try {
    await client.raw({ ...req, bearer });
  } catch (err) {
    if (gate.liveHeader && (err as DryRun).isDryRun) (err as DryRun).request.liveHeader = gate.liveHeader;
    throw err;
  }
}

/**
 * A request to a money endpoint, however its path was spelled: through the money gate like every flow's
 * step (the live question or --yes, the transaction's lock, the journal's 'sent' line), journaled under
 * the transaction it names (its reference, or the hash token's record), or a record of its own keyed by
 * what it carries. Its answer, whatever its status, is printed as any other.
 */
export async function sendMoney(
  endpoint: MoneyEndpoint,
  req: ApiRequest,
  bearer: boolean,
  at: { client: Client; journal: JournalLike; place: Place; gate: () => Promise<MoneyGate> },
): Promise<RawAnswer> {
  const { journaledAnswer } = await import('../gate/journaled.js');
  const { client, journal, place } = at;
  const body = req.body ?? {};
  const text = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : String(v));
  const hash = endpoint.step === 'initiate' ? undefined : text(body.hash_token);
  const known = hash ? journal.find(hash) : undefined;
  // An initiate under a reference the journal holds is refused, as a flow refuses it (flows/payment/payment.ts).
  const taken = endpoint.step === 'initiate' ? text(body.customer_transaction_id) : undefined;
  if (taken) {
    const { refuseKnownReference } = await import('../payment/payment.js');
    refuseKnownReference(
      taken,
      { journal, place },
      { noun: 'customer_transaction_id', give: 'customer_transaction_id' },
    );
  }
  const reference =
    (endpoint.step === 'initiate' ? text(body.customer_transaction_id) : (known?.reference ?? hash)) ??
    `api-${randomBytes(6).toString('hex')}`;
  const kind: Kind = endpoint.kind ?? known?.kind ?? 'deposit';
  const step: Step =
    endpoint.step === 'processed' && kind === 'withdraw' && body.otp === undefined ? 'otp' : endpoint.step;
  const deps = { client, journal, place, gate: await at.gate(), env: place.env } satisfies FlowDeps;
  return journaledAnswer(
    deps,
    { reference, kind, step, hash_token: hash, data: { via: 'mpay api', ...journalFields(body) } },
    `${req.method} /${endpoint.path} (mpay api)`,
    (via) => client.raw({ ...req, bearer, via }),
    (a) => {
      const data = dataOf(a.text);
      return step === 'initiate'
        ? { hash_token: text(data.has_token), data: { status: 'initiated' } }
        : { data: { status: text(data.status), transaction_id: text(data.transaction_id) } };
    },
    // An initiate without a reference carries none: its ticket is for exactly that.
    { value: endpoint.step === 'initiate' ? text(body.customer_transaction_id) : hash },
  );
}

/** The request's fields as the journal keeps them: never a credential or a code (journal.ts refuses those). */
function journalFields(body: Record<string, unknown>): Record<string, unknown> {
  // what the one list of secret names (api/redact.ts) names, and the site id, stay out of the journal
  const { site_id: _s, ...kept } = body;
  const rest = Object.fromEntries(Object.entries(kept).filter(([k]) => !isSecretName(k)));
  const {
    customer_first_name: first_name,
    customer_last_name: last_name,
    customer_phone: phone,
    customer_email: email,
    currency_code: currency,
    country_code: country,
    ...others
  } = rest;
  const customer = { first_name, last_name, phone, email };
  // as `mpay status` records them: the status asked for is not the transaction's status (the API may
  // refuse it), and a gateway id is a number
  const { status, gateway_id, ...fields } = others;
  const gateway = Number(gateway_id);
  return {
    ...fields,
    ...(status === undefined ? {} : { requested_status: status }),
    ...(gateway_id === undefined ? {} : { gateway_id: Number.isInteger(gateway) ? gateway : gateway_id }),
    // as a flow records it: the amount as written (-F makes 10 a number)
    ...(others.amount === undefined ? {} : { amount: String(others.amount) }),
    ...(currency === undefined ? {} : { currency }),
    ...(country === undefined ? {} : { country }),
    ...(Object.values(customer).some((v) => v !== undefined) ? { customer } : {}),
  };
}
