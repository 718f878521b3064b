/**
 * Quantiles and the time statistics of a list of durations: numpy's default quantile
 * (linear interpolation between closest ranks), and count, total, mean, median, p90, min, max.
 */

export interface TimeStats {
  readonly count: number;
  readonly totalUs: number;
  readonly meanUs: number;
  readonly medianUs: number;
  readonly p90Us: number;
  readonly minUs: number;
  readonly maxUs: number;
}

export function timeStats(valuesNs: number[]): TimeStats {
  const n = valuesNs.length;
  if (n === 0) return { count: 0, totalUs: 0, meanUs: NaN, medianUs: NaN, p90Us: NaN, minUs: NaN, maxUs: NaN };
  const v = new Float64Array(valuesNs).sort();
  let total = 0;
  for (let k = 0; k < n; k++) total += v[k]!;
  return {
    count: n,
    totalUs: total / 1000,
    meanUs: total / n / 1000,
    medianUs: quantileSorted(v, 0.5) / 1000,
    p90Us: quantileSorted(v, 0.9) / 1000,
    minUs: v[0]! / 1000,
    maxUs: v[n - 1]! / 1000,
  };
}

/** Linear interpolation between closest ranks (numpy's default). */
export function quantileSorted(v: ArrayLike<number>, q: number): number {
  const n = v.length;
  if (n === 0) return NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return v[lo]! + (v[hi]! - v[lo]!) * (pos - lo);
}
