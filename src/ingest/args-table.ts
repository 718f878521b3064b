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

import { ByteTable } from './byte-table.js';
import * as jsonBytes from './json-bytes.js';

// Module constants (folded into optimised code), not imported bindings (checked on each use).
const { HASH_SEED, hashStep, hashFinish } = jsonBytes;

export class ArgsTable {
  /** Args by the bytes of their kept members (ids are given to unkeyed ones too: see addUnkeyed). */
  private readonly bytes = new ByteTable(12);
  private count = 0;
  // The last lookup's miss, for insert().
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
    this.missLen = len;
    return this.bytes.find(b, view, r, n, len, hashFinish(h, len));
  }

  /** Stores the content of the last lookup that missed; returns its new id. */
  insert(b: Uint8Array, r: Int32Array, n: number): number {
    const id = this.count++;
    this.bytes.add(b, r, n, this.missLen, id);
    return id;
  }
}
