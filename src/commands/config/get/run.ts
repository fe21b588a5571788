// `mpay config get KEY`: one setting of a profile.
import type { Factory } from '../../../factory.js';
import { printResult } from '../../../ui/print.js';
import { settings, type SettingsOptions } from '../../shared/settings.js';

export async function runConfigGet(opts: SettingsOptions & { key: string }, f: Factory): Promise<void> {
  const all = settings(await f.store(), opts.profile);
  // Bare wallet_gateways is the list of the environment in effect (--env, MPAY_ENV, or the profile's).
  const key = opts.key === 'wallet_gateways' ? `${opts.env ?? all.env}.wallet_gateways` : opts.key;
  const value = all[key] ?? null;
  // The value as it is, a script's to read.
  await printResult(
    f.io,
    opts.json,
    { [key]: value },
    () => (value === null ? '' : String(value)),
    'verbatim',
  );
}
