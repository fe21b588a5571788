// The sandbox's snapshot (FILE.snapshot beside its --data log): the state as the store holds it in memory,
// so that a restart reads it in a few large reads instead of parsing a JSON line a transaction, then
// replays only the lines of the log after the place the snapshot covers. The log stays the record: a
// snapshot that is torn, damaged, of another version or of another log is set aside with a warning and
// the whole log is read.
//
// The file: a header of 64 bytes (the magic "MPAYSNAP", the format version, the length of the description,
// the length of the whole file, the checksum of the description and its kind), the sections (the store's
// typed columns, its reference index, its text slabs), each from an 8-byte boundary, then the description
// (JSON: the log it covers and to which byte, the small parts of the state, the length and checksum of
// each section). A reader may leave sections to read later (the text slabs: a start reads the rest, and
// each of these when it is first needed or soon after); each section is checked against its own checksum
// when it is read. It is written to a temporary file, fsync'd, and renamed over the old one (then the
// folder fsync'd), so a kill -9 while it is written leaves the old snapshot whole.
import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';
import { closeSync, fstatSync, openSync, read, readSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { syncFolder, tempBeside } from './fs-sync.js';

export const snapshotVersion = 2;
const magic = Buffer.from('MPAYSNAP');
const headerBytes = 64;

/**
 * The checksum of a snapshot's parts: CRC-32 where this Node has it (zlib.crc32, Node 20.15 and later;
 * four times as fast as SHA-256 here, which a start of a million transactions feels), else SHA-256. Its
 * kind is in the header: a snapshot whose kind this Node cannot compute is set aside like a damaged one.
 */
interface Checksum {
  update(b: Uint8Array): void;
  /** hex */
  digest(): string;
}
const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
const checksums: Record<number, (() => Checksum) | undefined> = {
  1:
    crc32 &&
    (() => {
      let sum = 0;
      return {
        update: (b) => (sum = crc32(b, sum)),
        digest: () => (sum >>> 0).toString(16).padStart(8, '0'),
      };
    }),
  2: () => {
    const h = createHash('sha256');
    return { update: (b) => h.update(b), digest: () => h.digest('hex') };
  },
};
const checksumNames: Record<number, string> = { 1: 'CRC-32', 2: 'SHA-256' };
const writtenChecksum = crc32 ? 1 : 2;
const pad8 = (n: number) => (8 - (n % 8)) % 8;
const zeros = new Uint8Array(8);
/** a section is hashed and written this much at a time (16 MB hashed holds the event loop a few ms) */
const piece = 16 * 2 ** 20;

/** A snapshot that cannot be used: why, in words. */
export class SnapshotError extends Error {}

export interface SnapshotContent {
  /** what the snapshot describes (JSON); the sections' lengths and checksums are added to it */
  meta: Record<string, unknown>;
  sections: Uint8Array[];
}

export interface WriteOptions {
  /** called once the file is written and synced, before the rename: false leaves the old snapshot */
  beforeRename?: () => Promise<boolean>;
  /** for a test of a kill during the write: waits on this promise after writing this many bytes */
  pause?: { afterBytes: number; until: Promise<void>; onPause: () => void };
}

/** Writes a snapshot atomically (temporary file, fsync, rename, folder fsync); its size, or undefined. */
export async function writeSnapshot(
  file: string,
  content: SnapshotContent,
  opts: WriteOptions = {},
): Promise<number | undefined> {
  const tmp = tempBeside(file);
  const fh = await open(tmp, 'wx', 0o600);
  let renamed = false;
  try {
    let at = headerBytes;
    const write = async (b: Uint8Array, hash?: Checksum) => {
      for (let o = 0; o < b.length; o += piece) {
        const part = b.subarray(o, o + piece);
        hash?.update(part);
        await fh.write(part, 0, part.length, at);
        at += part.length;
        if (opts.pause && at >= opts.pause.afterBytes) {
          opts.pause.onPause();
          await opts.pause.until;
          opts.pause = undefined;
        }
      }
    };
    const sums: string[] = [];
    for (const s of content.sections) {
      const hash = checksums[writtenChecksum]!();
      await write(s, hash);
      sums.push(hash.digest());
      await write(zeros.subarray(0, pad8(s.length)));
    }
    const meta = Buffer.from(
      JSON.stringify({ ...content.meta, sections: content.sections.map((s) => s.length), sums }),
    );
    const metaHash = checksums[writtenChecksum]!();
    await write(meta, metaHash);
    const header = Buffer.alloc(headerBytes);
    magic.copy(header, 0);
    header.writeUInt32LE(snapshotVersion, 8);
    header.writeUInt32LE(meta.length, 12);
    header.writeDoubleLE(at, 16);
    Buffer.from(metaHash.digest(), 'hex').copy(header, 24);
    header.writeUInt32LE(writtenChecksum, 56);
    await fh.write(header, 0, headerBytes, 0);
    await fh.sync();
    await fh.close();
    if (opts.beforeRename && !(await opts.beforeRename())) return undefined;
    renameSync(tmp, file);
    renamed = true;
    syncFolder(file);
    return at;
  } finally {
    if (!renamed) {
      await fh.close().catch(() => {});
      rmSync(tmp, { force: true });
    }
  }
}

/** Where a section lies in the file, and its checksum. */
interface Place {
  at: number;
  length: number;
  sum: string;
}

/**
 * The sections of a snapshot left to read later, from the file as it was opened (a snapshot written since
 * replaces the name, not the file held open). Each is checked against its checksum as it is read; one
 * that fails is a SnapshotError naming it. The file is closed once every one is read.
 */
export class LaterSections {
  /** reads under way off the event loop (the file is not closed under them) */
  private reading = 0;

  constructor(
    private fd: number | undefined,
    private readonly places: Map<number, Place>,
    private readonly kind: number,
  ) {}

  /** The sections still to read, by their number in the file. */
  get pending(): number[] {
    return [...this.places.keys()];
  }

  private place(k: number, target: Uint8Array): Place {
    const p = this.places.get(k);
    if (!p || this.fd === undefined) throw new Error(`section ${k} of the snapshot is not one to read later`);
    if (target.length !== p.length) throw new Error(`section ${k} of the snapshot is ${p.length} bytes`);
    return p;
  }

  /** Section `k` now, into `target` (of its length): a read that holds the event loop. */
  read(k: number, target: Uint8Array): void {
    const p = this.place(k, target);
    readExactly(this.fd!, target, p.at);
    const hash = checksums[this.kind]!();
    hash.update(target);
    check(k, p, hash.digest());
    this.done(k);
  }

  /**
   * Section `k` into `target`, read off the event loop and checked a piece at a time between other work;
   * false when read() took it meanwhile (`target` is then not to be used).
   */
  async readSoon(k: number, target: Uint8Array): Promise<boolean> {
    const p = this.place(k, target);
    const fd = this.fd!;
    this.reading++;
    try {
      for (let o = 0; o < p.length;) {
        const n = await new Promise<number>((resolve, reject) =>
          read(fd, target, o, p.length - o, p.at + o, (err, got) => (err ? reject(err) : resolve(got))),
        );
        if (n === 0)
          throw new SnapshotError(`it ends at byte ${p.at + o}, before its section ${k} does (torn)`);
        o += n;
      }
    } finally {
      this.reading--;
      if (!this.places.has(k)) this.done();
    }
    const hash = checksums[this.kind]!();
    for (let o = 0; o < p.length; o += 2 ** 20) {
      hash.update(target.subarray(o, o + 2 ** 20));
      await new Promise((r) => setImmediate(r));
    }
    if (!this.places.has(k)) return false;
    check(k, p, hash.digest());
    this.done(k);
    return true;
  }

  private done(k?: number): void {
    if (k !== undefined) this.places.delete(k);
    if (this.places.size === 0 && this.reading === 0 && this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  /** Leaves the sections not read yet unread (the file is closed once no read is under way). */
  close(): void {
    this.places.clear();
    this.done();
  }
}

function check(k: number, p: Place, sum: string): void {
  if (sum !== p.sum)
    throw new SnapshotError(
      `its section ${k} (bytes ${p.at} to ${p.at + p.length}) does not match its checksum (damaged)`,
    );
}

function readExactly(fd: number, target: Uint8Array, at: number): void {
  for (let o = 0; o < target.length;) {
    const n = readSync(fd, target, o, target.length - o, at + o);
    if (n === 0) throw new SnapshotError(`it ends at byte ${at + o}, before its sections do (torn)`);
    o += n;
  }
}

/**
 * Reads a snapshot: `into` is handed its description and returns, for each section in order, the byte
 * view to read it into (of the length the file gives it), or null to leave it for later. Throws
 * SnapshotError when the file is torn, damaged, of another version, or not one; undefined when there is
 * none.
 */
export function readSnapshot<M extends Record<string, unknown>>(
  file: string,
  into: (meta: M) => (Uint8Array | null)[],
): { meta: M; later: LaterSections } | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SnapshotError(`it cannot be opened (${(err as Error).message})`);
  }
  let kept = false;
  try {
    const { meta, kind, end } = description<M & { sections?: unknown; sums?: unknown }>(fd);
    const { sections: lengths, sums } = meta;
    let targets: (Uint8Array | null)[];
    try {
      targets = into(meta);
    } catch (err) {
      throw new SnapshotError((err as Error).message);
    }
    if (
      !Array.isArray(lengths) ||
      !Array.isArray(sums) ||
      lengths.length !== targets.length ||
      sums.length !== targets.length ||
      !lengths.every((n) => Number.isSafeInteger(n) && n >= 0) ||
      targets.some((t, k) => t && t.length !== lengths[k])
    )
      throw new SnapshotError('its sections are not the ones its description names (damaged)');
    let at = headerBytes;
    const places = targets.map((_, k) => {
      const place = { at, length: lengths[k] as number, sum: String(sums[k]) };
      at += place.length + pad8(place.length);
      return place;
    });
    if (at !== end) throw new SnapshotError('its sections and its description do not fill it (damaged)');
    const later = new Map<number, Place>();
    targets.forEach((t, k) => {
      const place = places[k]!;
      if (!t) return later.set(k, place);
      readExactly(fd, t, place.at);
      const hash = checksums[kind]!();
      hash.update(t);
      check(k, place, hash.digest());
    });
    kept = later.size > 0;
    return { meta, later: new LaterSections(kept ? fd : undefined, later, kind) };
  } finally {
    if (!kept) closeSync(fd);
  }
}

/**
 * The header, checked, and the description at the file's end, checked against the header's checksum;
 * `end`, where the description starts.
 */
function description<M>(fd: number): { meta: M; kind: number; end: number } {
  const size = fstatSync(fd).size;
  const header = Buffer.alloc(headerBytes);
  if (readSync(fd, header, 0, headerBytes, 0) !== headerBytes || !header.subarray(0, 8).equals(magic))
    throw new SnapshotError('it is not a snapshot of the sandbox');
  const version = header.readUInt32LE(8);
  if (version !== snapshotVersion)
    throw new SnapshotError(`it is of version ${version} (this mpay reads ${snapshotVersion})`);
  if (header.readDoubleLE(16) !== size)
    throw new SnapshotError(`it is ${size} bytes where its header says ${header.readDoubleLE(16)} (torn)`);
  const kind = header.readUInt32LE(56);
  const sum = checksums[kind];
  if (!sum)
    throw new SnapshotError(
      `its checksum is of a kind (${checksumNames[kind] ?? kind}) this Node cannot compute`,
    );
  const metaBytes = header.readUInt32LE(12);
  if (metaBytes > size - headerBytes) throw new SnapshotError('its description runs past its end (torn)');
  const text = Buffer.alloc(metaBytes);
  readExactly(fd, text, size - metaBytes);
  const hash = sum();
  hash.update(text);
  const written = hash.digest();
  if (written !== header.toString('hex', 24, 24 + written.length / 2))
    throw new SnapshotError('its description does not match its checksum (damaged)');
  try {
    return { meta: JSON.parse(text.toString('utf8')) as M, kind, end: size - metaBytes };
  } catch {
    throw new SnapshotError('its description is not JSON (damaged)');
  }
}

/** The SHA-256 (hex) of bytes [from, to) of a file: what ties a snapshot to the log it covers. */
export function hashOfRange(file: string, from: number, to: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    if (fstatSync(fd).size < to) return undefined;
    const buf = Buffer.alloc(to - from);
    if (readSync(fd, buf, 0, buf.length, from) !== buf.length) return undefined;
    return createHash('sha256').update(buf).digest('hex');
  } finally {
    closeSync(fd);
  }
}
