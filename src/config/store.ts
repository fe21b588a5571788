// Profiles, environments, credentials and the token cache. Writes go through conf (atomic, 0600 files);
// reads parse the same JSON files directly, because conf loads a JSON-schema validator that would cost
// every read-only command tens of milliseconds at start-up (docs/performance.md).
import type Conf from 'conf';
import { importLazily } from '../lazy-import.js';
import { readFileSync } from 'node:fs';
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
}

interface ConfigShape {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

interface CachedToken {
  token: string;
  createdAt: string;
}

export function isEnvironment(v: string): v is Environment {
  return (environments as readonly string[]).includes(v);
}

/** Settings that `mpay config set` accepts, with where they live in a profile. */
export const settingKeys = ['env', 'timeout', 'sandbox.base_url', 'stage.base_url', 'live.base_url'] as const;

export class ConfigStore {
  readonly dir: string;
  readonly warnings: string[] = [];
  private readonly confs = new Map<string, Promise<Conf<Record<string, unknown>>>>();

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.dir = configDir(env);
    const w = ensurePrivateDir(this.dir);
    if (w) this.warnings.push(w);
    for (const name of ['config.json', 'tokens.json']) {
      const fw = ensurePrivateFile(join(this.dir, name));
      if (fw) this.warnings.push(fw);
    }
  }

  get path(): string {
    return join(this.dir, 'config.json');
  }

  private read<T>(name: 'config' | 'tokens'): Partial<T> {
    try {
      return JSON.parse(readFileSync(join(this.dir, `${name}.json`), 'utf8')) as Partial<T>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return {};
      throw err;
    }
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

  // Tokens are cached per profile, environment and base URL, so a sandbox on another port never gets
  // a token from a different server.
  private tokenKey(profile: string, env: string, baseUrl: string): string {
    return `${profile}|${env}|${baseUrl}`;
  }

  token(profile: string, env: string, baseUrl: string): CachedToken | undefined {
    return this.read<Record<string, CachedToken>>('tokens')[this.tokenKey(profile, env, baseUrl)];
  }

  async setToken(profile: string, env: string, baseUrl: string, token: string): Promise<void> {
    const c = await this.conf('tokens');
    await this.locked(() =>
      c.set(this.tokenKey(profile, env, baseUrl), { token, createdAt: new Date().toISOString() }),
    );
  }

  async clearToken(profile: string, env: string, baseUrl: string): Promise<void> {
    const c = await this.conf('tokens');
    await this.locked(() => c.delete(this.tokenKey(profile, env, baseUrl)));
  }
}
