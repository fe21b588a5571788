// Picking a stopped flow up at its next step, from what the journal knows.
import { gatewayTypeOf as gatewayType } from '../api/enums.js';
import { UsageError } from '../api/errors.js';
import { stepDone, type Kind } from '../journal/records.js';

import {
  merchantCurrencies,
  silentReporter,
  title,
  type FlowDeps,
  type FlowInputs,
  type FlowResult,
} from './types.js';
import { confirmLive, initiateStep, repeatOfUnknown } from './steps.js';
import { continueFlow } from './payment.js';

// Resume ---------------------------------------------------------------------------------------------

/** Picks a flow up at its next step, from what the journal knows. */
export async function resumeFlow(
  kind: Kind,
  key: string,
  inputs: FlowInputs,
  deps: FlowDeps,
): Promise<FlowResult> {
  const record = deps.journal.find(key);
  if (!record)
    throw new UsageError(`Nothing in the journal for "${key}"`, {
      hint: 'See `mpay history` for what mpay knows',
    });
  if (record.kind !== kind)
    throw new UsageError(`${key} is a ${record.kind}, not a ${kind}`, {
      hint: `Use \`mpay ${record.kind} --resume ${key}\``,
    });
  const rep = deps.reporter ?? silentReporter;
  if (stepDone(record, 'processed')) {
    throw new UsageError(
      `The ${title(kind)} ${record.reference} is already processed (status ${record.status ?? 'pending'})`,
      { hint: `mpay history show ${record.reference}` },
    );
  }
  await confirmLive(deps, `resuming the ${title(kind)} ${record.reference}`);
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
    return continueFlow(deps.journal.find(record.reference)!, initiated.gateway_configuration, inputs, deps, {
      initiated,
    });
  }
  rep.step(`Resuming ${record.reference} (hash token ${record.hash_token})`);
  // The journal keeps the gateway id, not its record: the merchant currency list has the record, which
  // the wallet rule reads.
  const list = await rep.wait('Reading the merchant currencies', merchantCurrencies(deps));
  const currency = list.find(
    (c) => c.code === record.currency && (!record.country || c.country?.code === record.country),
  );
  const configs = currency?.getway_configuration?.filter((g) => g.type === gatewayType(kind));
  return continueFlow(record, configs, inputs, deps, {}, currency?.service ?? undefined);
}
