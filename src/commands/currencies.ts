import * as Flags from '@oclif/core/flags';
import { BaseCommand, outputFlags } from '../cli/base-command.js';
import { listOutput } from '../cli/list-output.js';
import type { Currency, MerchantCurrency } from '../api/schemas.js';
import type { Column } from '../ui/output.js';

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

export default class Currencies extends BaseCommand<typeof Currencies> {
  static override summary =
    'List supported currencies, or with --merchant your own with balances, limits and gateways';
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
    const client = await this.client();
    if (this.flags.merchant || this.merchantByDefault)
      await listOutput(await client.merchantCurrencies(), merchantColumns, this.flags);
    else await listOutput(await client.publicCurrencies(), publicColumns, this.flags);
  }
}
