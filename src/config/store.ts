// Profiles, environments, credentials and the token cache. Writes go through conf (atomic, 0600 files);
// reads parse the same JSON files directly, because conf loads a JSON-schema validator that would cost
// every read-only command tens of milliseconds at start-up (docs/performance.md).
import type Conf from 'conf';
import { importLazily } from '../lazy-import.js';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { LocalFileError } from '../api/errors.js';
import { join } from 'node:path';
import { configDir, ensurePrivateDir, ensurePrivateFile, fileMode } from './paths.js';

export const environments = ['sandbox', 'stage', 'live'] as const;
export type Environment = (typeof environments)[number];

export const defaultBaseUrls: Record<Environment, string | undefined> = {
  sandbox: 'http://127.0.0.1:4010',
  // The spec names a stage and a live host but not their addresses: each merchant sets its own.
  stage: undefined,
  live: undefined,
};

export interface Profile {
  env?: Environment;
  baseUrls?: Partial<Record<Environment, string>>;
  merchantKey?: string;
  siteId?: string;
  apiKey?: string;
  /** seconds */
  timeout?: number;
  /** per environment, the gateway ids that need the wallet address update (settles the wallet rule) */
  walletGateways?: Partial<Record<Environment, number[]>>;
}

interface ConfigShape {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

export interface CachedToken {
  token: string;
  createdAt: string;
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

export function isEnvironment(v: string): v is Environment {
  return (environments as readonly string[]).includes(v);
}

/** Settings that `mpay config set` accepts, with where they live in a profile. */
export const settingKeys = [
  'env',
  'timeout',
  'sandbox.base_url',
  'stage.base_url',
  'live.base_url',
  'wallet_gateways',
  'sandbox.wallet_gateways',
  'stage.wallet_gateways',
  'live.wallet_gateways',
] as const;

/** "2, 5,12" → [2, 5, 12]; "" or "none" → [] (the rule decides again); anything else undefined. */
export function parseGatewayList(text: string): number[] | undefined {
  const t = text.trim();
  if (t === '' || t.toLowerCase() === 'none') return [];
  const parts = t.split(/[\s,]+/);
  return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : undefined;
}

export class ConfigStore {
  readonly dir: string;
  readonly warnings: string[] = [];
  private readonly confs = new Map<string, Promise<Conf<Record<string, unknown>>>>();

  /** set when config.json is there but not readable as mpay's settings: every read then fails */
  readonly damaged?: { file: string; reason: string };

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.dir = configDir(env);
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

  async removeProfile(name: string): Promise<boolean> {
    const c = await this.conf('config');
    const tokens = await this.conf('tokens');
    return this.locked(() => {
      const all = { ...((c.get('profiles') as Record<string, Profile> | undefined) ?? {}) };
      if (!(name in all)) return false;
      delete all[name];
      c.set('profiles', all);
      for (const key of Object.keys(tokens.store)) if (key.startsWith(`${name}|`)) tokens.delete(key);
      if (c.get('currentProfile') === name) c.delete('currentProfile');
      return true;
    });
  }

  // A token is cached per profile, environment, base URL and merchant-key fingerprint: a sandbox on
  // another port never gets a token from a different server, and a token is only ever used with the key
  // that made it (MPAY_MERCHANT_KEY for another merchant gets its own token, never the stored one's).
  private tokenKey(scope: TokenScope): string {
    return `${scope.profile}|${scope.env}|${scope.baseUrl}|${scope.keyFingerprint}`;
  }

  token(scope: TokenScope): CachedToken | undefined {
    return this.read<Record<string, CachedToken>>('tokens')[this.tokenKey(scope)];
  }

  /** The tokens cached for a profile, environment and base URL, with the fingerprints of their keys. */
  cachedTokens(scope: Omit<TokenScope, 'keyFingerprint'>): Array<CachedToken & { keyFingerprint: string }> {
    const prefix = `${scope.profile}|${scope.env}|${scope.baseUrl}|`;
    return Object.entries(this.read<Record<string, CachedToken>>('tokens'))
      .filter((e): e is [string, CachedToken] => e[0].startsWith(prefix) && typeof e[1]?.token === 'string')
      .map(([k, v]) => ({ ...v, keyFingerprint: k.slice(prefix.length) }));
  }

  async setToken(scope: TokenScope, token: string): Promise<void> {
    const c = await this.conf('tokens');
    await this.locked(() => {
      // An entry of the older layout (no key fingerprint) can never be used again: drop it.
      c.delete(`${scope.profile}|${scope.env}|${scope.baseUrl}`);
      c.set(this.tokenKey(scope), { token, createdAt: new Date().toISOString() });
    });
  }

  /** Drops every token cached for a profile (all environments, servers and keys); returns how many. */
  async clearProfileTokens(profile: string): Promise<number> {
    const c = await this.conf('tokens');
    return this.locked(() => {
      const keys = Object.keys(c.store).filter((k) => k.startsWith(`${profile}|`));
      for (const k of keys) c.delete(k);
      return keys.length;
    });
  }

  async clearToken(scope: TokenScope): Promise<void> {
    const c = await this.conf('tokens');
    await this.locked(() => c.delete(this.tokenKey(scope)));
  }
}
