import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets } from '../../base/base-command.js';

export default class HistoryShow extends BaseCommand<typeof HistoryShow> {
  // --yes: `--curl` of a live server's transaction prints only with it (the script moves real money)
  static override baseFlags = { ...flagSets.local, yes: flagSets.probe.yes };
  static override summary = 'Show one transaction from the journal, with each step, its time and outcome';
  static override examples = [
    '<%= config.bin %> history show mpay-d-lx2k9-1a2b3c',
    '<%= config.bin %> history show 3f9a…c2 --json',
    '<%= config.bin %> history show mpay-d-lx2k9-1a2b3c --curl > replay.sh',
  ];
  static override flags = {
    curl: Flags.boolean({
      description:
        'the requests mpay sent for it, in order, as curl commands to paste ($MPAY_* variables for secrets)',
    }),
  };
  static override args = { key: Args.string({ description: 'hash token or reference', required: true }) };

  async run(): Promise<void> {
    const { runHistoryShow } = await import('./run.js');
    await this.execute(runHistoryShow, { json: this.flags.json, key: this.args.key, curl: this.flags.curl });
  }
}
