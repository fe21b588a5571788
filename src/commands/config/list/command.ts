import { BaseCommand, flagSets, type HelpGroup } from '../../base/base-command.js';

export default class ConfigList extends BaseCommand<typeof ConfigList> {
  static override baseFlags = flagSets.local;
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 8 };
  static override summary = 'List the settings of the current profile (no secrets)';
  static override examples = [
    '<%= config.bin %> config list',
    '<%= config.bin %> config list --profile acme --json',
  ];

  async run(): Promise<void> {
    const { runConfigList } = await import('./run.js');
    await this.execute(runConfigList, { json: this.flags.json, profile: this.flags.profile });
  }
}
