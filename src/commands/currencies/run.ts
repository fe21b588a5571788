// `mpay currencies` and `mpay balances`: the public currencies, or the merchant's own.
import type { Factory } from '../../factory.js';
import { printList, type ListOptions } from '../../ui/list-output.js';
import { merchantColumns, publicCurrencyColumns } from '../shared/columns.js';

export interface CurrenciesOptions extends ListOptions {
  /** the merchant's own list (bearer token), as `mpay balances` */
  merchant?: boolean;
}

export async function runCurrencies(opts: CurrenciesOptions, f: Factory): Promise<void> {
  const client = await f.client();
  if (opts.merchant) await printList(f.io, await client.merchantCurrencies(), merchantColumns, opts);
  else await printList(f.io, await client.publicCurrencies(), publicCurrencyColumns, opts);
}
