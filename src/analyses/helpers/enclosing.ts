/**
 * The innermost of a set of properly nested intervals (per thread) around each of many points:
 * which module frame an op runs in, which op a memory record was made in. One sweep per
 * thread over the intervals and the points, both in time order.
 */

export interface ThreadIntervals {
  readonly thread: ArrayLike<number>;
  readonly startNs: ArrayLike<number>;
  readonly durNs: ArrayLike<number>;
}

/** Indexes of `rows` sorted by thread, then start, the longest first at one start (the outer one). */
export function sortNested(t: ThreadIntervals, rows: readonly number[]): number[] {
  return Array.from(nestedOrder(t, rows));
}

/** sortNested's order as an Int32Array (what innermostEnclosing takes, without a copy into an array). */
export function nestedOrder(t: ThreadIntervals, rows: ArrayLike<number>): Int32Array {
  return (
    orderByGroupStart(rows, t.thread, t.startNs, t.durNs) ??
    Int32Array.from(Array.from(rows).sort((a, b) => t.thread[a]! - t.thread[b]! || t.startNs[a]! - t.startNs[b]! || t.durNs[b]! - t.durNs[a]! || a - b))
  );
}

/**
 * `rows` in the order `(a, b) => group[a] - group[b] || start[a] - start[b] || dur[b] - dur[a] || a - b`
 * gives (no `dur`: that term left out), without a comparator call per comparison: the rows are
 * dealt out by group, then the groups whose rows came out of order (tables are written nearly in
 * time order per thread or stream: a few runs) have their runs merged. `groups` bounds the group
 * numbers (undefined: their maximum is looked for). Null when that order is not well defined — a
 * start or duration not finite — or a group is not an integer in [0, groups): the caller sorts
 * with its comparator then.
 */
export function orderByGroupStart(
  rows: ArrayLike<number>,
  group: ArrayLike<number>,
  start: ArrayLike<number>,
  dur: ArrayLike<number> | null,
  groups?: number,
): Int32Array | null {
  return sortByGroupStart(rows, group, start, dur, groups)?.rows ?? null;
}

/** orderByGroupStart's order, with each position's start and duration (0 without `dur`), and where each group's positions begin (`at[g]`; `at[groups]` = the row count). */
export interface GroupStartOrder {
  readonly rows: Int32Array;
  readonly startNs: Float64Array;
  readonly durNs: Float64Array;
  readonly at: Int32Array;
}

/** orderByGroupStart, giving the sorted keys and the groups' bounds too. */
export function sortByGroupStart(
  rows: ArrayLike<number>,
  group: ArrayLike<number>,
  start: ArrayLike<number>,
  dur: ArrayLike<number> | null,
  groups?: number,
): GroupStartOrder | null {
  // (each pass over the rows is a function of its own: V8 compiles a function while its first
  // hot loop runs, and throws that code away at a later loop that has not run yet)
  const n = rows.length;
  groups ??= maxGroup(rows, group) + 1;
  // (a count per group: a numbering sparser than the rows goes to the comparator)
  if (!(groups <= n + 1024)) return null;
  const at = countGroups(rows, group, groups);
  if (!at) return null;
  // Positions hold the row and its keys side by side: the merges read them in order.
  const idx = new Int32Array(n);
  const s = new Float64Array(n);
  const d = new Float64Array(n);
  const unordered = new Uint8Array(groups);
  if (!placeRows(rows, group, start, dur, at, idx, s, d, unordered)) return null;
  let tmp: { idx: Int32Array; s: Float64Array; d: Float64Array } | undefined;
  const bounds: number[] = [];
  for (let g = 0; g < groups; g++) {
    if (!unordered[g]) continue;
    runStarts(idx, s, d, at[g]!, at[g + 1]!, bounds);
    tmp ??= { idx: new Int32Array(n), s: new Float64Array(n), d: new Float64Array(n) };
    mergeRuns(idx, s, d, tmp.idx, tmp.s, tmp.d, bounds);
  }
  return { rows: idx, startNs: s, durNs: d, at };
}

function maxGroup(rows: ArrayLike<number>, group: ArrayLike<number>): number {
  let max = -1;
  for (let k = 0; k < rows.length; k++) if (group[rows[k]!]! > max) max = group[rows[k]!]!;
  return max;
}

/**
 * Where each group's rows begin in the order (`at[groups]` = the count), or null when a group
 * number is not an integer in [0, groups) ((g | 0) === g only for an integer in int32 range).
 */
function countGroups(rows: ArrayLike<number>, group: ArrayLike<number>, groups: number): Int32Array | null {
  const at = new Int32Array(groups + 1);
  for (let k = 0; k < rows.length; k++) {
    const g = group[rows[k]!]!;
    if ((g | 0) !== g || g < 0 || g >= groups) return null;
    at[g + 1]++;
  }
  return prefixSums(at);
}

function prefixSums(at: Int32Array): Int32Array {
  for (let g = 1; g < at.length; g++) at[g] += at[g - 1]!;
  return at;
}

/**
 * Deals the rows out to their groups' positions with their keys; each compared with the one
 * before it in its group as it is placed: `unordered[g]` when some row of g came out of order
 * (a group with none is done). False when a start or duration is not finite.
 */
function placeRows(
  rows: ArrayLike<number>,
  group: ArrayLike<number>,
  start: ArrayLike<number>,
  dur: ArrayLike<number> | null,
  at: Int32Array,
  idx: Int32Array,
  s: Float64Array,
  d: Float64Array,
  unordered: Uint8Array,
): boolean {
  const next = at.slice(0, at.length - 1);
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k]!;
    const g = group[r]!;
    const p = next[g]!++;
    const x = start[r]!;
    const y = dur !== null ? dur[r]! : 0;
    // (comparisons, not Number.isFinite: a call per row while this runs unoptimised)
    if (!(x > -Infinity && x < Infinity && y > -Infinity && y < Infinity)) return false;
    idx[p] = r;
    s[p] = x;
    d[p] = y;
    // (the order written out here and in mergeRuns, not called: the compiler is told not to inline)
    if (p > at[g]! && (x !== s[p - 1] ? x < s[p - 1]! : y !== d[p - 1] ? y > d[p - 1]! : r < idx[p - 1]!)) unordered[g] = 1;
  }
  return true;
}

/** Into `bounds`: where each run in order of positions [a, b) starts, then b. */
function runStarts(idx: Int32Array, s: Float64Array, d: Float64Array, a: number, b: number, bounds: number[]): void {
  bounds.length = 0;
  bounds.push(a);
  for (let p = a + 1; p < b; p++) {
    const q = p - 1;
    if (s[p] !== s[q] ? s[p]! < s[q]! : d[p] !== d[q] ? d[p]! > d[q]! : idx[p]! < idx[q]!) bounds.push(p);
  }
  bounds.push(b);
}

/** Merges the runs between `bounds` (their starts, then the end) pairwise until one is left; the result in (idx, s, d). */
function mergeRuns(idx: Int32Array, s: Float64Array, d: Float64Array, idx2: Int32Array, s2: Float64Array, d2: Float64Array, bounds: number[]): void {
  let fi = idx;
  let fs = s;
  let fd = d;
  let ti = idx2;
  let ts = s2;
  let td = d2;
  let runs = bounds.length - 1;
  while (runs > 1) {
    let w = 0;
    for (let r = 0; r < runs; r += 2) {
      const a0 = bounds[r]!;
      const a1 = bounds[r + 1]!;
      const b1 = r + 2 <= runs ? bounds[r + 2]! : a1;
      bounds[w++] = a0;
      let i = a0;
      let j = a1;
      let o = a0;
      while (i < a1 && j < b1) {
        // j before i: an earlier start, then the longer, then the lower row
        const p = (fs[j] !== fs[i] ? fs[j]! < fs[i]! : fd[j] !== fd[i] ? fd[j]! > fd[i]! : fi[j]! < fi[i]!) ? j++ : i++;
        ti[o] = fi[p]!;
        ts[o] = fs[p]!;
        td[o++] = fd[p]!;
      }
      // What is left of either run is in order already.
      const [c0, c1] = i < a1 ? [i, a1] : [j, b1];
      ti.set(fi.subarray(c0, c1), o);
      ts.set(fs.subarray(c0, c1), o);
      td.set(fd.subarray(c0, c1), o);
    }
    bounds[w] = bounds[runs]!;
    runs = w;
    [fi, ti] = [ti, fi];
    [fs, ts] = [ts, fs];
    [fd, td] = [td, fd];
  }
  if (fi !== idx) {
    const a = bounds[0]!;
    const b = bounds[1]!;
    idx.set(fi.subarray(a, b), a);
    s.set(fs.subarray(a, b), a);
    d.set(fd.subarray(a, b), a);
  }
}

/**
 * For each of `n` points (thread, time): the innermost interval of `sorted` (from sortNested) on
 * that thread whose [start, end] holds the time, or −1.
 */
export function innermostEnclosing(
  t: ThreadIntervals,
  sorted: ArrayLike<number>,
  n: number,
  threadOf: (k: number) => number,
  tsOf: (k: number) => number,
): Int32Array {
  // Each point's thread and time read once: the sort compares them ~n·log n times.
  const pointThread = new Float64Array(n);
  const pointTs = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    pointThread[k] = threadOf(k);
    pointTs[k] = tsOf(k);
  }
  return innermostEnclosingAt(t, sorted, pointThread, pointTs);
}

/** innermostEnclosing of points given as columns: point k on thread `pointThread[k]` at `pointTs[k]`. */
export function innermostEnclosingAt(t: ThreadIntervals, sorted: ArrayLike<number>, pointThread: Float64Array, pointTs: Float64Array): Int32Array {
  const n = pointThread.length;
  const order =
    orderByGroupStart(identity(n), pointThread, pointTs, null) ??
    Array.from({ length: n }, (_, k) => k).sort((a, b) => pointThread[a]! - pointThread[b]! || pointTs[a]! - pointTs[b]! || a - b);
  return sweep(t, sorted, order, pointThread, pointTs, n);
}

/**
 * innermostEnclosing of points already in (thread, time) order: `order` lists point ids (< `points`),
 * point k on thread `pointThread[k]` at `pointTs[k]` (all finite); the answer per point id, −1
 * for the ids not in `order`.
 */
export function innermostEnclosingOrdered(
  t: ThreadIntervals,
  sorted: ArrayLike<number>,
  order: ArrayLike<number>,
  pointThread: ArrayLike<number>,
  pointTs: ArrayLike<number>,
  points: number,
): Int32Array {
  return sweep(t, sorted, order, pointThread, pointTs, points);
}

/** The points in (thread, time) order against the intervals in sortNested order: each point's innermost interval. */
function sweep(t: ThreadIntervals, sorted: ArrayLike<number>, order: ArrayLike<number>, pointThread: ArrayLike<number>, pointTs: ArrayLike<number>, points: number): Int32Array {
  const { thread: ith, startNs: is, durNs: id } = t;
  const n = order.length;
  const m = sorted.length;
  const out = new Int32Array(points).fill(-1);
  // The open intervals, innermost last, and their ends.
  const stack = new Int32Array(m);
  const stackEnd = new Float64Array(m);
  let top = 0;
  let fi = 0;
  let thread = NaN;
  for (let j = 0; j < n; j++) {
    const k = order[j]!;
    const th = pointThread[k]!;
    const ts = pointTs[k]!;
    if (th !== thread) {
      thread = th;
      top = 0;
      while (fi < m && ith[sorted[fi]!]! < th) fi++;
    }
    // Open the intervals that start at or before the point, closing those that ended before each.
    while (fi < m) {
      const f = sorted[fi]!;
      const fs = is[f]!;
      if (ith[f] !== th || !(fs <= ts)) break;
      fi++;
      while (top > 0 && stackEnd[top - 1]! < fs) top--;
      stack[top] = f;
      stackEnd[top++] = fs + id[f]!;
    }
    while (top > 0 && stackEnd[top - 1]! < ts) top--;
    if (top > 0) out[k] = stack[top - 1]!;
  }
  return out;
}

/** 0, 1, …, n − 1. */
export function identity(n: number): Int32Array {
  const all = new Int32Array(n);
  for (let k = 0; k < n; k++) all[k] = k;
  return all;
}
