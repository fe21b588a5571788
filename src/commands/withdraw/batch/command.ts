import { BaseCommand } from '../../base/base-command.js';
import { batchArgs, batchFlags, batchOptionsFrom } from '../../base/flags.js';

export default class WithdrawBatch extends BaseCommand<typeof WithdrawBatch> {
  static override summary = 'Run many withdrawals from a CSV or NDJSON file, every row checked first';
  static override description =
    'Columns: currency, country, amount, first_name, last_name, phone, email, gateway, reference, wallet. Every row is checked before anything is sent; then each runs as `mpay withdraw` would, a few at a time, recorded in the journal. A row without a reference gets one derived from its content and position, so running the same file again skips the rows done, continues the ones stopped, and reports (never re-sends) a row whose last request had no answer. Exit 0 when every row is done (a withdrawal waiting for its one-time code counts as done), 10 when some failed or are unknown, 130 after Ctrl-C (the command that resumes is printed in full), 11 when another mpay runs the same file. Rows sent before with another server, merchant or profile are refused unless --new-batch. After a 429 the requests are paced to what the server takes.';
  static override examples = [
    '<%= config.bin %> withdraw batch withdrawals.csv --dry-run',
    '<%= config.bin %> withdraw batch withdrawals.csv --concurrency 8 --out results.csv',
    'cat withdrawals.ndjson | <%= config.bin %> withdraw batch - --format ndjson --json',
  ];
  static override args = batchArgs;
  static override flags = batchFlags;

  async run(): Promise<void> {
    const { runWithdrawBatch } = await import('./run.js');
    await this.execute(runWithdrawBatch, batchOptionsFrom(this.flags, this.args.file));
  }
}
