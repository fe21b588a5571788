import * as Args from '@oclif/core/args';
import { BaseCommand } from '../../cli/base-command.js';
import { UsageError } from '../../api/errors.js';

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static override summary = 'Make a stored profile the current one';
  static override examples = ['<%= config.bin %> profiles use acme'];
  static override args = { name: Args.string({ description: 'profile name', required: true }) };

  async run(): Promise<void> {
    const store = await this.factory.store();
    if (!store.profile(this.args.name)) {
      throw new UsageError(`No profile named "${this.args.name}"`, {
        hint: `Known: ${Object.keys(store.profiles()).join(', ') || 'none; run `mpay login`'}`,
      });
    }
    await store.setCurrentProfile(this.args.name);
    await this.emit({ current: this.args.name }, () => `Now using profile ${this.args.name}.`);
  }
}
