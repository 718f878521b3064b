/**
 * Medians of per-step values — launches, kernels, queue times — exactly what
 * `quantileSorted(Float64Array.from(values).sort(), 0.5)` gives (quantiles.ts). The values are
 * collected in typed lists and sorted there, in place, by the engine's native sort: an analysis
 * runs once per process, and a native sort needs no warming up, where a selection loop written in
 * JavaScript runs unoptimised for most of its first few hundred medians.
 */
import { quantileSorted } from './quantiles.js';
import { doubled } from './doubled.js';

/** Values collected one at a time for a median, in a typed array grown by doubling. */
export class ValueList {
  length = 0;
  private v = new Float64Array(64);

  push(x: number): void {
    if (this.length === this.v.length) this.v = doubled(this.v);
    this.v[this.length++] = x;
  }

  get values(): Float64Array {
    return this.v.subarray(0, this.length);
  }

  /** medianOf(values); the values are left sorted. */
  median(): number {
    return quantileSorted(this.values.sort(), 0.5);
  }
}

export function medianOf(values: ArrayLike<number>): number {
  return quantileSorted(Float64Array.from(values).sort(), 0.5);
}
