// Which gateways need the crypto wallet address update before the status update (spec, "Typical
// flows"): the service's own gateway, USDT on TRC20, USDC on ERC20, the three card on-ramps of
// third-party providers, and the interbank e-transfer gateway. The spec names them only in words, so
// the rule reads the gateway record; --wallet / --no-wallet overrides it.
import type { Gateway } from '../api/schemas.js';

export type WalletReason = 'service' | 'usdt-trc20' | 'usdc-erc20' | 'card-onramp' | 'interbank-etransfer';

const text = (g: Gateway) => `${g.name} ${g.payment_method ?? ''} ${g.comments ?? ''}`.toLowerCase();

/** Why this gateway needs a wallet address update, or undefined when it does not. */
export function walletReason(g: Gateway): WalletReason | undefined {
  const t = text(g);
  const method = (g.payment_method ?? '').toLowerCase();
  if (method === 'service_wallet' || /\bservice'?s? own\b/.test(t)) return 'service';
  if (/usdt/.test(t) && /trc-?20/.test(t)) return 'usdt-trc20';
  if (/usdc/.test(t) && /erc-?20/.test(t)) return 'usdc-erc20';
  if (/card/.test(t) && /on-?ramp/.test(t)) return 'card-onramp';
  if (/interbank|e-?transfer|interac/.test(t)) return 'interbank-etransfer';
  return undefined;
}

export function needsWalletUpdate(g: Gateway, override?: boolean): boolean {
  return override ?? walletReason(g) !== undefined;
}

/** Crypto gateways show their address as a QR code too. */
export function isCrypto(g: Gateway): boolean {
  return Number(g.is_crypto) === 1;
}
