// `mpay sandbox --catalogue FILE`: a data set made from a merchant's own currencies answer (the one a trace
// or support bundle recorded), so that a replay against the local sandbox meets the merchant's data: its
// currencies, limits, balances, service and gateways, in its own spellings (numbers as strings, nulls,
// extra fields, as its server sent them). Secrets in them are replaced by the sandbox's placeholders: the
// gateways' api_key, api_user, primary_key and payment_server_url, and the service's site_id (the sandbox's
// own, so that its demo credentials work). The sandbox's settlement rules need what a record does not say;
// where it is silent: no coin price (a crypto gateway settles in the currency), and no gateway needs the
// wallet address update first (every gateway takes one).
import { UsageError } from '../common/errors.js';
import { Secrets } from '../api/redact.js';
import * as s from '../api/schemas.js';
import { demoMerchant, type CurrencySeed, type GatewaySeed, type Seed } from './seed.js';

/** by name only: the sandbox holds no secret of a run */
const byName = new Secrets();
type Rec = Record<string, unknown>;
const placeholder = '********';
/** The fields of a currency (api/schemas.ts), in its order, and those a merchant currency adds (the spec's). */
const currencyKeys = Object.keys(s.Currency.shape);
const merchantOnlyKeys = new Set(
  Object.keys(s.MerchantCurrency.shape).filter((k) => !(k in s.Currency.shape)),
);

/** A gateway configuration with its secrets replaced by the sandbox's placeholders. */
function scrubConfig(config: Rec): Rec {
  const out = byName.value(config) as Rec;
  if ('api_key' in out) out.api_key = placeholder;
  if ('api_user' in out) out.api_user = placeholder;
  if (out.primary_key !== null && out.primary_key !== undefined) out.primary_key = 'N/A';
  if ('payment_server_url' in out) out.payment_server_url = 'N/A';
  return out;
}

/** The service, its site id the sandbox's own (a number if the merchant's server sent one). */
function scrubService(service: unknown): Rec {
  const out = byName.value(service) as Rec;
  return {
    ...out,
    site_id: typeof out.site_id === 'number' ? Number(demoMerchant.siteId) : demoMerchant.siteId,
  };
}

/** What the currencies bring along, gathered as they are read: countries, gateways, configurations. */
interface Found {
  countries: Map<string, s.Country>;
  gateways: Map<number, GatewaySeed>;
  /** each gateway configuration as the merchant's server spelled it, scrubbed, by "id:type" */
  configs: Map<string, Rec>;
}

/** The sandbox's data set from a merchant currencies answer's `data`. */
export function catalogueSeed(data: unknown[], name = 'catalogue'): Seed {
  const raws: Rec[] = [];
  const parsed: s.MerchantCurrency[] = [];
  for (const d of data) {
    const p = s.MerchantCurrency.safeParse(d);
    if (p.success) {
      raws.push(d as Rec);
      parsed.push(p.data);
    }
  }
  if (!parsed.length)
    throw new UsageError(`${name} holds no merchant currency the sandbox can read`, {
      hint: 'Give a trace (or bundle) of `mpay balances` or `mpay doctor` against the merchant',
    });
  const found: Found = { countries: new Map(), gateways: new Map(), configs: new Map() };
  const currencies = parsed.map((c, i) => currencySeed(c, raws[i]!, found));
  return {
    name,
    countries: [...found.countries.values()],
    gateways: [...found.gateways.values()],
    service: scrubService(raws[0]!.service ?? parsed[0]!.service) as unknown as s.MerchantService,
    currencies,
    spell: speller(new Map(parsed.map((c, i) => [c.code, raws[i]!])), found.configs),
  };
}

/** One merchant currency as the sandbox serves it; its country and gateways added to `found`. */
function currencySeed(c: s.MerchantCurrency, raw: Rec, found: Found): CurrencySeed {
  if (c.country) found.countries.set(c.country.code, c.country);
  const ids = { collection: [] as number[], disbursement: [] as number[] };
  const rawConfigs = Array.isArray(raw.getway_configuration) ? (raw.getway_configuration as Rec[]) : [];
  for (const [j, conf] of (c.getway_configuration ?? []).entries()) {
    const type = conf.type === 'disbursement' ? 'disbursement' : 'collection';
    const id = conf.gateway.id;
    if (!ids[type].includes(id)) ids[type].push(id);
    found.configs.set(`${id}:${type}`, scrubConfig(rawConfigs[j] ?? (conf as Rec)));
    for (const l of conf.gateway.lookup_currency ?? [])
      if (l.country) found.countries.set(l.country.code, l.country);
    if (!found.gateways.has(id)) found.gateways.set(id, gatewaySeed(conf, rawConfigs[j]));
  }
  const currency = Object.fromEntries(
    currencyKeys.filter((k) => k in c).map((k) => [k, c[k as keyof typeof c]]),
  );
  return {
    currency: currency as s.Currency,
    limits: {
      weckly_deposite: c.weckly_deposite ?? Number.MAX_SAFE_INTEGER,
      min_withdraw: c.min_withdraw ?? 0,
      max_withdraw: c.max_withdraw ?? Number.MAX_SAFE_INTEGER,
      weekly_withdraw: c.weekly_withdraw ?? Number.MAX_SAFE_INTEGER,
      deposite: c.deposite ?? true,
      withdraw: c.withdraw ?? true,
    },
    balance: c.total_balance ?? 0,
    collection: ids.collection,
    disbursement: ids.disbursement,
  };
}

/** A gateway as the sandbox settles with it, its record as the merchant's server spelled it, scrubbed. */
function gatewaySeed(conf: s.GatewayConfiguration, rawConfig: Rec | undefined): GatewaySeed {
  const rawGateway = ((rawConfig?.gateway as Rec | undefined) ?? conf.gateway) as GatewaySeed['record'];
  return {
    id: conf.gateway.id,
    record: byName.value(rawGateway) as GatewaySeed['record'],
    crypto: Number(conf.gateway.is_crypto ?? 0) === 1,
    network: String(conf.gateway.payment_method ?? conf.gateway.name),
    walletRequired: false,
    minimumFees: conf.minimum_fees ?? 0,
    feePercent: conf.fee_in_percentage ?? 0,
  };
}

/** Each record as the merchant's server spelled it, secrets replaced; balances are the sandbox's own. */
function speller(rawByCode: Map<string, Rec>, configs: Map<string, Rec>): Seed['spell'] {
  return (kind, record) => {
    const raw = rawByCode.get(String(record.code));
    if (kind === 'config') {
      const gw = record.gateway as { id?: unknown } | undefined;
      return configs.get(`${String(gw?.id)}:${String(record.type)}`) ?? record;
    }
    if (!raw) return record;
    if (kind === 'currency')
      return byName.value(Object.fromEntries(Object.entries(raw).filter(([k]) => !merchantOnlyKeys.has(k))));
    const scrubbed = byName.value(raw) as Rec;
    return {
      ...scrubbed,
      // the sandbox's balance, spelled as the merchant's server spells it (a string "25000.00", say)
      total_balance:
        typeof raw.total_balance === 'string'
          ? Number(record.total_balance).toFixed(raw.total_balance.split('.')[1]?.length ?? 0)
          : record.total_balance,
      service: scrubService(raw.service),
      getway_configuration: (Array.isArray(raw.getway_configuration)
        ? (raw.getway_configuration as Rec[])
        : []
      ).map(scrubConfig),
    };
  };
}
