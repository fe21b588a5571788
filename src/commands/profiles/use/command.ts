import * as Args from '@oclif/core/args';
import { BaseCommand, flagSets, type HelpGroup } from '../../base/base-command.js';

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static override baseFlags = flagSets.standalone;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 5 };
  static override summary = 'Make a stored profile the current one';
  static override examples = ['<%= config.bin %> profiles use acme'];
  static override args = { name: Args.string({ description: 'profile name', required: true }) };

  async run(): Promise<void> {
    const { runProfilesUse } = await import('./run.js');
    await this.execute(runProfilesUse, { json: this.flags.json, name: this.args.name });
  }
}
