import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets } from '../../base/base-command.js';
import { resolutions } from '../../../api/enums.js';

export default class HistoryResolve extends BaseCommand<typeof HistoryResolve> {
  static override baseFlags = flagSets.probe;
  static override summary = 'Settle a transaction whose last request had no answer (an unknown row)';
  static override description = `A request that had no answer (a dropped connection, a kill, a second Ctrl-C) may or may not have been applied by the server. mpay will not guess: it sends it no more, and a batch counts its row as unknown (exit 10) until a person settles it. Find out (\`mpay history show REF\`, the provider), then say what happened:
  --as not-sent   it never reached the server: the next run of the batch (or --resume) sends it again
  --as landed     it did: a batch counts the row as done; mpay continues it no further
  --as abandoned  give it up: a batch counts it no more
Each settling is a line in the journal. For an initiate, --check asks the API instead: it sends the same initiate with the same reference (through the live question, the lock and the journal, like any money request), which the API refuses as taken if the first one landed (then it is settled as landed; mpay never got its hash token, so it cannot continue it). If the API accepts it, the first never landed and this one is the transaction now.`;
  static override examples = [
    '<%= config.bin %> history resolve mpay-d-lx2k9-1a2b3c --as not-sent',
    '<%= config.bin %> history resolve mpay-d-lx2k9-1a2b3c --as landed --note "seen in the dashboard"',
    '<%= config.bin %> history resolve mpay-d-lx2k9-1a2b3c --check',
  ];
  static override flags = {
    as: Flags.string({
      description: 'what happened to the request that had no answer',
      options: [...resolutions],
      exactlyOne: ['as', 'check'],
    }),
    check: Flags.boolean({
      description: 'ask the API: send the initiate again with the same reference (a money request)',
    }),
    note: Flags.string({ description: 'why, in words, kept in the journal' }),
  };
  static override args = { key: Args.string({ description: 'reference or hash token', required: true }) };

  async run(): Promise<void> {
    const { runHistoryResolve } = await import('./run.js');
    const as = this.flags.as as (typeof resolutions)[number] | undefined;
    await this.execute(runHistoryResolve, {
      json: this.flags.json,
      key: this.args.key,
      as,
      check: this.flags.check,
      note: this.flags.note,
    });
  }
}
