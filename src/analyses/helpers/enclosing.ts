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
  sorted: readonly number[],
  n: number,
  threadOf: (k: number) => number,
  tsOf: (k: number) => number,
): Int32Array {
  const end = (i: number) => t.startNs[i]! + t.durNs[i]!;
  // Each point's thread and time read once: the sort compares them ~n·log n times.
  const pointThread = new Float64Array(n);
  const pointTs = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    pointThread[k] = threadOf(k);
    pointTs[k] = tsOf(k);
  }
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => pointThread[a]! - pointThread[b]! || pointTs[a]! - pointTs[b]! || a - b);
  const out = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  let fi = 0;
  let thread = NaN;
  for (const k of order) {
    const th = pointThread[k]!;
    const ts = pointTs[k]!;
    if (th !== thread) {
      thread = th;
      stack.length = 0;
      while (fi < sorted.length && t.thread[sorted[fi]!]! < th) fi++;
    }
    // Open the intervals that start at or before the point, closing those that ended before each.
    while (fi < sorted.length && t.thread[sorted[fi]!]! === th && t.startNs[sorted[fi]!]! <= ts) {
      const f = sorted[fi++]!;
      while (stack.length > 0 && end(stack[stack.length - 1]!) < t.startNs[f]!) stack.pop();
      stack.push(f);
    }
    while (stack.length > 0 && end(stack[stack.length - 1]!) < ts) stack.pop();
    if (stack.length > 0) out[k] = stack[stack.length - 1]!;
  }
  return out;
}
