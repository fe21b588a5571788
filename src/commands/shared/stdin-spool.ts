// A batch read from stdin (`mpay deposit batch -`) is read twice, checked and then run, so its rows are
// kept in a file meanwhile. Those rows are customers' data: the file is made 0600, exclusively, in mpay's
// own private folder beside the journal (journal/spool/, 0700), never in the shared temporary folder, and
// removed when the batch ends, however it ends: done, refused, failed, or ended by Ctrl-C or SIGTERM (the
// IO's atExit). A run killed outright (SIGKILL, a power cut) cannot remove it: the next batch from stdin
// removes every spooled file whose process is gone.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { IO } from '../../io/io.js';
import { requirePrivate } from '../../common/private-path.js';
import { processGone } from '../../common/liveness.js';

export interface Spooled {
  path: string;
  /** removes the file (again: nothing) */
  remove(): void;
}

/** The spool folder of a journal folder. */
export function spoolDir(journalDir: string): string {
  return join(journalDir, 'spool');
}

export async function spoolStdin(io: IO, journalDir: string): Promise<Spooled> {
  const dir = spoolDir(journalDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  requirePrivate(dir, 'folder', 'batch spool');
  for (const name of readdirSync(dir)) {
    const pid = Number(/^stdin-(\d+)-/.exec(name)?.[1]);
    if (pid && pid !== process.pid && processGone(pid)) rmSync(join(dir, name), { force: true });
  }
  const path = join(dir, `stdin-${process.pid}-${randomBytes(6).toString('hex')}`);
  const remove = () => {
    rmSync(path, { force: true });
    unregister();
  };
  const unregister = io.interrupts.atExit(remove);
  try {
    writeFileSync(path, await io.readStdin(), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    remove();
    throw err;
  }
  return { path, remove };
}
