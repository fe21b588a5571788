// A second data set (`mpay sandbox --seed alt`): the same kinds of gateway as the demo's, written the way
// another deployment of the API might spell them, so that mpay's rules are tested on records that were not
// written to match them. Other ids (an id 2 that is mobile money, not the service), other names and
// payment methods, numbers and flags as strings, nulls where the spec allows them, extra fields, a site id
// sent as a number, and the service's own gateway named after the platform.
import type { Country, MerchantService } from '../api/schemas.js';
import { currency, type CurrencySeed, type GatewaySeed, type Seed } from './seed.js';

const altCountries: Country[] = [
  { id: 233, name: 'Ghana', code: 'GH', dial_code: '233', flag: null },
  { id: 1, name: 'United States of America', code: 'US', dial_code: '+1', flag: '/flags/us.svg' },
  { id: 124, name: 'Canada', code: 'CA', dial_code: '1', flag: null },
];
const at = (code: string) => altCountries.find((c) => c.code === code)!;

function gw(
  id: number,
  record: Record<string, unknown> & { name: string },
  how: Partial<Omit<GatewaySeed, 'id' | 'record'>> & { network: string },
): GatewaySeed {
  return {
    id,
    // ids and flags as strings, extra fields the spec does not name
    record: { id: String(id), sort_order: id % 7, is_active: '1', ...record },
    crypto: false,
    walletRequired: false,
    minimumFees: 0.25,
    feePercent: 1,
    ...how,
  };
}

const altGateways: GatewaySeed[] = [
  gw(
    2,
    { name: 'Vodafone Cash', logo: null, payment_method: 'mobile_money', is_crypto: '0', comments: null },
    { network: 'VODAFONE' },
  ),
  gw(
    14,
    { name: 'Airtel Money', logo: 'img/airtel.svg', payment_method: null, is_crypto: 0, comments: 'MoMo' },
    { network: 'AIRTEL' },
  ),
  gw(
    31,
    { name: 'Kora Balance', logo: 'img/kora.svg', payment_method: 'wallet', is_crypto: '0', comments: null },
    { network: 'KORA', walletRequired: true },
  ),
  gw(
    42,
    {
      name: 'Tether USD',
      logo: 'img/usdt.svg',
      payment_method: 'USDT_TRON',
      is_crypto: '1',
      comments: null,
      lookup_currency: [{ currency_code: 'USDT', country: at('US') }],
    },
    { network: 'TRC20', crypto: true, coin: 'USDT', coinUsd: 1, walletRequired: true, minimumFees: 1 },
  ),
  gw(
    43,
    { name: 'USD Coin', logo: 'img/usdc.svg', payment_method: 'usdc-erc-20', is_crypto: 1, comments: '' },
    { network: 'ERC20', crypto: true, coin: 'USDC', coinUsd: 1, walletRequired: true, minimumFees: 1 },
  ),
  gw(
    44,
    {
      name: 'Ether',
      logo: 'img/eth.svg',
      payment_method: 'ETH',
      is_crypto: '1',
      comments: 'Ethereum mainnet',
    },
    { network: 'ERC20', crypto: true, coin: 'ETH', coinUsd: 3000, minimumFees: 1 },
  ),
  gw(
    51,
    {
      name: 'Ramp Network',
      logo: null,
      payment_method: 'card',
      is_crypto: '0',
      comments: 'Buy crypto with a bank card',
    },
    { network: 'CARD', walletRequired: true },
  ),
  gw(
    52,
    { name: 'Mercuryo', logo: null, payment_method: 'fiat_onramp', is_crypto: '0', comments: null },
    { network: 'CARD', walletRequired: true },
  ),
  gw(
    53,
    { name: 'Simplex', logo: null, payment_method: 'CARD_ON_RAMP', is_crypto: '0', comments: null },
    { network: 'CARD', walletRequired: true },
  ),
  gw(
    61,
    { name: 'Bank e-Transfer', logo: null, payment_method: 'ETRANSFER', is_crypto: '0', comments: 'Canada' },
    { network: 'INTERAC', walletRequired: true },
  ),
  gw(
    62,
    { name: 'Bank transfer', logo: null, payment_method: 'bank_transfer', is_crypto: '0', comments: 'SWIFT' },
    { network: 'SWIFT' },
  ),
];

const altService: MerchantService = {
  id: 7,
  // a number here, as some deployments send it
  site_id: 1 as unknown as string,
  item_name: 'Kora',
  service_name: 'Kora Checkout',
  service_type: 'default',
  success_url: 'https://shop.example/ok',
  faild_url: 'https://shop.example/ko',
  notification_url: 'https://shop.example/hook',
  description: null as unknown as string,
  logo_url: '',
  city: 'Toronto',
  email: 'ops@shop.example',
  service_status: 'approved',
  status: 'active',
  desposit_status: 1 as unknown as boolean,
  withdraw_status: 1 as unknown as boolean,
  who_pays_for_fee: 'merchant',
};

const altCurrencies: CurrencySeed[] = [
  {
    currency: currency(936, 'Cedi', 'GHS', '₵', 15.5, 2, 40000, at('GH')),
    limits: {
      weckly_deposite: 100000,
      min_withdraw: 10,
      max_withdraw: 10000,
      weekly_withdraw: 50000,
      deposite: true,
      withdraw: true,
    },
    balance: 20000,
    collection: [2, 14, 31],
    disbursement: [2, 14, 31],
  },
  {
    currency: currency(840, 'Dollar', 'USD', 'US$', 1, 5, 5000, at('US')),
    limits: {
      weckly_deposite: 25000,
      min_withdraw: 20,
      max_withdraw: 2500,
      weekly_withdraw: 10000,
      deposite: true,
      withdraw: true,
    },
    balance: 9000,
    collection: [42, 43, 44, 51, 52, 53, 31],
    disbursement: [42, 43, 44, 31, 62],
  },
  {
    currency: currency(124, 'Canadian dollar', 'CAD', '$', 1.38, 10, 8000, at('CA')),
    limits: {
      weckly_deposite: 20000,
      min_withdraw: 10,
      max_withdraw: 2000,
      weekly_withdraw: 8000,
      deposite: true,
      withdraw: true,
    },
    balance: 6000,
    collection: [61, 62],
    disbursement: [61],
  },
];

const numbersAsStrings = new Set([
  'usd_exchange_rate',
  'minimum_deposite',
  'maximum_deposite',
  'minimum_fees',
  'fee_in_percentage',
  'min_withdraw',
  'max_withdraw',
  'total_balance',
]);

export const altSeed: Seed = {
  name: 'alt',
  countries: altCountries,
  gateways: altGateways,
  service: altService,
  currencies: altCurrencies,
  // Amounts and limits as decimal strings, placeholders left out, an extra field on each record.
  spell: (kind, record) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) {
      if (kind === 'config' && k === 'api_user') continue;
      out[k] = numbersAsStrings.has(k) && typeof v === 'number' ? v.toFixed(2) : v;
    }
    if (kind === 'config') out.primary_key = null;
    out.updated_at = '2026-01-01T00:00:00.000000Z';
    return out;
  },
};
