import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { BaseCommand, type Host, type HelpGroup } from '../base/base-command.js';
import type { CommandInfo } from '../../flows/scenario/scenario-check.js';

export default class Run extends BaseCommand<typeof Run> {
  static helpGroup: HelpGroup = { section: 'SUPPORT', order: 3 };
  static override summary = 'Run scenario files: named steps with captures and expectations';
  static override description = `Each FILE (YAML or JSON) is a list of named steps, run in order: an mpay command with its flags (\`run: deposit initiate\`), or a raw request (\`request: {method, path, json}\`) sent as \`mpay api\` sends it. A step may capture values from its result by JMESPath and expect an exit code or kind, an HTTP status, and values (equals, matches, exists, min/max). Later steps use \${capture}, variables (--var, --vars FILE, MPAY_VAR_name) and \${run.reference}, a fresh reference per run; a value is substituted once, never read again as a reference.

The files are checked whole before anything is sent (an unknown command, flag or key, an undefined capture, a cycle, a variable not given: file:line:column, exit 2). Every money step passes the same gate, journal and locks as the command would; on a live server the run is confirmed once on a terminal, naming its money steps, or needs --yes. After a failed step the run goes on (--keep-going, the default) or stops (--fail-fast): say which in CI. Either way a failed money step stops the money steps after it in its file (unless the file says after_money_failure: continue).

Exit 0 when every expectation held, 14 when one did not, 130 on Ctrl-C (the step in flight finishes, the reports are written; a second Ctrl-C stops at once), and the usual codes for errors before any step. See docs/scenarios.md.`;
  static override examples = [
    '<%= config.bin %> run examples/credentials-smoke.yaml --keep-going --report junit=smoke.xml   # CI after each deploy',
    '<%= config.bin %> run examples/wallet-step-failure.yaml --var gateway=5 --json   # a support reproduction',
    '<%= config.bin %> run smoke.yaml deposit.yaml --fail-fast --report tap=results.tap --ndjson',
    '<%= config.bin %> run payout.yaml --env live --vars live-vars.yaml --yes   # CI: confirmed by --yes',
    'printf %s "$CODE" | <%= config.bin %> run withdraw-repro.yaml --otp-stdin   # a saved withdrawal, confirmed',
  ];
  static override strict = false;
  static override args = {
    file: Args.string({
      description: 'a scenario file (YAML or JSON); give several to run each in turn',
      required: true,
    }),
  };
  static override flags = {
    var: Flags.string({
      description: 'a variable, name=value (repeatable)',
      multiple: true,
      // one value a flag, so that the files may follow it (mpay run --var a=1 file.yaml)
      multipleNonGreedy: true,
    }),
    vars: Flags.string({ description: 'a YAML or JSON file of variables' }),
    'otp-stdin': Flags.boolean({
      description:
        'read the one-time code a scenario confirms a withdrawal with (the variable otp) from stdin; on a terminal it is asked when not given',
    }),
    'fail-fast': Flags.boolean({
      description: 'stop at the first failed step; the steps after it are not run',
      exclusive: ['keep-going'],
    }),
    'keep-going': Flags.boolean({
      description:
        'the default: after a failed step run the others (a failed money step still stops the money steps after it)',
      exclusive: ['fail-fast'],
    }),
    ndjson: Flags.boolean({
      description: 'one JSON record a step on stdout, as each ends',
      exclusive: ['json'],
    }),
    report: Flags.string({
      description: 'junit=FILE or tap=FILE: a report for CI (repeatable)',
      multipleNonGreedy: true,
      multiple: true,
    }),
  };

  /** --ndjson: an error before any step is a record on stdout too (one line), as --json's error document. */
  protected override async catch(err: Error & { oclif?: { exit?: number }; code?: string }): Promise<void> {
    const flags = this.flags as { ndjson?: boolean; json?: boolean } | undefined;
    if (flags ? flags.ndjson : this.argv.includes('--ndjson')) {
      this.io.ndjson = true;
      if (flags) flags.json = true;
      else this.argv.push('--json');
    }
    return super.catch(err);
  }

  async run(): Promise<void> {
    const { runRun } = await import('./run.js');
    const f = this.flags;
    const config = this.config;
    await this.execute(runRun, {
      files: this.argvGiven,
      vars: f.var,
      varsFile: f.vars,
      otpStdin: f['otp-stdin'],
      failFast: f['fail-fast'],
      json: f.json,
      ndjson: f.ndjson,
      reports: f.report,
      commands: {
        info: (id: string): CommandInfo | undefined => {
          const c = config.findCommand(id);
          if (!c) return undefined;
          const flags: CommandInfo['flags'] = {};
          for (const [name, flag] of Object.entries(c.flags))
            flags[name] = {
              type: flag.type,
              allowNo: flag.type === 'boolean' ? Boolean(flag.allowNo) : undefined,
              multiple: flag.type === 'option' ? Boolean(flag.multiple) : undefined,
            };
          return { flags, args: Object.keys(c.args ?? {}).length };
        },
        // In this process, as oclif would run it: the step's own IO, the run's Factory (one gate).
        run: async (id: string, argv: string[], host: Host): Promise<void> => {
          const Cmd = (await config.findCommand(id)!.load()) as unknown as {
            id?: string;
            new (
              argv: string[],
              c: typeof config,
            ): BaseCommand<typeof BaseCommand> & { _run(): Promise<unknown> };
          };
          Cmd.id = id;
          const cmd = new Cmd(argv, config);
          cmd.id = id;
          await cmd.withHost(host)._run();
        },
      },
    });
  }
}
