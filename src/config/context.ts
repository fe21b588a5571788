// The effective settings of one run: flag, else environment variable, else profile, else default.
import { UsageError } from '../common/errors.js';
import type { Credentials, TokenStore } from '../api/credentials.js';
import { normalizeBaseUrl, refuseUserinfo } from '../api/base-url.js';
import { fingerprint } from '../api/redact.js';
import { nearest } from '../common/nearest.js';
import { commandLine } from '../common/shell-words.js';
import { ConfigStore } from './store.js';
import type { TokenScope } from './token-cache.js';
import {
  checkProfileName,
  defaultBaseUrls,
  isEnvironment,
  type Environment,
  type Profile,
} from './profile.js';

export interface ContextInputs {
  profile?: string;
  env?: string;
  baseUrl?: string;
  /** seconds, as given (a flag's text or a number) */
  timeout?: string | number;
}

export type Source = 'flag' | 'env' | 'profile' | 'keyring' | 'default' | 'none';

export interface Context {
  store: ConfigStore;
  profileName: string;
  profile: Profile;
  env: Environment;
  baseUrl: string;
  credentials: Credentials;
  credentialSources: Record<'merchantKey' | 'siteId' | 'apiKey', Source>;
  timeoutMs: number;
  tokens: TokenStore;
  /** things the person should know about the settings in effect (a base URL that was corrected) */
  notes: string[];
}

/** The profile a run uses: --profile, else MPAY_PROFILE, else the current one. */
export function profileNameOf(inputs: ContextInputs, environ: NodeJS.ProcessEnv, store: ConfigStore): string {
  return checkProfileName(inputs.profile ?? environ.MPAY_PROFILE ?? store.currentProfile());
}

/**
 * A profile named by --profile or MPAY_PROFILE that is not stored, where others are, is refused with the
 * stored ones: it is a mistyped name far more often than a new one. Not when the environment brings the
 * merchant key (a script's credentials under a name of its own), nor when the run makes it (login).
 */
function refuseUnknownProfile(
  inputs: ContextInputs,
  environ: NodeJS.ProcessEnv,
  store: ConfigStore,
  name: string,
): void {
  if (inputs.profile === undefined && !environ.MPAY_PROFILE) return;
  if (environ.MPAY_MERCHANT_KEY) return;
  const known = Object.keys(store.profiles()).sort();
  if (known.length === 0 || known.includes(name)) return;
  throw unknownProfile(name, known);
}

/** The error of a profile named that is not stored: the stored ones, the nearest, how to make it. */
export function unknownProfile(name: string, known: string[]): UsageError {
  const near = nearest(name, known);
  return new UsageError(
    `No profile named "${name}"; ${known.length ? `the profiles here: ${known.map((k) => `"${k}"`).join(', ')}` : 'no profile is stored here'}`,
    {
      hint: `${near.length ? `Did you mean \`--profile ${commandLine([near[0]!])}\`? ` : ''}${known.length ? '`mpay profiles list` shows them; ' : ''}\`${commandLine(['mpay', 'login', '--profile', name])}\` makes a new one`,
    },
  );
}

export const defaultTimeoutSeconds = 30;

/** Seconds as given by flag, variable or profile (default 30), in ms; anything else is a usage error. */
export function parseTimeout(given: string | number | undefined): number {
  const seconds = Number(given ?? defaultTimeoutSeconds);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`Invalid --timeout / MPAY_TIMEOUT "${String(given)}": expected seconds`, {
      hint: 'Give seconds, e.g. --timeout 30',
    });
  }
  return Math.round(seconds * 1000);
}

/**
 * The store comes from the Factory (src/factory.ts), the one place that opens it, and that opens the
 * keyring first when the profile's secrets are kept there (ConfigStore.openSecrets).
 */
export function resolveContext(
  inputs: ContextInputs,
  environ: NodeJS.ProcessEnv,
  store: ConfigStore,
  opts: { newProfile?: boolean } = {},
): Context {
  const profileName = profileNameOf(inputs, environ, store);
  if (!opts.newProfile) refuseUnknownProfile(inputs, environ, store, profileName);
  const profile = store.profile(profileName) ?? {};
  const envName = inputs.env ?? environ.MPAY_ENV ?? profile.env ?? 'sandbox';
  if (!isEnvironment(envName))
    throw new UsageError(`Unknown environment "${envName}"`, { hint: 'Use --env sandbox, stage or live' });
  const baseUrl =
    inputs.baseUrl ?? environ.MPAY_BASE_URL ?? profile.baseUrls?.[envName] ?? defaultBaseUrls[envName];
  if (!baseUrl) {
    throw new UsageError(`No base URL for the ${envName} environment`, {
      hint: `Run \`mpay config set ${envName}.base_url https://…\`, or pass --base-url / MPAY_BASE_URL`,
    });
  }
  const stored = store.credentials(profileName);
  const pick = (
    envVar: string,
    fromProfile: string | undefined,
    where: Source,
  ): [string | undefined, Source] => {
    const v = environ[envVar];
    if (v) return [v, 'env'];
    if (fromProfile) return [fromProfile, where];
    return [undefined, 'none'];
  };
  const secretSource = stored.store === 'keyring' ? 'keyring' : 'profile';
  const [merchantKey, mkSrc] = pick('MPAY_MERCHANT_KEY', stored.merchantKey, secretSource);
  const [siteId, siteSrc] = pick('MPAY_SITE_ID', profile.siteId, 'profile');
  const [apiKey, akSrc] = pick('MPAY_API_KEY', stored.apiKey, secretSource);

  const timeoutMs = parseTimeout(inputs.timeout ?? environ.MPAY_TIMEOUT ?? profile.timeout);

  refuseUserinfo(baseUrl);
  const { url: normalizedBase, stripped } = normalizeBaseUrl(baseUrl);
  const notes = stripped
    ? [`the base URL ${baseUrl} ends in /restapi/v1, which mpay adds itself; using ${normalizedBase}`]
    : [];
  return {
    store,
    profileName,
    profile,
    env: envName,
    baseUrl: normalizedBase,
    credentials: { merchantKey, siteId, apiKey, unreadable: stored.problem },
    credentialSources: { merchantKey: mkSrc, siteId: siteSrc, apiKey: akSrc },
    timeoutMs,
    notes,
    tokens: tokenCache(store, { profile: profileName, env: envName, baseUrl: normalizedBase }, merchantKey),
  };
}

/** The token cache of one scope, for the merchant key in effect; with no key there is nothing to use. */
function tokenCache(
  store: ConfigStore,
  scope: Omit<TokenScope, 'keyFingerprint'>,
  merchantKey: string | undefined,
): TokenStore {
  if (!merchantKey) return { get: () => undefined, set: () => {}, clear: () => {} };
  const full = { ...scope, keyFingerprint: fingerprint(merchantKey) };
  return {
    get: () => store.tokens.token(full)?.token,
    set: (t) => store.tokens.setToken(full, t),
    clear: () => store.tokens.clearToken(full),
  };
}
