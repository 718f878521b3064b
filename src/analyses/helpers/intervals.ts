/**
 * Interval arithmetic in ns, used wherever GPU time must be counted as wall-clock
 * (concurrent streams not double-counted): device-time unions, GPU busy / idle, step
 * breakdowns. Two forms: `MergedIntervals` (sorted disjoint starts/ends as Float64Arrays,
 * built without a comparator sort: the fast path for large traces) and flat
 * [start0, end0, start1, end1, …] arrays for small per-op sets.
 */
import { sortByKeyRuns } from './natural-merge-sort.js';
import { doubled } from './doubled.js';

/** First position in a sorted array whose value is ≥ x. */
export function lowerBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Overlap of [s, e) with [lo, hi), ≥ 0. */
export function clipNs(s: number, e: number, lo: number, hi: number): number {
  const a = s > lo ? s : lo;
  const b = e < hi ? e : hi;
  return b > a ? b - a : 0;
}

/**
 * A union of intervals as sorted, disjoint [starts[k], ends[k]) in ns. Built without a
 * comparator sort: intervals listed nearly in time order (runs of increasing starts, as trace
 * tables are) by merging the runs; others by sweeping separately sorted starts and ends
 * (native Float64Array sorts) — for a million activities several times faster than sorting
 * interval pairs with a comparator.
 */
export interface MergedIntervals {
  readonly starts: Float64Array;
  readonly ends: Float64Array;
}

/**
 * Union of the intervals [starts[k], ends[k]); touching intervals merge, as in intervals.ts.
 * The arrays are sorted in place and then overwritten. An end before its start (a −1 duration) is taken as the start.
 * Either way of sorting gives the same segments: the connected parts of the union.
 */
export function mergeUnion(starts: Float64Array, ends: Float64Array): MergedIntervals {
  // Each step is its own function with one loop: V8 optimises each once, with complete type feedback.
  return unionOfSorted(starts, ends, clampEndsCountingRuns(starts, ends));
}

/** mergeUnion once the ends are clamped and the runs counted (-1: some time is unreadable). */
function unionOfSorted(starts: Float64Array, ends: Float64Array, runs: number): MergedIntervals {
  if (runs < 0) {
    // An event whose time could not be read (NaN, with a BAD_TIMESTAMP diagnostic) has no place
    // on the time line: it is left out rather than let it poison the sorted sweep.
    ({ starts, ends, runs } = readableIntervals(starts, ends));
  }
  if (runs > MAX_RUNS) return mergeSortedEndpoints(starts, ends);
  // Few runs, as tables written in time order have: the pairs sorted by start by merging the
  // runs, then one sweep keeping the furthest end.
  if (runs > 1) sortByKeyRuns(starts, ends, runs);
  const w = sweepSortedPairs(starts, ends);
  return { starts: starts.slice(0, w), ends: ends.slice(0, w) };
}

/** Ends before their starts moved up to them; the number of runs of increasing starts, or -1 at the first unreadable time. */
function clampEndsCountingRuns(starts: Float64Array, ends: Float64Array): number {
  let runs = 1;
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k]!;
    const e = ends[k]!;
    if (s !== s || e !== e) return -1;
    if (e < s) ends[k] = s;
    if (k > 0 && s < starts[k - 1]!) runs++;
  }
  return runs;
}

/** The intervals with readable times, ends clamped, in new arrays, and their runs of increasing starts. */
function readableIntervals(starts: Float64Array, ends: Float64Array): { starts: Float64Array; ends: Float64Array; runs: number } {
  let runs = 1;
  let valid = 0;
  for (let j = 0; j < starts.length; j++) if (starts[j] === starts[j] && ends[j] === ends[j]) valid++;
  const s2 = new Float64Array(valid);
  const e2 = new Float64Array(valid);
  for (let j = 0, w = 0; j < starts.length; j++) {
    if (starts[j] === starts[j] && ends[j] === ends[j]) {
      s2[w] = starts[j]!;
      e2[w] = ends[j]! < starts[j]! ? starts[j]! : ends[j]!;
      if (w > 0 && s2[w]! < s2[w - 1]!) runs++;
      w++;
    }
  }
  return { starts: s2, ends: e2, runs };
}

/**
 * Pairs sorted by start merged into segments, written over the arrays (the k-th segment over
 * pair k or an earlier one, after both were read); returns the number of segments.
 */
function sweepSortedPairs(starts: Float64Array, ends: Float64Array): number {
  const n = starts.length;
  let w = 0;
  let cs = NaN;
  let ce = NaN;
  for (let k = 0; k < n; k++) {
    const s = starts[k]!;
    const e = ends[k]!;
    if (s <= ce) {
      if (e > ce) ce = e;
    } else {
      if (k > 0) {
        starts[w] = cs;
        ends[w++] = ce;
      }
      cs = s;
      ce = e;
    }
  }
  if (n > 0) {
    starts[w] = cs;
    ends[w++] = ce;
  }
  return w;
}

/**
 * A growable list of intervals, collected without counting them first, whose union is then taken:
 * ends are clamped and runs counted as they come, so `union()` is `mergeUnion` without its first pass.
 */
export class IntervalList {
  length = 0;
  private s: Float64Array;
  private e: Float64Array;
  /** Runs of increasing starts so far; -1 once a time is unreadable. */
  private runs = 1;

  constructor(capacity = 1024) {
    this.s = new Float64Array(capacity);
    this.e = new Float64Array(capacity);
  }

  push(start: number, end: number): void {
    const k = this.length;
    if (k === this.s.length) this.grow();
    if (start !== start || end !== end) this.runs = -1;
    else if (this.runs > 0 && k > 0 && start < this.s[k - 1]!) this.runs++;
    this.s[k] = start;
    this.e[k] = end < start ? start : end;
    this.length = k + 1;
  }

  /** mergeUnion of the intervals (the list is sorted and overwritten: push no more). */
  union(): MergedIntervals {
    return unionOfSorted(this.s.subarray(0, this.length), this.e.subarray(0, this.length), this.runs);
  }

  private grow(): void {
    this.s = doubled(this.s);
    this.e = doubled(this.e);
  }
}

/** Beyond this many runs of increasing starts, sorting starts and ends apart is faster. */
const MAX_RUNS = 256;

/** The union by separately sorted starts and ends (native sorts), for intervals in no particular order. */
function mergeSortedEndpoints(starts: Float64Array, ends: Float64Array): MergedIntervals {
  const n = starts.length;
  starts.sort();
  if (!isSorted(ends)) ends.sort();
  // Segments are written over the sorted arrays as the sweep leaves them behind: the k-th
  // segment is written once at least k + 1 starts and ends have been read.
  let w = 0;
  let i = 0;
  let j = 0;
  let depth = 0;
  let segStart = 0;
  while (i < n) {
    // Starts before ends at equal times, so touching intervals merge.
    if (starts[i]! <= ends[j]!) {
      if (depth++ === 0) segStart = starts[i]!;
      i++;
    } else {
      if (--depth === 0) {
        const e = ends[j]!;
        starts[w] = segStart;
        ends[w++] = e;
      }
      j++;
    }
  }
  if (depth > 0) {
    const e = ends[n - 1]!;
    starts[w] = segStart;
    ends[w++] = e;
  }
  return { starts: starts.slice(0, w), ends: ends.slice(0, w) };
}

function isSorted(a: Float64Array): boolean {
  for (let k = 1; k < a.length; k++) if (a[k]! < a[k - 1]!) return false;
  return true;
}

/** Union of two merged unions, in one linear pass. */
export function unionOfMerged(a: MergedIntervals, b: MergedIntervals): MergedIntervals {
  const { starts: as, ends: ae } = a;
  const { starts: bs, ends: be } = b;
  const na = as.length;
  const nb = bs.length;
  const os = new Float64Array(na + nb);
  const oe = new Float64Array(na + nb);
  let w = 0;
  let i = 0;
  let j = 0;
  let cs = NaN;
  let ce = NaN;
  // While both have segments: the earlier start next (a's at equal starts).
  while (i < na && j < nb) {
    let s: number;
    let e: number;
    if (as[i]! <= bs[j]!) {
      s = as[i]!;
      e = ae[i++]!;
    } else {
      s = bs[j]!;
      e = be[j++]!;
    }
    if (s <= ce) {
      if (e > ce) ce = e;
    } else {
      if (ce === ce) {
        os[w] = cs;
        oe[w++] = ce;
      }
      cs = s;
      ce = e;
    }
  }
  // Then the one left: its first segments may still reach the current one; the others are copied
  // as they are (a merged union's segments neither overlap nor touch). Written apart from the
  // loop above, so that V8 does not meet code it has no type feedback for once that loop runs optimised.
  return finishUnion(i < na ? as : bs, i < na ? ae : be, i < na ? i : j, os, oe, w, cs, ce);
}

function finishUnion(rs: Float64Array, re: Float64Array, k: number, os: Float64Array, oe: Float64Array, w: number, cs: number, ce: number): MergedIntervals {
  const n = rs.length;
  for (; k < n && rs[k]! <= ce; k++) if (re[k]! > ce) ce = re[k]!;
  if (ce === ce) {
    os[w] = cs;
    oe[w++] = ce;
  }
  os.set(rs.subarray(k), w);
  oe.set(re.subarray(k), w);
  w += n - k;
  return { starts: os.slice(0, w), ends: oe.slice(0, w) };
}

/** Length of a merged union inside [lo, hi), by binary search. */
export function unionLengthInNs(u: MergedIntervals, lo: number, hi: number): number {
  let k = Math.max(0, lowerBound(u.starts, lo) - 1);
  let total = 0;
  for (; k < u.starts.length; k++) {
    const s = u.starts[k]!;
    if (s >= hi) break;
    const e = u.ends[k]!;
    const a = s > lo ? s : lo;
    const b = e < hi ? e : hi;
    if (b > a) total += b - a;
  }
  return total;
}


/** Sorts the pairs by start and merges overlaps in place; returns the merged pair count. */
export function mergeIntervals(flat: number[]): number {
  const n = flat.length >> 1;
  if (n <= 1) return n;
  const idx = Array.from({ length: n }, (_, k) => k).sort((a, b) => flat[2 * a]! - flat[2 * b]!);
  const sorted = idx.flatMap((k) => [flat[2 * k]!, flat[2 * k + 1]!]);
  let w = 0;
  let cs = sorted[0]!;
  let ce = sorted[1]!;
  for (let k = 1; k < n; k++) {
    const s = sorted[2 * k]!;
    const e = sorted[2 * k + 1]!;
    if (s <= ce) {
      if (e > ce) ce = e;
    } else {
      flat[2 * w] = cs;
      flat[2 * w + 1] = ce;
      w++;
      cs = s;
      ce = e;
    }
  }
  flat[2 * w] = cs;
  flat[2 * w + 1] = ce;
  w++;
  flat.length = 2 * w;
  return w;
}

/** Total length of the union of flat [start, end, …] intervals (the array is left as it was). */
export function unionLengthNs(flat: readonly number[]): number {
  const n = flat.length >> 1;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    starts[k] = flat[2 * k]!;
    ends[k] = flat[2 * k + 1]!;
  }
  const u = mergeUnion(starts, ends);
  let total = 0;
  for (let k = 0; k < u.starts.length; k++) total += u.ends[k]! - u.starts[k]!;
  return total;
}

/** Length of the union of `flat` (already merged) clipped to [lo, hi). */
export function clippedLengthNs(merged: readonly number[], lo: number, hi: number): number {
  let total = 0;
  for (let k = 0; k < merged.length; k += 2) {
    const s = Math.max(merged[k]!, lo);
    const e = Math.min(merged[k + 1]!, hi);
    if (e > s) total += e - s;
  }
  return total;
}
