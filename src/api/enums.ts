// The enumerations of the wire, in one place, as plain arrays: the zod schemas build on them, and the
// commands' flag options and the sandbox import them without loading zod at start-up.

/** Transaction status values (spec, "States and transitions"). */
export const transactionStatuses = ['initiated', 'pending', 'success', 'failed', 'cancelled'] as const;
export type TransactionStatus = (typeof transactionStatuses)[number];

/** The two flows; a gateway configuration's `type` names the same thing from the gateway's side. */
/**
 * Every status `mpay history` shows of a journaled transaction (`statusShown` in journal/records.ts): the
 * API's, `not initiated` (a step refused with 404), and `unknown` (the last request had no answer).
 */
export const historyStatuses = [...transactionStatuses, 'not initiated', 'unknown'] as const;

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

/**
 * How a person settles a transaction whose last request had no answer (`mpay history resolve`):
 * `not-sent`, the request never reached the server (the next run sends it again); `landed`, it did (mpay
 * counts the transaction as done, and continues it no further); `abandoned`, it is given up (not counted,
 * not continued).
 */
export const resolutions = ['not-sent', 'landed', 'abandoned'] as const;
export type Resolution = (typeof resolutions)[number];
