// The sandbox's data sets: the demo merchant's credentials, its currencies in several
// countries, and one gateway of each kind the spec names, for collection (deposit) and disbursement
// (withdraw). `demo` is written in the spellings of the spec's examples; `alt` (seed-alt.ts) spells the
// same kinds of gateway the way another deployment might, so that mpay's rules are tested on data that was
// not written to match them.
import type { Country, Currency, MerchantService } from '../api/schemas.js';
import type { GatewayType } from '../api/enums.js';

export const demoMerchant = {
  merchantKey: 'mk_sandbox_demo',
  siteId: '1',
  apiKey: 'ak_sandbox_demo',
  otp: '123456',
} as const;

const flagUrl = (code: string) => `https://flagcdn.com/w40/${code.toLowerCase()}.png`;

export const countries: Country[] = [
  { id: 1, name: 'Ghana', code: 'GH', dial_code: '+233', flag: flagUrl('GH') },
  { id: 2, name: 'Nigeria', code: 'NG', dial_code: '+234', flag: flagUrl('NG') },
  { id: 3, name: 'Kenya', code: 'KE', dial_code: '+254', flag: flagUrl('KE') },
  { id: 4, name: 'Cameroon', code: 'CM', dial_code: '+237', flag: flagUrl('CM') },
  { id: 5, name: 'United States', code: 'US', dial_code: '+1', flag: flagUrl('US') },
  { id: 6, name: 'Canada', code: 'CA', dial_code: '+1', flag: flagUrl('CA') },
];

export const country = (code: string, list: Country[] = countries): Country => {
  const found = list.find((c) => c.code === code);
  if (!found) throw new Error(`seed: no country ${code}`);
  return found;
};

/** One gateway: how it settles (the sandbox's own truth) and its record as the API shows it. */
export interface GatewaySeed {
  id: number;
  /** the Gateway record as this data set spells it: ids or flags as strings, nulls, extra fields */
  record: Record<string, unknown> & { name: string };
  crypto: boolean;
  /** coin code for crypto gateways */
  coin?: string;
  /** chain for crypto gateways; rail name otherwise */
  network: string;
  /** USD price of one coin, for crypto amounts */
  coinUsd?: number;
  /** one of the spec's list: the wallet address update must come before the status update */
  walletRequired: boolean;
  minimumFees: number;
  feePercent: number;
}

export interface CurrencySeed {
  currency: Currency;
  /** merchant-specific limits and switches */
  limits: {
    weckly_deposite: number;
    min_withdraw: number;
    max_withdraw: number;
    weekly_withdraw: number;
    deposite: boolean;
    withdraw: boolean;
  };
  balance: number;
  /** gateway ids open for collection (deposit) and disbursement (withdraw) */
  collection: number[];
  disbursement: number[];
}

export interface Seed {
  name: string;
  countries: Country[];
  gateways: GatewaySeed[];
  service: MerchantService;
  currencies: CurrencySeed[];
  /** how this data set spells a record it sends (numbers as strings, extra fields); demo sends as is */
  spell?: (kind: 'currency' | 'config' | 'merchantCurrency', record: Record<string, unknown>) => unknown;
}

/**
 * A demo gateway's row: id, name, logo (gateways/LOGO.png), payment method, comments, network, and beyond
 * its kind how it settles: in a coin (then it is crypto, looked up in USD), and whether the wallet address
 * update must come before the status update.
 */
type How = { coin?: string; coinUsd?: number; wallet?: boolean };
type DemoRow = [number, string, string, string, string, string, How?];

/** A demo gateway from its row: the record in the spec's spellings, fees by kind. */
function demo([id, name, logo, payment_method, comments, network, how = {}]: DemoRow): GatewaySeed {
  const crypto = how.coin !== undefined;
  return {
    id,
    record: {
      id,
      name,
      logo: `gateways/${logo}.png`,
      payment_method,
      is_crypto: crypto ? 1 : 0,
      comments,
      lookup_currency: crypto ? [{ currency_code: 'USD', country: country('US') }] : null,
    },
    crypto,
    coin: how.coin,
    network,
    coinUsd: how.coinUsd,
    walletRequired: Boolean(how.wallet),
    minimumFees: crypto ? 1 : 0.5,
    feePercent: payment_method === 'mobile_money' ? 1.5 : 2,
  };
}

const onramp = 'Card on-ramp by a third-party provider';
const wallet = { wallet: true };
const coin = (code: string, usd: number, wallet = false): How => ({ coin: code, coinUsd: usd, wallet });
const demoRows: DemoRow[] = [
  [1, 'MTN Mobile Money', 'mtn', 'mobile_money', 'Mobile money (MTN)', 'MTN'],
  [2, 'MPay Wallet', 'mpay', 'service_wallet', "The service's own wallet", 'INTERNAL', wallet],
  [3, 'Vodafone Cash', 'vodafone', 'mobile_money', 'Mobile money (Vodafone)', 'VODAFONE'],
  [4, 'Ethereum', 'eth', 'crypto', 'Ether on the Ethereum main network', 'ERC20', coin('ETH', 3000)],
  [5, 'USDT (TRC20)', 'usdt', 'crypto', 'Tether on Tron', 'TRC20', coin('USDT', 1, true)],
  [6, 'MoonPay Card On-Ramp', 'moonpay', 'card_onramp', onramp, 'CARD', wallet],
  [7, 'Transak Card On-Ramp', 'transak', 'card_onramp', onramp, 'CARD', wallet],
  [8, 'Banxa Card On-Ramp', 'banxa', 'card_onramp', onramp, 'CARD', wallet],
  [9, 'M-Pesa', 'mpesa', 'mobile_money', 'Mobile money (Safaricom)', 'MPESA'],
  [10, 'Orange Money', 'orange', 'mobile_money', 'Mobile money (Orange)', 'ORANGE'],
  [11, 'USDC (ERC20)', 'usdc', 'crypto', 'USD Coin on Ethereum', 'ERC20', coin('USDC', 1, true)],
  [12, 'Interac e-Transfer', 'interac', 'interbank_etransfer', 'Interbank e-transfer', 'INTERAC', wallet],
];
export const gateways: GatewaySeed[] = demoRows.map(demo);

export const service: MerchantService = {
  id: 1,
  site_id: demoMerchant.siteId,
  item_name: 'Sandbox Store',
  service_name: 'Sandbox Store Payments',
  service_type: 'default',
  success_url: 'https://merchant.example/success',
  faild_url: 'https://merchant.example/failed',
  notification_url: 'https://merchant.example/notify',
  description: 'Demo merchant service of the mpay sandbox',
  logo_url: 'https://merchant.example/logo.png',
  city: 'Accra',
  email: 'merchant@merchant.example',
  service_status: 'approved',
  status: 'active',
  desposit_status: true,
  withdraw_status: true,
  who_pays_for_fee: 'user',
};

/** A currency as the API spells it: its deposit bounds, and its rate to the US dollar. */
export const currency = (
  id: number,
  name: string,
  code: string,
  symbol: string,
  rate: number,
  min: number,
  max: number,
  country: Country,
): Currency => ({
  id,
  name,
  code,
  symbol,
  usd_exchange_rate: rate,
  minimum_deposite: min,
  maximum_deposite: max,
  country,
});

export const currencies: CurrencySeed[] = [
  {
    currency: currency(1, 'Ghana Cedi', 'GHS', 'GH₵', 15.5, 1, 50000, country('GH')),
    limits: {
      weckly_deposite: 200000,
      min_withdraw: 5,
      max_withdraw: 20000,
      weekly_withdraw: 100000,
      deposite: true,
      withdraw: true,
    },
    balance: 25000,
    collection: [1, 2, 3],
    disbursement: [1, 2, 3],
  },
  {
    currency: currency(2, 'Nigerian Naira', 'NGN', '₦', 1550, 100, 5000000, country('NG')),
    limits: {
      weckly_deposite: 20000000,
      min_withdraw: 500,
      max_withdraw: 2000000,
      weekly_withdraw: 10000000,
      deposite: true,
      withdraw: true,
    },
    balance: 1500000,
    collection: [6, 7, 8, 2],
    disbursement: [2],
  },
  {
    currency: currency(3, 'Kenyan Shilling', 'KES', 'KSh', 129, 10, 300000, country('KE')),
    limits: {
      weckly_deposite: 1000000,
      min_withdraw: 50,
      max_withdraw: 150000,
      weekly_withdraw: 500000,
      deposite: true,
      withdraw: true,
    },
    balance: 400000,
    collection: [9, 2],
    disbursement: [9],
  },
  {
    currency: currency(4, 'Central African CFA Franc', 'XAF', 'FCFA', 610, 100, 2000000, country('CM')),
    limits: {
      weckly_deposite: 5000000,
      min_withdraw: 500,
      max_withdraw: 1000000,
      weekly_withdraw: 3000000,
      deposite: true,
      withdraw: false,
    },
    balance: 0,
    collection: [10],
    disbursement: [],
  },
  {
    currency: currency(5, 'US Dollar', 'USD', '$', 1, 1, 10000, country('US')),
    limits: {
      weckly_deposite: 50000,
      min_withdraw: 10,
      max_withdraw: 5000,
      weekly_withdraw: 20000,
      deposite: true,
      withdraw: true,
    },
    balance: 12000,
    collection: [5, 11, 4, 6, 7, 8, 2],
    disbursement: [5, 11, 4, 2],
  },
  {
    currency: currency(6, 'Canadian Dollar', 'CAD', 'C$', 1.38, 5, 10000, country('CA')),
    limits: {
      weckly_deposite: 30000,
      min_withdraw: 10,
      max_withdraw: 3000,
      weekly_withdraw: 10000,
      deposite: true,
      withdraw: true,
    },
    balance: 8000,
    collection: [12],
    disbursement: [12],
  },
];

export const demoSeed: Seed = { name: 'demo', countries, gateways, service, currencies };

/** The data sets `mpay sandbox --seed` offers. */
export const seedNames = ['demo', 'alt'] as const;
export type SeedName = (typeof seedNames)[number];

export async function loadSeed(name: SeedName): Promise<Seed> {
  if (name === 'demo') return demoSeed;
  return (await import('./seed-alt.js')).altSeed;
}

/** A gateway configuration as the API shows it to a merchant: secrets hidden behind placeholders. */
export function gatewayConfiguration(
  seed: Seed,
  gatewayId: number,
  type: GatewayType,
): Record<string, unknown> & { gateway: GatewaySeed['record'] } {
  const gw = seed.gateways.find((g) => g.id === gatewayId);
  if (!gw) throw new Error(`seed ${seed.name}: no gateway ${gatewayId}`);
  const config = {
    id: gatewayId * 10 + (type === 'collection' ? 1 : 2),
    primary_key: gw.crypto ? 'N/A' : null,
    type,
    api_key: '********',
    api_user: '********',
    payment_server_url: 'N/A',
    minimum_fees: gw.minimumFees,
    fee_in_percentage: gw.feePercent,
    comments: null,
    awaiting_comments: 'Awaiting confirmation from the gateway',
    status: 'active',
    gateway: gw.record,
  };
  return (seed.spell?.('config', config) ?? config) as typeof config;
}
