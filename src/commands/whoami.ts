import { fingerprint } from '../api/redact.js';
import { BaseCommand } from '../cli/base-command.js';
import { renderRecord } from '../ui/output.js';

export default class Whoami extends BaseCommand<typeof Whoami> {
  static override summary = 'Show the profile, environment and credentials in effect (fingerprints only)';
  static override examples = ['<%= config.bin %> whoami', 'MPAY_ENV=stage <%= config.bin %> whoami --json'];

  async run(): Promise<void> {
    const ctx = await this.loadContext();
    const fp = (s?: string) => (s ? fingerprint(s) : null);
    const keyFp = fp(ctx.credentials.merchantKey);
    // Each cached token belongs to the key that made it; only the one of the key in effect is used.
    const cached = ctx.store
      .cachedTokens({ profile: ctx.profileName, env: ctx.env, baseUrl: ctx.baseUrl })
      .map((t) => ({
        merchant_key_fingerprint: t.keyFingerprint,
        created_at: t.createdAt,
        used: t.keyFingerprint === keyFp,
      }));
    const data = {
      profile: ctx.profileName,
      env: ctx.env,
      base_url: ctx.baseUrl,
      merchant_key_fingerprint: keyFp,
      merchant_key_from: ctx.credentialSources.merchantKey,
      site_id: ctx.credentials.siteId ?? null,
      api_key_fingerprint: fp(ctx.credentials.apiKey),
      cached_token: Boolean(ctx.tokens.get()),
      cached_tokens: cached,
      config_dir: ctx.store.dir,
    };
    await this.emit(data, () =>
      renderRecord({
        ...data,
        cached_token: data.cached_token
          ? `yes, made with merchant key ${keyFp}`
          : 'none for this merchant key',
        cached_tokens: cached
          .filter((t) => !t.used)
          .map((t) => `${t.merchant_key_fingerprint} (another key)`)
          .join(', '),
      }),
    );
  }
}
