import Currencies from './currencies.js';
import { columnsHelp, merchantColumns } from '../run/columns.js';

export default class Balances extends Currencies {
  static override summary =
    "The merchant's currencies with balances, limits and gateways (same as `currencies --merchant`)";
  static override description = columnsHelp(merchantColumns);
  static override examples = [
    '<%= config.bin %> balances',
    '<%= config.bin %> balances --columns code,total_balance --json',
  ];
  protected override merchantByDefault = true;
}
