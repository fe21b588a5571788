// Profiles, environments and credentials, and the files they are kept in; the token cache is
// token-cache.ts's, a profile's entry in the OS keyring keyring-entries.ts's. Writes go through conf
// (atomic, 0600 files); reads parse the same JSON files directly, because conf loads a JSON-schema
// validator that would cost every read-only command tens of milliseconds at start-up
// (docs/performance.md).
import type Conf from 'conf';
import { importLazily } from '../lazy-import.js';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { LocalFileError } from '../common/errors.js';
import { keyringNotAvailable } from '../api/credentials.js';
import { join } from 'node:path';
import { configDir, ensurePrivateDir, ensurePrivateFile, fileMode } from './paths.js';
import { keyringName, type AtExit, type KeyringOpening } from './keyring.js';
import { KeyringEntries, type KeyringEntry } from './keyring-entries.js';
import type { Profile, SecretStore, StoredCredentials } from './profile.js';
import { TokenCache, type TokenEntry } from './token-cache.js';

interface ConfigShape {
  currentProfile?: string;
  profiles: Record<string, Profile>;
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

  /** the profiles' entries in the OS keyring */
  private readonly secrets: KeyringEntries;
  /** the token cache (tokens.json, and the tokens of a profile kept in the keyring) */
  readonly tokens: TokenCache;

  constructor(
    environ: NodeJS.ProcessEnv = process.env,
    /** kills a keyring child should the run end while it runs (the IO's atExit) */
    atExit?: AtExit,
  ) {
    this.dir = configDir(environ);
    this.secrets = new KeyringEntries(this.dir, environ, atExit);
    this.tokens = new TokenCache({
      read: () => this.read<Record<string, TokenEntry>>('tokens'),
      conf: () => this.conf('tokens'),
      locked: (write) => this.locked(write),
      keyring: this.secrets,
      storeOf: (profile) => this.profile(profile)?.secretStore,
      openKeyring: () => this.keyring(),
    });
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
   * Whether this config folder was told already that no keyring works and the secrets go to its files:
   * said once a folder (a CI job logs in on every run), then marked by a private file; `mpay auth status`
   * says it whenever asked. Returns true the first time, and marks it.
   */
  firstFileStorageNote(): boolean {
    const marker = join(this.dir, 'keyring-off-noted');
    if (existsSync(marker)) return false;
    try {
      ensurePrivateDir(this.dir);
      writeFileSync(marker, 'mpay said once that no keyring works here; `mpay auth status` says it again\n', {
        mode: fileMode,
        flag: 'wx',
      });
    } catch {
      // not marked: said again next time, which is no harm
    }
    return true;
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
  private async locked<T>(write: () => T | Promise<T>): Promise<T> {
    const { lock } = await import('proper-lockfile');
    const release = await lock(this.dir, {
      lockfilePath: join(this.dir, '.lock'),
      retries: { retries: 100, minTimeout: 5, maxTimeout: 50 },
      stale: 10_000,
    });
    try {
      return await write();
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
  // A profile's secrets are in config.json, or in its one entry in the keyring (keyring-entries.ts).

  /**
   * Opens the OS keyring once for this process (with a write, read and delete of a test entry when
   * `probe`, which login and the move into the keyring ask for), or says why it cannot be used.
   */
  keyring(opts: { probe?: boolean } = {}): Promise<KeyringOpening> {
    // the entries of every profile kept there, read in the opening's one request
    const profiles = Object.entries(this.profiles()).flatMap(([n, p]) =>
      p.secretStore === 'keyring' ? [n] : [],
    );
    return this.secrets.open({ ...opts, profiles });
  }

  /** Opens the keyring when the profile's secrets are kept there; the problem, if it cannot be used. */
  async openSecrets(profile: string): Promise<string | undefined> {
    if (this.profile(profile)?.secretStore !== 'keyring') return undefined;
    const opening = await this.keyring();
    return 'unavailable' in opening ? opening.unavailable : undefined;
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
      entry = this.secrets.entryOf(name);
    } catch (err) {
      return { store: 'keyring', problem: keyringNotAvailable((err as Error).message), unavailable: true };
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
    if (where === 'keyring' && !this.secrets.isOpen)
      throw new Error('saveCredentials: the keyring was not opened');
    if (where === 'file' && this.profile(name)?.secretStore === 'keyring') await this.keyring();
    return this.locked(async () => {
      const all = { ...((c.get('profiles') as Record<string, Profile> | undefined) ?? {}) };
      const {
        merchantKey: _m,
        apiKey: _a,
        secretStore,
        keyringName: _k,
        ...rest
      } = { ...all[name], ...settings };
      const moved = this.tokens.take(tokens, name, secretStore === 'keyring');
      if (where === 'keyring') {
        // The keyring first: were it to fail, config.json and tokens.json still hold what they held.
        await this.secrets.write(name, {
          merchant_key: creds.merchantKey,
          api_key: creds.apiKey,
          tokens: Object.fromEntries(moved.map((t) => [t.rest, t.token])),
        });
        this.tokens.keep(tokens, moved, 'keyring');
        all[name] = { ...rest, secretStore: 'keyring', keyringName: this.secrets.name! };
        c.set('profiles', all);
        return {};
      }
      this.tokens.keep(tokens, moved, 'file');
      all[name] = { ...rest, ...creds, secretStore: 'file' };
      c.set('profiles', all);
      return secretStore === 'keyring' ? { leftover: await this.secrets.drop(name) } : {};
    });
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
    return this.locked(async () => {
      const all = { ...((c.get('profiles') as Record<string, Profile> | undefined) ?? {}) };
      const { merchantKey, apiKey, secretStore, keyringName: _k, ...settings } = all[name] ?? {};
      all[name] = settings;
      c.set('profiles', all);
      if (secretStore !== 'keyring') return { had: Boolean(merchantKey || apiKey) };
      return { had: true, leftover: await this.secrets.drop(name) };
    });
  }

  /** Removes a profile with its credentials and tokens; `leftover`: what its keyring entry still holds. */
  async removeProfile(name: string): Promise<{ removed: boolean; leftover?: string }> {
    if (!this.profile(name)) return { removed: false };
    const creds = await this.removeCredentials(name);
    const tokens = await this.tokens.clearProfileTokens(name);
    const c = await this.conf('config');
    return this.locked(() => {
      const all = { ...((c.get('profiles') as Record<string, Profile> | undefined) ?? {}) };
      delete all[name];
      c.set('profiles', all);
      if (c.get('currentProfile') === name) c.delete('currentProfile');
      return { removed: true, leftover: creds.leftover ?? tokens.leftover };
    });
  }
}
