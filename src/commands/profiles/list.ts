import { BaseCommand, flagSets } from '../../shell/base-command.js';

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static override baseFlags = flagSets.standalone;
  static override summary = 'List stored profiles (secrets masked)';
  static override examples = ['<%= config.bin %> profiles list', '<%= config.bin %> profiles list --json'];

  async run(): Promise<void> {
    const { runProfilesList } = await import('../../run/settings.js');
    await runProfilesList({ json: this.flags.json }, this.factory);
  }
}
