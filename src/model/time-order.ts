/**
 * Rows of a table in (group, start, end descending, file order) order — host events by thread
 * for nesting, GPU activities by (device, stream) for overlaps and annotations — without a
 * comparator callback (a sort that calls one pays a call, and a boxed number, per comparison).
 *
 * `TimeRuns` watches the rows as they are added (hot code): it keeps each group's rows and
 * where they stop being in order. The profiler writes each thread's ops in start order and
 * then its runtime calls in start order, so a group is a few long runs; `finish` merges them
 * (a stable merge: ties keep file order) instead of sorting, and never visits a row one by one
 * to group or to find the runs.
 *
 * Only for finite starts: a NaN start makes a comparator sort's order depend on the sort
 * algorithm, so callers with one keep their comparator (and the order it gave).
 */
import { ChunkedTable } from './columns.js';
import type { TableKernels } from './table-kernels.js';

/** |t| ≤ 2^51: sums and differences of three such integers are exact, so order is kept when times are rebased. */
const EXACT = 2 ** 51;

const ROWS = { row: Int32Array } as const;

export class TimeRuns {
  private readonly rows: ChunkedTable<typeof ROWS>[] = [];
  /** Per group: positions in its rows where a run starts (after the first). */
  private readonly breaks: number[][] = [];
  /** Per group, the last row's start and end. Start empty: see primer.ts on growing arrays. */
  private lastStart = new Float64Array(0);
  private lastEnd = new Float64Array(0);
  /** Every start finite: the precondition of the merge. */
  private finite = true;
  /** Every start and duration an integer within ±2^51: the runs found here hold after rebasing. */
  private exact = true;

  /** `byEndDescending`: rows that start together are ordered by end, latest first (torch's nesting order). */
  constructor(private readonly byEndDescending: boolean) {}

  /** Row `row` of group `g` (a small integer ≥ 0) starts at `start` (reader time) and lasts `dur` (≥ 0), as stored. */
  add(g: number, row: number, start: number, dur: number): void {
    if (g >= this.rows.length) this.addGroups(g);
    const end = start + dur;
    const t = this.rows[g]!;
    const n = t.length;
    if (n > 0) {
      const ls = this.lastStart[g]!;
      if (start < ls || (this.byEndDescending && start === ls && end > this.lastEnd[g]!)) this.breaks[g]!.push(n);
    }
    this.lastStart[g] = start;
    this.lastEnd[g] = end;
    const r = t.row();
    t.cur.row[r] = row;
    if (!(Math.abs(start) <= EXACT && dur <= EXACT && Number.isInteger(start) && Number.isInteger(dur))) {
      if (!Number.isFinite(start)) this.finite = false;
      this.exact = false;
    }
  }

  private addGroups(g: number): void {
    while (this.rows.length <= g) {
      this.rows.push(new ChunkedTable(ROWS, 16));
      this.breaks.push([]);
    }
    if (g >= this.lastStart.length) {
      const s = new Float64Array(Math.max(g + 1, this.lastStart.length * 2, 16));
      const e = new Float64Array(s.length);
      s.set(this.lastStart);
      e.set(this.lastEnd);
      this.lastStart = s;
      this.lastEnd = e;
    }
  }

  /**
   * The rows in (group in `groupOrder` — default 0, 1, … — start, [end descending,] row)
   * order, by the final times (reader times less `originNs`); undefined when a start is not finite.
   * The runs are merged by `kernels` when given (table-kernels.ts), else here.
   */
  order(
    startNs: Float64Array,
    durNs: Float64Array,
    originNs: number,
    groupOrder?: readonly number[],
    kernels?: TableKernels,
  ): { order: Int32Array; groupStart: Int32Array } | undefined {
    if (!this.finite) return undefined;
    const exact = this.exact && Number.isInteger(originNs) && Math.abs(originNs) <= EXACT;
    // (a finite time less a finite origin can still overflow)
    if (!exact && !allFinite(startNs)) return undefined;
    const groups = groupOrder ?? this.rows.map((_, g) => g);
    let n = 0;
    for (const g of groups) n += this.rows[g]!.length;
    const order = new Int32Array(n);
    const tmp = new Scratch();
    const groupStart = new Int32Array(groups.length + 1);
    let at = 0;
    groups.forEach((g, k) => {
      groupStart[k] = at;
      const lo = at;
      this.rows[g]!.forEachChunk((c, rows) => {
        order.set(rows === c.row.length ? c.row : c.row.subarray(0, rows), at);
        at += rows;
      });
      // Where the group's rows stop being in order: kept as they were added, else looked for now.
      const bounds = exact ? [lo, ...this.breaks[g]!.map((b) => lo + b), at] : findRuns(order, lo, at, startNs, durNs, this.byEndDescending);
      if (bounds.length <= 2) return; // one run: in order already
      if (kernels) kernels.mergeRuns(order, Int32Array.from(bounds), startNs, durNs, this.byEndDescending);
      else mergeRuns(order, bounds, tmp, startNs, durNs, this.byEndDescending);
    });
    groupStart[groups.length] = at;
    return { order, groupStart };
  }
}

function allFinite(a: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i]!)) return false;
  return true;
}

/** Where o[lo, hi) stops being in order: the bounds of its runs, lo and hi included. */
function findRuns(o: Int32Array, lo: number, hi: number, s: Float64Array, d: Float64Array, endDesc: boolean): number[] {
  const bounds = [lo];
  for (let k = lo + 1; k < hi; k++) if (before(o[k]!, o[k - 1]!, s, d, endDesc)) bounds.push(k);
  bounds.push(hi);
  return bounds;
}

/** Merges the runs between `bounds` pairwise until one is left (stable). */
function mergeRuns(o: Int32Array, bounds: number[], tmp: Scratch, s: Float64Array, d: Float64Array, endDesc: boolean): void {
  while (bounds.length > 2) {
    const next: number[] = [bounds[0]!];
    for (let r = 0; r + 1 < bounds.length; r += 2) {
      if (r + 2 < bounds.length) {
        merge(o, bounds[r]!, bounds[r + 1]!, bounds[r + 2]!, tmp, s, d, endDesc);
        next.push(bounds[r + 2]!);
      } else next.push(bounds[r + 1]!);
    }
    bounds = next;
  }
}

function merge(o: Int32Array, a: number, m: number, b: number, tmp: Scratch, s: Float64Array, d: Float64Array, endDesc: boolean): void {
  // Runs overlap near their seam only: the left run's rows before the right's first, and the
  // right run's rows after the left's last, stay where they are.
  const firstRight = o[m]!;
  let lo = a;
  let hi = m;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(firstRight, o[mid]!, s, d, endDesc)) hi = mid;
    else lo = mid + 1;
  }
  a = lo;
  if (a === m) return;
  const lastLeft = o[m - 1]!;
  lo = m;
  hi = b;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(o[mid]!, lastLeft, s, d, endDesc)) lo = mid + 1;
    else hi = mid;
  }
  b = lo;
  // The left part moves aside (to tmp[0, m − a)); the right part stays where it is until taken.
  const left = tmp.take(m - a);
  left.set(o.subarray(a, m));
  let i = 0;
  const mEnd = m - a;
  let j = m;
  let k = a;
  // (`before(y, x)` written out: this loop runs a few times per trace, mostly before V8 has
  // optimised it, where a call per comparison costs more than the comparison)
  while (i < mEnd && j < b) {
    const x = left[i]!;
    const y = o[j]!;
    const sx = s[x]!;
    const sy = s[y]!;
    if (sy < sx || (sy === sx && endDesc && sy + d[y]! > sx + d[x]!)) {
      o[k++] = y;
      j++;
    } else {
      o[k++] = x;
      i++;
    }
  }
  while (i < mEnd) o[k++] = left[i++]!;
}

/** Room for the part of a merge that moves aside, as large as the largest so far. */
class Scratch {
  private a = new Int32Array(0);
  take(n: number): Int32Array {
    if (this.a.length < n) this.a = new Int32Array(Math.max(n, this.a.length * 2));
    return this.a;
  }
}

/** Row x strictly before row y: earlier start, or (endDesc) the same start and a later end. */
function before(x: number, y: number, s: Float64Array, d: Float64Array, endDesc: boolean): boolean {
  const sx = s[x]!;
  const sy = s[y]!;
  if (sx !== sy) return sx < sy;
  return endDesc && sx + d[x]! > sy + d[y]!;
}

/** Rows grouped by a (device, stream) pair: a number per pair, in the order pairs are first seen. */
export class StreamIds {
  private readonly ids = new Map<number, Map<number, number>>();
  readonly pairs: (readonly [device: number, stream: number])[] = [];
  private lastD = NaN;
  private lastS = NaN;
  private last = -1;

  idOf(device: number, stream: number): number {
    if (device === this.lastD && stream === this.lastS) return this.last;
    let m = this.ids.get(device);
    if (m === undefined) this.ids.set(device, (m = new Map()));
    let id = m.get(stream);
    if (id === undefined) {
      m.set(stream, (id = this.pairs.length));
      this.pairs.push([device, stream]);
    }
    this.lastD = device;
    this.lastS = stream;
    return (this.last = id);
  }

  /** The ids in (device, stream) order. */
  sorted(): number[] {
    const p = this.pairs;
    return p.map((_, k) => k).sort((a, b) => p[a]![0] - p[b]![0] || p[a]![1] - p[b]![1]);
  }
}

/** GPU activities by (device, stream), then start, then file order; `streams[k]` is group k's pair. */
export interface StreamOrder {
  readonly order: Int32Array;
  readonly groupStart: Int32Array;
  readonly streams: readonly (readonly [device: number, stream: number])[];
}
