import { BaseCommand, flagSets, type HelpGroup } from '../../base/base-command.js';

export default class AuthMigrate extends BaseCommand<typeof AuthMigrate> {
  static override baseFlags = flagSets.local;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 3 };
  static override summary = "Move a profile's secrets from config.json into the OS keyring";
  static override description = `For a profile saved with its merchant key and API key in config.json (by an older mpay, with --insecure-storage, or where no keyring worked): checks the keyring, stores them there with the profile's cached tokens, and removes them from config.json and tokens.json. Nothing changes when no keyring works.`;
  static override examples = [
    '<%= config.bin %> auth migrate',
    '<%= config.bin %> auth migrate --profile acme',
  ];

  async run(): Promise<void> {
    const { runAuthMigrate } = await import('./run.js');
    await this.execute(runAuthMigrate, { json: this.flags.json, profile: this.flags.profile });
  }
}
