import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../../base/base-command.js';

export default class SupportBundle extends BaseCommand<typeof SupportBundle> {
  static override baseFlags = flagSets.api;
  static helpGroup: HelpGroup = { section: 'SUPPORT', order: 5 };
  static override summary = 'Write one archive to attach to a support ticket (no secrets)';
  static override description =
    "Holds mpay's, Node's and the OS's versions, the profile's settings with key fingerprints only, the doctor report, the journal (all of it, or --reference / --since), the traces named with --trace-file, and a README.txt saying what is inside. Customers' names, phones and e-mails are masked unless --include-personal-data.";
  static override examples = [
    '<%= config.bin %> support bundle',
    '<%= config.bin %> support bundle --reference mpay-d-lx2k9-1a2b3c --trace-file run.har --out ticket-4711.tar.gz',
    '<%= config.bin %> support bundle --since 2d',
  ];
  static override flags = {
    out: Flags.string({ description: 'the archive to write (default: mpay-support-<time>.tar.gz here)' }),
    reference: Flags.string({
      description: 'only this transaction of the journal (reference or hash token)',
    }),
    since: Flags.string({ description: 'only journal events since: 2d, a date, an ISO time' }),
    'trace-file': Flags.string({
      description: 'a HAR file written with --trace to include (repeatable)',
      multiple: true,
    }),
    'include-personal-data': Flags.boolean({
      description: "keep customers' names, phones and e-mails (a warning says so)",
    }),
  };

  async run(): Promise<void> {
    const { runSupportBundle } = await import('./run.js');
    const f = this.flags;
    await this.execute(runSupportBundle, {
      json: f.json,
      out: f.out,
      reference: f.reference,
      since: f.since,
      traces: f['trace-file'],
      includePersonalData: f['include-personal-data'],
    });
  }
}
