// The enumerations of the wire, in one place, as plain arrays: the zod schemas build on them, and the
// commands' flag options and the sandbox import them without loading zod at start-up.

/** Transaction status values (spec, "States and transitions"). */
export const transactionStatuses = ['initiated', 'pending', 'success', 'failed', 'cancelled'] as const;
export type TransactionStatus = (typeof transactionStatuses)[number];

/** The two flows; a gateway configuration's `type` names the same thing from the gateway's side. */
export const paymentKinds = ['deposit', 'withdraw'] as const;
export type PaymentKind = (typeof paymentKinds)[number];

export const gatewayTypes = ['collection', 'disbursement'] as const;
export type GatewayType = (typeof gatewayTypes)[number];

/** The gateway configuration type of a flow: collection for deposits, disbursement for withdrawals. */
export function gatewayTypeOf(kind: PaymentKind): GatewayType {
  return kind === 'deposit' ? 'collection' : 'disbursement';
}

export function isTransactionStatus(v: string): v is TransactionStatus {
  return (transactionStatuses as readonly string[]).includes(v);
}
