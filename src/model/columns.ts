/**
 * Growable typed-array columns for the struct-of-arrays tables of the model.
 * Each column doubles its buffer when full; `trim()` hands out an exact-length view.
 */

type TypedArray = Float64Array | Int32Array | Uint8Array | Int16Array;
type TypedArrayCtor<T extends TypedArray> = { new (n: number): T };

export class Column<T extends TypedArray> {
  private buf: T;
  length = 0;

  constructor(
    private readonly ctor: TypedArrayCtor<T>,
    initial = 1024,
  ) {
    this.buf = new ctor(initial);
  }

  push(v: number): number {
    if (this.length === this.buf.length) {
      const next = new this.ctor(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length] = v;
    return this.length++;
  }

  /** An exact-length copy of the column. */
  trim(): T {
    return this.buf.slice(0, this.length) as T;
  }
}

export const f64 = () => new Column(Float64Array);
export const i32 = () => new Column(Int32Array);
export const u8 = () => new Column(Uint8Array);
