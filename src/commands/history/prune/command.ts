import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets } from '../../base/base-command.js';

export default class HistoryPrune extends BaseCommand<typeof HistoryPrune> {
  static override baseFlags = flagSets.local;
  static override summary = 'Remove settled transactions from the journal, keeping any still in progress';
  static override description =
    'The journal keeps customer names, phones and e-mails on this machine. Prune what is settled (processed, or in a final status) and older than you need; a transaction still in progress is kept whatever its age, since --resume needs it. The records go in one transaction: other mpay processes writing the journal meanwhile lose nothing.';
  static override examples = [
    '<%= config.bin %> history prune --older-than 90d',
    '<%= config.bin %> history prune --before 2026-01-01 --dry-run',
  ];
  static override flags = {
    'older-than': Flags.string({
      description: 'last changed longer ago than this: 90d, 12w, 36h',
      exclusive: ['before'],
    }),
    before: Flags.string({ description: 'last changed before this date or ISO time' }),
    'dry-run': Flags.boolean({ description: 'say what would be removed, and remove nothing' }),
  };

  async run(): Promise<void> {
    const { runHistoryPrune } = await import('./run.js');
    const f = this.flags;
    await this.execute(runHistoryPrune, {
      json: f.json,
      olderThan: f['older-than'],
      before: f.before,
      dryRun: f['dry-run'],
    });
  }
}
