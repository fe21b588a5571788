// One step on a transaction that already exists (`mpay deposit/withdraw process`, `mpay status`,
// `mpay wallet`): which record it continues, and which gateway the step names.
import type { PaymentKind } from '../../api/enums.js';
import { UsageError } from '../../common/errors.js';
import type { JournalRecord } from '../../journal/records.js';
import { fields } from './inputs.js';
import type { FlowDeps, FlowInputs, FlowResult } from '../types.js';

/**
 * The journal's record of a hash token or reference, with the dependencies to run its steps. A transaction
 * mpay did not start gets a record of its own, keyed by its hash token: its steps pass the money gate and
 * are journaled like any other (docs/spec-readings.md).
 */
export function stepTarget(
  key: string,
  kind: PaymentKind | undefined,
  deps: FlowDeps,
  now: Date,
): { record: JournalRecord; deps: FlowDeps } {
  const found = deps.journal.find(key);
  if (found) {
    if (kind && found.kind !== kind) throw new UsageError(`${key} is a ${found.kind}, not a ${kind}`);
    return { record: found, deps };
  }
  // Not in the journal: a hash token of a transaction started elsewhere, or a reference mistyped (or kept by
  // another profile's journal), which is what a person who gave a reference needs to hear.
  if (fields.hashToken.check(key))
    throw new UsageError(
      `No transaction ${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)} in this journal, and it is no hash token (letters and digits only, 8 to 128)`,
      {
        fields: { hash_token: ['unknown'] },
        hint: '`mpay history` lists the references mpay started here (another profile keeps its own); a transaction started elsewhere is named by its hash token',
      },
    );
  const hash = key;
  const at = now.toISOString();
  return {
    record: {
      reference: hash,
      kind: kind ?? 'deposit',
      hash_token: hash,
      created_at: at,
      updated_at: at,
      steps: [],
    },
    deps,
  };
}

/** The gateway given (--gateway), else the one the journal recorded, else a usage error. */
export function stepGateway(record: JournalRecord, given: number | undefined): number {
  const gateway = given ?? record.gateway_id;
  if (gateway === undefined) {
    throw new UsageError('Missing --gateway', {
      fields: { gateway_id: ['required'] },
      hint: 'The journal has no gateway for this transaction',
    });
  }
  return gateway;
}

/** Whether a wallet address answer is shown as a QR code: the gateway's record says it is crypto. */
export async function walletGatewayIsCrypto(deps: FlowDeps, gatewayId: number): Promise<boolean> {
  const { isCrypto } = await import('./wallet-rule.js');
  const list = await deps.client.merchantCurrencies().catch(() => []);
  const gw = list
    .flatMap((c) => c.getway_configuration ?? [])
    .find((c) => Number(c.gateway.id) === gatewayId);
  return gw ? isCrypto(gw.gateway) : false;
}

/** `mpay deposit/withdraw process KEY`: the processed step of the transaction a hash token or reference names. */
export async function processByKey(
  key: string,
  kind: PaymentKind,
  inputs: FlowInputs,
  flowDeps: FlowDeps,
  now: Date,
): Promise<{ result: FlowResult; record: JournalRecord }> {
  const { processStage } = await import('./payment.js');
  const { record, deps } = stepTarget(key, kind, flowDeps, now);
  return { result: await processStage(record, inputs, deps), record };
}
