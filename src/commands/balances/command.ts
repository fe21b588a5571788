import type { HelpGroup } from '../base/base-command.js';
import Currencies from '../currencies/command.js';
import { columnsHelp, merchantColumns } from '../shared/columns.js';

export default class Balances extends Currencies {
  static override helpGroup: HelpGroup = { section: 'READING', order: 3 };
  static override summary = 'Your currencies: balances, limits and gateways';
  static override description = columnsHelp(merchantColumns);
  static override examples = [
    '<%= config.bin %> balances',
    '<%= config.bin %> balances --columns code,total_balance --json',
  ];
  protected override merchantByDefault = true;
}
