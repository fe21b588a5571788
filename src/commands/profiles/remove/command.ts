import * as Args from '@oclif/core/args';
import { BaseCommand, flagSets, type HelpGroup } from '../../base/base-command.js';

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static override baseFlags = flagSets.confirm;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 6 };
  static override summary = 'Remove a stored profile and its cached tokens';
  static override examples = ['<%= config.bin %> profiles remove old-test --yes'];
  static override args = { name: Args.string({ description: 'profile name', required: true }) };

  async run(): Promise<void> {
    const { runProfilesRemove } = await import('./run.js');
    await this.execute(runProfilesRemove, { json: this.flags.json, name: this.args.name });
  }
}
