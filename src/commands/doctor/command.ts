import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override baseFlags = flagSets.probe;
  static helpGroup: HelpGroup = { section: 'GETTING STARTED', order: 2 };
  static override summary = 'Check the base URL, the credentials, and what is open to them';
  static override description = `One line per check. Exits 0 only when every check passes; otherwise with the exit code of the first failure's kind (3 auth, 8 network, …; 6 when a check finds nothing open, such as no gateway for withdrawals).

The API key check sends a withdraw initiate that carries only the credentials: the API rejects it for the missing customer fields, so nothing is created, and answers 403 when a credential is wrong. It passes the money gate as a probe; on a live server it is skipped unless --check-api-key asks for it (then confirmed like any live money call).`;
  static override flags = {
    'check-api-key': Flags.boolean({
      description:
        'on a live server too, send the API-key check (a withdraw initiate of the credentials alone)',
    }),
  };
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --profile acme --env stage',
    '<%= config.bin %> doctor --json | jq .checks',
    '<%= config.bin %> doctor --env live --check-api-key',
  ];

  async run(): Promise<void> {
    const { runDoctor } = await import('./run.js');
    await this.execute(runDoctor, { json: this.flags.json, checkApiKey: this.flags['check-api-key'] });
  }
}
