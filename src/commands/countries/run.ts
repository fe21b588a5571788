// `mpay countries`: the public list of countries as a table, CSV or JSON.
import type { Factory } from '../../factory.js';
import { printList, type ListOptions } from '../../ui/list-output.js';
import { countryColumns } from '../shared/columns.js';

export async function runCountries(opts: ListOptions, f: Factory): Promise<void> {
  const client = await f.client();
  await printList(f.io, await client.publicCountries(), countryColumns, opts);
}
