import { BaseCommand } from '../shell/base-command.js';

export default class Whoami extends BaseCommand<typeof Whoami> {
  static override summary = 'Show the profile, environment and credentials in effect (fingerprints only)';
  static override examples = ['<%= config.bin %> whoami', 'MPAY_ENV=stage <%= config.bin %> whoami --json'];

  async run(): Promise<void> {
    const { runWhoami } = await import('../run/account.js');
    await runWhoami({ json: this.flags.json }, this.factory);
  }
}
