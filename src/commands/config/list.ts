import { BaseCommand } from '../../cli/base-command.js';
import { renderRecord } from '../../ui/output.js';
import type { ConfigStore } from '../../config/store.js';

/** The settings of a profile, defaults filled in, secrets left out. */
export async function settings(
  store: ConfigStore,
  profileFlag?: string,
): Promise<Record<string, string | number | null>> {
  const { defaultBaseUrls, environments } = await import('../../config/store.js');
  const { defaultTimeoutSeconds } = await import('../../config/context.js');
  const name = profileFlag ?? store.currentProfile();
  const p = store.profile(name) ?? {};
  const out: Record<string, string | number | null> = {
    profile: name,
    env: p.env ?? 'sandbox',
    timeout: p.timeout ?? defaultTimeoutSeconds,
  };
  for (const e of environments) out[`${e}.base_url`] = p.baseUrls?.[e] ?? defaultBaseUrls[e] ?? null;
  for (const e of environments) out[`${e}.wallet_gateways`] = p.walletGateways?.[e]?.join(',') ?? null;
  out.config_dir = store.dir;
  return out;
}

export default class ConfigList extends BaseCommand<typeof ConfigList> {
  static override summary = 'List the settings of the current profile (no secrets)';
  static override examples = [
    '<%= config.bin %> config list',
    '<%= config.bin %> config list --profile acme --json',
  ];

  async run(): Promise<void> {
    const all = await settings(await this.factory.store(), this.flags.profile);
    await this.emit(all, () => renderRecord(all));
  }
}
