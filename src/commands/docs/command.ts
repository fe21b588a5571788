import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';

export default class Docs extends BaseCommand<typeof Docs> {
  static override baseFlags = flagSets.context;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 13 };
  static override summary = "Print (or open) the environment's interactive API documentation";
  static override examples = ['<%= config.bin %> docs', '<%= config.bin %> docs --env stage --no-open'];
  static override flags = {
    open: Flags.boolean({
      description: 'open it in a browser (default on a desktop terminal)',
      allowNo: true,
    }),
  };

  async run(): Promise<void> {
    const { runDocs } = await import('./run.js');
    await this.execute(runDocs, { json: this.flags.json, open: this.flags.open });
  }
}
