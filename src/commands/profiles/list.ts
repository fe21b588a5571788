import { BaseCommand } from '../../cli/base-command.js';
import { mask } from '../../api/redact.js';
import { renderTable } from '../../ui/output.js';

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static override summary = 'List stored profiles (secrets masked)';
  static override examples = ['<%= config.bin %> profiles list', '<%= config.bin %> profiles list --json'];

  async run(): Promise<void> {
    const store = await this.factory.store();
    const current = store.currentProfile();
    const rows = Object.entries(store.profiles()).map(([name, p]) => ({
      name,
      current: name === current,
      env: p.env ?? 'sandbox',
      base_urls: p.baseUrls ?? {},
      merchant_key: mask(p.merchantKey),
      site_id: p.siteId ?? null,
      api_key: mask(p.apiKey),
    }));
    await this.emit(rows, async () =>
      rows.length === 0
        ? 'No profiles yet: run `mpay login`.'
        : renderTable(rows, [
            { key: 'current', header: '', get: (r) => (r.current ? '*' : '') },
            { key: 'name', header: 'Profile' },
            { key: 'env', header: 'Env' },
            {
              key: 'base_url',
              header: 'Base URL',
              get: (r) => (r.base_urls as Record<string, string>)[r.env] ?? '(default)',
            },
            { key: 'merchant_key', header: 'Merchant key' },
            { key: 'site_id', header: 'Site ID' },
            { key: 'api_key', header: 'API key' },
          ]),
    );
  }
}
