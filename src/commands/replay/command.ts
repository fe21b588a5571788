import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { BaseCommand, type HelpGroup } from '../base/base-command.js';

export default class Replay extends BaseCommand<typeof Replay> {
  static helpGroup: HelpGroup = { section: 'SUPPORT', order: 2 };
  static override summary = "Send a trace's API calls again, and compare the answers";
  static override description = `FILE is a HAR written with --trace, or a support bundle (.tar.gz) holding one. Only the API's calls are sent (a browser's HAR may hold other hosts' requests: they are left out), in order, to the server that --profile, --env and --base-url choose, with this run's credentials and a fresh token. Every initiate gets a new customer_transaction_id (the recorded one is never sent again), and every hash_token is taken from the new answers. A call of a transaction the trace did not initiate is not sent.

Each call is shown with its recorded answer beside the new one: the HTTP status, the success/status flag, the message and the shape (fields and their types). Values that always differ (tokens, ids, references, times) are not compared.

A call answered as recorded is a match, a recorded failure answered the same again included (the trace reproduced), and the replay goes on. A call that answered otherwise (another status, or a failure that differs) stops the replay before any money call after it: those are listed as not sent, with what the API said; --keep-going sends them anyway.

On any server but a sandbox (the sandbox environment's own server, or one a profile keeps as its sandbox: a loopback address alone is not one), the recorded customer's personal data (names, e-mail, phone) is replaced by the neutral values --save-scenario writes; --keep-customer sends the recorded values (asked on a terminal, refused without --yes otherwise). --dry-run prints each call exactly as it would be sent, with the server: this run's credentials (shown as ***), and a fresh reference, a hash token or the one-time code named where only the run supplies them.

Exit 0 when every call answered as recorded, 13 when some did not, and the usual codes when the replay cannot run. In live, the replay is confirmed first (or --yes), and each money call is journaled before it is sent.`;
  static override examples = [
    '<%= config.bin %> replay run.har --base-url http://127.0.0.1:4010',
    '<%= config.bin %> replay ticket-4711.tar.gz --env stage --json',
    '<%= config.bin %> replay withdraw.har --otp 123456',
    '<%= config.bin %> replay run.har --dry-run   # the calls, sent nowhere',
    '<%= config.bin %> replay ticket-4711.tar.gz --env stage --keep-customer --yes   # the recorded customer data',
    '<%= config.bin %> replay ticket-4711.tar.gz --save-scenario repro.yaml   # then: mpay run repro.yaml',
    '<%= config.bin %> replay run.har --save-scenario - | less   # the scenario on stdout',
  ];
  static override args = {
    file: Args.string({ description: 'a HAR (--trace) or a support bundle holding one', required: true }),
  };
  static override flags = {
    otp: Flags.string({ description: 'the one-time code for a withdrawal the trace confirms' }),
    'dry-run': Flags.boolean({ description: 'print the calls it would send; send nothing' }),
    'save-scenario': Flags.string({
      description:
        'write the calls as an editable scenario for `mpay run` to FILE, or - for stdout (hash tokens captured, secrets and customer data left out); send nothing',
      exclusive: ['dry-run', 'otp', 'keep-going', 'keep-customer'],
    }),
    force: Flags.boolean({
      description: 'with --save-scenario: replace an existing FILE (kept otherwise)',
      dependsOn: ['save-scenario'],
    }),
    'keep-customer': Flags.boolean({
      description:
        "send the recorded customer's data (names, e-mail, phone), not neutral values, to a server that is not a sandbox",
    }),
    'keep-going': Flags.boolean({
      description:
        'after a call that failed, send the money calls after it anyway (by default they are not sent)',
    }),
  };

  async run(): Promise<void> {
    const { runReplay } = await import('./run.js');
    await this.execute(runReplay, {
      file: this.args.file,
      json: this.flags.json,
      dryRun: this.flags['dry-run'],
      otp: this.flags.otp,
      keepGoing: this.flags['keep-going'],
      keepCustomer: this.flags['keep-customer'],
      saveScenario: this.flags['save-scenario'],
      force: this.flags.force,
    });
  }
}
