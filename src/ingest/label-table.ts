/**
 * Interned labels (`ph`, `cat`, `name`, string pids/tids, flow ids): a string's bytes are looked
 * up in an open-addressing table and decoded once, so a million launches of one kernel cost one
 * decode and hand on one small integer id. Ids count up from 0 in first-seen order and never
 * change (a consumer mirrors the table by appending `strings` past what it has seen).
 *
 * The table grows without limit: labels are few (distinct names) even in a 10 GB trace.
 * Pure: no `node:` imports (it runs inside the tokenizer, in a worker or a browser).
 */

import { ByteTable } from './byte-table.js';
import * as jsonBytes from './json-bytes.js';

// Module constants (folded into optimised code), not imported bindings (checked on each use).
const { notAllPlain, PLAIN, QUOTE, HASH_SEED, hashStep, hashFinish } = jsonBytes;

export class LabelTable {
  /** Every label, by id. */
  readonly strings: string[] = [];
  /** Labels by their bytes (those read without escapes). */
  private readonly bytes = new ByteTable(12);
  /** The byte range of the label being looked up (the table's key). */
  private readonly span = new Int32Array(2);
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
    if (e === s) return 0;
    const span = this.span;
    span[0] = s;
    span[1] = e;
    const id = this.bytes.find(b, view, span, 1, e - s, hashFinish(h, e - s));
    return id >= 0 ? id : this.add(b, s, e);
  }

  /** A label not in the byte table yet (its find just missed; span holds its bytes). */
  private add(b: Uint8Array, s: number, e: number): number {
    // The same text may already be known from the string side (e.g. a name first written with
    // an escape): reuse its id so that equal labels share one.
    const id = this.idOfString(this.dec.decode(b.subarray(s, e)));
    this.bytes.add(b, this.span, 1, e - s, id);
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
}
