// Which gateways need the crypto wallet address update before the status update (spec, "Typical
// flows"): the service's own gateway, USDT on TRC20, USDC on ERC20, the three card on-ramps of
// third-party providers, and the interbank e-transfer gateway. The spec names them only in words, and a
// real deployment spells its records its own way, so the rule reads everything a record holds (name,
// payment method, comments, lookup currencies), normalised, with several signals for each kind. A
// profile's list of gateway ids for the environment (`mpay config set wallet_gateways 2,5,12`) settles
// the question when set; --wallet / --no-wallet overrides both for one run.
import type { Gateway, MerchantService } from '../../api/schemas.js';

export type WalletReason =
  'listed' | 'service' | 'usdt-trc20' | 'usdc-erc20' | 'card-onramp' | 'interbank-etransfer';

/** What the rule knows beyond the gateway record. */
export interface WalletContext {
  /** the profile's gateway ids for this environment: when given, exactly these need the update */
  listed?: number[];
  /** the merchant service record(s), whose names the service's own gateway may carry */
  services?: Array<Pick<MerchantService, 'service_name' | 'item_name'> | null | undefined>;
}

/** Lower case, every run of other characters one space: "USDT_TRC-20" → "usdt trc 20". */
const words = (s: unknown) =>
  typeof s === 'string'
    ? s
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, ' ')
        .trim()
    : '';

/** Third-party card on-ramp providers, by the names they trade under. */
const onRampProviders = /\b(moonpay|transak|banxa|ramp network|mercuryo|simplex|wyre|sardine|alchemy pay)\b/;
/** Words that make a gateway some other rail than the service's own wallet. */
const otherRail = /\b(mobile|momo|mpesa|money|cash|card|bank|transfer|crypto|coin|usdt|usdc|eth|btc)\b/;
/** Words too common in service names to identify a platform by. */
const generic = new Set([
  'pay',
  'payment',
  'payments',
  'checkout',
  'store',
  'shop',
  'service',
  'services',
  'wallet',
  'the',
  'and',
  'online',
  'gateway',
]);

/** Why this gateway needs a wallet address update, or undefined when it does not. */
export function walletReason(g: Gateway, ctx: WalletContext = {}): WalletReason | undefined {
  if (ctx.listed && ctx.listed.length > 0) return ctx.listed.includes(Number(g.id)) ? 'listed' : undefined;
  const method = words(g.payment_method);
  const lookups = (g.lookup_currency ?? []).map((l) => words(l?.currency_code)).join(' ');
  const text = ` ${words(g.name)} ${method} ${words(g.comments)} ${lookups} `;
  const crypto = isCrypto(g);
  if (/\b(usdt|tether)\b/.test(text) && /\b(trc ?20|tron|trx)\b/.test(text)) return 'usdt-trc20';
  if (/\b(usdc|usd coin)\b/.test(text) && /\b(erc ?20|ethereum)\b/.test(text)) return 'usdc-erc20';
  if (
    /\bon ?ramp\b/.test(text) ||
    onRampProviders.test(text) ||
    (/\bcard\b/.test(text) && /\bbuy (crypto|bitcoin|usdt)\b/.test(text))
  )
    return 'card-onramp';
  if (/\b(interbank|interac|etransfer|e transfer)\b/.test(text)) return 'interbank-etransfer';
  if (!crypto && isServiceGateway(g, method, text, ctx)) return 'service';
  return undefined;
}

/**
 * The service's own gateway: a wallet payment method (not a mobile-money one), words that say so, a name
 * that shares the platform's name with the merchant service, or, last of all, the id the spec's examples
 * give it (2) when nothing in the record says it is another rail.
 */
function isServiceGateway(g: Gateway, method: string, text: string, ctx: WalletContext): boolean {
  if (/\bwallet\b/.test(method) && !/\b(mobile|momo)\b/.test(method)) return true;
  if (/\b(service s own|services own|own wallet|internal wallet|platform wallet)\b/.test(text)) return true;
  const brands = new Set(
    (ctx.services ?? [])
      .flatMap((s) => `${words(s?.service_name)} ${words(s?.item_name)}`.split(' '))
      .filter((w) => w.length >= 3 && !generic.has(w)),
  );
  if (
    words(g.name)
      .split(' ')
      .some((w) => brands.has(w))
  )
    return true;
  return Number(g.id) === 2 && !otherRail.test(text);
}

export function needsWalletUpdate(g: Gateway, override?: boolean, ctx?: WalletContext): boolean {
  return override ?? walletReason(g, ctx) !== undefined;
}

/** Crypto gateways show their address as a QR code too. */
export function isCrypto(g: Pick<Gateway, 'is_crypto'>): boolean {
  return Number(g.is_crypto) === 1;
}
