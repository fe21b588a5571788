// The token cache: tokens.json, and the tokens of a profile kept in the keyring. A token is cached per
// profile, environment, base URL and merchant-key fingerprint: a sandbox on another port never gets a token
// from a different server, and a token is only ever used with the key that made it (MPAY_MERCHANT_KEY for
// another merchant gets its own token, never the stored one's). A profile kept in the keyring keeps its
// tokens in its entry there; tokens.json then keeps only when each token was made, and that it is there.
import type Conf from 'conf';
import type { KeyringEntries } from './keyring-entries.js';
import type { SecretStore } from './profile.js';

export interface CachedToken {
  token: string;
  createdAt: string;
}

/** tokens.json's entry: the token itself, or a marker that it is in the keyring. */
export interface TokenEntry {
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

/** A cached token as a move of the profile's secrets carries it: its key in tokens.json, and the rest. */
export interface MovedToken {
  key: string;
  /** the key without the profile: the token's name in the keyring entry */
  rest: string;
  token: string;
  createdAt: string;
}

type TokensFile = Conf<Record<string, unknown>>;

/** What the cache needs of the store: tokens.json read and written, its lock, the keyring, each profile's store. */
export interface TokenFiles {
  read(): Partial<Record<string, TokenEntry>>;
  conf(): Promise<TokensFile>;
  locked<T>(write: () => T | Promise<T>): Promise<T>;
  keyring: KeyringEntries;
  /** where a profile keeps its secrets */
  storeOf(profile: string): SecretStore | undefined;
  /** opens the keyring (ConfigStore.keyring) */
  openKeyring(): Promise<unknown>;
}

export class TokenCache {
  constructor(private readonly files: TokenFiles) {}

  private tokenKey(scope: TokenScope): string {
    return `${scope.profile}|${scope.env}|${scope.baseUrl}|${scope.keyFingerprint}`;
  }

  /** The token of an entry, from the file or the profile's keyring entry; undefined when not to be had. */
  private tokenOf(profile: string, key: string, e: TokenEntry | undefined): string | undefined {
    if (!e) return undefined;
    if (e.in !== 'keyring') return typeof e.token === 'string' ? e.token : undefined;
    try {
      return this.files.keyring.entryOf(profile)?.tokens?.[key.slice(profile.length + 1)];
    } catch {
      return undefined; // a cache: the next call gets a new token
    }
  }

  token(scope: TokenScope): CachedToken | undefined {
    const key = this.tokenKey(scope);
    const e = this.files.read()[key];
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
    return Object.entries(this.files.read())
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
    const c = await this.files.conf();
    const key = this.tokenKey(scope);
    const keyring = this.files.keyring;
    const inKeyring = this.files.storeOf(scope.profile) === 'keyring' && keyring.isOpen;
    await this.files.locked(async () => {
      // An entry of the older layout (no key fingerprint) can never be used again: drop it.
      c.delete(`${scope.profile}|${scope.env}|${scope.baseUrl}`);
      const createdAt = new Date().toISOString();
      if (inKeyring) {
        const entry = keyring.entryOf(scope.profile) ?? {};
        const rest = key.slice(scope.profile.length + 1);
        await keyring.write(scope.profile, { ...entry, tokens: { ...entry.tokens, [rest]: token } });
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
    const c = await this.files.conf();
    const keys = Object.keys(c.store).filter((k) => k.startsWith(`${profile}|`));
    if (keys.some((k) => (c.store[k] as TokenEntry | undefined)?.in === 'keyring'))
      await this.files.openKeyring();
    return this.files.locked(async () => ({
      count: keys.length,
      leftover: await this.dropTokens(c, profile, keys),
    }));
  }

  async clearToken(scope: TokenScope): Promise<void> {
    const c = await this.files.conf();
    await this.files.locked(() => this.dropTokens(c, scope.profile, [this.tokenKey(scope)]));
  }

  /**
   * Drops token entries; their markers go in any case (a token left in the keyring is never read again),
   * and what the keyring could not drop is said.
   */
  private async dropTokens(c: TokensFile, profile: string, keys: string[]): Promise<string | undefined> {
    const inKeyring = keys.filter((k) => (c.get(k) as TokenEntry | undefined)?.in === 'keyring');
    let leftover: string | undefined;
    if (inKeyring.length > 0) {
      try {
        const keyring = this.files.keyring;
        keyring.requireOpen();
        const entry = keyring.entryOf(profile);
        if (entry?.tokens) {
          const tokens = { ...entry.tokens };
          for (const k of inKeyring) delete tokens[k.slice(profile.length + 1)];
          await keyring.write(profile, { ...entry, tokens });
        }
      } catch (err) {
        leftover = `the keyring entry of profile ${profile} still holds ${inKeyring.length} token${inKeyring.length === 1 ? '' : 's'}, which mpay will not use again: ${(err as Error).message}`;
      }
    }
    for (const k of keys) c.delete(k);
    return leftover;
  }

  /**
   * A profile's cached tokens, wherever they are kept (the keyring's when `inKeyring`), for a move of its
   * secrets; an entry whose token is not to be had is dropped. Run under the lock (`c` is tokens.json).
   */
  take(c: TokensFile, profile: string, inKeyring: boolean): MovedToken[] {
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

  /** Where the moved tokens now are, in tokens.json: each token itself, or a marker that it is in the keyring. */
  keep(c: TokensFile, moved: MovedToken[], where: SecretStore): void {
    for (const t of moved)
      c.set(
        t.key,
        where === 'keyring'
          ? { createdAt: t.createdAt, in: 'keyring' }
          : { token: t.token, createdAt: t.createdAt },
      );
  }
}
