import * as Args from '@oclif/core/args';
import { BaseCommand, flagSets, type HelpGroup } from '../../base/base-command.js';
import { settingKeys } from '../../../config/profile.js';

export default class ConfigSet extends BaseCommand<typeof ConfigSet> {
  static override baseFlags = flagSets.local;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 9 };
  static override summary = 'Set a profile setting: env, timeout, <env>.base_url, <env>.wallet_gateways';
  static override examples = [
    '<%= config.bin %> config set stage.base_url https://stage.example.com',
    '<%= config.bin %> config set env stage',
    '<%= config.bin %> config set timeout 60 --profile acme',
    '<%= config.bin %> config set live.wallet_gateways 2,5,12   # these ids need the wallet address update',
    '<%= config.bin %> config set wallet_gateways none   # back to the built-in rule',
    '<%= config.bin %> config set stage.base_url none   # unset: the default, if any',
  ];
  static override args = {
    key: Args.string({
      description: 'setting',
      required: true,
      options: [...settingKeys],
    }),
    value: Args.string({ description: 'value', required: true }),
  };

  async run(): Promise<void> {
    const { runConfigSet } = await import('./run.js');
    const { json, profile, env } = this.flags;
    await this.execute(runConfigSet, { json, profile, env, ...this.args });
  }
}
