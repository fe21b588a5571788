// Choosing a gateway among those initiate returns: by --gateway, by a prompt, or fail early (before
// initiate) when there is no terminal to ask on and more than one is open.
import { gatewayTypeOf as gatewayType } from '../../api/enums.js';
import { UsageError } from '../../common/errors.js';
import type { GatewayConfiguration, MerchantCurrency } from '../../api/schemas.js';
import { type Kind } from '../../journal/records.js';
import { walletReason, type WalletContext } from './wallet-rule.js';

import { title, type FlowDeps, type FlowInputs } from '../types.js';

/** "1 MTN Mobile Money, 2 MPay Wallet": the gateways a hint offers. */
/** The gateways of a currency, by id and name: `1 MTN Mobile Money, 3 Vodafone Cash`. */
export function gatewayList(configs: GatewayConfiguration[]): string {
  return configs.map((c) => `${c.gateway.id} ${c.gateway.name}`).join(', ');
}

/** The gateway given by --gateway as the summary names it ("3 Vodafone Cash"), when the currency has it. */
export function givenGateway(
  kind: Kind,
  currency: MerchantCurrency,
  id: number | undefined,
): string | undefined {
  if (id === undefined) return undefined;
  const config = (currency.getway_configuration ?? []).find(
    (c) => c.type === gatewayType(kind) && Number(c.gateway.id) === id,
  );
  return config ? `${config.gateway.id} ${config.gateway.name}` : String(id);
}

// Gateways ----------------------------------------------------------------------------------------------

export async function chooseGateway(
  configs: GatewayConfiguration[],
  inputs: FlowInputs,
  deps: FlowDeps,
  wallet: WalletContext,
): Promise<GatewayConfiguration> {
  if (configs.length === 0) throw new UsageError('Initiate returned no gateway configuration to choose from');
  if (inputs.gateway !== undefined) {
    const id = inputs.gateway;
    const found = configs.find((c) => Number(c.gateway.id) === id);
    if (!found) {
      throw new UsageError(`Gateway ${id} is not one of those initiate returned`, {
        fields: { gateway_id: ['not offered'] },
        hint: `Offered: ${gatewayList(configs)}`,
      });
    }
    return found;
  }
  if (configs.length === 1) return configs[0]!;
  if (!deps.prompter) {
    throw new UsageError('Missing --gateway', {
      fields: { gateway_id: ['required'] },
      hint: `Offered: ${gatewayList(configs)}`,
    });
  }
  return deps.prompter.select({
    message: 'Gateway',
    choices: configs.map((c) => ({
      name: `${c.gateway.id}  ${c.gateway.name}  (${c.gateway.payment_method ?? '?'}; fee ${c.fee_in_percentage ?? 0}%, min ${c.minimum_fees ?? 0})${walletReason(c.gateway, wallet) ? '  needs a wallet address' : ''}`,
      value: c,
    })),
  });
}

/** Before initiate, without a terminal: fail now if --gateway is missing and there is more than one. */
export function precheckGateway(
  kind: Kind,
  currency: MerchantCurrency,
  inputs: FlowInputs,
  deps: FlowDeps,
): void {
  const configs = (currency.getway_configuration ?? []).filter((c) => c.type === gatewayType(kind));
  if (deps.prompter || inputs.gateway !== undefined || configs.length <= 1) {
    if (
      inputs.gateway !== undefined &&
      configs.length > 0 &&
      !configs.some((c) => Number(c.gateway.id) === inputs.gateway)
    ) {
      throw new UsageError(`Gateway ${inputs.gateway} is not open to ${title(kind)}s in ${currency.code}`, {
        fields: { gateway_id: ['not offered'] },
        hint: `Open: ${gatewayList(configs)}`,
      });
    }
    return;
  }
  throw new UsageError('Missing --gateway', {
    fields: { gateway_id: ['required'] },
    hint: `Open to ${title(kind)}s in ${currency.code}: ${gatewayList(configs)}`,
  });
}
