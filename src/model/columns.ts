/**
 * Growable typed-array columns for the struct-of-arrays tables of the model.
 *
 * Values go into chunks that double up to 64 Ki elements and are never copied while the column
 * grows; `trim()` copies them once into one exact-length array and lets the chunks go. (A column
 * that doubled one buffer would hold old + new, 3× its size, at each doubling: on a 10 GB trace
 * that is the peak memory.)
 */

type TypedArray = Float64Array | Int32Array | Uint8Array | Int16Array;
type TypedArrayCtor<T extends TypedArray> = { new (n: number): T };

const MAX_CHUNK = 1 << 16;

export class Column<T extends TypedArray> {
  private chunks: T[] = [];
  private cur: T;
  private curLen = 0;
  length = 0;

  constructor(
    private readonly ctor: TypedArrayCtor<T>,
    initial = 1024,
  ) {
    this.cur = new ctor(initial);
  }

  push(v: number): number {
    if (this.curLen === this.cur.length) this.next();
    this.cur[this.curLen++] = v;
    return this.length++;
  }

  private next(): void {
    this.chunks.push(this.cur);
    this.cur = new this.ctor(Math.min(this.cur.length * 2, MAX_CHUNK));
    this.curLen = 0;
  }

  /** The column as one exact-length array (once: the chunks are let go). */
  trim(): T {
    const out = new this.ctor(this.length);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    out.set(this.cur.subarray(0, this.curLen) as T, o);
    this.chunks = [];
    this.cur = new this.ctor(0);
    this.curLen = 0;
    return out;
  }
}

export const f64 = () => new Column(Float64Array);
export const i32 = () => new Column(Int32Array);
export const u8 = () => new Column(Uint8Array);
