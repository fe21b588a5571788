// The sandbox's demo merchant (design.md): credentials, its currencies in several countries, and one
// gateway of each kind the spec names, for collection (deposit) and disbursement (withdraw).
import type { Country, Currency, Gateway, GatewayConfiguration, MerchantService } from '../api/schemas.js';

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

const country = (code: string): Country => {
  const found = countries.find((c) => c.code === code);
  if (!found) throw new Error(`seed: no country ${code}`);
  return found;
};

/** How a sandbox gateway settles, used to shape wallet address answers and crypto amounts. */
export interface GatewaySeed extends Gateway {
  /** coin code and network for crypto gateways; rail name otherwise */
  coin?: string;
  network: string;
  /** USD price of one coin, for crypto amounts */
  coinUsd?: number;
}

export const gateways: GatewaySeed[] = [
  {
    id: 1,
    name: 'MTN Mobile Money',
    logo: 'gateways/mtn.png',
    payment_method: 'mobile_money',
    is_crypto: 0,
    comments: 'Mobile money (MTN)',
    lookup_currency: null,
    network: 'MTN',
  },
  {
    id: 2,
    name: 'MPay Wallet',
    logo: 'gateways/mpay.png',
    payment_method: 'service_wallet',
    is_crypto: 0,
    comments: "The service's own wallet",
    lookup_currency: null,
    network: 'INTERNAL',
  },
  {
    id: 3,
    name: 'Vodafone Cash',
    logo: 'gateways/vodafone.png',
    payment_method: 'mobile_money',
    is_crypto: 0,
    comments: 'Mobile money (Vodafone)',
    lookup_currency: null,
    network: 'VODAFONE',
  },
  {
    id: 4,
    name: 'Ethereum',
    logo: 'gateways/eth.png',
    payment_method: 'crypto',
    is_crypto: 1,
    comments: 'Ether on the Ethereum main network',
    lookup_currency: [{ currency_code: 'USD', country: country('US') }],
    coin: 'ETH',
    network: 'ERC20',
    coinUsd: 3000,
  },
  {
    id: 5,
    name: 'USDT (TRC20)',
    logo: 'gateways/usdt.png',
    payment_method: 'crypto',
    is_crypto: 1,
    comments: 'Tether on Tron',
    lookup_currency: [{ currency_code: 'USD', country: country('US') }],
    coin: 'USDT',
    network: 'TRC20',
    coinUsd: 1,
  },
  {
    id: 6,
    name: 'MoonPay Card On-Ramp',
    logo: 'gateways/moonpay.png',
    payment_method: 'card_onramp',
    is_crypto: 0,
    comments: 'Card on-ramp by a third-party provider',
    lookup_currency: null,
    network: 'CARD',
  },
  {
    id: 7,
    name: 'Transak Card On-Ramp',
    logo: 'gateways/transak.png',
    payment_method: 'card_onramp',
    is_crypto: 0,
    comments: 'Card on-ramp by a third-party provider',
    lookup_currency: null,
    network: 'CARD',
  },
  {
    id: 8,
    name: 'Banxa Card On-Ramp',
    logo: 'gateways/banxa.png',
    payment_method: 'card_onramp',
    is_crypto: 0,
    comments: 'Card on-ramp by a third-party provider',
    lookup_currency: null,
    network: 'CARD',
  },
  {
    id: 9,
    name: 'M-Pesa',
    logo: 'gateways/mpesa.png',
    payment_method: 'mobile_money',
    is_crypto: 0,
    comments: 'Mobile money (Safaricom)',
    lookup_currency: null,
    network: 'MPESA',
  },
  {
    id: 10,
    name: 'Orange Money',
    logo: 'gateways/orange.png',
    payment_method: 'mobile_money',
    is_crypto: 0,
    comments: 'Mobile money (Orange)',
    lookup_currency: null,
    network: 'ORANGE',
  },
  {
    id: 11,
    name: 'USDC (ERC20)',
    logo: 'gateways/usdc.png',
    payment_method: 'crypto',
    is_crypto: 1,
    comments: 'USD Coin on Ethereum',
    lookup_currency: [{ currency_code: 'USD', country: country('US') }],
    coin: 'USDC',
    network: 'ERC20',
    coinUsd: 1,
  },
  {
    id: 12,
    name: 'Interac e-Transfer',
    logo: 'gateways/interac.png',
    payment_method: 'interbank_etransfer',
    is_crypto: 0,
    comments: 'Interbank e-transfer',
    lookup_currency: null,
    network: 'INTERAC',
  },
];

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

const currency = (
  id: number,
  name: string,
  code: string,
  symbol: string,
  rate: number,
  min: number,
  max: number,
  cc: string,
): Currency => ({
  id,
  name,
  code,
  symbol,
  usd_exchange_rate: rate,
  minimum_deposite: min,
  maximum_deposite: max,
  country: country(cc),
});

export const currencies: CurrencySeed[] = [
  {
    currency: currency(1, 'Ghana Cedi', 'GHS', 'GH₵', 15.5, 1, 50000, 'GH'),
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
    currency: currency(2, 'Nigerian Naira', 'NGN', '₦', 1550, 100, 5000000, 'NG'),
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
    currency: currency(3, 'Kenyan Shilling', 'KES', 'KSh', 129, 10, 300000, 'KE'),
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
    currency: currency(4, 'Central African CFA Franc', 'XAF', 'FCFA', 610, 100, 2000000, 'CM'),
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
    currency: currency(5, 'US Dollar', 'USD', '$', 1, 1, 10000, 'US'),
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
    currency: currency(6, 'Canadian Dollar', 'CAD', 'C$', 1.38, 5, 10000, 'CA'),
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

/** A gateway configuration as the API shows it to a merchant: secrets hidden behind placeholders. */
export function gatewayConfiguration(
  gatewayId: number,
  type: 'collection' | 'disbursement',
): GatewayConfiguration {
  const gw = gateways.find((g) => g.id === gatewayId);
  if (!gw) throw new Error(`seed: no gateway ${gatewayId}`);
  const { coin: _coin, network: _network, coinUsd: _coinUsd, ...gateway } = gw;
  return {
    id: gatewayId * 10 + (type === 'collection' ? 1 : 2),
    primary_key: gw.is_crypto ? 'N/A' : null,
    type,
    api_key: '********',
    api_user: '********',
    payment_server_url: 'N/A',
    minimum_fees: gw.is_crypto ? 1 : 0.5,
    fee_in_percentage: gw.payment_method === 'mobile_money' ? 1.5 : 2,
    comments: null,
    awaiting_comments: 'Awaiting confirmation from the gateway',
    status: 'active',
    gateway,
  };
}
