// `mpay config set KEY VALUE`: one setting of a profile, checked before it is saved.
import { UsageError } from '../../../common/errors.js';
import { checkBaseUrl, normalizeBaseUrl } from '../../../api/base-url.js';
import { defaultBaseUrls, isEnvironment, parseGatewayList } from '../../../config/profile.js';
import type { Factory } from '../../../factory.js';
import { printResult } from '../../../ui/print.js';
import type { SettingsOptions } from '../../shared/settings.js';

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
    // "none" (or nothing) unsets it: the environment's default, if it has one, is used again
    if (value.trim() === '' || value.trim().toLowerCase() === 'none') {
      const { [env]: _gone, ...rest } = p.baseUrls ?? {};
      p.baseUrls = rest;
      const fallback = defaultBaseUrls[env];
      shownValue = null;
      await store.saveProfile(name, p);
      return printResult(
        f.io,
        opts.json,
        { profile: name, key: shownKey, value: null, default: fallback ?? null },
        () =>
          `${name}: ${shownKey} unset${fallback ? ` (the default ${fallback} is used)` : `; the ${env} environment has no base URL until one is set`}`,
      );
    }
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
