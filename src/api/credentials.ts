// What the client authenticates with: the merchant's credentials, and where its bearer token is kept
// between runs. The config store implements TokenStore on disk; memoryTokens() keeps it in the process.
import { KeyringError, UsageError, type MpayError } from '../common/errors.js';

export interface Credentials {
  merchantKey?: string;
  siteId?: string;
  apiKey?: string;
  /** why the stored ones could not be read (a keyring that does not answer): the error of a run needing them */
  unreadable?: string;
}

/**
 * The one reading of a keyring mpay cannot use (no Secret Service, a locked or silent one), wherever it is
 * met (whoami, auth status, doctor, any command that needs the secrets): these words, with the reason, and
 * exit 9 (KeyringError, a local problem; nothing was sent).
 */
export const keyringNotAvailable = (reason: string) =>
  reason.startsWith('keyring not available') ? reason : `keyring not available: ${reason}`;

/** What to do about it: the same everywhere. */
export const keyringHint =
  'Start or unlock the keyring, or set MPAY_MERCHANT_KEY, MPAY_SITE_ID and MPAY_API_KEY for this run; `mpay auth status` shows where each secret is kept';

/** The error for credentials a run needs and does not have: the keyring's, when that is why. */
export function missingCredentials(c: Credentials, message: string, hint: string): MpayError {
  if (c.unreadable) return new KeyringError(`${message}: ${c.unreadable}`, { hint: keyringHint });
  return new UsageError(message, { hint });
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
