/**
 * The alignment of two sequences: a longest common subsequence under an equality the caller gives
 * (the kernel matcher's `sameWork`), as index pairs in order.
 */

/**
 * Index pairs of a longest common subsequence under `eq`. The common prefix and suffix are taken
 * first; the middle is solved exactly when small enough, otherwise greedily in order (large
 * training steps: the alignment then only decides where replacements are looked for).
 */
export function longestCommonSubsequence<T>(x: readonly T[], y: readonly T[], eq: (p: T, q: T) => boolean = (p, q) => p === q): [number, number][] {
  const head: [number, number][] = [];
  let s = 0;
  while (s < x.length && s < y.length && eq(x[s]!, y[s]!)) {
    head.push([s, s]);
    s++;
  }
  const tail: [number, number][] = [];
  let ex = x.length;
  let ey = y.length;
  while (ex > s && ey > s && eq(x[ex - 1]!, y[ey - 1]!)) {
    ex--;
    ey--;
    tail.unshift([ex, ey]);
  }
  const n = ex - s;
  const m = ey - s;
  const mid: [number, number][] = [];
  if (n > 0 && m > 0) {
    if ((n + 1) * (m + 1) <= 16_000_000) {
      const w = m + 1;
      const dp = new Uint32Array((n + 1) * w);
      const same = new Uint8Array(n * m);
      for (let i = n - 1; i >= 0; i--) {
        for (let j = m - 1; j >= 0; j--) {
          const e = eq(x[s + i]!, y[s + j]!);
          same[i * m + j] = e ? 1 : 0;
          dp[i * w + j] = e ? dp[(i + 1) * w + j + 1]! + 1 : Math.max(dp[(i + 1) * w + j]!, dp[i * w + j + 1]!);
        }
      }
      let i = 0;
      let j = 0;
      while (i < n && j < m) {
        if (same[i * m + j]) {
          mid.push([s + i, s + j]);
          i++;
          j++;
        } else if (dp[(i + 1) * w + j]! >= dp[i * w + j + 1]!) i++;
        else j++;
      }
    } else {
      let j = 0;
      for (let i = 0; i < n && j < m; i++) {
        let k = j;
        while (k < m && !eq(x[s + i]!, y[s + k]!)) k++;
        if (k < m) {
          mid.push([s + i, s + k]);
          j = k + 1;
        }
      }
    }
  }
  return [...head, ...mid, ...tail];
}
