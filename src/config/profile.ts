// A profile as mpay keeps it: its environments and their base URLs, the settings `mpay config set` takes,
// where its secrets are, and the names it accepts. No file here: store.ts reads and writes them.
import { UsageError } from '../common/errors.js';

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
  /**
   * Where the merchant key, the API key and the profile's cached tokens are kept: 'keyring' (then none of
   * them is in mpay's files), or 'file' (config.json and tokens.json, 0600). A profile saved by an mpay
   * older than the keyring has no marker and keeps them in the file.
   */
  secretStore?: SecretStore;
  /** the keyring's name when secretStore is 'keyring' ("Secret Service", "macOS Keychain", ...) */
  keyringName?: string;
}

export type SecretStore = 'keyring' | 'file';

/** A profile's merchant key and API key, where they were read from, and why they could not be. */
export interface StoredCredentials {
  merchantKey?: string;
  apiKey?: string;
  store: SecretStore | 'none';
  /** set when the profile's secrets are in the keyring and could not be read */
  problem?: string;
  /** the keyring itself could not be used (api/credentials.ts keyringNotAvailable), not only the entry */
  unavailable?: boolean;
}

/**
 * A profile's name as mpay accepts it: 1 to 64 characters, none of them a control or bidi character (the
 * name is printed, and is part of file and keyring names) nor `|` (the token cache's separator).
 */
export function checkProfileName(name: string): string {
  if (
    name.length === 0 ||
    name.length > 64 ||
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c|]/.test(name)
  ) {
    throw new UsageError(`Invalid profile name ${JSON.stringify(name)}`, {
      hint: 'A profile name is 1 to 64 characters, with no control characters and no |',
    });
  }
  return name;
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
