import * as Args from '@oclif/core/args';
import { BaseCommand } from '../../cli/base-command.js';
import { settings } from './list.js';
import { settingKeys } from '../../config/store.js';

export default class ConfigGet extends BaseCommand<typeof ConfigGet> {
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
    const all = await settings(await this.factory.store(), this.flags.profile);
    // Bare wallet_gateways is the list of the environment in effect (--env, MPAY_ENV, or the profile's).
    const key =
      this.args.key === 'wallet_gateways' ? `${this.flags.env ?? all.env}.wallet_gateways` : this.args.key;
    const value = all[key] ?? null;
    await this.emit({ [key]: value }, () => (value === null ? '' : String(value)));
  }
}
