import { BaseCommand, outputFlags } from '../cli/base-command.js';
import { listOutput } from '../cli/list-output.js';
import type { Country } from '../api/schemas.js';
import type { Column } from '../ui/output.js';

const columns: Column<Country>[] = [
  { key: 'code', header: 'Code' },
  { key: 'name', header: 'Name' },
  { key: 'dial_code', header: 'Dial code' },
  { key: 'id', header: 'ID' },
];

export default class Countries extends BaseCommand<typeof Countries> {
  static override summary = 'List the countries the API supports (public)';
  static override examples = [
    '<%= config.bin %> countries',
    '<%= config.bin %> countries --json',
    '<%= config.bin %> countries --filter code=GH --columns code,name,dial_code',
    '<%= config.bin %> countries --csv > countries.csv',
  ];
  static override flags = { ...outputFlags };

  async run(): Promise<void> {
    const client = await this.client();
    const rows = await client.publicCountries();
    await listOutput(rows, columns, this.flags);
  }
}
