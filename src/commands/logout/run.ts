// `mpay logout`: a profile's credentials and tokens (or every profile's with --all).
import { exitCodes, UsageError } from '../../common/errors.js';
import type { Factory } from '../../factory.js';
import { printResult } from '../../ui/print.js';

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
  const cleared = await store.tokens.clearProfileTokens(name);
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
