// Picking a stopped flow up at its next step, from what the journal knows.
import { shownValue } from '../../common/shell-words.js';
import { gatewayTypeOf as gatewayType } from '../../api/enums.js';
import { UsageError } from '../../common/errors.js';
import {
  notResumable,
  resolvedAsEnded,
  stepDone,
  type JournalRecord,
  type Kind,
} from '../../journal/records.js';

import {
  merchantCurrencies,
  silentReporter,
  title,
  type FlowDeps,
  type FlowInputs,
  type FlowResult,
} from '../types.js';
import { repeatOfUnknown } from '../gate/journaled.js';
import { initiateStep } from './steps.js';
import { continueFlow } from './payment.js';
import { historyShowCommand, resumeCommand } from '../standing.js';
import { holdTransaction } from '../gate/money-gate.js';

// Resume ---------------------------------------------------------------------------------------------

/** Picks a flow up at its next step, from what the journal knows. */
export async function resumeFlow(
  kind: Kind,
  key: string,
  inputs: FlowInputs,
  deps: FlowDeps,
  /** the caller holds the transaction's lock already (a batch's row) */
  opts: { held?: boolean } = {},
): Promise<FlowResult> {
  const record = deps.journal.find(deps.journal.expand?.(key) ?? key);
  if (!record)
    throw new UsageError(`Nothing in the journal for "${key}"`, {
      hint: 'See `mpay history` for what mpay knows',
    });
  if (record.kind !== kind)
    throw new UsageError(`${key} is a ${record.kind}, not a ${kind}`, {
      hint: `Use \`${resumeCommand(record, deps.place)}\``,
    });
  const stranger = notResumable(record);
  if (stranger)
    throw new UsageError(`${record.reference} cannot be resumed: ${stranger}`, {
      hint: `See \`${historyShowCommand(record, deps.place)}\`; the single steps (mpay status, mpay wallet, mpay ${kind} process) take a hash token`,
    });
  if (stepDone(record, 'processed')) {
    throw new UsageError(
      `The ${title(kind)} ${record.reference} is already processed (status ${record.status ?? 'pending'})`,
      { hint: `See \`${historyShowCommand(record, deps.place)}\`` },
    );
  }
  if (resolvedAsEnded(record))
    throw new UsageError(
      `The ${title(kind)} ${record.reference} was settled by hand as ${record.resolved!.as}: mpay continues it no further`,
      { hint: `See \`${historyShowCommand(record, deps.place)}\`` },
    );
  await deps.gate.pass({ what: `resuming the ${title(kind)} ${record.reference}` }, deps.client.dryRun);
  // One process at a time continues a transaction: a second refuses (exit 11) instead of sending its
  // next step again. A dry run sends nothing, so it takes no lock.
  const release =
    deps.client.dryRun || opts.held
      ? async () => {}
      : await holdTransaction(record.reference, kind, record.place ?? deps.place, deps.journal);
  try {
    // Read again under the lock: another process may have taken a step between the read and the lock.
    const now = deps.journal.find(record.reference) ?? record;
    if (stepDone(now, 'processed'))
      throw new UsageError(`The ${title(kind)} ${now.reference} was processed meanwhile by another mpay`, {
        hint: `See \`${historyShowCommand(now, deps.place)}\``,
      });
    return await resumeHeld(kind, now, inputs, deps);
  } finally {
    await release();
  }
}

async function resumeHeld(
  kind: Kind,
  record: JournalRecord,
  inputs: FlowInputs,
  deps: FlowDeps,
): Promise<FlowResult> {
  const rep = deps.reporter ?? silentReporter;
  if (!record.hash_token) {
    // Initiate never answered: send it again with the same reference; the API refuses a duplicate.
    rep.step(
      `Resuming ${record.reference}: initiate had no answer; sending it again with the same reference`,
    );
    const c = record.customer ?? {};
    const initiated = await repeatOfUnknown(record, ['initiate'], () =>
      initiateStep(
        kind,
        {
          currency_code: record.currency!,
          country_code: record.country!,
          customer_first_name: c.first_name!,
          customer_last_name: c.last_name,
          customer_phone: c.phone!,
          customer_email: c.email!,
          customer_transaction_id: record.reference,
          amount: record.amount!,
        },
        deps,
      ),
    );
    return continueFlow(
      deps.journal.find(record.reference)!,
      initiated.gateway_configuration,
      inputs,
      deps,
      { initiated },
      undefined,
      true,
    );
  }
  rep.step(`Resuming ${record.reference} (hash token ${shownValue(record.hash_token ?? '')})`);
  // The journal keeps the gateway id, not its record: the merchant currency list has the record, which
  // the wallet rule reads.
  const list = await rep.wait('Reading the merchant currencies', merchantCurrencies(deps));
  const currency = list.find(
    (c) => c.code === record.currency && (!record.country || c.country?.code === record.country),
  );
  const configs = currency?.getway_configuration?.filter((g) => g.type === gatewayType(kind));
  return continueFlow(record, configs, inputs, deps, {}, currency?.service ?? undefined, true);
}
