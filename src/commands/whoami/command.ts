import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';

export default class Whoami extends BaseCommand<typeof Whoami> {
  static override baseFlags = flagSets.context;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 11 };
  static override summary = 'The profile, environment and credentials in effect';
  static override examples = ['<%= config.bin %> whoami', 'MPAY_ENV=stage <%= config.bin %> whoami --json'];

  async run(): Promise<void> {
    const { runWhoami } = await import('./run.js');
    await this.execute(runWhoami, { json: this.flags.json });
  }
}
