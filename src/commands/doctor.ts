import { BaseCommand } from '../cli/base-command.js';
import { exitCodes, toMpayError, type ErrorKind } from '../api/errors.js';
import type { Gateway, MerchantCurrency } from '../api/schemas.js';
import { clean } from '../ui/output.js';

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  hint?: string;
  kind?: ErrorKind;
}

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary =
    'Check that the base URL, merchant key, site id and API key work, and what is open to them';
  static override description = `One line per check. Exits 0 only when every check passes; otherwise with the exit code of the first failure's kind (3 auth, 8 network, …; 6 when a check finds nothing open, such as no gateway for withdrawals).

The API key check sends a withdraw initiate that carries only the credentials: the API rejects it for the missing customer fields, so nothing is created, and answers 403 when a credential is wrong.`;
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --profile acme --env stage',
    '<%= config.bin %> doctor --json | jq .checks',
  ];

  async run(): Promise<void> {
    const ctx = await this.loadContext();
    const { proxyFor } = await import('../api/proxy.js');
    const { isLoopback } = await import('../api/client.js');
    const { walletReason } = await import('../flows/wallet-rule.js');
    const checks: Check[] = [];
    const add = (c: Check) => {
      checks.push(c);
      if (!this.jsonMode)
        process.stderr.write(
          `${c.ok ? '✓' : '✗'} ${c.name}: ${clean(c.detail)}${!c.ok && c.hint ? `\n    hint: ${clean(c.hint)}` : ''}\n`,
        );
    };
    const fail = (name: string, err: unknown): Check => {
      const e = toMpayError(err);
      return { name, ok: false, detail: e.message, hint: e.hint, kind: e.kind };
    };

    const url = new URL(ctx.baseUrl);
    add({
      name: 'base URL',
      ok: url.protocol === 'https:' || isLoopback(url.hostname),
      detail: `${ctx.baseUrl} (${ctx.env}, profile ${ctx.profileName})${url.protocol === 'http:' ? ', plain http on loopback' : ''}`,
      hint: 'Use https:// for any host that is not loopback',
      kind: 'usage',
    });
    const proxy = proxyFor(ctx.baseUrl);
    add({
      name: 'proxy and CA',
      ok: true,
      detail: `${proxy ? `proxy ${proxy.replace(/\/\/[^@/]*@/, '//***@')}` : 'no proxy'}; ${process.env.NODE_EXTRA_CA_CERTS ? `extra CA ${process.env.NODE_EXTRA_CA_CERTS}` : 'system CAs'}`,
    });

    const client = await this.client();
    try {
      const countries = await client.publicCountries();
      add({ name: 'API reachable', ok: true, detail: `public countries answered (${countries.length})` });
    } catch (err) {
      add(fail('API reachable', err));
      return this.finish(checks);
    }
    const missing = (['merchantKey', 'siteId', 'apiKey'] as const).filter((k) => !ctx.credentials[k]);
    if (missing.length > 0) {
      add({
        name: 'credentials',
        ok: false,
        detail: `missing ${missing.join(', ')}`,
        hint: 'Run `mpay login`, or set MPAY_MERCHANT_KEY, MPAY_SITE_ID, MPAY_API_KEY',
        kind: 'usage',
      });
      return this.finish(checks);
    }
    try {
      await ctx.tokens.clear();
      await client.generateToken();
      add({
        name: 'merchant key',
        ok: true,
        detail: `accepted (${ctx.credentialSources.merchantKey}); token cached`,
      });
    } catch (err) {
      add(fail('merchant key', err));
      return this.finish(checks);
    }
    let currencies: MerchantCurrency[];
    try {
      currencies = await client.merchantCurrencies();
      add({ name: 'bearer token', ok: true, detail: `merchant currencies answered (${currencies.length})` });
    } catch (err) {
      add(fail('bearer token', err));
      return this.finish(checks);
    }
    const siteIds = [...new Set(currencies.map((c) => c.service?.site_id).filter(Boolean))];
    add({
      name: 'site id',
      ok: siteIds.includes(String(ctx.credentials.siteId)),
      detail: `${ctx.credentials.siteId} ${siteIds.includes(String(ctx.credentials.siteId)) ? 'is one of the merchant services' : `is not among the merchant services (${siteIds.join(', ') || 'none'})`}`,
      hint: 'The Site ID is under the services settings of the dashboard',
      kind: 'auth',
    });
    const probe = await client.probeCredentials();
    add(
      probe.ok
        ? {
            name: 'API key',
            ok: true,
            detail: 'merchant key, site id and API key accepted by withdraw initiate (nothing created)',
          }
        : fail('API key', probe.error),
    );

    const deposits = currencies.filter((c) => c.deposite).map((c) => c.code);
    const withdrawals = currencies.filter((c) => c.withdraw).map((c) => c.code);
    add({
      name: 'deposits',
      ok: deposits.length > 0,
      detail: `enabled for ${deposits.join(', ') || 'no currency'}${this.off(currencies, 'deposite')}`,
      kind: 'precondition',
    });
    add({
      name: 'withdrawals',
      ok: withdrawals.length > 0,
      detail: `enabled for ${withdrawals.join(', ') || 'no currency'}${this.off(currencies, 'withdraw')}`,
      kind: 'precondition',
    });
    for (const type of ['collection', 'disbursement'] as const) {
      const per = currencies
        .map(
          (c) =>
            [
              c.code,
              (c.getway_configuration ?? []).filter(
                (g) => g.type === type && (g.status ?? 'active') === 'active',
              ).length,
            ] as const,
        )
        .filter(([, n]) => n > 0);
      add({
        name: `${type} gateways`,
        ok: per.length > 0,
        detail: per.length ? per.map(([code, n]) => `${code} ${n}`).join(', ') : 'none active',
        kind: 'precondition',
      });
    }
    add(this.walletCheck(ctx.profile.walletGateways?.[ctx.env], ctx.env, currencies, walletReason));
    return this.finish(checks);
  }

  /** Which of the merchant's gateways get the wallet address update, and why: the list or the rule. */
  private walletCheck(
    listed: number[] | undefined,
    env: string,
    currencies: MerchantCurrency[],
    reason: typeof import('../flows/wallet-rule.js').walletReason,
  ): Check {
    const byId = new Map<number, Gateway>();
    for (const c of currencies)
      for (const g of c.getway_configuration ?? []) byId.set(Number(g.gateway.id), g.gateway);
    const services = currencies.map((c) => c.service);
    const needing = [...byId.values()]
      .map((g) => [g, reason(g, { listed, services })] as const)
      .filter(([, why]) => why !== undefined)
      .map(([g, why]) => `${g.id} ${g.name}${why === 'listed' ? '' : ` (${why})`}`);
    const unknown = (listed ?? []).filter((id) => !byId.has(id));
    return {
      name: 'wallet gateways',
      ok: true,
      detail: listed?.length
        ? `from the profile's list for ${env}: ${needing.join(', ') || 'none open'}${unknown.length ? `; not open to this merchant: ${unknown.join(', ')}` : ''}`
        : `by the built-in rule: ${needing.join(', ') || 'none'}; \`mpay config set ${env}.wallet_gateways IDS\` settles it`,
    };
  }

  private off(currencies: MerchantCurrency[], key: 'deposite' | 'withdraw'): string {
    const off = currencies.filter((c) => !c[key]).map((c) => c.code);
    return off.length ? `; off for ${off.join(', ')}` : '';
  }

  private async finish(checks: Check[]): Promise<void> {
    const ok = checks.every((c) => c.ok);
    if (this.jsonMode)
      process.stdout.write(
        `${JSON.stringify({ ok, checks: checks.map(({ kind: _k, ...c }) => c) }, null, 2)}\n`,
      );
    else process.stderr.write(ok ? 'All checks passed.\n' : 'Some checks failed.\n');
    const first = checks.find((c) => !c.ok);
    if (first) process.exitCode = exitCodes[first.kind ?? 'unexpected'];
  }
}
