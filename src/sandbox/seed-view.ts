// The sandbox's view of its data set (seed.ts, seed-alt.ts, or one made by catalogue.ts from a merchant's
// currencies answer): what it derives from the data rather than from what happened: lookups, the data
// set's spellings, the list answers serialized once, and how a stored transaction reads as the spec's
// Transaction.
import { gatewayTypeOf } from '../api/enums.js';
import type { Transaction } from '../api/schemas.js';
import { okRaw, round, today, utcDateTime, type Reply } from './replies.js';
import { gatewayConfiguration, type CurrencySeed, type Seed } from './seed.js';
import type { StoredTransaction } from './state.js';

export class SeedView {
  constructor(readonly seed: Seed) {}

  /** JSON of values that never change (seed records), serialized once per sandbox */
  private readonly frozenJson = new Map<string, string>();

  once(key: string, make: () => unknown): string {
    let j = this.frozenJson.get(key);
    if (j === undefined) {
      j = JSON.stringify(make());
      this.frozenJson.set(key, j);
    }
    return j;
  }

  spell(kind: 'currency' | 'config' | 'merchantCurrency', record: object): unknown {
    return this.seed.spell?.(kind, record as Record<string, unknown>) ?? record;
  }

  gateway(id: number) {
    return this.seed.gateways.find((g) => g.id === id)!;
  }

  currencySeed(code: string): CurrencySeed {
    return this.seed.currencies.find((c) => c.currency.code === code)!;
  }

  publicCurrencies(): Reply {
    return okRaw(
      'Currencies fetched successfully.',
      this.once('currencies', () => this.seed.currencies.map((c) => this.spell('currency', c.currency))),
    );
  }

  publicCountries(): Reply {
    return okRaw(
      'Countries fetched successfully.',
      this.once('countries', () => this.seed.countries),
    );
  }

  /** The merchant's list with the balances of the moment (the state caches it until one changes). */
  merchantCurrencies(balances: ReadonlyMap<string, number>): Reply {
    const data = this.seed.currencies.map((c) =>
      this.spell('merchantCurrency', {
        ...(this.spell('currency', c.currency) as object),
        type: 'Flat',
        usd_equivalence: round(1 / (c.currency.usd_exchange_rate ?? 1), 6),
        freemium_amount: 0,
        ...c.limits,
        transfer_fee: 0,
        swap_min_fee: 0,
        swap_rate: 0,
        is_display: true,
        status: 'active',
        swap_status: false,
        merchant_status: 'active',
        total_balance: round(balances.get(c.currency.code) ?? 0),
        service: this.seed.service,
        getway_configuration: [
          ...c.collection.map((id) => gatewayConfiguration(this.seed, id, 'collection')),
          ...c.disbursement.map((id) => gatewayConfiguration(this.seed, id, 'disbursement')),
        ],
      }),
    );
    return okRaw('Merchant currencies fetched successfully.', JSON.stringify(data));
  }

  fee(amount: number, minimum: number, percent: number): number {
    return round(Math.max(minimum, (amount * percent) / 100));
  }

  transaction(tx: StoredTransaction): Transaction {
    const type = gatewayTypeOf(tx.kind);
    const config = gatewayConfiguration(this.seed, tx.gateway_id!, type);
    const gw = this.gateway(tx.gateway_id!);
    const seed = this.currencySeed(tx.currency_code);
    // A crypto gateway settles in its coin: the spec's example Transaction carries a crypto amount.
    const amount = gw.coinUsd
      ? round(tx.amount / (seed.currency.usd_exchange_rate ?? 1) / gw.coinUsd, 8)
      : tx.amount;
    const fee = gw.coinUsd
      ? round((amount * gw.feePercent) / 100, 8)
      : this.fee(amount, gw.minimumFees, gw.feePercent);
    const when = new Date(tx.processed_at ?? tx.created_at);
    return {
      id: tx.id,
      uuid: tx.uuid,
      transaction_id: tx.transaction_id,
      status: tx.status,
      amount,
      currency_code: gw.coin ?? tx.currency_code,
      net_amount: round(amount - fee, 8),
      fee_amount: fee,
      transaction_date: today(when),
      transaction_datetime: utcDateTime(when),
      payment_method: String(gw.record.payment_method ?? ''),
      gateway_response: null,
      service: this.seed.service,
      gateway_config: config as unknown as Transaction['gateway_config'],
    };
  }
}
