// The sandbox's state on disk (--data): written atomically (a temporary file, fsync, rename), with saves
// coalesced so that a burst of requests writes the file once or twice, not once per request.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

export class DataFile<T> {
  private saving: Promise<void> | null = null;
  private dirty = false;

  /** `snapshot` gives what to write, at the moment of writing. */
  constructor(
    readonly file: string,
    private readonly snapshot: () => T,
  ) {}

  /** What the file holds, or undefined when there is none yet. */
  read(): T | undefined {
    let raw: string;
    try {
      raw = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return JSON.parse(raw) as T;
  }

  /** Schedules a save. */
  changed(): void {
    this.dirty = true;
    if (!this.saving) this.saving = this.saveLoop();
  }

  private async saveLoop(): Promise<void> {
    mkdirSync(dirname(this.file), { recursive: true });
    while (this.dirty) {
      this.dirty = false;
      // Exclusive, of a random name, 0600: never through a link planted beside the data file.
      const tmp = `${this.file}.${randomBytes(8).toString('hex')}.tmp`;
      await writeFile(tmp, JSON.stringify(this.snapshot()), { mode: 0o600, flag: 'wx' });
      const fh = await open(tmp, 'r');
      await fh.sync();
      await fh.close();
      await rename(tmp, this.file);
    }
    this.saving = null;
  }

  /** Waits for pending writes, then writes once more synchronously: used on shutdown. */
  async flush(): Promise<void> {
    if (this.saving) await this.saving;
    const tmp = `${this.file}.${randomBytes(8).toString('hex')}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.snapshot()), { mode: 0o600, flag: 'wx' });
    const fd = openSync(tmp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.file);
  }
}
