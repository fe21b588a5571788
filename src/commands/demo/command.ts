import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';

export default class Demo extends BaseCommand<typeof Demo> {
  static override baseFlags = flagSets.standalone;
  static helpGroup: HelpGroup = { section: 'GETTING STARTED', order: 3 };
  static override summary = 'A deposit and a withdraw against a sandbox in this process';
  static override description = `No account, no configuration, no network: starts the sandbox on a free loopback port, then runs a USDT deposit (with its wallet address update) and a mobile-money withdrawal (with the one-time code), showing each step and the request it sends. Nothing is written to your mpay configuration; the demo's journal lives in a temporary folder that is removed at the end.`;
  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --json | jq ".[].status"'];

  async run(): Promise<void> {
    const { runDemo } = await import('./run.js');
    await this.execute(runDemo, { json: this.flags.json });
  }
}
