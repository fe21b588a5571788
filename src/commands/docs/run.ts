// `mpay docs`: the API documentation's URL on the server in effect, opened on a desktop.
import { spawn } from 'node:child_process';
import type { Factory } from '../../factory.js';
import { printResult } from '../../ui/print.js';

export interface DocsOptions {
  json?: boolean;
  /** open a browser: true, false, or undefined for "on a desktop terminal" */
  open?: boolean;
}

export async function runDocs(opts: DocsOptions, f: Factory): Promise<void> {
  const ctx = await f.context();
  const url = `${ctx.baseUrl}/restapi/documentation`;
  await printResult(f.io, opts.json, { url, openapi: `${url}/openapi.json` }, () => url);
  const desktop =
    process.platform === 'darwin' ||
    process.platform === 'win32' ||
    Boolean(f.environ.DISPLAY || f.environ.WAYLAND_DISPLAY);
  if (opts.open ?? (desktop && f.io.stdoutIsTTY && !opts.json)) {
    const opener =
      process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => f.io.note(`Could not run ${opener}; open the URL above by hand.`));
    child.unref();
  }
}
