/**
 * Interned `args` objects, keyed by the bytes of the members kept: the ops of a training loop
 * repeat the same `Input Dims` / `Input type` / `Concrete Inputs` step after step, and kernels
 * the same `grid` / `block` / `stream`, so a trace of millions of events holds a few thousand
 * distinct args. Each distinct one is parsed once; every event with the same bytes shares it.
 *
 * The per-event ids (`External id`, `correlation`, `Ev Idx`, …) are left out of the key by the
 * tokenizer (they are dropped from the kept object, see ArgsPolicy): otherwise no two events
 * would share.
 *
 * Pure: no `node:` imports.
 */

import * as jsonBytes from './json-bytes.js';

// Module constants (folded into optimised code), not imported bindings (checked on each use).
const { arenaWithRoom, doubledSlots, HASH_SEED, hashStep, hashFinish } = jsonBytes;

export class ArgsTable {
  private mask = (1 << 12) - 1;
  /** [hash, arena offset, length, id + 1] per slot. */
  private meta = new Int32Array((this.mask + 1) * 4);
  private arena = new Uint8Array(1 << 16);
  private arenaView = new DataView(this.arena.buffer);
  private arenaLen = 0;
  private used = 0;
  private count = 0;
  // The last lookup's miss, for insert().
  private missSlot = -1;
  private missHash = 0;
  private missLen = 0;

  /** Distinct args so far (ids are 0 … size − 1). */
  get size(): number {
    return this.count;
  }

  /** A new id for content that is not byte-interned (args read before the event's `ph`/`cat`). */
  addUnkeyed(): number {
    return this.count++;
  }

  /**
   * The id of the content made of the byte ranges b[r[0], r[1]), b[r[2], r[3]), … (n ranges),
   * or −1 when it is new (then insert() stores it).
   */
  lookup(b: Uint8Array, view: DataView, r: Int32Array, n: number): number {
    let h = HASH_SEED;
    let len = 0;
    for (let k = 0; k < 2 * n; k += 2) {
      const s = r[k]!;
      const e = r[k + 1]!;
      len += e - s;
      let i = s;
      const e4 = e - 3;
      for (; i < e4; i += 4) h = hashStep(h, view.getInt32(i, true));
      for (; i < e; i++) h = hashStep(h, b[i]!);
    }
    h = hashFinish(h, len);
    const meta = this.meta;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const k = slot << 2;
      const id1 = meta[k + 3]!;
      if (id1 === 0) break;
      if (meta[k] === h && meta[k + 2] === len && this.equals(meta[k + 1]!, b, view, r, n)) return id1 - 1;
      slot = (slot + 1) & mask;
    }
    this.missSlot = slot;
    this.missHash = h;
    this.missLen = len;
    return -1;
  }

  /** Stores the content of the last lookup that missed; returns its new id. */
  insert(b: Uint8Array, r: Int32Array, n: number): number {
    const len = this.missLen;
    const arena = arenaWithRoom(this.arena, this.arenaLen, len);
    if (arena !== this.arena) {
      this.arena = arena;
      this.arenaView = new DataView(arena.buffer);
    }
    const off = this.arenaLen;
    let o = off;
    for (let k = 0; k < 2 * n; k += 2) {
      this.arena.set(b.subarray(r[k]!, r[k + 1]!), o);
      o += r[k + 1]! - r[k]!;
    }
    this.arenaLen = o;
    const id = this.count++;
    const k = this.missSlot << 2;
    this.meta[k] = this.missHash;
    this.meta[k + 1] = off;
    this.meta[k + 2] = len;
    this.meta[k + 3] = id + 1;
    this.used++;
    if (this.used * 2 > this.mask) this.grow();
    return id;
  }

  private equals(off: number, b: Uint8Array, view: DataView, r: Int32Array, n: number): boolean {
    const a = this.arena;
    const av = this.arenaView;
    let o = off;
    for (let k = 0; k < 2 * n; k += 2) {
      let i = r[k]!;
      const e = r[k + 1]!;
      const e4 = e - 3;
      while (i < e4) {
        if (av.getInt32(o, true) !== view.getInt32(i, true)) return false;
        o += 4;
        i += 4;
      }
      while (i < e) {
        if (a[o] !== b[i]) return false;
        o++;
        i++;
      }
    }
    return true;
  }

  private grow(): void {
    this.meta = doubledSlots(this.meta);
    this.mask = this.meta.length / 4 - 1;
  }

}
