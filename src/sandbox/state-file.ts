// Reading the sandbox's holdings back from --data at a start: the snapshot (if it matches the log), then the
// log's lines after it (or the whole log), a version 1 file converted; then the log opened for appending
// and the snapshots' schedule started. The snapshot's text slabs are read after the start, off the event
// loop (or when first needed): one found damaged then is set aside like a snapshot damaged at the start,
// and the state read again from the whole log.
import { copyFileSync, constants, rmSync, statSync } from 'node:fs';
import { LocalFileError } from '../api/errors.js';
import { DataLog, formatVersion, writeWholeSync } from './data-log.js';
import { removeLeftovers } from './fs-sync.js';
import type { Holdings } from './holdings.js';
import { readLog, type Loaded } from './log-read.js';
import {
  adopt,
  loadSnapshot,
  logBehind,
  mismatch,
  Snapshots,
  type SnapshotSchedule,
} from './state-snapshot.js';
import { TxStore } from './tx-store.js';

export interface DataOptions {
  /** lines the data file may hold beyond twice the state's before it is compacted */
  compactSlack?: number;
  snapshot?: SnapshotSchedule;
  log: (line: string) => void;
}

/**
 * The log does not reach the place its snapshot covers: missing, empty, or shorter (cut, or put back from an
 * older copy). Read as it is, the transactions after its end would be lost, and the snapshot, which still
 * holds them, overwritten at the next one: the start refuses, having written nothing.
 */
export class LogBehindSnapshotError extends LocalFileError {
  constructor(
    readonly file: string,
    readonly snapshotFile: string,
    /** the log's size in bytes; undefined when there is none */
    readonly size: number | undefined,
    /** the byte of the log the snapshot covers (unknown when the log is missing or empty) */
    readonly covers?: number,
  ) {
    const what =
      size === undefined || size === 0
        ? `${size === undefined ? 'is missing' : 'is empty (0 bytes)'}, but its snapshot ${snapshotFile} is there: the transactions it holds would be lost`
        : `ends at byte ${size}, before byte ${covers}, where its snapshot ${snapshotFile} stands: the transactions written to the log after byte ${size} would be lost`;
    super(`The sandbox's data log ${file} ${what}. Nothing was written`, {
      hint: `Put the whole log back at ${file} (from a copy), or, to start from the log alone and lose what only the snapshot holds, move the snapshot aside: mv ${snapshotFile} ${snapshotFile}.aside`,
    });
  }
}

const sizeOf = (file: string) => {
  try {
    return statSync(file).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
};

/** How a start found its data file: new (none, or 0 bytes) and so empty, or holding transactions. */
export interface DataStart {
  fresh: boolean;
  transactions: number;
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(2)} s`;

/** Reads the holdings from `file` (and its snapshot): the open log and the snapshots' schedule. */
export async function openData(
  h: Holdings,
  file: string,
  opts: DataOptions,
): Promise<{ data: DataLog; snapshots: Snapshots; started: DataStart }> {
  const started = performance.now();
  const { log } = opts;
  const snapFile = `${file}.snapshot`;
  // A snapshot without its log (none, or an empty one): before anything is read, removed or written.
  const size = sizeOf(file);
  if (!size && (sizeOf(snapFile) ?? 0) > 0) throw new LogBehindSnapshotError(file, snapFile, size);
  for (const name of removeLeftovers(file)) log(`removed ${name}, left by an interrupted write`);
  const setAside = (why: string) => log(`set aside the snapshot ${snapFile}: ${why}; reading the whole log`);
  const snap = loadSnapshot(snapFile, setAside);
  let header = '';
  let resumed: { bytes: number; lines: number; offset: number } | undefined;
  const loaded = readLog(
    file,
    (line) => h.replay(line),
    (head) => {
      header = head.text;
      // the log of the snapshot, shorter than the place it covers: refused before the log is written
      const behind = snap && logBehind(snap, head, file);
      if (behind !== undefined) {
        snap!.close();
        throw new LogBehindSnapshotError(file, snapFile, behind, snap!.meta.offset);
      }
      const why = snap && mismatch(snap, head, file);
      if (why) {
        setAside(why);
        snap.close();
      }
      if (!snap || why) {
        h.store = new TxStore(Buffer.from(head.secret, 'hex'));
        return undefined;
      }
      const resume = adopt(h, snap);
      resumed = { bytes: snap.bytes, ...resume };
      return resume;
    },
  );
  const secret = loaded?.secret || h.store.secret.toString('hex');
  let read = loaded && !loaded.v1 ? { header, lines: loaded.lines } : undefined;
  if (loaded?.v1) read = convert(h, file, loaded, log);
  if (loaded?.recovered) log(`recovered ${file}: ${loaded.recovered}`);
  if (loaded && !loaded.v1)
    log(
      resumed
        ? `read ${file}: ${h.store.size} transactions, from its snapshot (${(resumed.bytes / 2 ** 20).toFixed(1)} MB) and the ${loaded.lines - resumed.lines} lines of the log after it, in ${seconds(started)}`
        : `read ${file}: ${h.store.size} transactions, ${loaded.lines} lines, in ${seconds(started)}`,
    );
  const data = await DataLog.open(file, secret, read, {
    liveLines: () => h.liveLines(),
    stateLines: () => h.stateLines(),
    slack: opts.compactSlack ?? 100_000,
    log,
    onCompacted: () => void snapshots.request(),
  });
  h.data = data;
  const covered = resumed && { header, offset: resumed.offset };
  const snapshots = new Snapshots(snapFile, h, data, { ...opts.snapshot, log }, covered);
  if (resumed) {
    let damaged = false;
    h.store.onDamage = (err) => {
      if (damaged) return;
      damaged = true;
      void readAgain(h, data, snapshots, `${err.message}`, opts.log);
    };
    if (opts.snapshot?.readLater !== false) void h.store.readLater();
  }
  return { data, snapshots, started: { fresh: !loaded, transactions: h.store.size } };
}

/**
 * A slab of the snapshot, read after the start, was damaged: the snapshot is removed and the holdings read
 * again from the whole log, once every change made since the start is written and synced to it (the read
 * holds the event loop, so none comes between); then a new snapshot is written.
 */
async function readAgain(
  h: Holdings,
  data: DataLog,
  snapshots: Snapshots,
  why: string,
  log: (line: string) => void,
): Promise<void> {
  log(`set aside the snapshot ${snapshots.file}: ${why}; reading the whole log`);
  do await data.synced();
  while (!data.settled());
  const started = performance.now();
  h.reset(Buffer.from(data.secret, 'hex'));
  try {
    const loaded = readLog(
      data.file,
      (line) => h.replay(line),
      () => undefined,
    );
    log(`read ${data.file}: ${h.store.size} transactions, ${loaded?.lines} lines, in ${seconds(started)}`);
  } catch (err) {
    // the log was read at the start; it fails now only if something else wrote it meanwhile
    log(`could not read ${data.file} again: ${(err as Error).message}`);
    return;
  }
  rmSync(snapshots.file, { force: true });
  snapshots.forget();
  void snapshots.request();
}

/** A version 1 file, read into the holdings, written again in this format (the old one kept beside). */
function convert(h: Holdings, file: string, loaded: Loaded, log: (line: string) => void) {
  h.restoreV1(file, loaded.v1!);
  const backup = `${file}.v1`;
  try {
    copyFileSync(file, backup, constants.COPYFILE_EXCL);
  } catch {
    // a backup of an earlier conversion is kept as it is
  }
  const header = writeWholeSync(file, h.store.secret.toString('hex'), h.stateLines());
  log(
    `converted ${file} from version 1 to format ${formatVersion} (${h.store.size} transactions; the old file kept as ${backup})`,
  );
  return { header, lines: 1 + h.liveLines() };
}
