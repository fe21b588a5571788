import { BaseCommand } from '../../../base/base-command.js';
import { batchArgs, batchOptionsFrom, confirmFlags } from '../../../base/flags.js';

export default class WithdrawBatchConfirm extends BaseCommand<typeof WithdrawBatchConfirm> {
  static override summary = 'Finish batch withdrawals with the one-time codes their customers received';
  static override description =
    'Columns: reference, otp (CSV with a header row, or NDJSON). Each reference is a withdrawal that `mpay withdraw batch` started and that waits for its code; every row is checked against the journal before anything is sent. Rows run a few at a time; running the same file again skips the rows already processed and reports (never re-sends) a row whose last request had no answer. Exit 0 when every row is done, 10 when some failed or are unknown, 130 after Ctrl-C, 11 when another mpay runs the same file. A withdrawal is confirmed only at the server and merchant that made it.';
  static override examples = [
    '<%= config.bin %> withdraw batch confirm codes.csv --dry-run',
    '<%= config.bin %> withdraw batch confirm codes.csv --out confirmed.csv',
    "jq -c '{reference, otp}' codes.ndjson | <%= config.bin %> withdraw batch confirm - --format ndjson --json",
  ];
  static override args = batchArgs;
  static override flags = confirmFlags;

  async run(): Promise<void> {
    const { runConfirm } = await import('./run.js');
    await this.execute(runConfirm, batchOptionsFrom(this.flags, this.args.file));
  }
}
