// `mpay countries`, `mpay currencies` and `mpay balances`: the API's lists as tables, CSV or JSON.
import type { Country, Currency, MerchantCurrency } from '../api/schemas.js';
import type { Factory } from '../factory.js';
import { printList, type ListOptions } from '../ui/list-output.js';
import type { Column } from '../ui/output.js';

const countryColumns: Column<Country>[] = [
  { key: 'code', header: 'Code' },
  { key: 'name', header: 'Name' },
  { key: 'dial_code', header: 'Dial code' },
  { key: 'id', header: 'ID' },
];

const publicColumns: Column<Currency>[] = [
  { key: 'code', header: 'Code' },
  { key: 'name', header: 'Name' },
  { key: 'symbol', header: 'Symbol' },
  { key: 'country', header: 'Country', get: (c) => c.country?.code },
  { key: 'usd_exchange_rate', header: 'Per USD' },
  { key: 'minimum_deposite', header: 'Min deposit' },
  { key: 'maximum_deposite', header: 'Max deposit' },
];

const gatewayNames = (c: MerchantCurrency, type: string) =>
  (c.getway_configuration ?? [])
    .filter((g) => g.type === type)
    .map((g) => `${g.gateway.name} (${g.gateway.id})`)
    .join(', ');

export const merchantColumns: Column<MerchantCurrency>[] = [
  { key: 'code', header: 'Code' },
  { key: 'country', header: 'Country', get: (c) => c.country?.code },
  { key: 'total_balance', header: 'Balance' },
  { key: 'deposite', header: 'Deposit' },
  {
    key: 'deposit_limits',
    header: 'Deposit min–max',
    get: (c) => `${c.minimum_deposite ?? '?'}–${c.maximum_deposite ?? '?'}`,
  },
  { key: 'withdraw', header: 'Withdraw' },
  {
    key: 'withdraw_limits',
    header: 'Withdraw min–max',
    get: (c) => `${c.min_withdraw ?? '?'}–${c.max_withdraw ?? '?'}`,
  },
  { key: 'service', header: 'Service', get: (c) => c.service?.service_name },
  { key: 'collection', header: 'Deposit gateways', get: (c) => gatewayNames(c, 'collection') },
  { key: 'disbursement', header: 'Withdraw gateways', get: (c) => gatewayNames(c, 'disbursement') },
];

export async function runCountries(opts: ListOptions, f: Factory): Promise<void> {
  const client = await f.client();
  await printList(f.io, await client.publicCountries(), countryColumns, opts);
}

export interface CurrenciesOptions extends ListOptions {
  /** the merchant's own list (bearer token), as `mpay balances` */
  merchant?: boolean;
}

export async function runCurrencies(opts: CurrenciesOptions, f: Factory): Promise<void> {
  const client = await f.client();
  if (opts.merchant) await printList(f.io, await client.merchantCurrencies(), merchantColumns, opts);
  else await printList(f.io, await client.publicCurrencies(), publicColumns, opts);
}
