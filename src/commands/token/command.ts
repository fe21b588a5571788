import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';
import { dryRunFlag } from '../base/flags.js';

export default class Token extends BaseCommand<typeof Token> {
  static override baseFlags = flagSets.api;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 10 };
  static override summary = 'Generate a bearer token from the merchant key and cache it';
  static override description =
    'The token is cached per profile, environment, base URL and merchant key (by a fingerprint, never the key itself), and used only with the key that made it; other commands reuse it and get a new one when the API refuses it. It is printed masked unless --show or --json is given.';
  static override examples = [
    '<%= config.bin %> token',
    '<%= config.bin %> token --show',
    'TOKEN=$(<%= config.bin %> token --json | jq -r .token)',
    '<%= config.bin %> token --dry-run',
    'eval "$(<%= config.bin %> token --export)"   # then paste a curl from --dry-run or history show --curl',
  ];
  static override flags = {
    show: Flags.boolean({ description: 'print the whole token' }),
    export: Flags.boolean({
      description: 'print `export MPAY_TOKEN=…` for eval: the curl commands mpay prints read $MPAY_TOKEN',
      exclusive: ['show'],
    }),
    ...dryRunFlag,
  };

  async run(): Promise<void> {
    const { runToken } = await import('./run.js');
    await this.execute(runToken, {
      json: this.flags.json,
      dryRun: this.flags['dry-run'],
      show: this.flags.show,
      export: this.flags.export,
    });
  }
}
