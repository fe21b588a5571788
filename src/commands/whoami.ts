import { createHash } from 'node:crypto';
import { BaseCommand } from '../cli/base-command.js';
import { renderRecord } from '../ui/output.js';

export default class Whoami extends BaseCommand<typeof Whoami> {
  static override summary = 'Show the profile, environment and credentials in effect (fingerprints only)';
  static override examples = ['<%= config.bin %> whoami', 'MPAY_ENV=stage <%= config.bin %> whoami --json'];

  async run(): Promise<void> {
    const ctx = await this.loadContext();
    const fp = (s?: string) =>
      s ? `sha256:${createHash('sha256').update(s).digest('hex').slice(0, 12)}` : null;
    const data = {
      profile: ctx.profileName,
      env: ctx.env,
      base_url: ctx.baseUrl,
      merchant_key_fingerprint: fp(ctx.credentials.merchantKey),
      merchant_key_from: ctx.credentialSources.merchantKey,
      site_id: ctx.credentials.siteId ?? null,
      api_key_fingerprint: fp(ctx.credentials.apiKey),
      cached_token: Boolean(ctx.tokens.get()),
      config_dir: ctx.store.dir,
    };
    await this.emit(data, () => renderRecord(data));
  }
}
