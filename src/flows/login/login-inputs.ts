// What `mpay login` gathers before it saves anything: each value given (a flag, an MPAY_* variable),
// else asked for on a terminal, else its default, else a usage error naming the flag; the environment,
// the base URL (checked, asked again when mistyped or when no server answers it), and the merchant key,
// checked by the token it earns.
import { memoryTokens } from '../../api/credentials.js';
import { checkBaseUrl, normalizeBaseUrl } from '../../api/base-url.js';
import { AuthError, MpayError, NetworkError, UsageError } from '../../common/errors.js';
import { defaultBaseUrls, isEnvironment, type Environment, type Profile } from '../../config/profile.js';
import type { Prompter } from '../prompter.js';
import type { LoginDeps, LoginInputs } from './login.js';

/** A value given, else asked for (when there is a terminal), else the default, else a usage error. */
export type Need = (
  value: string | undefined,
  flag: string,
  message: string,
  secret?: boolean,
  def?: string,
  /** an answer's problem, said under the question, which is asked again; true when it is good */
  check?: (v: string) => true | string,
) => Promise<string>;

export function asker(ask: Prompter | undefined): Need {
  return async (value, flag, message, secret = false, def, check) => {
    if (value) return value;
    if (!ask) {
      if (def) return def;
      throw new UsageError(`Missing ${flag}`, {
        hint: `Pass ${flag} (or the MPAY_* variable); there is no terminal to ask on`,
      });
    }
    const validate = (v: string) => (!v.trim() ? 'Required' : (check?.(v.trim()) ?? true));
    return (
      secret
        ? await ask.password({ message, validate })
        : await ask.input({ message, default: def, validate })
    ).trim();
  };
}

export async function chooseEnvironment(
  given: string | undefined,
  existing: Profile,
  ask: Prompter | undefined,
): Promise<Environment> {
  let envName = given;
  if (!envName && ask) {
    envName = await ask.select({
      message: 'Environment',
      choices: [
        { name: 'sandbox (local, `mpay sandbox`)', value: 'sandbox' },
        { name: 'stage', value: 'stage' },
        { name: 'live', value: 'live' },
      ],
      default: existing.env ?? 'sandbox',
    });
  }
  envName ??= existing.env ?? 'sandbox';
  if (!isEnvironment(envName)) throw new UsageError(`Unknown environment "${envName}"`);
  return envName;
}

export async function gatherBaseUrl(
  given: string | undefined,
  envName: Environment,
  existing: Profile,
  need: Need,
  warn: (m: string) => void,
  /** asked again: the one the person typed, as the default */
  typed?: string,
): Promise<string> {
  const givenBaseUrl = await need(
    given,
    '--base-url',
    `Base URL of the ${envName} API (before /restapi/v1)`,
    false,
    typed ?? existing.baseUrls?.[envName] ?? defaultBaseUrls[envName],
    // On a terminal a base URL mistyped is said and asked again; given by flag, it is refused below.
    (v) => {
      try {
        checkBaseUrl(normalizeBaseUrl(v).url);
        return true;
      } catch (err) {
        const e = err as MpayError;
        return e.hint ? `${e.message}. ${e.hint}` : e.message;
      }
    },
  );
  const { url: baseUrl, stripped } = normalizeBaseUrl(givenBaseUrl);
  if (stripped) warn(`the base URL ends in /restapi/v1, which mpay adds itself; saving ${baseUrl}`);
  checkBaseUrl(baseUrl);
  return baseUrl;
}

/**
 * The merchant key, and the token it earned unless --no-verify. It is checked as soon as it is known,
 * before the site id and API key are asked for; on a terminal a rejected key is asked for again.
 */
export async function checkedMerchantKey(
  inputs: LoginInputs,
  baseUrl: string,
  need: Need,
  deps: LoginDeps,
  askUrlAgain?: (typed: string) => Promise<string>,
): Promise<{ merchantKey: string; token?: string; baseUrl: string }> {
  let merchantKey = await need(inputs.merchantKey, '--merchant-key-stdin', 'Merchant key', true);
  for (let attempt = 1, unreached = 0; inputs.verify; attempt++) {
    const probe = await deps.client({ baseUrl, credentials: { merchantKey }, tokens: memoryTokens() });
    try {
      return { merchantKey, token: await probe.generateToken(merchantKey), baseUrl };
    } catch (err) {
      if (err instanceof NetworkError && askUrlAgain && ++unreached < 3) {
        deps.warn(
          `${err.message.replace(/\.$/, '')}${err.hint ? ` (${err.hint})` : ''}; give the base URL again`,
        );
        baseUrl = await askUrlAgain(baseUrl);
        attempt--;
        continue;
      }
      if (!(err instanceof AuthError) || !deps.prompter || attempt === 3 || inputs.merchantKey) throw err;
      deps.warn(`${err.message.replace(/\.$/, '')}; try again (${3 - attempt} left)`);
      merchantKey = await need(undefined, '--merchant-key-stdin', 'Merchant key', true);
    }
  }
  return { merchantKey, baseUrl };
}
