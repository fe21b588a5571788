// `mpay config get/set/list` and `mpay profiles list/use/remove`: the stored profiles and their settings.
// Secrets are never printed (masked), and a value is checked before it is saved.
import { defaultTimeoutSeconds } from '../../config/context.js';
import { type ConfigStore } from '../../config/store.js';
import { defaultBaseUrls, environments } from '../../config/profile.js';

/** The settings of a profile, defaults filled in, secrets left out. */
export function settings(store: ConfigStore, profile?: string): Record<string, string | number | null> {
  const name = profile ?? store.currentProfile();
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

export interface SettingsOptions {
  json?: boolean;
  /** --profile: the profile to read or change (default: the current one) */
  profile?: string;
  /** --env: the environment a bare wallet_gateways means (default: the profile's) */
  env?: string;
}
