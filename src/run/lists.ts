// `mpay countries`, `mpay currencies` and `mpay balances`: the API's lists as tables, CSV or JSON.
import type { Factory } from '../factory.js';
import { printList, type ListOptions } from '../ui/list-output.js';
import { countryColumns, merchantColumns, publicCurrencyColumns } from './columns.js';

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
  else await printList(f.io, await client.publicCurrencies(), publicCurrencyColumns, opts);
}
