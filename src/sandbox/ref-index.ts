// The customer_transaction_ids the sandbox holds, for the uniqueness check of initiate, kept off V8's heap:
// a 32-bit hash a transaction (a typed column) and an open-addressing table of transaction indexes keyed
// by it (linear probing, at most half full). A hit is confirmed by comparing the reference itself, read
// from the store. A Set of a million strings cost about 65 bytes a transaction of heap and 1.5 s to
// rebuild at a restart; this costs 12 bytes and is written in the snapshot as it is.

/** FNV-1a over the string's UTF-16 code units, then murmur3's finaliser (FNV's low bits alone cluster). */
export function refHash(ref: string): number {
  let x = 0x811c9dc5;
  for (let k = 0; k < ref.length; k++) {
    x ^= ref.charCodeAt(k);
    x = Math.imul(x, 16777619);
  }
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

export class RefIndex {
  /** slot: transaction index + 1, 0 when empty */
  table: Int32Array;
  private count = 0;

  constructor(
    /** the hash of each transaction's reference (the store's column, read at each rehash) */
    private readonly hashes: () => Uint32Array,
    /** the reference of transaction `i` */
    private readonly refAt: (i: number) => string,
    table?: Int32Array,
    count = 0,
  ) {
    this.table = table ?? new Int32Array(2048);
    this.count = count;
  }

  has(ref: string): boolean {
    const mask = this.table.length - 1;
    const hash = refHash(ref);
    const hashes = this.hashes();
    for (let p = hash & mask; ; p = (p + 1) & mask) {
      const slot = this.table[p]!;
      if (slot === 0) return false;
      if (hashes[slot - 1] === hash && this.refAt(slot - 1) === ref) return true;
    }
  }

  /** Adds transaction `i`, whose reference's hash is already in the column. */
  add(i: number): void {
    if (2 * (this.count + 1) > this.table.length) this.rehash(this.table.length * 2);
    this.place(this.table, i);
    this.count++;
  }

  private place(table: Int32Array, i: number): void {
    const mask = table.length - 1;
    let p = this.hashes()[i]! & mask;
    // (the column is read again each call: it is replaced when the store grows)
    while (table[p] !== 0) p = (p + 1) & mask;
    table[p] = i + 1;
  }

  private rehash(size: number): void {
    const table = new Int32Array(size);
    for (let i = 0; i < this.count; i++) this.place(table, i);
    this.table = table;
  }
}
