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
  let order = Int32Array.from(idx);
  if (runs === 1) return order;
  // Run boundaries, then pairwise stable merges (ties from the left run: the lower index).
  let bounds = new Int32Array(runs + 1);
  for (let k = 1, r = 1; k < n; k++) if (keys[k]! < keys[k - 1]!) bounds[r++] = k;
  bounds[runs] = n;
  let keys2 = new Float64Array(n);
  let order2 = new Int32Array(n);
  while (runs > 1) {
    const next = new Int32Array(((runs + 1) >> 1) + 1);
    let w = 0;
    for (let r = 0; r < runs; r += 2) {
      const a0 = bounds[r]!;
      const a1 = bounds[r + 1]!;
      const b1 = r + 2 <= runs ? bounds[r + 2]! : a1;
      next[w++] = a0;
      let i = a0;
      let j = a1;
      let o = a0;
      while (i < a1 && j < b1) {
        if (keys[j]! < keys[i]!) {
          keys2[o] = keys[j]!;
          order2[o++] = order[j++]!;
        } else {
          keys2[o] = keys[i]!;
          order2[o++] = order[i++]!;
        }
      }
      while (i < a1) {
        keys2[o] = keys[i]!;
        order2[o++] = order[i++]!;
      }
      while (j < b1) {
        keys2[o] = keys[j]!;
        order2[o++] = order[j++]!;
      }
    }
    next[w] = n;
    bounds = next;
    runs = w;
    [keys, keys2] = [keys2, keys];
    [order, order2] = [order2, order];
  }
  return order;
}
