import * as Args from '@oclif/core/args';
import { BaseCommand, flagSets, type HelpGroup } from '../../base/base-command.js';
import { settingKeys } from '../../../config/profile.js';

export default class ConfigGet extends BaseCommand<typeof ConfigGet> {
  static override baseFlags = flagSets.local;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 7 };
  static override summary = 'Print one setting of the current profile';
  static override examples = [
    '<%= config.bin %> config get stage.base_url',
    '<%= config.bin %> config get env --profile acme',
  ];
  static override args = {
    key: Args.string({
      description: 'setting',
      required: true,
      options: [...settingKeys, 'config_dir'],
    }),
  };

  async run(): Promise<void> {
    const { runConfigGet } = await import('./run.js');
    const { json, profile, env } = this.flags;
    await this.execute(runConfigGet, { json, profile, env, key: this.args.key });
  }
}
