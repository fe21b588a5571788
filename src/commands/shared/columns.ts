// The columns of each list command: what a table shows by default, what --wide adds, the keys that
// --columns and --filter take, and which hold identifiers a person copies (never cut to fit a terminal).
// Plain data (no rendering, no HTTP), so that each command's --help can list them.
import type { Country, Currency, MerchantCurrency } from '../../api/schemas.js';
import { statusShown, type JournalRecord } from '../../journal/records.js';
import type { Column } from '../../ui/output.js';

const range = (min: unknown, max: unknown) => `${min ?? '?'}-${max ?? '?'}`;

export const countryColumns: Column<Country>[] = [
  { key: 'code', header: 'Code', identifier: true },
  { key: 'name', header: 'Name' },
  { key: 'dial_code', header: 'Dial code', identifier: true },
  { key: 'id', header: 'ID', identifier: true },
];

export const publicCurrencyColumns: Column<Currency>[] = [
  { key: 'code', header: 'Code', identifier: true },
  { key: 'name', header: 'Name' },
  { key: 'country', header: 'Country', get: (c) => c.country?.code, identifier: true },
  { key: 'minimum_deposite', header: 'Min deposit' },
  { key: 'maximum_deposite', header: 'Max deposit' },
  { key: 'symbol', header: 'Symbol', wide: true },
  { key: 'usd_exchange_rate', header: 'Per USD', wide: true },
];

const gatewayNames = (c: MerchantCurrency, type: string) =>
  (c.getway_configuration ?? [])
    .filter((g) => g.type === type)
    .map((g) => `${g.gateway.name} (${g.gateway.id})`)
    .join(', ');

export const merchantColumns: Column<MerchantCurrency>[] = [
  { key: 'code', header: 'Code', identifier: true },
  { key: 'country', header: 'Country', get: (c) => c.country?.code, identifier: true },
  { key: 'total_balance', header: 'Balance' },
  // A direction the merchant may not use shows "off" in place of its limits.
  {
    key: 'deposit_limits',
    header: 'Deposit min-max',
    get: (c) => (c.deposite === false ? 'off' : range(c.minimum_deposite, c.maximum_deposite)),
  },
  {
    key: 'withdraw_limits',
    header: 'Withdraw min-max',
    get: (c) => (c.withdraw === false ? 'off' : range(c.min_withdraw, c.max_withdraw)),
  },
  { key: 'deposite', header: 'Deposit', wide: true },
  { key: 'withdraw', header: 'Withdraw', wide: true },
  { key: 'service', header: 'Service', get: (c) => c.service?.service_name, wide: true },
  // a list of names with their ids, which a person copies: folded, never cut
  {
    key: 'collection',
    header: 'Deposit gateways',
    get: (c) => gatewayNames(c, 'collection'),
    wide: true,
    wrap: true,
  },
  {
    key: 'disbursement',
    header: 'Withdraw gateways',
    get: (c) => gatewayNames(c, 'disbursement'),
    wide: true,
    wrap: true,
  },
];

export const historyColumns: Column<JournalRecord>[] = [
  {
    key: 'created_at',
    header: 'Started',
    get: (r) => r.created_at.slice(0, 19).replace('T', ' '),
    // at 80 columns: the month, day and minute (UTC, as the whole form), never a cut "2026-11-2…"
    short: (r) => r.created_at.slice(5, 16).replace('T', ' '),
    optional: true,
  },
  // doctor's and login's credentials check is a withdraw initiate too, but no customer's payment
  // and one an assistant started through `mpay mcp` says so
  {
    key: 'kind',
    header: 'Kind',
    get: (r) => `${r.kind}${r.probe ? ' (key check)' : ''}${r.via ? ` (via ${r.via})` : ''}`,
  },
  { key: 'reference', header: 'Reference', identifier: true },
  { key: 'amount', header: 'Amount', get: (r) => `${r.amount ?? ''} ${r.currency ?? ''}`.trim() },
  { key: 'status', header: 'Status', get: (r) => statusShown(r) },
  {
    key: 'last_step',
    header: 'Last step',
    optional: true,
    get: (r) => (r.steps.length ? `${r.steps.at(-1)!.step} ${r.steps.at(-1)!.outcome}` : ''),
  },
  {
    key: 'gateway',
    header: 'Gateway',
    get: (r) => (r.gateway_id === undefined ? '' : `${r.gateway_id} ${r.gateway_name ?? ''}`.trim()),
    wide: true,
  },
  { key: 'hash_token', header: 'Hash token', wide: true, identifier: true },
  { key: 'server', header: 'Server', get: (r) => r.place?.server, wide: true, identifier: true },
];

/** For a command's --help: the columns, the default ones first. */
export function columnsHelp<T>(columns: Column<T>[]): string {
  const keys = (wide: boolean) =>
    columns
      .filter((c) => Boolean(c.wide) === wide)
      .map((c) => c.key)
      .join(', ');
  return `Columns (for --columns and --filter): ${keys(false)}; with --wide also ${keys(true) || 'none'}.`;
}
