// The one JSON shape of everything that touches a transaction (the flows, initiate, process, status,
// wallet, history show): the same keys every time, null where a fact is not known yet; the facts a script
// needs at the top; what was asked and what the API settled, each amount with its currency; and the
// API's own answers kept whole under `data`, one key per step. Its schema is in ui/json-schemas.ts and
// docs/json/transaction.schema.json; changes to it are additive only.
import type { InitiatedPayment, StatusUpdateResult, WalletAddressUpdateResult } from '../api/schemas.js';
import type { FlowResult } from '../flows/types.js';
import type { JournalRecord, StepRecord } from '../journal/records.js';

export interface TransactionJson {
  kind: 'deposit' | 'withdraw';
  /** customer_transaction_id */
  reference: string;
  /** has_token of initiate: what every later call takes */
  hash_token: string | null;
  /** as last seen from the API, or as mpay's steps imply */
  status: string | null;
  transaction_id: string | null;
  gateway: { id: number; name: string | null; payment_method: string | null } | null;
  /** what was asked at initiate */
  requested: { amount: string; currency: string } | null;
  /** what the API answered at processed: it may settle in another currency (a crypto gateway) */
  settled: { amount: number | null; currency: string | null; fee: number | null; net: number | null } | null;
  wallet_address: string | null;
  /** what the transaction waits for, when a command stopped early: the one-time code */
  next: 'otp' | null;
  /** the command that continues it */
  resume: string | null;
  message: string | null;
  /** the API's answers of this run, whole */
  data: {
    initiate?: InitiatedPayment;
    wallet?: WalletAddressUpdateResult;
    status_update?: StatusUpdateResult;
    processed?: FlowResult['transaction'];
  };
  /** history show: each step mpay journaled, with its outcome, and when the record began and changed */
  steps?: StepRecord[];
  created_at?: string;
  updated_at?: string;
  customer?: JournalRecord['customer'];
}

const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function fromFlowResult(
  r: FlowResult,
  record?: Pick<JournalRecord, 'amount' | 'currency'>,
): TransactionJson {
  const t = r.transaction;
  const p = r.initiated;
  const requested =
    p?.amount !== undefined && p.currency?.code
      ? { amount: String(p.amount), currency: p.currency.code }
      : record?.amount && record.currency
        ? { amount: record.amount, currency: record.currency }
        : null;
  const data: TransactionJson['data'] = {};
  if (p) data.initiate = p;
  if (r.wallet) data.wallet = r.wallet;
  if (r.status_update) data.status_update = r.status_update;
  if (t) data.processed = t;
  return {
    kind: r.kind,
    reference: r.reference,
    hash_token: r.hash_token ?? p?.has_token ?? null,
    status: r.status ?? t?.status ?? r.status_update?.status ?? null,
    transaction_id: t?.transaction_id ?? r.status_update?.transaction_id ?? null,
    gateway: r.gateway
      ? { id: r.gateway.id, name: r.gateway.name ?? null, payment_method: r.gateway.payment_method ?? null }
      : null,
    requested,
    settled: t
      ? { amount: n(t.amount), currency: t.currency_code ?? null, fee: n(t.fee_amount), net: n(t.net_amount) }
      : null,
    wallet_address: r.wallet?.wallet_address ?? null,
    next: r.next ?? null,
    resume: r.resume ?? null,
    message: r.message ?? null,
    data,
  };
}

/** A journal record as the envelope: what mpay knows of a transaction it started, with its steps. */
export function fromRecord(
  r: JournalRecord,
  next: { message: string | null; resume: string | null; next?: 'otp' },
): TransactionJson {
  return {
    kind: r.kind,
    reference: r.reference,
    hash_token: r.hash_token ?? null,
    status: r.status ?? null,
    transaction_id: r.transaction_id ?? null,
    gateway:
      r.gateway_id === undefined
        ? null
        : { id: r.gateway_id, name: r.gateway_name ?? null, payment_method: null },
    requested: r.amount && r.currency ? { amount: r.amount, currency: r.currency } : null,
    settled: null,
    wallet_address: r.wallet_address ?? null,
    next: next.next ?? null,
    resume: next.resume,
    message: next.message,
    data: {},
    steps: r.steps,
    created_at: r.created_at,
    updated_at: r.updated_at,
    customer: r.customer,
    ...(r.probe ? { probe: true } : {}),
  };
}

/** The envelope of a single step on a transaction: its record, the gateway used, and what the step returned. */
export function stepEnvelope(
  record: JournalRecord,
  gateway: number,
  part: Pick<FlowResult, 'status' | 'status_update' | 'wallet'>,
) {
  return fromFlowResult(
    {
      kind: record.kind,
      reference: record.reference,
      hash_token: record.hash_token,
      gateway: { id: gateway, name: record.gateway_name ?? String(gateway) },
      ...part,
    },
    record,
  );
}
