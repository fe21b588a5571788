// Profiles, environments, credentials and the token cache, kept with conf (atomic writes, 0600 files).
import Conf from 'conf';
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
export type SettingKey = (typeof settingKeys)[number];

export class ConfigStore {
  readonly dir: string;
  readonly warnings: string[] = [];
  private readonly conf: Conf<ConfigShape>;
  private readonly tokenConf: Conf<Record<string, CachedToken>>;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.dir = configDir(env);
    const w = ensurePrivateDir(this.dir);
    if (w) this.warnings.push(w);
    for (const name of ['config.json', 'tokens.json']) {
      const fw = ensurePrivateFile(join(this.dir, name));
      if (fw) this.warnings.push(fw);
    }
    const common = {
      cwd: this.dir,
      configFileMode: fileMode,
      clearInvalidConfig: false,
      accessPropertiesByDotNotation: false,
    } as const;
    this.conf = new Conf<ConfigShape>({ ...common, configName: 'config', defaults: { profiles: {} } });
    this.tokenConf = new Conf<Record<string, CachedToken>>({ ...common, configName: 'tokens' });
  }

  get path(): string {
    return this.conf.path;
  }

  currentProfile(): string {
    return this.conf.get('currentProfile') ?? 'default';
  }

  setCurrentProfile(name: string): void {
    this.conf.set('currentProfile', name);
  }

  profiles(): Record<string, Profile> {
    return this.conf.get('profiles') ?? {};
  }

  profile(name: string): Profile | undefined {
    return this.profiles()[name];
  }

  saveProfile(name: string, profile: Profile): void {
    this.conf.set('profiles', { ...this.profiles(), [name]: profile });
  }

  removeProfile(name: string): boolean {
    const all = this.profiles();
    if (!(name in all)) return false;
    delete all[name];
    this.conf.set('profiles', all);
    for (const key of Object.keys(this.tokenConf.store))
      if (key.startsWith(`${name}|`)) this.tokenConf.delete(key);
    if (this.currentProfile() === name) this.conf.delete('currentProfile');
    return true;
  }

  // Tokens are cached per profile, environment and base URL, so a sandbox on another port never gets
  // a token from a different server.
  private tokenKey(profile: string, env: string, baseUrl: string): string {
    return `${profile}|${env}|${baseUrl}`;
  }

  token(profile: string, env: string, baseUrl: string): CachedToken | undefined {
    return this.tokenConf.get(this.tokenKey(profile, env, baseUrl));
  }

  setToken(profile: string, env: string, baseUrl: string, token: string): void {
    this.tokenConf.set(this.tokenKey(profile, env, baseUrl), { token, createdAt: new Date().toISOString() });
  }

  clearToken(profile: string, env: string, baseUrl: string): void {
    this.tokenConf.delete(this.tokenKey(profile, env, baseUrl));
  }
}
