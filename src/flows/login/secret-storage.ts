// Where each profile's secrets are kept (`mpay auth status`, doctor) and the move of a profile's secrets
// from config.json into the keyring (`mpay auth migrate`). SECURITY.md says what is stored where.
import { KeyringError, UsageError } from '../../common/errors.js';
import { fingerprint } from '../../api/redact.js';
import { commandLine } from '../../common/shell-words.js';
import type { ConfigStore } from '../../config/store.js';
import type { SecretStore } from '../../config/profile.js';

export interface TokenStatus {
  env: string;
  base_url: string;
  merchant_key_fingerprint: string;
  created_at: string;
  age_seconds: number;
  stored: SecretStore;
}

export interface ProfileSecrets {
  profile: string;
  current: boolean;
  env: string;
  /** where the merchant key and API key are: the keyring, config.json, or nowhere */
  secrets: SecretStore | 'none';
  keyring: string | null;
  merchant_key_fingerprint: string | null;
  site_id: string | null;
  /** why the secrets could not be read (a keyring entry gone, a keyring that does not answer) */
  problem: string | null;
  tokens: TokenStatus[];
  /** the command that moves secrets kept in config.json into the keyring, when one works here */
  move_command: string | null;
}

export interface SecretsReport {
  config_dir: string;
  keyring: { name: string; usable: boolean; problem: string | null };
  current_profile: string;
  /** MPAY_* variables that give credentials to every run of this shell (never stored) */
  from_environment: string[];
  profiles: ProfileSecrets[];
}

/** Every profile's secrets, after a check of the keyring (a test entry written, read and deleted). */
export async function secretsReport(
  store: ConfigStore,
  environ: NodeJS.ProcessEnv,
  now: Date,
): Promise<SecretsReport> {
  const { keyringName } = await import('../../config/keyring.js');
  const opening = await store.keyring({ probe: true });
  const usable = 'keyring' in opening;
  const current = store.currentProfile();
  const profiles = Object.entries(store.profiles()).map(([name, p]): ProfileSecrets => {
    const c = store.credentials(name);
    return {
      profile: name,
      current: name === current,
      env: p.env ?? 'sandbox',
      secrets: c.store,
      keyring: c.store === 'keyring' ? (p.keyringName ?? keyringName()) : null,
      merchant_key_fingerprint: c.merchantKey ? fingerprint(c.merchantKey) : null,
      site_id: p.siteId ?? null,
      problem: c.problem ?? null,
      tokens: store.tokens.profileTokens(name).map((t) => ({
        env: t.env,
        base_url: t.baseUrl,
        merchant_key_fingerprint: t.key.slice(t.key.lastIndexOf('|') + 1),
        created_at: t.createdAt,
        age_seconds: Math.max(0, Math.round((now.getTime() - Date.parse(t.createdAt)) / 1000)),
        stored: t.store,
      })),
      move_command:
        c.store === 'file' && usable ? commandLine(['mpay', 'auth', 'migrate', '--profile', name]) : null,
    };
  });
  return {
    config_dir: store.dir,
    keyring: {
      name: usable ? opening.keyring.name : keyringName(),
      usable,
      problem: 'unavailable' in opening ? opening.unavailable : null,
    },
    current_profile: current,
    from_environment: ['MPAY_MERCHANT_KEY', 'MPAY_SITE_ID', 'MPAY_API_KEY'].filter((v) => environ[v]),
    profiles,
  };
}

export interface MoveResult {
  profile: string;
  keyring: string;
  tokens_moved: number;
  already: boolean;
}

/** Moves a profile's merchant key, API key and cached tokens from config.json into the keyring. */
export async function moveIntoKeyring(store: ConfigStore, name: string): Promise<MoveResult> {
  const p = store.profile(name);
  if (!p)
    throw new UsageError(`No profile named "${name}"`, {
      hint: `Known: ${Object.keys(store.profiles()).join(', ') || 'none; run `mpay login`'}`,
    });
  const opening = await store.keyring({ probe: true });
  if ('unavailable' in opening) {
    throw new KeyringError(`No keyring to move profile ${name}'s secrets into: ${opening.unavailable}`, {
      hint: 'Nothing was changed; `mpay auth status` shows where the secrets are',
    });
  }
  if (p.secretStore === 'keyring')
    return { profile: name, keyring: opening.keyring.name, tokens_moved: 0, already: true };
  const c = store.credentials(name);
  if (!c.merchantKey && !c.apiKey)
    throw new UsageError(`Profile ${name} holds no merchant key or API key to move`, {
      hint: 'Run `mpay login` to store them (in the keyring)',
    });
  const tokens = store.tokens.profileTokens(name).filter((t) => t.store === 'file').length;
  await store.saveCredentials(name, { merchantKey: c.merchantKey, apiKey: c.apiKey }, 'keyring');
  return { profile: name, keyring: opening.keyring.name, tokens_moved: tokens, already: false };
}
