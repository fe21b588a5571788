// `mpay profiles list`: the stored profiles and which one is in use.
import { mask } from '../../../api/redact.js';
import type { Factory } from '../../../factory.js';
import { renderTable } from '../../../ui/output.js';
import { fitWidth, printResult } from '../../../ui/print.js';

export async function runProfilesList(opts: { json?: boolean }, f: Factory): Promise<void> {
  const store = await f.store();
  const current = store.currentProfile();
  const rows = Object.entries(store.profiles()).map(([name, p]) => ({
    name,
    current: name === current,
    env: p.env ?? 'sandbox',
    base_urls: p.baseUrls ?? {},
    merchant_key: p.secretStore === 'keyring' ? '(keyring)' : mask(p.merchantKey),
    site_id: p.siteId ?? null,
    api_key: p.secretStore === 'keyring' ? '(keyring)' : mask(p.apiKey),
    secrets: p.secretStore === 'keyring' ? 'keyring' : p.merchantKey || p.apiKey ? 'file' : 'none',
  }));
  await printResult(f.io, opts.json, rows, async () =>
    rows.length === 0
      ? 'No profiles yet: run `mpay login`.'
      : renderTable(
          rows,
          [
            // the mark in the name's cell, so that it stays on its row when the table turns into blocks
            {
              key: 'name',
              header: 'Profile',
              get: (r) => (r.current ? `${r.name} (current)` : r.name),
              identifier: true,
            },
            { key: 'env', header: 'Env' },
            {
              key: 'base_url',
              header: 'Base URL',
              get: (r) => (r.base_urls as Record<string, string>)[r.env] ?? '(default)',
              identifier: true,
            },
            { key: 'merchant_key', header: 'Merchant key' },
            { key: 'site_id', header: 'Site ID', identifier: true },
            { key: 'api_key', header: 'API key' },
          ],
          fitWidth(f.io),
        ),
  );
}
