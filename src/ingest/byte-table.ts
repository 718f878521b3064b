/**
 * Byte strings → small integer ids: the one table the tokenizer interns by bytes with (labels,
 * label-table.ts; args objects, args-table.ts; short strings of the exact path, the tokenizer's
 * intern). Open addressing with linear probing, kept at most half full, the keys copied into one
 * arena, a key's bytes compared 4 at a time. What an id stands for is its user's: the table
 * stores only the bytes and the id it was given. The hash is the user's too, computed as it
 * scans the bytes (json-bytes.ts hashStep for labels and args, a sampled one for the intern).
 *
 * A key is the concatenation of byte ranges (an args object's kept members), most often one
 * (a label, a string). add stores at the slot where the last find missed: no other find on the
 * same table in between. native/byte-table.h is the native reader's mirror.
 *
 * Pure: no `node:` imports.
 */

export class ByteTable {
  private mask = 0;
  /** [hash, arena offset, length, id + 1] per slot (id + 1 = 0: empty). */
  private meta = new Int32Array(0);
  private arena = new Uint8Array(0);
  private arenaView = new DataView(this.arena.buffer);
  private arenaLen = 0;
  private used = 0;
  // Where the last find missed, for add.
  private missSlot = 0;
  private missHash = 0;

  /** 2^bits slots to start with (doubled whenever half are used). */
  constructor(bits: number) {
    // The fields that change as the table grows are written here a second time: V8 then takes
    // them as mutable from the first table on. Else the first table to grow (the args table's
    // arena) would make them so in the middle of a read, and throw away the optimised code of
    // every user of every table (measured: fastEvent deoptimised on the 160 MB trace).
    this.mask = (1 << bits) - 1;
    this.meta = new Int32Array((this.mask + 1) * 4);
    this.arena = new Uint8Array(1 << 16);
    this.arenaView = new DataView(this.arena.buffer);
  }

  /**
   * The id of the concatenation of b[r[0], r[1]), b[r[2], r[3]), … (n ranges, len bytes in all)
   * of hash h, or −1 (then add stores it). `view` is a DataView over b's bytes.
   */
  find(b: Uint8Array, view: DataView, r: Int32Array, n: number, len: number, h: number): number {
    const meta = this.meta;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const k = slot << 2;
      const id1 = meta[k + 3]!;
      if (id1 === 0) break;
      if (meta[k] === h && meta[k + 2] === len) {
        // The ranges against the arena, 4 bytes at a time, then the tail.
        const a = this.arena;
        const av = this.arenaView;
        let o = meta[k + 1]!;
        let same = true;
        for (let j = 0; j < 2 * n && same; j += 2) {
          let i = r[j]!;
          const e = r[j + 1]!;
          while (i + 4 <= e && av.getInt32(o, true) === view.getInt32(i, true)) {
            o += 4;
            i += 4;
          }
          while (i < e && a[o] === b[i]) {
            o++;
            i++;
          }
          same = i === e;
        }
        if (same) return id1 - 1;
      }
      slot = (slot + 1) & mask;
    }
    this.missSlot = slot;
    this.missHash = h;
    return -1;
  }

  /** Stores the content the last find missed (len bytes), as `id`. */
  add(b: Uint8Array, r: Int32Array, n: number, len: number, id: number): void {
    const off = this.reserve(len);
    let o = off;
    for (let j = 0; j < 2 * n; j += 2) {
      this.arena.set(b.subarray(r[j]!, r[j + 1]!), o);
      o += r[j + 1]! - r[j]!;
    }
    this.store(off, len, id);
  }

  /** The arena offset of `len` new bytes (the arena doubled when they do not fit). */
  private reserve(len: number): number {
    const used = this.arenaLen;
    if (used + len > this.arena.length) {
      const grown = new Uint8Array(Math.max(this.arena.length * 2, used + len));
      grown.set(this.arena.subarray(0, used));
      this.arena = grown;
      this.arenaView = new DataView(grown.buffer);
    }
    this.arenaLen = used + len;
    return used;
  }

  private store(off: number, len: number, id: number): void {
    const k = this.missSlot << 2;
    const meta = this.meta;
    meta[k] = this.missHash;
    meta[k + 1] = off;
    meta[k + 2] = len;
    meta[k + 3] = id + 1;
    this.used++;
    if (this.used * 2 > this.mask) this.grow();
  }

  /** The slots in a table twice as large. */
  private grow(): void {
    const meta = this.meta;
    const mask = (this.mask + 1) * 2 - 1;
    const grown = new Int32Array((mask + 1) * 4);
    for (let k = 0; k < meta.length; k += 4) {
      if (meta[k + 3] === 0) continue;
      let slot = meta[k]! & mask;
      while (grown[(slot << 2) + 3] !== 0) slot = (slot + 1) & mask;
      grown.set(meta.subarray(k, k + 4), slot << 2);
    }
    this.meta = grown;
    this.mask = mask;
  }
}
