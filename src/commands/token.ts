import * as Flags from '@oclif/core/flags';
import { BaseCommand, dryRunFlag } from '../cli/base-command.js';
import { mask } from '../api/redact.js';

export default class Token extends BaseCommand<typeof Token> {
  static override summary = 'Generate a bearer token from the merchant key and cache it';
  static override description =
    'The token is cached per profile, environment, base URL and merchant key (by a fingerprint, never the key itself), and used only with the key that made it; other commands reuse it and get a new one when the API refuses it. It is printed masked unless --show or --json is given.';
  static override examples = [
    '<%= config.bin %> token',
    '<%= config.bin %> token --show',
    'TOKEN=$(<%= config.bin %> token --json | jq -r .token)',
    '<%= config.bin %> token --dry-run',
  ];
  static override flags = {
    show: Flags.boolean({ description: 'print the whole token' }),
    ...dryRunFlag,
  };

  async run(): Promise<void> {
    const ctx = await this.loadContext();
    const client = await this.client({ dryRun: this.flags['dry-run'] });
    const token = await client.generateToken();
    const data = {
      token,
      profile: ctx.profileName,
      env: ctx.env,
      base_url: ctx.baseUrl,
      created_at: new Date().toISOString(),
    };
    await this.emit(data, () =>
      this.flags.show
        ? token
        : `Token ${mask(token)} cached for profile ${ctx.profileName} (${ctx.env}, ${ctx.baseUrl}). Use --show to print it.`,
    );
  }
}
