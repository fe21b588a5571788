import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets } from '../../base/base-command.js';

export default class HistoryMove extends BaseCommand<typeof HistoryMove> {
  static override baseFlags = flagSets.local;
  static override summary =
    "Move journal records to another base URL of the same merchant (a proxy's, a moved API)";
  static override description =
    "A transaction belongs to the server it was made with, and is continued only there. One started through `mpay proxy` belongs to the proxy's URL; a provider may move its API. This moves a record (REF), or every record of one server (--from URL), to another base URL: a line in the journal, under the transaction's lock. The merchant (the key's fingerprint) stays: it is continued with the same key.";
  static override examples = [
    '<%= config.bin %> history move mpay-d-lx2k9-1a2b3c --to https://api.example.com',
    '<%= config.bin %> history move --from http://127.0.0.1:4020 --to https://api.example.com',
  ];
  static override flags = {
    to: Flags.string({
      description: 'the base URL the records move to (before /restapi/v1)',
      required: true,
    }),
    from: Flags.string({ description: 'move every record of this base URL', exclusive: ['key'] }),
  };
  static override args = { key: Args.string({ description: 'reference or hash token', required: false }) };

  async run(): Promise<void> {
    const { runHistoryMove } = await import('./run.js');
    await this.execute(runHistoryMove, {
      json: this.flags.json,
      key: this.args.key,
      from: this.flags.from,
      to: this.flags.to,
    });
  }
}
