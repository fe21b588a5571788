// How a flow's result and an initiated payment read for a person (with --json the objects print whole).
import type { InitiatedPayment } from '../api/schemas.js';
import type { FlowResult } from '../flows/types.js';
import { renderRecord } from './output.js';

/** The key facts of a flow's result. */
export function flowSummary(r: FlowResult): Promise<string> {
  const t = r.transaction;
  return renderRecord({
    kind: r.kind,
    reference: r.reference,
    hash_token: r.hash_token,
    status: r.status,
    gateway: r.gateway ? `${r.gateway.id} ${r.gateway.name}` : undefined,
    wallet_address: r.wallet?.wallet_address,
    transaction_id: t?.transaction_id ?? r.status_update?.transaction_id,
    amount: t ? `${t.amount ?? ''} ${t.currency_code ?? ''}` : undefined,
    fee: t?.fee_amount,
    net: t?.net_amount,
    next: r.next,
    resume: r.resume,
  });
}

/** An initiated payment: its hash token, its gateways and the command that continues it. */
export function initiatedSummary(p: InitiatedPayment): Promise<string> {
  return renderRecord({
    has_token: p.has_token,
    customer_transaction_id: p.customer_transaction_id,
    amount: `${p.amount} ${p.currency?.code ?? ''}`,
    country: p.country?.code,
    customer_email: p.customer_email,
    gateways: p.gateway_configuration.map((c) => `${c.gateway.id} ${c.gateway.name}`).join(', '),
    next: `mpay status ${p.has_token} --status initiated --gateway <ID>`,
  });
}
