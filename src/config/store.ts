// Profiles, environments, credentials and the token cache. Writes go through conf (atomic, 0600 files);
// reads parse the same JSON files directly, because conf loads a JSON-schema validator that would cost
// every read-only command tens of milliseconds at start-up (docs/performance.md).
import type Conf from 'conf';
import { importLazily } from '../lazy-import.js';
import { readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { KeyringError, LocalFileError } from '../api/errors.js';
import { join } from 'node:path';
import { configDir, ensurePrivateDir, ensurePrivateFile, fileMode } from './paths.js';
import { keyringName, openKeyring, type Keyring, type KeyringOpening } from './keyring.js';
import type { Profile, SecretStore, StoredCredentials } from './profile.js';

interface ConfigShape {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

export interface CachedToken {
  token: string;
  createdAt: string;
}

/** A profile's one entry in the keyring (JSON): its keys, and its tokens by "env|baseUrl|fingerprint". */
interface KeyringEntry {
  merchant_key?: string;
  api_key?: string;
  tokens?: Record<string, string>;
}

/** tokens.json's entry: the token itself, or a marker that it is in the keyring. */
interface TokenEntry {
  token?: string;
  createdAt: string;
  in?: 'keyring';
}

/** What a cached token is valid for. */
export interface TokenScope {
  profile: string;
  env: string;
  baseUrl: string;
  /** fingerprint() of the merchant key that made the token */
  keyFingerprint: string;
}

/** Why a JSON file of mpay's is not usable (not JSON, or not an object), or undefined when it is fine or absent. */
function inspect(file: string): { file: string; reason: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { file, reason: (err as Error).message };
  }
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return { file, reason: 'it is JSON but not an object' };
    const profiles = (value as { profiles?: unknown }).profiles;
    if (profiles !== undefined && (!profiles || typeof profiles !== 'object' || Array.isArray(profiles)))
      return { file, reason: '"profiles" is not an object' };
    return undefined;
  } catch (err) {
    return { file, reason: `not valid JSON: ${(err as Error).message}` };
  }
}

function damagedConfigError(d: { file: string; reason: string }): LocalFileError {
  return new LocalFileError(`Cannot read ${d.file} (${d.reason}); it was left as it is`, {
    hint: 'Mend it by hand (it is JSON), or run `mpay login --force` to move it aside as config.json.bak-<time> and start a new one',
  });
}

export class ConfigStore {
  readonly dir: string;
  readonly warnings: string[] = [];
  private readonly confs = new Map<string, Promise<Conf<Record<string, unknown>>>>();

  /** set when config.json is there but not readable as mpay's settings: every read then fails */
  readonly damaged?: { file: string; reason: string };

  constructor(private readonly environ: NodeJS.ProcessEnv = process.env) {
    this.dir = configDir(environ);
    const w = ensurePrivateDir(this.dir);
    if (w) this.warnings.push(w);
    for (const name of ['config.json', 'tokens.json']) {
      const fw = ensurePrivateFile(join(this.dir, name));
      if (fw) this.warnings.push(fw);
    }
    const tokens = inspect(join(this.dir, 'tokens.json'));
    if (tokens) {
      // A cache is disposable: a damaged one is dropped and the next command gets a new token.
      rmSync(tokens.file, { force: true });
      this.warnings.push(
        `the token cache ${tokens.file} was damaged (${tokens.reason}) and has been discarded; a new token will be requested`,
      );
    }
    // config.json holds credentials a person typed: never rewritten or dropped, only reported.
    this.damaged = inspect(this.path);
  }

  get path(): string {
    return join(this.dir, 'config.json');
  }

  private read<T>(name: 'config' | 'tokens'): Partial<T> {
    if (name === 'config' && this.damaged) throw damagedConfigError(this.damaged);
    try {
      return JSON.parse(readFileSync(join(this.dir, `${name}.json`), 'utf8')) as Partial<T>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      if (err instanceof SyntaxError) {
        // Damaged since this process opened the store (another process writing): report, never rewrite.
        throw damagedConfigError({ file: join(this.dir, `${name}.json`), reason: err.message });
      }
      throw err;
    }
  }

  /**
   * `mpay login --force`: moves a damaged config.json aside (config.json.bak-<time>, kept for the person
   * to recover from) so that a new one can be written. Returns the new name.
   */
  moveDamagedConfigAside(now = new Date()): string | undefined {
    if (!this.damaged) return undefined;
    const aside = `${this.path}.bak-${now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(this.path, aside);
    (this as { damaged?: unknown }).damaged = undefined;
    return aside;
  }

  private conf(name: 'config' | 'tokens'): Promise<Conf<Record<string, unknown>>> {
    let c = this.confs.get(name);
    if (!c) {
      c = importLazily<typeof import('conf')>('conf').then(
        ({ default: Conf }) =>
          new Conf<Record<string, unknown>>({
            cwd: this.dir,
            configName: name,
            configFileMode: fileMode,
            clearInvalidConfig: false,
            accessPropertiesByDotNotation: false,
          }),
      );
      this.confs.set(name, c);
    }
    return c;
  }

  /**
   * Runs a write under a lock on the config folder: conf reads, changes and rewrites a whole file, so two
   * mpay processes writing at once (scripts in parallel) would otherwise lose one of the changes.
   */
  private async locked<T>(write: () => T): Promise<T> {
    const { lock } = await import('proper-lockfile');
    const release = await lock(this.dir, {
      lockfilePath: join(this.dir, '.lock'),
      retries: { retries: 100, minTimeout: 5, maxTimeout: 50 },
      stale: 10_000,
    });
    try {
      return write();
    } finally {
      await release();
    }
  }

  currentProfile(): string {
    return this.read<ConfigShape>('config').currentProfile ?? 'default';
  }

  async setCurrentProfile(name: string): Promise<void> {
    const c = await this.conf('config');
    await this.locked(() => c.set('currentProfile', name));
  }

  profiles(): Record<string, Profile> {
    return this.read<ConfigShape>('config').profiles ?? {};
  }

  profile(name: string): Profile | undefined {
    return this.profiles()[name];
  }

  async saveProfile(name: string, profile: Profile): Promise<void> {
    const c = await this.conf('config');
    await this.locked(() =>
      c.set('profiles', {
        ...((c.get('profiles') as Record<string, Profile> | undefined) ?? {}),
        [name]: profile,
      }),
    );
  }

  // --- Where the secrets are (SECURITY.md) ---------------------------------------------------------------
  // A profile kept in the keyring is one entry: its merchant key, API key and cached tokens together, so
  // that a command reads the keyring once (each entry costs a D-Bus connection and a session of its own,
  // ~8 ms: docs/performance.md). tokens.json keeps only when each token was made, and that it is in the
  // keyring. The service name carries the config folder: two folders (MPAY_CONFIG_DIR) with a profile of
  // the same name never share an entry.

  private keyringMemo?: Promise<KeyringOpening>;
  private probed = false;
  /** the keyring once opened by keyring(): the synchronous reads below use it */
  private opened?: Keyring;
  /** why keyring() found none */
  private unusable?: string;
  /** each profile's entry as read (or written) by this process */
  private readonly entries = new Map<string, KeyringEntry | undefined>();

  /** The folder's real path (links resolved): one folder reached two ways is one keyring service. */
  get keyringService(): string {
    let dir = this.dir;
    try {
      dir = realpathSync(this.dir);
    } catch {
      // not there yet: its name as given (absolute already)
    }
    return `mpay:${dir}`;
  }

  /**
   * Opens the OS keyring once for this process (with a write, read and delete of a test entry when
   * `probe`, which login and the move into the keyring ask for), or says why it cannot be used.
   */
  async keyring(opts: { probe?: boolean } = {}): Promise<KeyringOpening> {
    if (!this.keyringMemo || (opts.probe && !this.probed)) {
      this.probed ||= Boolean(opts.probe);
      this.keyringMemo = openKeyring(this.keyringService, this.environ, opts);
    }
    const opening = await this.keyringMemo;
    if ('keyring' in opening) this.opened = opening.keyring;
    else this.unusable = opening.unavailable;
    return opening;
  }

  /** Opens the keyring when the profile's secrets are kept there; the problem, if it cannot be used. */
  async openSecrets(profile: string): Promise<string | undefined> {
    if (this.profile(profile)?.secretStore !== 'keyring') return undefined;
    const opening = await this.keyring();
    return 'unavailable' in opening ? opening.unavailable : undefined;
  }

  private account(profile: string): string {
    return `profile:${profile}`;
  }

  /** The keyring's entry of a profile (undefined: there is none); throws KeyringError when unreadable. */
  private entryOf(profile: string): KeyringEntry | undefined {
    if (this.entries.has(profile)) return this.entries.get(profile);
    if (!this.opened) throw new KeyringError(this.unusable ?? 'the keyring was not opened');
    const text = this.opened.get(this.account(profile));
    let entry: KeyringEntry | undefined;
    if (text !== undefined) {
      try {
        entry = JSON.parse(text) as KeyringEntry;
      } catch {
        throw new KeyringError(`the keyring's entry of profile ${profile} is not mpay's`);
      }
    }
    this.entries.set(profile, entry);
    return entry;
  }

  private writeEntry(profile: string, entry: KeyringEntry | undefined): void {
    if (entry) this.opened!.set(this.account(profile), JSON.stringify(entry));
    else this.opened!.delete(this.account(profile));
    this.entries.set(profile, entry);
  }

  /** A profile's merchant key and API key, from the file or from the keyring (opened by openSecrets). */
  credentials(name: string): StoredCredentials {
    const p = this.profile(name);
    if (!p) return { store: 'none' };
    if (p.secretStore !== 'keyring') {
      return p.merchantKey || p.apiKey
        ? { merchantKey: p.merchantKey, apiKey: p.apiKey, store: 'file' }
        : { store: 'none' };
    }
    const where = p.keyringName ?? keyringName();
    let entry: KeyringEntry | undefined;
    try {
      entry = this.entryOf(name);
    } catch (err) {
      return { store: 'keyring', problem: (err as Error).message };
    }
    if (!entry?.merchant_key && !entry?.api_key) {
      return {
        store: 'keyring',
        problem: `the ${where} has no credentials for profile ${name} (removed outside mpay, or another keyring); run \`mpay login --profile ${name}\` again`,
      };
    }
    return { merchantKey: entry.merchant_key, apiKey: entry.api_key, store: 'keyring' };
  }

  /**
   * Saves a profile's settings with its merchant key and API key where asked, in one write of config.json:
   * into the keyring (opened and probed before), none of them then in config.json; or into config.json,
   * deleting the profile's keyring entry (the keyring is opened for that). The profile's cached tokens
   * move with them. `leftover` says what could not be deleted from the keyring.
   */
  async saveCredentials(
    name: string,
    creds: { merchantKey?: string; apiKey?: string },
    where: SecretStore,
    settings?: Profile,
  ): Promise<{ leftover?: string }> {
    const c = await this.conf('config');
    const tokens = await this.conf('tokens');
    if (where === 'keyring' && !this.opened) throw new Error('saveCredentials: the keyring was not opened');
    if (where === 'file' && this.profile(name)?.secretStore === 'keyring') await this.keyring();
    return this.locked(() => {
      const all = { ...((c.get('profiles') as Record<string, Profile> | undefined) ?? {}) };
      const {
        merchantKey: _m,
        apiKey: _a,
        secretStore,
        keyringName: _k,
        ...rest
      } = { ...all[name], ...settings };
      const moved = this.takeTokens(tokens, name, secretStore === 'keyring');
      if (where === 'keyring') {
        // The keyring first: were it to fail, config.json and tokens.json still hold what they held.
        this.writeEntry(name, {
          merchant_key: creds.merchantKey,
          api_key: creds.apiKey,
          tokens: Object.fromEntries(moved.map((t) => [t.rest, t.token])),
        });
        for (const t of moved) tokens.set(t.key, { createdAt: t.createdAt, in: 'keyring' });
        all[name] = { ...rest, secretStore: 'keyring', keyringName: this.opened!.name };
        c.set('profiles', all);
        return {};
      }
      for (const t of moved) tokens.set(t.key, { token: t.token, createdAt: t.createdAt });
      all[name] = { ...rest, ...creds, secretStore: 'file' };
      c.set('profiles', all);
      return secretStore === 'keyring' ? { leftover: this.dropEntry(name) } : {};
    });
  }

  /**
   * Deletes a profile's keyring entry; undefined when done, else what is left and how to remove it by
   * hand (the keyring does not answer, or is not on this machine).
   */
  private dropEntry(name: string): string | undefined {
    try {
      if (!this.opened) throw new KeyringError(this.unusable ?? 'the keyring was not opened');
      this.opened.delete(this.account(name));
      this.entries.set(name, undefined);
      return undefined;
    } catch (err) {
      return `the keyring entry of profile ${name} (service ${JSON.stringify(this.keyringService)}, account ${JSON.stringify(this.account(name))}) could not be deleted: ${(err as Error).message}. Delete it with the keyring's own tool once it answers (secret-tool clear service … username … on Linux)`;
    }
  }

  /** A profile's cached tokens, wherever they are kept (the keyring's when `inKeyring`). */
  private takeTokens(
    c: Conf<Record<string, unknown>>,
    profile: string,
    inKeyring: boolean,
  ): Array<{ key: string; rest: string; token: string; createdAt: string }> {
    const out = [];
    for (const [key, v] of Object.entries(c.store)) {
      const e = v as TokenEntry | undefined;
      if (!key.startsWith(`${profile}|`) || !e) continue;
      const token = inKeyring || e.in === 'keyring' ? this.tokenOf(profile, key, e) : e.token;
      if (token) out.push({ key, rest: key.slice(profile.length + 1), token, createdAt: e.createdAt });
      else c.delete(key);
    }
    return out;
  }

  /**
   * Removes a profile's merchant key and API key (file and keyring); `had`: it had any. A keyring that
   * cannot delete its entry does not keep them in the profile: `leftover` says what is left there.
   */
  async removeCredentials(name: string): Promise<{ had: boolean; leftover?: string }> {
    const p = this.profile(name);
    if (!p) return { had: false };
    const c = await this.conf('config');
    if (p.secretStore === 'keyring') await this.keyring();
    return this.locked(() => {
      const all = { ...((c.get('profiles') as Record<string, Profile> | undefined) ?? {}) };
      const { merchantKey, apiKey, secretStore, keyringName: _k, ...settings } = all[name] ?? {};
      all[name] = settings;
      c.set('profiles', all);
      if (secretStore !== 'keyring') return { had: Boolean(merchantKey || apiKey) };
      return { had: true, leftover: this.dropEntry(name) };
    });
  }

  /** Removes a profile with its credentials and tokens; `leftover`: what its keyring entry still holds. */
  async removeProfile(name: string): Promise<{ removed: boolean; leftover?: string }> {
    if (!this.profile(name)) return { removed: false };
    const creds = await this.removeCredentials(name);
    const tokens = await this.clearProfileTokens(name);
    const c = await this.conf('config');
    return this.locked(() => {
      const all = { ...((c.get('profiles') as Record<string, Profile> | undefined) ?? {}) };
      delete all[name];
      c.set('profiles', all);
      if (c.get('currentProfile') === name) c.delete('currentProfile');
      return { removed: true, leftover: creds.leftover ?? tokens.leftover };
    });
  }

  // A token is cached per profile, environment, base URL and merchant-key fingerprint: a sandbox on
  // another port never gets a token from a different server, and a token is only ever used with the key
  // that made it (MPAY_MERCHANT_KEY for another merchant gets its own token, never the stored one's).
  private tokenKey(scope: TokenScope): string {
    return `${scope.profile}|${scope.env}|${scope.baseUrl}|${scope.keyFingerprint}`;
  }

  /** The token of an entry, from the file or the profile's keyring entry; undefined when not to be had. */
  private tokenOf(profile: string, key: string, e: TokenEntry | undefined): string | undefined {
    if (!e) return undefined;
    if (e.in !== 'keyring') return typeof e.token === 'string' ? e.token : undefined;
    try {
      return this.entryOf(profile)?.tokens?.[key.slice(profile.length + 1)];
    } catch {
      return undefined; // a cache: the next call gets a new token
    }
  }

  token(scope: TokenScope): CachedToken | undefined {
    const key = this.tokenKey(scope);
    const e = this.read<Record<string, TokenEntry>>('tokens')[key];
    const token = this.tokenOf(scope.profile, key, e);
    return token && e ? { token, createdAt: e.createdAt } : undefined;
  }

  /** The tokens cached for a profile, environment and base URL: where each is kept, not the token. */
  cachedTokens(
    scope: Omit<TokenScope, 'keyFingerprint'>,
  ): Array<{ createdAt: string; keyFingerprint: string; store: SecretStore }> {
    const prefix = `${scope.profile}|${scope.env}|${scope.baseUrl}|`;
    return this.profileTokens(scope.profile)
      .filter((t) => t.key.startsWith(prefix))
      .map((t) => ({ createdAt: t.createdAt, keyFingerprint: t.key.slice(prefix.length), store: t.store }));
  }

  /** Every token entry of a profile (all environments and servers), with where it is kept. */
  profileTokens(
    profile: string,
  ): Array<{ key: string; env: string; baseUrl: string; createdAt: string; store: SecretStore }> {
    return Object.entries(this.read<Record<string, TokenEntry>>('tokens'))
      .filter(
        (kv): kv is [string, TokenEntry] =>
          kv[0].startsWith(`${profile}|`) && (typeof kv[1]?.token === 'string' || kv[1]?.in === 'keyring'),
      )
      .map(([key, e]) => {
        const [, env = '', ...rest] = key.split('|');
        return {
          key,
          env,
          baseUrl: rest.slice(0, -1).join('|'),
          createdAt: e.createdAt,
          store: e.in === 'keyring' ? ('keyring' as const) : ('file' as const),
        };
      });
  }

  async setToken(scope: TokenScope, token: string): Promise<void> {
    const c = await this.conf('tokens');
    const key = this.tokenKey(scope);
    const inKeyring = this.profile(scope.profile)?.secretStore === 'keyring' && this.opened;
    await this.locked(() => {
      // An entry of the older layout (no key fingerprint) can never be used again: drop it.
      c.delete(`${scope.profile}|${scope.env}|${scope.baseUrl}`);
      const createdAt = new Date().toISOString();
      if (inKeyring) {
        const entry = this.entryOf(scope.profile) ?? {};
        const rest = key.slice(scope.profile.length + 1);
        this.writeEntry(scope.profile, { ...entry, tokens: { ...entry.tokens, [rest]: token } });
        c.set(key, { createdAt, in: 'keyring' });
      } else {
        c.set(key, { token, createdAt });
      }
    });
  }

  /**
   * Drops every token cached for a profile (all environments, servers and keys): `count`, and `leftover`
   * when the keyring could not be written (its entry still holds them).
   */
  async clearProfileTokens(profile: string): Promise<{ count: number; leftover?: string }> {
    const c = await this.conf('tokens');
    const keys = Object.keys(c.store).filter((k) => k.startsWith(`${profile}|`));
    if (keys.some((k) => (c.store[k] as TokenEntry | undefined)?.in === 'keyring')) await this.keyring();
    return this.locked(() => ({ count: keys.length, leftover: this.dropTokens(c, profile, keys) }));
  }

  async clearToken(scope: TokenScope): Promise<void> {
    const c = await this.conf('tokens');
    await this.locked(() => {
      this.dropTokens(c, scope.profile, [this.tokenKey(scope)]);
    });
  }

  /**
   * Drops token entries; their markers go in any case (a token left in the keyring is never read again),
   * and what the keyring could not drop is said.
   */
  private dropTokens(c: Conf<Record<string, unknown>>, profile: string, keys: string[]): string | undefined {
    const inKeyring = keys.filter((k) => (c.get(k) as TokenEntry | undefined)?.in === 'keyring');
    let leftover: string | undefined;
    if (inKeyring.length > 0) {
      try {
        if (!this.opened) throw new KeyringError(this.unusable ?? 'the keyring was not opened');
        const entry = this.entryOf(profile);
        if (entry?.tokens) {
          const tokens = { ...entry.tokens };
          for (const k of inKeyring) delete tokens[k.slice(profile.length + 1)];
          this.writeEntry(profile, { ...entry, tokens });
        }
      } catch (err) {
        leftover = `the keyring entry of profile ${profile} still holds ${inKeyring.length} token${inKeyring.length === 1 ? '' : 's'}, which mpay will not use again: ${(err as Error).message}`;
      }
    }
    for (const k of keys) c.delete(k);
    return leftover;
  }
}
