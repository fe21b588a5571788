// The API calls of a flow, each journaled (journaled.ts). A dry run neither confirms nor journals. Exported
// one by one for the single-step commands.
import type { WithdrawProcessedResult } from '../../api/client.js';
import type {
  InitiatedPayment,
  StatusUpdateResult,
  Transaction,
  TransactionStatus,
  WalletAddressUpdateResult,
} from '../../api/schemas.js';
import { type JournalRecord, type Kind } from '../../journal/records.js';
import type { Gathered } from './gather.js';
import { journaled } from '../gate/journaled.js';
import { title, type FlowDeps } from '../types.js';

/** `gateway` is the one asked for by flag, if any: recorded so that a resumed flow keeps it. */
export async function initiateStep(
  kind: Kind,
  g: Gathered['request'],
  deps: FlowDeps,
  gateway?: number,
): Promise<InitiatedPayment> {
  const { customer_first_name, customer_last_name, customer_phone, customer_email } = g;
  return journaled(
    deps,
    {
      reference: g.customer_transaction_id,
      kind,
      step: 'initiate',
      data: {
        amount: g.amount,
        currency: g.currency_code,
        country: g.country_code,
        customer: {
          first_name: customer_first_name,
          last_name: customer_last_name,
          phone: customer_phone,
          email: customer_email,
        },
        gateway_id: gateway,
      },
    },
    `Initiating the ${title(kind)}`,
    (h) => (kind === 'deposit' ? deps.client.depositInitiate(g, h) : deps.client.withdrawInitiate(g, h)),
    (p) => ({
      hash_token: p.has_token,
      data: { status: 'initiated', gateways: p.gateway_configuration.map((c) => c.gateway.id) },
    }),
  );
}

export async function walletStep(
  r: Pick<JournalRecord, 'reference' | 'kind'>,
  hash: string,
  gatewayId: number,
  deps: FlowDeps,
): Promise<WalletAddressUpdateResult> {
  return journaled(
    deps,
    {
      reference: r.reference,
      kind: r.kind,
      step: 'wallet',
      hash_token: hash,
      data: { gateway_id: gatewayId },
    },
    'Updating the wallet address',
    (h) => deps.client.walletUpdate({ hash_token: hash, gateway_id: gatewayId }, h),
    (w) => ({ data: { wallet_address: w.wallet_address } }),
  );
}

export async function statusStep(
  r: Pick<JournalRecord, 'reference' | 'kind'>,
  hash: string,
  gatewayId: number,
  status: TransactionStatus,
  deps: FlowDeps,
): Promise<StatusUpdateResult> {
  return journaled(
    deps,
    {
      reference: r.reference,
      kind: r.kind,
      step: 'status',
      hash_token: hash,
      // What was sent, so that `mpay history show --curl` can give the request again.
      data: { gateway_id: gatewayId, requested_status: status },
    },
    `Updating the status to ${status}`,
    (h) => deps.client.statusUpdate({ hash_token: hash, status, gateway_id: gatewayId }, h),
    (s) => ({ data: { status: s.status, transaction_id: s.transaction_id } }),
  );
}

export async function depositProcessStep(
  r: Pick<JournalRecord, 'reference' | 'kind'>,
  hash: string,
  phone: string,
  receiverEmail: string | undefined,
  deps: FlowDeps,
): Promise<Transaction> {
  return journaled(
    deps,
    {
      reference: r.reference,
      kind: 'deposit',
      step: 'processed',
      hash_token: hash,
      data: { phone_number: phone, receiver_email: receiverEmail },
    },
    'Processing the deposit',
    (h) =>
      deps.client.depositProcessed(
        { hash_token: hash, phone_number: phone, receiver_email: receiverEmail },
        h,
      ),
    (t) => ({ data: { status: t.status, transaction_id: t.transaction_id, fee: t.fee_amount ?? undefined } }),
  );
}

export async function withdrawProcessStep(
  r: Pick<JournalRecord, 'reference' | 'kind'>,
  req: { hash: string; phone: string; email: string; receiverEmail?: string; otp?: string },
  deps: FlowDeps,
): Promise<WithdrawProcessedResult> {
  return journaled(
    deps,
    {
      reference: r.reference,
      kind: 'withdraw',
      step: req.otp ? 'processed' : 'otp',
      hash_token: req.hash,
      // The code itself is never journaled (forbidden keys); the curl of this step uses $MPAY_OTP.
      data: {
        phone_number: req.phone,
        customer_email: req.email,
        receiver_email: req.receiverEmail,
        with_otp: Boolean(req.otp),
      },
    },
    req.otp ? 'Confirming the withdrawal with the one-time code' : 'Processing the withdrawal',
    (h) =>
      deps.client.withdrawProcessed(
        {
          hash_token: req.hash,
          phone_number: req.phone,
          customer_email: req.email,
          receiver_email: req.receiverEmail,
          otp: req.otp,
        },
        h,
      ),
    (res) =>
      res.otpSent
        ? { data: { message: res.message } }
        : {
            data: {
              status: res.transaction.status,
              transaction_id: res.transaction.transaction_id,
              fee: res.transaction.fee_amount ?? undefined,
            },
          },
  );
}
