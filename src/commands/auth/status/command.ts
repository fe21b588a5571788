import { BaseCommand, flagSets, type HelpGroup } from '../../base/base-command.js';

export default class AuthStatus extends BaseCommand<typeof AuthStatus> {
  static override baseFlags = flagSets.local;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 2 };
  static override summary = "Where each profile's secrets are kept, and its tokens' age";
  static override description = `For every profile (or the one of --profile): whether its merchant key and API key are in the OS keyring or in config.json, the merchant key's fingerprint, and each cached token's environment, server and age. The keyring is checked first by writing, reading and deleting a test entry.

Exits 3 when the profile in effect has no credentials (unless MPAY_MERCHANT_KEY gives one), so a script can test it.`;
  static override examples = [
    '<%= config.bin %> auth status',
    '<%= config.bin %> auth status --profile acme --json',
    "<%= config.bin %> auth status --json --query 'profiles[?secrets==`file`].move_command'",
  ];

  async run(): Promise<void> {
    const { runAuthStatus } = await import('./run.js');
    await this.execute(runAuthStatus, { json: this.flags.json, profile: this.flags.profile });
  }
}
