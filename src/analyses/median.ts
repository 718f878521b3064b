/**
 * The median of a list of numbers — exactly what `quantileSorted(Float64Array.from(values).sort(), 0.5)`
 * gives (launches.ts), by selection instead of a sort: per-step medians of launches, kernels
 * and queue times are taken over thousands of values, step after step.
 */
import { quantileSorted } from './launches.js';

let scratch = new Float64Array(1024);

/**
 * Values collected one at a time for a median, in a typed array grown by doubling; their
 * median is then taken in place, without a copy.
 */
export class ValueList {
  length = 0;
  private v = new Float64Array(64);
  /** No NaN and no −0 among the values. */
  private plain = true;

  push(x: number): void {
    if (this.length === this.v.length) {
      const grown = new Float64Array(2 * this.v.length);
      grown.set(this.v);
      this.v = grown;
    }
    if (x !== x || (x === 0 && 1 / x < 0)) this.plain = false;
    this.v[this.length++] = x;
  }

  get values(): Float64Array {
    return this.v.subarray(0, this.length);
  }

  /** medianOf(values); the values are reordered. */
  median(): number {
    return medianInPlace(this.v.subarray(0, this.length), this.plain);
  }
}

export function medianOf(values: ArrayLike<number>): number {
  const n = values.length;
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, 2 * scratch.length));
  const v = scratch.subarray(0, n);
  let plain = true;
  for (let k = 0; k < n; k++) {
    const x = values[k]!;
    v[k] = x;
    if (x !== x || (x === 0 && 1 / x < 0)) plain = false;
  }
  return medianInPlace(v, plain);
}

/** The median of v, reordering it; `plain`: v has no NaN and no −0. */
function medianInPlace(v: Float64Array, plain: boolean): number {
  const n = v.length;
  // NaN and −0 have their own places in a typed array's sort: leave those to the sort.
  if (!plain || n < 32) return quantileSorted(v.sort(), 0.5);
  const pos = (n - 1) * 0.5;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = selectKth(v, lo);
  // Once v[lo] is selected everything after it is ≥ it: the next value is their minimum.
  let b = a;
  if (hi !== lo) {
    b = Infinity;
    for (let k = lo + 1; k < n; k++) if (v[k]! < b) b = v[k]!;
  }
  return a + (b - a) * (pos - lo);
}

/**
 * Puts the k-th smallest value at v[k], with smaller or equal values before it and larger or
 * equal ones after (Hoare's selection, median-of-three pivots; a sort if it degenerates).
 */
function selectKth(v: Float64Array, k: number): number {
  let left = 0;
  let right = v.length - 1;
  for (let rounds = 0; right > left; rounds++) {
    if (rounds > 64) {
      v.subarray(left, right + 1).sort();
      break;
    }
    const mid = (left + right) >> 1;
    let x = v[left]!;
    let y = v[mid]!;
    const z = v[right]!;
    if (x > y) [x, y] = [y, x];
    if (y > z) y = z;
    const pivot = x > y ? x : y;
    let i = left;
    let j = right;
    while (i <= j) {
      while (v[i]! < pivot) i++;
      while (v[j]! > pivot) j--;
      if (i <= j) {
        const t = v[i]!;
        v[i++] = v[j]!;
        v[j--] = t;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else break;
  }
  return v[k]!;
}
