import * as Flags from '@oclif/core/flags';
import { spawn } from 'node:child_process';
import { BaseCommand } from '../cli/base-command.js';

export default class Docs extends BaseCommand<typeof Docs> {
  static override summary = "Print (and on a desktop, open) the environment's interactive API documentation";
  static override examples = ['<%= config.bin %> docs', '<%= config.bin %> docs --env stage --no-open'];
  static override flags = {
    open: Flags.boolean({
      description: 'open it in a browser (default on a desktop terminal)',
      allowNo: true,
    }),
  };

  async run(): Promise<void> {
    const ctx = await this.loadContext();
    const url = `${ctx.baseUrl}/restapi/documentation`;
    await this.emit({ url, openapi: `${url}/openapi.json` }, () => url);
    const desktop =
      process.platform === 'darwin' ||
      process.platform === 'win32' ||
      Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
    if (this.flags.open ?? (desktop && process.stdout.isTTY && !this.jsonMode)) {
      const opener =
        process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
      const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
      child.on('error', () => this.note(`Could not run ${opener}; open the URL above by hand.`));
      child.unref();
    }
  }
}
