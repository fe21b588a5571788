// A port to suggest when the one asked for is taken: the next one that is free now on that host (tried by
// listening on it for a moment), so that the hint never names a busy port.
import { createServer } from 'node:net';

function free(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

/** The first free port after `port` (up to 50 further), or undefined when none is. */
export async function freePortAfter(host: string, port: number): Promise<number | undefined> {
  for (let p = port + 1; p <= Math.min(65535, port + 50); p++) if (await free(host, p)) return p;
  return undefined;
}

/** The hint of a port in use: a free one to pass, else any free one. */
export async function portInUseHint(host: string, port: number, what: string): Promise<string> {
  const next = await freePortAfter(host, port);
  return `${what}${next ? `--port ${next} (free now)` : ''}${next ? ', or ' : ''}--port 0 for any free one`;
}
