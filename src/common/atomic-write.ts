// A file written whole or not at all, for what mpay still keeps as a file rather than in SQLite (the
// --trace HAR, the executable's native addons): the bytes go to a temporary file of a random name beside
// it, created exclusively (never through a link another user planted, in /tmp say) and with its mode
// whatever the umask, then renamed over the file. A reader sees the old file or the new one, never half.
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';

/** Writes `data` to `file` at once (0600 unless `mode`); on a failure the temporary file is removed. */
export function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o600): void {
  const tmp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, data, { mode, flag: 'wx' });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
