// `mpay login`: the inputs from flags, MPAY_* variables or stdin, then the flow (src/flows/login/login.ts).
import { UsageError } from '../../common/errors.js';
import type { Factory } from '../../factory.js';
import type { LoginInputs } from '../../flows/login/login.js';
import { commandLine } from '../../common/shell-words.js';
import { printResult } from '../../ui/print.js';

export interface LoginOptions extends Omit<LoginInputs, 'profile' | 'env' | 'baseUrl'> {
  json?: boolean;
  /** read the merchant key from stdin */
  merchantKeyStdin?: boolean;
}

export async function runLogin(opts: LoginOptions, f: Factory): Promise<void> {
  const { login } = await import('../../flows/login/login.js');
  const env = f.environ;
  let merchantKey = opts.merchantKey ?? env.MPAY_MERCHANT_KEY;
  if (opts.merchantKeyStdin) {
    merchantKey = (await f.io.readStdin()).trim();
    if (!merchantKey) throw new UsageError('Nothing on stdin for --merchant-key-stdin');
  }
  const r = await login(
    {
      ...opts,
      profile: f.globals.profile,
      env: f.globals.env,
      baseUrl: f.globals.baseUrl,
      merchantKey,
      siteId: opts.siteId ?? env.MPAY_SITE_ID,
      apiKey: opts.apiKey ?? env.MPAY_API_KEY,
    },
    {
      store: await f.store(),
      prompter: await f.prompter(),
      client: (req) => f.client(req),
      warn: (m) => f.io.warn(m),
      note: (m) => f.io.note(m),
      checkApiKey: async (req) => {
        const { checkApiKey } = await import('../../flows/doctor/doctor.js');
        const { memoryTokens } = await import('../../api/credentials.js');
        const { fingerprint } = await import('../../api/redact.js');
        const { runAgain } = await import('../../flows/standing.js');
        const store = await f.store();
        const place = {
          server: req.baseUrl,
          merchant: fingerprint(req.credentials.merchantKey),
          profile: req.profile,
          env: req.env,
        };
        const client = await f.client({
          baseUrl: req.baseUrl,
          credentials: req.credentials,
          tokens: memoryTokens(),
        });
        const journal = await f.journal(
          { dir: store.dir, profile: req.profile, env: req.env },
          { at: place },
        );
        const gate = await f.gateFor(req.baseUrl, req.env, undefined);
        return checkApiKey(
          client,
          journal,
          { gate, explicit: false },
          runAgain(['mpay', 'doctor', '--check-api-key'], place),
        );
      },
    },
  );
  await printResult(
    f.io,
    opts.json,
    r,
    () =>
      `Logged in: profile ${r.profile}, ${r.env} at ${r.base_url}${r.previous_base_url ? ` (it was ${r.previous_base_url})` : ''}${r.profile_before?.env && r.profile_before.env !== r.env ? ` (its environment was ${r.profile_before.env})` : ''}, merchant key ${r.merchant_key}${r.verified ? ' (accepted by the API)' : ' (not verified)'}.${
        r.api_key ? `\nAPI key: ${r.api_key.detail}.` : ''
      }\n${
        r.secrets.store === 'keyring'
          ? `Secrets kept in the ${r.secrets.keyring}.`
          : `Secrets kept in ${r.config} (mode 0600), not in a keyring.`
      }${
        r.previous_profile
          ? `\nThe current profile is now ${r.profile}, no longer ${r.previous_profile}. Back with: \`${commandLine(['mpay', 'profiles', 'use', r.previous_profile])}\``
          : ''
      }\nNext: mpay doctor`,
  );
}
