/**
 * Growable struct-of-arrays tables for the model: every column of a table grows together, in
 * chunks that double up to 16 Ki rows (the last chunk's unused rows are at most that) and are
 * never copied while the table grows; `trim()`
 * copies them once into exact-length arrays. (A column that doubled one buffer would hold
 * old + new, 3× its size, at each doubling: on a 10 GB trace that is the peak memory.)
 *
 * A row is written straight into the current chunk's arrays — `const r = t.row(); t.cur.x[r] = …`
 * — so adding an event costs one capacity check, not one call per column.
 */

export type TypedArrayCtor = Float64ArrayConstructor | Int32ArrayConstructor | Uint8ArrayConstructor;
/** A column of JS values (args objects): a plain array per chunk, made by `valuesColumn`. */
export type ValuesCtor<T> = new (n: number) => T[];
export type Schema = Readonly<Record<string, TypedArrayCtor | ValuesCtor<unknown>>>;
export type ArraysOf<S extends Schema> = { -readonly [K in keyof S]: InstanceType<S[K]> };

/**
 * A column of values of type T. Its chunks are arrays made at their full length and written by
 * index, like the typed columns: growing one array by `push` row by row cost the host events'
 * handler a sixth of its time (the array's copies as it grows, and their collection).
 */
export function valuesColumn<T>(): ValuesCtor<T> {
  return Array as unknown as ValuesCtor<T>;
}

const MAX_CHUNK = 1 << 14;

export class ChunkedTable<S extends Schema> {
  /** The current chunk's arrays; row `r` from `row()` goes here. */
  cur: ArraysOf<S>;
  private at = 0;
  private cap: number;
  private readonly full: ArraysOf<S>[] = [];
  private fullRows = 0;

  constructor(
    private readonly schema: S,
    initial = 1024,
  ) {
    this.cap = initial;
    this.cur = this.alloc(initial);
  }

  get length(): number {
    return this.fullRows + this.at;
  }

  /** The index in `cur` of a new row (its values are 0 until written). */
  row(): number {
    if (this.at === this.cap) this.next();
    return this.at++;
  }

  private next(): void {
    this.full.push(this.cur);
    this.fullRows += this.cap;
    this.cap = Math.min(Math.max(this.cap * 2, 1024), MAX_CHUNK);
    this.cur = this.alloc(this.cap);
    this.at = 0;
  }

  private alloc(n: number): ArraysOf<S> {
    const a = {} as Record<string, InstanceType<TypedArrayCtor> | unknown[]>;
    for (const k of Object.keys(this.schema)) a[k] = new this.schema[k]!(n);
    return a as ArraysOf<S>;
  }

  /**
   * The table as exact-length arrays (once: the chunks are let go). `minus` gives columns to
   * rebase on the way: each of their values less that number.
   */
  trim(minus: { readonly [K in keyof S]?: number } = {}): ArraysOf<S> {
    const n = this.length;
    const out = {} as Record<string, InstanceType<TypedArrayCtor> | unknown[]>;
    for (const k of Object.keys(this.schema)) {
      const last = this.cur[k]!;
      if (Array.isArray(last)) {
        // (concat copies in one native call; the chunks are full but for the last)
        out[k] = ([] as unknown[]).concat(...this.full.map((c) => c[k] as unknown[]), last.slice(0, this.at));
        continue;
      }
      const o = new (this.schema[k] as TypedArrayCtor)(n);
      const chunks = [...this.full.map((c) => c[k] as InstanceType<TypedArrayCtor>), last.subarray(0, this.at)];
      const d = (minus as Record<string, number | undefined>)[k];
      let p = 0;
      for (const c of chunks) {
        if (d === undefined) o.set(c, p);
        else subtractInto(o as Float64Array, p, c as Float64Array, d);
        p += c.length;
      }
      out[k] = o;
    }
    this.full.length = 0;
    this.fullRows = 0;
    this.cap = 0;
    this.cur = this.alloc(0);
    this.at = 0;
    return out as ArraysOf<S>;
  }

  /** Calls `f(chunk, rows)` for each chunk in row order, without trimming. */
  forEachChunk(f: (arrays: ArraysOf<S>, rows: number) => void): void {
    for (const c of this.full) f(c, (c[Object.keys(this.schema)[0]!] as { length: number }).length);
    f(this.cur, this.at);
  }
}

function subtractInto(out: Float64Array, at: number, src: Float64Array, d: number): void {
  for (let i = 0; i < src.length; i++) out[at + i] = src[i]! - d;
}
