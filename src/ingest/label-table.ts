/**
 * Interned labels (`ph`, `cat`, `name`, string pids/tids, flow ids): a string's bytes are looked
 * up in an open-addressing table and decoded once, so a million launches of one kernel cost one
 * decode and hand on one small integer id. Ids count up from 0 in first-seen order and never
 * change (a consumer mirrors the table by appending `strings` past what it has seen).
 *
 * The table grows without limit: labels are few (distinct names) even in a 10 GB trace.
 * Pure: no `node:` imports (it runs inside the tokenizer, in a worker or a browser).
 */

import * as jsonBytes from './json-bytes.js';

// Module constants (folded into optimised code), not imported bindings (checked on each use).
const { notAllPlain, PLAIN, QUOTE, arenaWithRoom, doubledSlots, HASH_SEED, hashStep, hashFinish } = jsonBytes;

const INITIAL_BITS = 12;

export class LabelTable {
  /** Every label, by id. */
  readonly strings: string[] = [];
  private mask = (1 << INITIAL_BITS) - 1;
  /** [hash, arena offset, length, id + 1] per slot (id + 1 = 0: empty). */
  private meta = new Int32Array((this.mask + 1) * 4);
  private arena = new Uint8Array(1 << 16);
  private arenaView = new DataView(this.arena.buffer);
  private arenaLen = 0;
  private readonly byString = new Map<string, number>();
  private readonly dec = new TextDecoder('utf-8', { ignoreBOM: true });
  /** Where the last idOfPlain stopped: the closing quote, or the first byte that is not PLAIN. */
  scanEnd = 0;

  constructor() {
    this.idOfString(''); // id 0: the empty label (an absent `ph`/`cat`/`name`)
  }

  get size(): number {
    return this.strings.length;
  }

  /**
   * The id of the string whose bytes start at s (after its opening quote) when they are PLAIN
   * up to a closing quote before `end`, with scanEnd at that quote; else −1, with scanEnd at
   * the first byte that is not PLAIN (or at end). Scanned and hashed a word at a time. `view` is
   * a DataView over the same bytes as `b`.
   */
  idOfPlain(b: Uint8Array, view: DataView, s: number, end: number): number {
    let e = s;
    let h = HASH_SEED;
    while (e + 4 <= end) {
      const x = view.getInt32(e, true);
      if (notAllPlain(x)) break;
      h = hashStep(h, x);
      e += 4;
    }
    while (e < end && PLAIN[b[e]!] === 1) h = hashStep(h, b[e++]!);
    this.scanEnd = e;
    if (e >= end || b[e] !== QUOTE) return -1;
    return e === s ? 0 : this.idOfHashed(b, view, s, e, h);
  }

  /**
   * The id of the PLAIN bytes b[s, e) (s < e) of hash h (idOfPlain's, before its length is mixed
   * in). Apart from idOfPlain so that idOfPlain is small enough for V8 to inline into the
   * tokenizer's loop.
   */
  private idOfHashed(b: Uint8Array, view: DataView, s: number, e: number, h: number): number {
    const len = e - s;
    h = hashFinish(h, len);
    const meta = this.meta;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const k = slot << 2;
      const id1 = meta[k + 3]!;
      if (id1 === 0) break;
      if (meta[k] === h && meta[k + 2] === len) {
        const a = this.arena;
        const av = this.arenaView;
        let o = meta[k + 1]!;
        let j = s;
        while (j + 4 <= e && av.getInt32(o, true) === view.getInt32(j, true)) {
          o += 4;
          j += 4;
        }
        while (j < e && a[o] === b[j]) {
          o++;
          j++;
        }
        if (j === e) return id1 - 1;
      }
      slot = (slot + 1) & mask;
    }
    return this.add(slot, h, b, s, e);
  }

  /** A label not in the byte table yet, at the empty slot its probe ended on. */
  private add(slot: number, h: number, b: Uint8Array, s: number, e: number): number {
    const str = this.dec.decode(b.subarray(s, e));
    // The same text may already be known from the string side (e.g. a name first written with
    // an escape): reuse its id so that equal labels share one.
    let id = this.byString.get(str);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(str);
      this.byString.set(str, id);
    }
    this.store(slot, h, b, s, e, id);
    return id;
  }

  /** The id of a decoded string (labels with escapes or non-ASCII bytes, non-string values). */
  idOfString(str: string): number {
    let id = this.byString.get(str);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(str);
      this.byString.set(str, id);
    }
    return id;
  }

  private store(slot: number, h: number, b: Uint8Array, s: number, e: number, id: number): void {
    const len = e - s;
    const arena = arenaWithRoom(this.arena, this.arenaLen, len);
    if (arena !== this.arena) {
      this.arena = arena;
      this.arenaView = new DataView(arena.buffer);
    }
    this.arena.set(b.subarray(s, e), this.arenaLen);
    const k = slot << 2;
    this.meta[k] = h;
    this.meta[k + 1] = this.arenaLen;
    this.meta[k + 2] = len;
    this.meta[k + 3] = id + 1;
    this.arenaLen += len;
    this.used++;
    if (this.used * 2 > this.mask) this.grow();
  }

  private used = 0;

  private grow(): void {
    this.meta = doubledSlots(this.meta);
    this.mask = this.meta.length / 4 - 1;
  }

}
