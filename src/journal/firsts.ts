// firsts.bin of a journal's index (key-index.ts): the offsets of the lines that start a reference,
// ascending, 8 bytes each, read back a checked block at a time by a backward walk of the log.
import { closeSync } from 'node:fs';
import { fnv, readBytes } from './bytes.js';

/** An index file that is not what state.json says: the index is built again from the log. */
export class IndexDamaged extends Error {}

export const blockOffsets = 8192;
export const blockBytes = blockOffsets * 8;

/** A backward walk over firsts.bin, a checked block at a time: seek(offset) steps back to `offset`. */
export class FirstsCursor {
  private block: Float64Array<ArrayBufferLike> = new Float64Array(0);
  /** index in the file of block[0] */
  private base: number;
  private i: number;
  constructor(
    private readonly fd: number | undefined,
    count: number,
    private readonly limit: number,
    private readonly sums: number[],
  ) {
    this.base = count;
    this.i = -1;
  }

  /** The current first (the last one not after the offsets passed so far), or undefined. */
  current(): number | undefined {
    return this.i >= 0 ? this.block[this.i] : undefined;
  }

  /** Steps back past every first after `offset`; returns the current one then. */
  seek(offset: number): number | undefined {
    for (;;) {
      if (this.i < 0 && !this.load()) {
        this.i = -1;
        return undefined;
      }
      const v = this.block[this.i]!;
      if (v <= offset) return v;
      this.i--;
    }
  }

  private load(): boolean {
    if (this.base === 0 || this.fd === undefined) return false;
    // whole blocks, as their sums were taken
    const start = Math.floor((this.base - 1) / blockOffsets) * blockOffsets;
    const n = this.base - start;
    const b = readBytes(this.fd, start * 8, this.base * 8);
    if (b.length !== n * 8) throw new IndexDamaged('firsts: cut short');
    if (fnv(b) !== this.sums[start / blockOffsets]) throw new IndexDamaged('firsts: a block was changed');
    const block = new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
    const next = this.block[0];
    for (let k = 0; k < block.length; k++) {
      const v = block[k]!;
      const after = k + 1 < block.length ? block[k + 1]! : next;
      if (!Number.isInteger(v) || v < 0 || v >= this.limit || (after !== undefined && v >= after))
        throw new IndexDamaged('firsts: not ascending offsets of the log');
    }
    this.block = block;
    this.base = start;
    this.i = block.length - 1;
    return true;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }
}
