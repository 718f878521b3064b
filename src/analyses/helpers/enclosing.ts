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
  return [...rows].sort((a, b) => t.thread[a]! - t.thread[b]! || t.startNs[a]! - t.startNs[b]! || t.durNs[b]! - t.durNs[a]! || a - b);
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
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => pointThread[a]! - pointThread[b]! || pointTs[a]! - pointTs[b]! || a - b);
  return sweep(t, sorted, order, pointThread, pointTs);
}

/** The points in (thread, time) order against the intervals in sortNested order: each point's innermost interval. */
function sweep(t: ThreadIntervals, sorted: ArrayLike<number>, order: ArrayLike<number>, pointThread: Float64Array, pointTs: Float64Array): Int32Array {
  const { thread: ith, startNs: is, durNs: id } = t;
  const n = order.length;
  const m = sorted.length;
  const out = new Int32Array(n).fill(-1);
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
