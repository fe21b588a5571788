// `mpay login`: gathers the merchant key, site id, API key, environment and base URL (from the inputs,
// else through the Prompter), checks the key by generating a token before anything is saved, then saves
// the profile, makes it the current one and caches the token.
import type { Client } from '../../api/client.js';
import type { memoryTokens, Credentials } from '../../api/credentials.js';
import {
  AuthError,
  CancelledError,
  KeyringError,
  MpayError,
  NetworkError,
  ServerError,
  UsageError,
} from '../../common/errors.js';
import type { Check } from '../doctor/doctor.js';
import { mask } from '../../api/redact.js';
import { resolveContext } from '../../config/context.js';
import { judgeServer, serverKey } from '../../config/live.js';
import { type ConfigStore } from '../../config/store.js';
import { checkProfileName, defaultBaseUrls, type Environment, type Profile } from '../../config/profile.js';
import type { Prompter } from '../prompter.js';
import { asker, checkedMerchantKey, chooseEnvironment, gatherBaseUrl } from './login-inputs.js';

export interface LoginInputs {
  profile?: string;
  env?: string;
  baseUrl?: string;
  merchantKey?: string;
  siteId?: string;
  apiKey?: string;
  /** check the key against the API before saving (the default) */
  verify: boolean;
  /**
   * move a damaged config.json aside and start anew; change an existing profile's environment or server
   * without a terminal to ask on
   */
  force?: boolean;
  /** keep the secrets in config.json even where a keyring works (gh's flag) */
  insecureStorage?: boolean;
}

export interface LoginDeps {
  store: ConfigStore;
  /** absent when mpay must not ask */
  prompter?: Prompter;
  /** a client for the server and merchant being logged in to (from the Factory) */
  client(req: {
    baseUrl: string;
    credentials: Credentials;
    tokens: ReturnType<typeof memoryTokens>;
  }): Promise<Client>;
  warn(message: string): void;
  /** a line for the person on stderr (which profile this login writes) */
  note?(message: string): void;
  /**
   * doctor's API-key check (flows/doctor/doctor.ts checkApiKey) of the credentials being logged in, through the
   * money gate's probe: skipped on a live server, with how to run it.
   */
  checkApiKey?(req: {
    baseUrl: string;
    env: Environment;
    profile: string;
    credentials: Required<Pick<Credentials, 'merchantKey' | 'siteId' | 'apiKey'>>;
  }): Promise<Check>;
}

export interface LoginResult {
  profile: string;
  env: string;
  base_url: string;
  merchant_key: string;
  site_id: string;
  verified: boolean;
  /** doctor's API-key check: accepted, or skipped (a live server) with how to run it; null with --no-verify */
  api_key: { checked: boolean; detail: string } | null;
  config: string;
  /** where the merchant key, API key and tokens are kept */
  secrets: { store: 'keyring' | 'file'; keyring?: string; why_file?: string };
  /** the profile that was the current one, when login made another one current */
  previous_profile?: string;
  /** the profile's base URL for this environment before, when login pointed it elsewhere */
  previous_base_url?: string;
  /** what the profile written held before this login; null when login made it */
  profile_before: { env: string | null; base_urls: Record<string, string> } | null;
}

export async function login(inputs: LoginInputs, deps: LoginDeps): Promise<LoginResult> {
  const { store } = deps;
  if (store.damaged && inputs.force) {
    const file = store.damaged.file;
    const aside = store.moveDamagedConfigAside();
    deps.warn(`${file} could not be read; moved it aside to ${aside}`);
  }
  const profileName = checkProfileName(inputs.profile ?? store.currentProfile());
  const held = store.profile(profileName);
  const existing = held ?? {};
  // Without --profile, the current profile is written: said first, before anything is asked or sent.
  if (!inputs.profile && held)
    deps.note?.(
      `Logging in to profile ${profileName}, the current one (\`mpay login --profile <NAME>\` makes another)`,
    );
  const need = asker(deps.prompter);
  const envName = await chooseEnvironment(inputs.env, existing, deps.prompter);
  const askUrl = (given?: string, typed?: string) =>
    gatherBaseUrl(given, envName, existing, need, deps.warn, typed);
  const { merchantKey, token, baseUrl } = await checkedMerchantKey(
    inputs,
    await askUrl(inputs.baseUrl),
    need,
    deps,
    // a base URL asked for on a terminal that no server answers is asked again, with the reason, and the
    // one typed as its default (a typo is mended, not typed again whole)
    deps.prompter && !inputs.baseUrl ? (typed) => askUrl(undefined, typed) : undefined,
  );
  await keepOrChange(profileName, existing, envName, baseUrl, inputs, deps.prompter);
  if (envName === 'live') warnSharedServer(store, profileName, baseUrl, deps.warn);
  let siteId = await need(inputs.siteId, '--site-id', 'Site ID', false, existing.siteId);
  let apiKey = await need(inputs.apiKey, '--api-key', 'API key', true);
  // The site id and API key as doctor checks them, before anything is saved: a key the API refuses is
  // never reported as accepted. On a terminal, a pair the API refuses is asked again (3 tries in all, as
  // the merchant key and the base URL are): the site id with the one typed as its default, then the key;
  // given by flag or variable, it is refused at once.
  let check: Check | undefined;
  for (let attempt = 1; inputs.verify && deps.checkApiKey; attempt++) {
    check = await deps.checkApiKey({
      baseUrl,
      env: envName,
      profile: profileName,
      credentials: { merchantKey, siteId, apiKey },
    });
    if (check.ok) break;
    if (check.kind !== 'auth' || !deps.prompter || inputs.apiKey || attempt === 3) throw refused(check);
    deps.warn(
      `The API key check failed: ${check.detail.replace(/\.$/, '')}; give the site id and API key again (${3 - attempt} ${3 - attempt === 1 ? 'try' : 'tries'} left)`,
    );
    if (!inputs.siteId) siteId = await need(undefined, '--site-id', 'Site ID', false, siteId);
    apiKey = await need(undefined, '--api-key', 'API key', true);
  }

  // Nothing is saved before the key is accepted, and then all in one write: the keyring is checked first
  // (it may take seconds), so that a Ctrl-C meanwhile leaves the profile as it was.
  const secrets = await storeSecrets(store, profileName, { merchantKey, apiKey }, inputs, deps.warn, {
    ...existing,
    env: envName,
    baseUrls: { ...existing.baseUrls, [envName]: baseUrl },
    siteId,
  });
  const previous = store.currentProfile();
  await store.setCurrentProfile(profileName);
  const ctx = resolveContext({ profile: profileName, env: envName, baseUrl }, {}, store, {
    newProfile: true,
  });
  if (token) await ctx.tokens.set(token);
  return {
    profile: profileName,
    env: envName,
    base_url: ctx.baseUrl,
    merchant_key: mask(merchantKey),
    site_id: siteId,
    verified: Boolean(token),
    api_key: check
      ? { checked: !check.skipped, detail: skippedAsSaved(check, store, envName, ctx.baseUrl) }
      : null,
    config: store.path,
    secrets,
    // a profile that existed before is said, so that a second login does not switch profiles unseen
    ...(previous !== profileName && store.profile(previous) ? { previous_profile: previous } : {}),
    // a login that points a profile at another server says so: its transactions stay with the old one
    ...(existing.baseUrls?.[envName] && existing.baseUrls[envName] !== ctx.baseUrl
      ? { previous_base_url: existing.baseUrls[envName] }
      : {}),
    profile_before: held ? { env: held.env ?? null, base_urls: { ...held.baseUrls } } : null,
  };
}

/**
 * A login never silently changes what an existing profile points at: its default environment, or the base
 * URL it keeps for an environment (a live profile rewritten into a sandbox one by a login without
 * --profile). On a terminal it asks; without one it needs --force. Nothing is saved when it refuses.
 */
export async function keepOrChange(
  name: string,
  existing: Profile,
  env: Environment,
  baseUrl: string,
  inputs: LoginInputs,
  prompter: Prompter | undefined,
): Promise<void> {
  const kept = existing.baseUrls?.[env];
  const changes = [
    ...(existing.env && existing.env !== env
      ? [
          `its environment from ${existing.env}${existing.baseUrls?.[existing.env] ? ` (${existing.baseUrls[existing.env]})` : ''} to ${env}`,
        ]
      : []),
    ...(kept && serverKey(kept) !== serverKey(baseUrl)
      ? [`its ${env} server from ${kept} to ${baseUrl}`]
      : []),
  ];
  if (!changes.length || inputs.force) return;
  const what = `This login changes profile ${name}: ${changes.join(', and ')}`;
  if (prompter) {
    if (await prompter.confirm({ message: `${what}. Change it?`, default: false })) return;
    throw new CancelledError(`Nothing was saved: profile ${name} is as it was`, {
      hint: '`mpay login --profile <NAME>` logs in to another profile',
    });
  }
  throw new UsageError(`${what}; nothing was saved`, {
    hint: `Pass --force to change it, or --profile <NAME> to log in to another profile (\`mpay profiles list\` shows them)`,
  });
}

/**
 * The API-key check's words once the profile is saved. It was skipped on a server that counted as live
 * because no profile kept it yet as a sandbox or stage server (the gate is fail-closed, and nothing is saved
 * before the key is accepted); saved now as this profile's sandbox or stage, it no longer is: said so,
 * rather than "a live server" beside "Logged in: … sandbox at".
 */
function skippedAsSaved(check: Check, store: ConfigStore, env: string, baseUrl: string): string {
  if (!check.skipped || judgeServer(baseUrl, env, store.profiles()).live) return check.detail;
  return `check skipped: until this login no profile kept ${baseUrl} as a sandbox or stage server, so it counted as live, and the check is a withdraw initiate (of the credentials alone, which the API refuses); now that this profile keeps it as its ${env} server, \`mpay doctor\` runs it`;
}

/**
 * A live login on a server another profile keeps as its sandbox or stage: from now on that server is live
 * for every profile (config/live.ts, fail-closed), which the other profile's user should hear of. Not for
 * the default sandbox URL (every profile's local sandbox, shared by design, as a profile that stores none
 * uses it), where the warning would name every profile for nothing it did.
 */
function warnSharedServer(
  store: ConfigStore,
  profileName: string,
  baseUrl: string,
  warn: (m: string) => void,
) {
  const key = serverKey(baseUrl);
  if (!key || key === serverKey(defaultBaseUrls.sandbox!)) return;
  for (const [name, p] of Object.entries(store.profiles())) {
    if (name === profileName) continue;
    for (const env of ['sandbox', 'stage'] as const) {
      const url = p.baseUrls?.[env];
      if (url && serverKey(url) === key)
        warn(
          `${baseUrl} is profile ${name}'s ${env} server; as profile ${profileName}'s live server it is live from now on for every profile: mpay asks before any money request to it, and refuses without --yes where it cannot ask`,
        );
    }
  }
}

/** doctor's failed API-key check as login's error: nothing was saved. */
function refused(c: Check): MpayError {
  const message = `The API key check failed: ${c.detail.replace(/\.$/, '')}; nothing was saved`;
  const hint =
    c.hint ?? 'The Site ID and API key are under the services settings of the dashboard; give them again';
  if (c.kind === 'auth') return new AuthError(message, { hint });
  if (c.kind === 'network') return new NetworkError(message, { hint });
  return new ServerError(message, { hint });
}

/**
 * The keyring when one passes its check (a test entry written, read back and deleted), else config.json,
 * said loudly; --insecure-storage chooses the file.
 */
export async function storeSecrets(
  store: ConfigStore,
  profile: string,
  creds: { merchantKey: string; apiKey: string },
  opts: { insecureStorage?: boolean },
  warn: (m: string) => void,
  settings?: Profile,
): Promise<LoginResult['secrets']> {
  let whyFile = 'chosen with --insecure-storage';
  if (!opts.insecureStorage) {
    const opening = await store.keyring({ probe: true });
    if ('keyring' in opening) {
      try {
        await store.saveCredentials(profile, creds, 'keyring', settings);
        return { store: 'keyring', keyring: opening.keyring.name };
      } catch (err) {
        if (!(err instanceof KeyringError)) throw err;
        whyFile = err.message;
      }
    } else {
      whyFile = opening.unavailable;
    }
    if (!('off' in opening && opening.off) && store.firstFileStorageNote())
      warn(
        `no usable keyring (${whyFile}); the merchant key, API key and tokens are kept in ${store.dir}, in files only this user can read (mode 0600). \`mpay auth migrate\` moves them once a keyring works; said once for this config folder: \`mpay auth status\` says it again`,
      );
  }
  const { leftover } = await store.saveCredentials(profile, creds, 'file', settings);
  if (leftover) warn(leftover);
  return { store: 'file', why_file: whyFile };
}
