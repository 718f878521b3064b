/**
 * Interval arithmetic on flat [start0, end0, start1, end1, …] arrays of ns.
 * Used wherever GPU time must be counted as wall-clock (concurrent streams not
 * double-counted): device time unions, GPU busy / idle.
 */

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

/** Total length of the union of the intervals (the array is reordered and merged). */
export function unionLengthNs(flat: number[]): number {
  const n = mergeIntervals(flat);
  let total = 0;
  for (let k = 0; k < n; k++) total += flat[2 * k + 1]! - flat[2 * k]!;
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
