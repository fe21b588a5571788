import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';

export default class Login extends BaseCommand<typeof Login> {
  static override baseFlags = flagSets.login;
  static helpGroup: HelpGroup = { section: 'GETTING STARTED', order: 1 };
  static override summary = 'Save merchant credentials in a profile, checked against the API';
  static override description = `Asks for whatever is not given by flag or MPAY_* variable: merchant key (Merchant Key under your merchant profile in the dashboard), site id and API key (under the services settings), environment and base URL. The merchant key is checked by generating a token before anything is saved; on a terminal, a base URL that is mistyped or that no server answers is said and asked again (the one typed as its default). The site id and API key are checked as doctor checks them; on a terminal a pair the API refuses is asked again, up to 3 tries (given by flag or variable, it is refused at once). Without --profile, login writes the current profile, and says so first. It never silently changes what an existing profile points at: a new default environment, or another base URL for an environment, is asked on a terminal and needs --force without one (--json says what the profile held before, in profile_before). The profile becomes the current one; when another was, login says so and prints the command that goes back.

The merchant key, API key and tokens go into the OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux) once it passes a check; where none works they go into config.json (mode 0600), and mpay says so. --insecure-storage chooses the file.

Pass secrets through stdin (--merchant-key-stdin) or the environment rather than flags, so they stay out of shell history and process lists.`;
  static override examples = [
    '<%= config.bin %> login',
    'printf %s "$MERCHANT_KEY" | <%= config.bin %> login --merchant-key-stdin --site-id 1 --env stage --base-url https://stage.example.com',
    '<%= config.bin %> login --env sandbox --merchant-key mk_sandbox_demo --site-id 1 --api-key ak_sandbox_demo',
    '<%= config.bin %> login --force   # config.json is damaged: keep it aside and start anew',
    '<%= config.bin %> login --profile acme --env stage --base-url https://stage2.example.com --force   # point an existing profile elsewhere',
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
      description:
        "change an existing profile's environment or server without asking; move a damaged config.json aside (config.json.bak-<time>)",
    }),
    'insecure-storage': Flags.boolean({
      description: 'keep the secrets in config.json (mode 0600) even where a keyring works',
    }),
  };

  async run(): Promise<void> {
    const { runLogin } = await import('./run.js');
    const f = this.flags;
    await this.execute(runLogin, {
      json: f.json,
      merchantKey: f['merchant-key'],
      merchantKeyStdin: f['merchant-key-stdin'],
      siteId: f['site-id'],
      apiKey: f['api-key'],
      verify: !f['no-verify'],
      force: f.force,
      insecureStorage: f['insecure-storage'],
    });
  }
}
