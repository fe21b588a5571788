import * as Args from '@oclif/core/args';
import { BaseCommand } from '../../cli/base-command.js';
import { UsageError } from '../../api/errors.js';

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static override summary = 'Remove a stored profile and its cached tokens';
  static override examples = ['<%= config.bin %> profiles remove old-test --yes'];
  static override args = { name: Args.string({ description: 'profile name', required: true }) };

  async run(): Promise<void> {
    const store = await this.factory.store();
    if (!store.profile(this.args.name)) throw new UsageError(`No profile named "${this.args.name}"`);
    if (!this.flags.yes && this.interactive) {
      const ok = await (await this.factory.prompter())!.confirm({
        message: `Remove profile ${this.args.name} and its credentials?`,
        default: false,
      });
      if (!ok) {
        this.note('Kept.');
        return;
      }
    }
    await store.removeProfile(this.args.name);
    await this.emit({ removed: this.args.name }, () => `Removed profile ${this.args.name}.`);
  }
}
