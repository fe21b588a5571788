// `mpay config get/set/list` and `mpay profiles list/use/remove`: the stored profiles and their settings.
// Secrets are never printed (masked), and a value is checked before it is saved.
import { exitCodes, UsageError } from '../api/errors.js';
import { checkBaseUrl, normalizeBaseUrl } from '../api/base-url.js';
import { mask } from '../api/redact.js';
import { defaultTimeoutSeconds } from '../config/context.js';
import { type ConfigStore } from '../config/store.js';
import { defaultBaseUrls, environments, isEnvironment, parseGatewayList } from '../config/profile.js';
import type { Factory } from '../factory.js';
import { renderRecord, renderTable } from '../ui/output.js';
import { fitWidth, printResult } from '../ui/print.js';

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

export async function runConfigList(opts: SettingsOptions, f: Factory): Promise<void> {
  const all = settings(await f.store(), opts.profile);
  await printResult(f.io, opts.json, all, () => renderRecord(all, fitWidth(f.io)));
}

export async function runConfigGet(opts: SettingsOptions & { key: string }, f: Factory): Promise<void> {
  const all = settings(await f.store(), opts.profile);
  // Bare wallet_gateways is the list of the environment in effect (--env, MPAY_ENV, or the profile's).
  const key = opts.key === 'wallet_gateways' ? `${opts.env ?? all.env}.wallet_gateways` : opts.key;
  const value = all[key] ?? null;
  await printResult(f.io, opts.json, { [key]: value }, () => (value === null ? '' : String(value)));
}

export async function runConfigSet(
  opts: SettingsOptions & { key: string; value: string },
  f: Factory,
): Promise<void> {
  const store = await f.store();
  const name = opts.profile ?? store.currentProfile();
  const p = { ...store.profile(name) };
  const { key, value } = opts;
  let shownKey = key;
  let shownValue: unknown = value;
  if (key === 'env') {
    if (!isEnvironment(value))
      throw new UsageError(`Unknown environment "${value}"`, { hint: 'One of sandbox, stage, live' });
    p.env = value;
  } else if (key === 'timeout') {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new UsageError(`Invalid timeout "${value}"`, { hint: 'Seconds, e.g. 30' });
    p.timeout = n;
  } else if (key.endsWith('wallet_gateways')) {
    const env = key.includes('.') ? key.split('.')[0]! : (opts.env ?? p.env ?? 'sandbox');
    if (!isEnvironment(env)) throw new UsageError(`Unknown environment "${env}"`);
    const ids = parseGatewayList(value);
    if (!ids)
      throw new UsageError(`Invalid gateway list "${value}"`, {
        hint: 'Gateway ids separated by commas, e.g. 2,5,12 (ids from `mpay balances --json`), or "none"',
      });
    const lists = { ...p.walletGateways };
    if (ids.length) lists[env] = ids;
    else delete lists[env];
    p.walletGateways = lists;
    shownKey = `${env}.wallet_gateways`;
    shownValue = ids;
  } else {
    const env = key.split('.')[0]!;
    if (!isEnvironment(env)) throw new UsageError(`Unknown setting ${key}`);
    const { url, stripped } = normalizeBaseUrl(value);
    if (stripped) f.io.warn(`${value} ends in /restapi/v1, which mpay adds itself; saving ${url}`);
    checkBaseUrl(url);
    p.baseUrls = { ...p.baseUrls, [env]: url };
    shownValue = url;
  }
  await store.saveProfile(name, p);
  const human = Array.isArray(shownValue)
    ? shownValue.length
      ? shownValue.join(',')
      : 'none (the wallet rule decides)'
    : String(shownValue);
  await printResult(
    f.io,
    opts.json,
    { profile: name, key: shownKey, value: shownValue },
    () => `${name}: ${shownKey} = ${human}`,
  );
}

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
          ],
          fitWidth(f.io),
        ),
  );
}

export async function runProfilesUse(opts: { json?: boolean; name: string }, f: Factory): Promise<void> {
  const store = await f.store();
  if (!store.profile(opts.name)) {
    throw new UsageError(`No profile named "${opts.name}"`, {
      hint: `Known: ${Object.keys(store.profiles()).join(', ') || 'none; run `mpay login`'}`,
    });
  }
  await store.setCurrentProfile(opts.name);
  await printResult(f.io, opts.json, { current: opts.name }, () => `Now using profile ${opts.name}.`);
}

export async function runProfilesRemove(opts: { json?: boolean; name: string }, f: Factory): Promise<void> {
  const store = await f.store();
  if (!store.profile(opts.name)) throw new UsageError(`No profile named "${opts.name}"`);
  const prompter = f.globals.yes ? undefined : await f.prompter();
  if (prompter) {
    const ok = await prompter.confirm({
      message: `Remove profile ${opts.name} and its credentials?`,
      default: false,
    });
    if (!ok) {
      f.io.note('Kept.');
      return;
    }
  }
  const { leftover } = await store.removeProfile(opts.name);
  await printResult(f.io, opts.json, { removed: opts.name }, () => `Removed profile ${opts.name}.`);
  if (leftover) {
    f.io.warn(leftover);
    f.io.exitCode = exitCodes.local;
  }
}

export interface LogoutOptions {
  json?: boolean;
  profile?: string;
  /** the credentials too, not only the cached tokens */
  all?: boolean;
}

/** `mpay logout`: a profile's cached tokens, and with --all its merchant key, site id and API key. */
export async function runLogout(opts: LogoutOptions, f: Factory): Promise<void> {
  const store = await f.store();
  const name = opts.profile ?? store.currentProfile();
  const profile = store.profile(name);
  if (!profile && opts.profile)
    throw new UsageError(`No profile named "${name}"`, {
      hint: `Known: ${Object.keys(store.profiles()).join(', ') || 'none'}`,
    });
  const cleared = await store.clearProfileTokens(name);
  const tokens = cleared.count;
  let credentials = false;
  let leftover = cleared.leftover;
  if (opts.all && profile) {
    // The keyring's entry too, when the profile's secrets are there (ConfigStore.removeCredentials).
    const removed = await store.removeCredentials(name);
    credentials = removed.had || Boolean(profile.siteId);
    leftover = removed.leftover ?? leftover;
    const { siteId: _s, ...rest } = store.profile(name) ?? {};
    await store.saveProfile(name, rest);
  }
  // Done as far as mpay's files go; what the keyring still holds is said, with exit 9.
  if (leftover) {
    f.io.warn(leftover);
    f.io.exitCode = exitCodes.local;
  }
  await printResult(
    f.io,
    opts.json,
    { profile: name, tokens_removed: tokens, credentials_removed: credentials },
    () =>
      `Logged out of profile ${name}: ${tokens} cached token${tokens === 1 ? '' : 's'} removed${
        opts.all
          ? credentials
            ? '; merchant key, site id and API key removed'
            : '; it held no credentials'
          : ''
      }.${opts.all ? '' : ' The credentials stay: --all removes them too.'}`,
  );
}
