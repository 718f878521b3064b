/**
 * Event indices in time order, as the analyses need them for window queries: sorted by start,
 * ties by index — the order `(a, b) => startNs[a] - startNs[b] || a - b` gives — without a
 * comparator call per comparison. Trace tables are written nearly in time order (a run per
 * step, stream or thread), so a natural merge sort over the runs does a few linear passes.
 */

/**
 * `idx` (ascending indices into `startNs`) sorted by (start, index); a new array. When a start
 * is unreadable (NaN) there is no such order: the comparator sort then decides, as before.
 */
export function orderByStart(idx: Int32Array, startNs: Float64Array): Int32Array {
  const n = idx.length;
  let keys = new Float64Array(n);
  let runs = 1;
  for (let k = 0; k < n; k++) {
    const s = startNs[idx[k]!]!;
    if (s !== s) return Int32Array.from(Array.from(idx).sort((a, b) => startNs[a]! - startNs[b]! || a - b));
    keys[k] = s;
    if (k > 0 && s < keys[k - 1]!) runs++;
  }
  if (runs === 1) return Int32Array.from(idx);
  // The indices ride along as doubles: sortByKeyRuns then sees one kind of array (V8 compiles
  // its merge loop once), and the conversions are native copies.
  const order = new Float64Array(idx);
  sortByKeyRuns(keys, order, runs);
  return new Int32Array(order);
}

/**
 * Sorts `keys` ascending in place and moves `payload[k]` with `keys[k]`: a stable natural merge
 * sort over the `runs` runs of non-decreasing keys (ties keep their order: the left run first).
 * Keys must be comparable (no NaN).
 */
export function sortByKeyRuns(keys: Float64Array, payload: Float64Array, runs: number): void {
  const n = keys.length;
  let bounds = runBounds(keys, runs);
  let k1 = keys;
  let p1 = payload;
  let k2: Float64Array = new Float64Array(n);
  let p2: Float64Array = new Float64Array(n);
  // Each pass merges pairs of runs from (k1, p1) into (k2, p2); then the two swap.
  while (runs > 1) {
    const next = new Int32Array(((runs + 1) >> 1) + 1);
    let w = 0;
    for (let r = 0; r < runs; r += 2) {
      const a0 = bounds[r]!;
      const a1 = bounds[r + 1]!;
      const b1 = r + 2 <= runs ? bounds[r + 2]! : a1;
      next[w++] = a0;
      mergeTwoRuns(k1, p1, k2, p2, a0, a1, b1);
    }
    next[w] = n;
    bounds = next;
    runs = w;
    [k1, k2] = [k2, k1];
    [p1, p2] = [p2, p1];
  }
  if (k1 !== keys) {
    keys.set(k1);
    payload.set(p1);
  }
}

/** Where each of the `runs` runs of non-decreasing keys starts, and n at the end. */
function runBounds(keys: Float64Array, runs: number): Int32Array {
  const bounds = new Int32Array(runs + 1);
  for (let k = 1, r = 1; k < keys.length; k++) if (keys[k]! < keys[k - 1]!) bounds[r++] = k;
  bounds[runs] = keys.length;
  return bounds;
}

/** Runs [a0, a1) and [a1, b1) of `from` merged into the same places of `to`, the left run first at equal keys. */
function mergeTwoRuns(fromKeys: Float64Array, from: Float64Array, toKeys: Float64Array, to: Float64Array, a0: number, a1: number, b1: number): void {
  let i = a0;
  let j = a1;
  let o = a0;
  while (i < a1 && j < b1) {
    if (fromKeys[j]! < fromKeys[i]!) {
      toKeys[o] = fromKeys[j]!;
      to[o++] = from[j++]!;
    } else {
      toKeys[o] = fromKeys[i]!;
      to[o++] = from[i++]!;
    }
  }
  // What is left of either run is already in order: copied as it is.
  toKeys.set(fromKeys.subarray(i, a1), o);
  to.set(from.subarray(i, a1), o);
  o += a1 - i;
  toKeys.set(fromKeys.subarray(j, b1), o);
  to.set(from.subarray(j, b1), o);
}
