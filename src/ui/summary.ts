// How a transaction reads for a person: the envelope's facts (with --json the envelope prints whole), what
// was asked and what the API settled labelled apart, each amount with its currency.
import type { InitiatedPayment } from '../api/schemas.js';
import type { TransactionJson } from './envelope.js';
import { renderRecord } from './output.js';

/**
 * `width`: the terminal's, to fit (undefined in a pipe: the table whole). `resume`, and a `next` that is a
 * command, fold only as a command line does, so that they still paste.
 */
export function transactionSummary(
  t: TransactionJson,
  extra: Record<string, unknown> = {},
  width?: number,
): Promise<string> {
  const s = t.settled;
  return renderRecord(
    {
      kind: t.kind,
      reference: t.reference,
      hash_token: t.hash_token,
      status: t.status,
      gateway: t.gateway ? `${t.gateway.id} ${t.gateway.name ?? ''}`.trim() : undefined,
      wallet_address: t.wallet_address,
      transaction_id: t.transaction_id,
      asked: t.requested ? `${t.requested.amount} ${t.requested.currency}` : undefined,
      settled: s
        ? `${s.amount ?? '?'} ${s.currency ?? ''}, fee ${s.fee ?? '?'} ${s.currency ?? ''}, net ${s.net ?? '?'} ${s.currency ?? ''}`
        : undefined,
      next: t.next,
      resume: t.resume,
      ...extra,
    },
    width,
    ['resume', ...(typeof extra.next === 'string' && extra.next.startsWith('mpay ') ? ['next'] : [])],
  );
}

/** The gateways an initiate offered, for a person choosing one. */
export function offeredGateways(p: InitiatedPayment): string {
  return p.gateway_configuration.map((c) => `${c.gateway.id} ${c.gateway.name}`).join(', ');
}
