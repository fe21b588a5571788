import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';
import { columnsHelp, countryColumns } from '../shared/columns.js';
import { listOptionsFrom, outputFlags } from '../base/flags.js';

export default class Countries extends BaseCommand<typeof Countries> {
  static override baseFlags = flagSets.api;
  static helpGroup: HelpGroup = { section: 'READING', order: 1 };
  static override summary = 'List the countries the API supports (public)';
  static override description = columnsHelp(countryColumns);
  static override examples = [
    '<%= config.bin %> countries',
    '<%= config.bin %> countries --json',
    '<%= config.bin %> countries --filter code=GH --columns code,name,dial_code',
    '<%= config.bin %> countries --csv > countries.csv',
  ];
  static override flags = { ...outputFlags };

  async run(): Promise<void> {
    const { runCountries } = await import('./run.js');
    await this.execute(runCountries, listOptionsFrom(this.flags));
  }
}
