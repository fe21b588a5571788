// What the client authenticates with: the merchant's credentials, and where its bearer token is kept
// between runs. The config store implements TokenStore on disk; memoryTokens() keeps it in the process.

export interface Credentials {
  merchantKey?: string;
  siteId?: string;
  apiKey?: string;
}

/** Where the client keeps its bearer token between runs: config implements it, tests may pass a Map. */
export interface TokenStore {
  get(): string | undefined;
  set(token: string): void | Promise<void>;
  clear(): void | Promise<void>;
}

/** A token kept for this process only: the demo and tests, which must not touch the user's config. */
export function memoryTokens(): TokenStore {
  let token: string | undefined;
  return {
    get: () => token,
    set: (t) => {
      token = t;
    },
    clear: () => {
      token = undefined;
    },
  };
}
