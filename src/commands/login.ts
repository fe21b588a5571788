import * as Flags from '@oclif/core/flags';
import { text } from 'node:stream/consumers';
import { BaseCommand } from '../cli/base-command.js';
import { UsageError } from '../api/errors.js';
import { mask } from '../api/redact.js';

export default class Login extends BaseCommand<typeof Login> {
  static override summary = 'Store merchant credentials in a profile, after checking them against the API';
  static override description = `Asks for whatever is not given by flag or MPAY_* variable: merchant key (Merchant Key under your merchant profile in the dashboard), site id and API key (under the services settings), environment and base URL. The merchant key is checked by generating a token before anything is saved. The profile becomes the current one.

Pass secrets through stdin (--merchant-key-stdin) or the environment rather than flags, so they stay out of shell history and process lists.`;
  static override examples = [
    '<%= config.bin %> login',
    'printf %s "$MERCHANT_KEY" | <%= config.bin %> login --merchant-key-stdin --site-id 1 --env stage --base-url https://stage.example.com',
    '<%= config.bin %> login --env sandbox --merchant-key mk_sandbox_demo --site-id 1 --api-key ak_sandbox_demo',
    '<%= config.bin %> login --force   # config.json is damaged: keep it aside and start anew',
    'MPAY_MERCHANT_KEY=… MPAY_SITE_ID=… MPAY_API_KEY=… <%= config.bin %> login --profile acme --env live --base-url https://api.example.com',
  ];
  static override flags = {
    'merchant-key': Flags.string({
      description: 'merchant key (prefer --merchant-key-stdin or MPAY_MERCHANT_KEY)',
    }),
    'merchant-key-stdin': Flags.boolean({
      description: 'read the merchant key from stdin',
      exclusive: ['merchant-key'],
    }),
    'site-id': Flags.string({ description: 'site id of the service' }),
    'api-key': Flags.string({ description: 'API key of the service (or MPAY_API_KEY)' }),
    'no-verify': Flags.boolean({ description: 'save without checking the key against the API' }),
    force: Flags.boolean({
      description: 'when config.json is damaged, move it aside (config.json.bak-<time>) and start a new one',
    }),
  };

  async run(): Promise<void> {
    const { resolveContext } = await import('../config/context.js');
    const { defaultBaseUrls, isEnvironment } = await import('../config/store.js');
    const { checkBaseUrl, memoryTokens, normalizeBaseUrl } = await import('../api/client.js');
    const store = await this.factory.store();
    if (store.damaged && this.flags.force) {
      const aside = store.moveDamagedConfigAside();
      this.io.warn(`${store.damaged?.file ?? store.path} could not be read; moved it aside to ${aside}`);
    }
    const profileName = this.flags.profile ?? store.currentProfile();
    const existing = store.profile(profileName) ?? {};
    const ask = await this.factory.prompter();
    const need = async (
      value: string | undefined,
      flag: string,
      message: string,
      secret = false,
      def?: string,
    ): Promise<string> => {
      if (value) return value;
      if (!ask) {
        if (def) return def;
        throw new UsageError(`Missing ${flag}`, {
          hint: `Pass ${flag} (or the MPAY_* variable); there is no terminal to ask on`,
        });
      }
      const validate = (v: string) => (v.trim() ? true : 'Required');
      return (
        secret
          ? await ask.password({ message, validate })
          : await ask.input({ message, default: def, validate })
      ).trim();
    };

    let merchantKey = this.flags['merchant-key'] ?? process.env.MPAY_MERCHANT_KEY;
    if (this.flags['merchant-key-stdin']) {
      merchantKey = (await text(this.io.stdin)).trim();
      if (!merchantKey) throw new UsageError('Nothing on stdin for --merchant-key-stdin');
    }
    let envName = this.flags.env ?? process.env.MPAY_ENV;
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
    const givenBaseUrl = await need(
      this.flags['base-url'] ?? process.env.MPAY_BASE_URL,
      '--base-url',
      `Base URL of the ${envName} API (before /restapi/v1)`,
      false,
      existing.baseUrls?.[envName] ?? defaultBaseUrls[envName],
    );
    const { url: baseUrl, stripped } = normalizeBaseUrl(givenBaseUrl);
    if (stripped) this.io.warn(`the base URL ends in /restapi/v1, which mpay adds itself; saving ${baseUrl}`);
    checkBaseUrl(baseUrl);
    merchantKey = await need(merchantKey, '--merchant-key-stdin', 'Merchant key', true);
    const siteId = await need(
      this.flags['site-id'] ?? process.env.MPAY_SITE_ID,
      '--site-id',
      'Site ID',
      false,
      existing.siteId,
    );
    const apiKey = await need(
      this.flags['api-key'] ?? process.env.MPAY_API_KEY,
      '--api-key',
      'API key',
      true,
    );

    const profile = {
      ...existing,
      env: envName,
      baseUrls: { ...existing.baseUrls, [envName]: baseUrl },
      merchantKey,
      siteId,
      apiKey,
    };
    // Built by the factory like every client (user agent, time-out, retries, --debug cleaned of escape
    // sequences), for the server and merchant being logged in to; the token is saved only once accepted.
    const client = await this.factory.client({
      baseUrl,
      credentials: { merchantKey, siteId, apiKey },
      tokens: memoryTokens(),
    });
    let token: string | undefined;
    if (!this.flags['no-verify']) token = await client.generateToken(merchantKey);
    await store.saveProfile(profileName, profile);
    await store.setCurrentProfile(profileName);
    const ctx = resolveContext({ profile: profileName, env: envName, baseUrl }, {}, store);
    if (token) await ctx.tokens.set(token);
    const data = {
      profile: profileName,
      env: envName,
      base_url: ctx.baseUrl,
      merchant_key: mask(merchantKey),
      site_id: siteId,
      verified: Boolean(token),
      config: store.path,
    };
    await this.emit(
      data,
      () =>
        `Logged in: profile ${profileName}, ${envName} at ${ctx.baseUrl}, merchant key ${mask(merchantKey)}${token ? ' (accepted by the API)' : ' (not verified)'}.\nNext: mpay doctor`,
    );
  }
}
