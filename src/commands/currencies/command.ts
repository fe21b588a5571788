import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';
import { columnsHelp, merchantColumns, publicCurrencyColumns } from '../shared/columns.js';
import { listOptionsFrom, outputFlags } from '../base/flags.js';

export default class Currencies extends BaseCommand<typeof Currencies> {
  static override baseFlags = flagSets.api;
  static helpGroup: HelpGroup = { section: 'READING', order: 2 };
  static override summary = 'Supported currencies, or your own with --merchant';
  static override description = `Public list. ${columnsHelp(publicCurrencyColumns)}\n\nWith --merchant (or as mpay balances). ${columnsHelp(merchantColumns)}`;
  static override examples = [
    '<%= config.bin %> currencies',
    '<%= config.bin %> currencies --merchant',
    '<%= config.bin %> balances --columns code,total_balance',
    '<%= config.bin %> currencies --merchant --filter withdraw=yes --json',
    '<%= config.bin %> currencies --csv',
  ];
  static override flags = {
    merchant: Flags.boolean({
      char: 'm',
      description: "the merchant's currencies (bearer token): balance, limits, switches, service, gateways",
    }),
    ...outputFlags,
  };

  /** `mpay balances` is this command with --merchant on. */
  protected merchantByDefault = false;

  async run(): Promise<void> {
    const { runCurrencies } = await import('./run.js');
    const merchant = this.flags.merchant || this.merchantByDefault;
    await this.execute(runCurrencies, { ...listOptionsFrom(this.flags), merchant });
  }
}
