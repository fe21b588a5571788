import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';

export default class Logout extends BaseCommand<typeof Logout> {
  static override baseFlags = flagSets.local;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 1 };
  static override summary = "Forget a profile's tokens (--all: its credentials too)";
  static override description =
    'Without --all the profile keeps its merchant key, site id and API key, and the next command gets a new token. With --all they are removed from config.json as well; the profile keeps its environment and base URLs.';
  static override examples = ['<%= config.bin %> logout', '<%= config.bin %> logout --all --profile acme'];
  static override flags = {
    all: Flags.boolean({ description: 'remove the merchant key, site id and API key too' }),
  };

  async run(): Promise<void> {
    const { runLogout } = await import('./run.js');
    await this.execute(runLogout, {
      json: this.flags.json,
      profile: this.flags.profile,
      all: this.flags.all,
    });
  }
}
