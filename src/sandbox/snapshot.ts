// The sandbox's snapshot (FILE.snapshot beside its --data log): the state as the store holds it in memory,
// so that a restart reads it in a few large reads instead of parsing a JSON line a transaction, then
// replays only the lines of the log after the place the snapshot covers. The log stays the record: a
// snapshot that is torn, damaged, of another version or of another log is set aside with a warning and
// the whole log is read.
//
// The file: a header of 64 bytes (the magic "MPAYSNAP", the format version, the length of the description,
// the length of the whole file, the checksum of everything after the header and its kind), the description (JSON: the
// log it covers and to which byte, the small parts of the state, the length of each section), then the
// sections (the store's typed columns, its reference index, its text slabs), each from an 8-byte boundary.
// It is written to a temporary file, fsync'd, and renamed over the old one (then the folder fsync'd), so a
// kill -9 while it is written leaves the old snapshot whole.
import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { syncFolder, tempBeside } from './fs-sync.js';

export const snapshotVersion = 1;
const magic = Buffer.from('MPAYSNAP');
const headerBytes = 64;

/**
 * The checksum of a snapshot's content: CRC-32 where this Node has it (zlib.crc32, Node 20.15 and later;
 * four times as fast as SHA-256 here, which a start of a million transactions feels), else SHA-256. Its
 * kind is in the header: a snapshot whose kind this Node cannot compute is set aside like a damaged one.
 */
interface Checksum {
  update(b: Uint8Array): void;
  /** 32 bytes: the sum, zero-padded */
  digest(): Buffer;
}
const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
const checksums: Record<number, (() => Checksum) | undefined> = {
  1:
    crc32 &&
    (() => {
      let sum = 0;
      return {
        update: (b) => (sum = crc32(b, sum)),
        digest: () => {
          const out = Buffer.alloc(32);
          out.writeUInt32LE(sum >>> 0, 0);
          return out;
        },
      };
    }),
  2: () => createHash('sha256'),
};
const checksumNames: Record<number, string> = { 1: 'CRC-32', 2: 'SHA-256' };
const writtenChecksum = crc32 ? 1 : 2;
const pad8 = (n: number) => (8 - (n % 8)) % 8;
const zeros = new Uint8Array(8);

/** A snapshot that cannot be used: why, in words. */
export class SnapshotError extends Error {}

export interface SnapshotContent {
  /** what the snapshot describes (JSON); the section lengths are added to it */
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
  const meta = Buffer.from(
    JSON.stringify({ ...content.meta, sections: content.sections.map((s) => s.length) }),
  );
  const parts: Uint8Array[] = [meta, zeros.subarray(0, pad8(meta.length))];
  for (const s of content.sections) parts.push(s, zeros.subarray(0, pad8(s.length)));
  const hash = checksums[writtenChecksum]!();
  let size = headerBytes;
  for (const p of parts) size += p.length;
  const tmp = tempBeside(file);
  const fh = await open(tmp, 'wx', 0o600);
  let renamed = false;
  try {
    let at = headerBytes;
    for (const p of parts) {
      // a section at a time: the hash of 16 MB holds the event loop for a few ms, the write none
      for (let o = 0; o < p.length; o += 16 * 2 ** 20) {
        const piece = p.subarray(o, o + 16 * 2 ** 20);
        hash.update(piece);
        await fh.write(piece, 0, piece.length, at);
        at += piece.length;
        if (opts.pause && at >= opts.pause.afterBytes) {
          opts.pause.onPause();
          await opts.pause.until;
          opts.pause = undefined;
        }
      }
    }
    const header = Buffer.alloc(headerBytes);
    magic.copy(header, 0);
    header.writeUInt32LE(snapshotVersion, 8);
    header.writeUInt32LE(meta.length, 12);
    header.writeDoubleLE(size, 16);
    hash.digest().copy(header, 24);
    header.writeUInt32LE(writtenChecksum, 56);
    await fh.write(header, 0, headerBytes, 0);
    await fh.sync();
    await fh.close();
    if (opts.beforeRename && !(await opts.beforeRename())) return undefined;
    renameSync(tmp, file);
    renamed = true;
    syncFolder(file);
    return size;
  } finally {
    if (!renamed) {
      await fh.close().catch(() => {});
      rmSync(tmp, { force: true });
    }
  }
}

/**
 * Reads a snapshot: `into` is handed its description and returns the byte views its sections are read
 * into (each must be the length the file gives it). Throws SnapshotError when the file is torn, damaged,
 * of another version, or not one; undefined when there is none.
 */
export function readSnapshot<M extends Record<string, unknown>>(
  file: string,
  into: (meta: M) => Uint8Array[],
): M | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SnapshotError(`it cannot be opened (${(err as Error).message})`);
  }
  try {
    const r = new SnapshotReader(fd);
    const meta = r.description<M & { sections?: unknown }>();
    const lengths = meta.sections;
    let targets: Uint8Array[];
    try {
      targets = into(meta);
    } catch (err) {
      throw new SnapshotError((err as Error).message);
    }
    if (
      !Array.isArray(lengths) ||
      lengths.length !== targets.length ||
      targets.some((t, k) => t.length !== lengths[k])
    )
      throw new SnapshotError('its sections are not the ones its description names (damaged)');
    for (const t of targets) r.read(t);
    r.end();
    return meta;
  } finally {
    closeSync(fd);
  }
}

/** The read of a snapshot's parts in order, each hashed, the header checked first and the hash last. */
class SnapshotReader {
  private readonly size: number;
  private readonly header = Buffer.alloc(headerBytes);
  private readonly hash: Checksum;
  private at = headerBytes;

  constructor(private readonly fd: number) {
    this.size = fstatSync(fd).size;
    const { header, size } = this;
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
    this.hash = sum();
  }

  /** The description (JSON) after the header. */
  description<M>(): M {
    const metaBytes = this.header.readUInt32LE(12);
    if (metaBytes > this.size - headerBytes)
      throw new SnapshotError('its description runs past its end (torn)');
    const text = Buffer.alloc(metaBytes);
    this.read(text);
    try {
      return JSON.parse(text.toString('utf8')) as M;
    } catch {
      throw new SnapshotError('its description is not JSON (damaged)');
    }
  }

  private readExactly(target: Uint8Array): void {
    for (let o = 0; o < target.length;) {
      const n = readSync(this.fd, target, o, target.length - o, this.at + o);
      if (n === 0) throw new SnapshotError(`it ends at byte ${this.at + o}, before its sections do (torn)`);
      o += n;
    }
    this.hash.update(target);
    this.at += target.length;
  }

  /** A part, then the zeros that bring the next to an 8-byte boundary. */
  read(target: Uint8Array): void {
    this.readExactly(target);
    this.readExactly(new Uint8Array(pad8(target.length)));
  }

  /** Nothing after the last part, and the hash of them all the header's. */
  end(): void {
    if (this.at !== this.size)
      throw new SnapshotError(`it has ${this.size - this.at} bytes after its last section (damaged)`);
    if (!this.hash.digest().equals(this.header.subarray(24, 56)))
      throw new SnapshotError('its checksum does not match its content (damaged)');
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
