import { BaseCommand, flagSets, type HelpGroup } from '../../base/base-command.js';

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static override baseFlags = flagSets.standalone;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 4 };
  static override summary = 'List stored profiles (secrets masked)';
  static override examples = ['<%= config.bin %> profiles list', '<%= config.bin %> profiles list --json'];

  async run(): Promise<void> {
    const { runProfilesList } = await import('./run.js');
    await this.execute(runProfilesList, { json: this.flags.json });
  }
}
