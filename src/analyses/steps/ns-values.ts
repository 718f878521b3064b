/**
 * Per-step values collected for a median — durations and queue times in ns — with the median
 * `ValueList` (helpers/median.ts) gives, sorted faster: the values are kept in an Int32Array
 * while every one is a 32-bit integer (and not −0), as model times are, else in a Float64Array.
 * The engine's native sort orders 32-bit integers about twice as fast as doubles, and integers
 * sort the same either way, so the sorted values and the median are the same.
 */
import { quantileSorted } from '../helpers/quantiles.js';
import { doubled } from '../helpers/doubled.js';

export class NsValues {
  length = 0;
  private ints: Int32Array | undefined = new Int32Array(64);
  private doubles: Float64Array | undefined;

  push(x: number): void {
    const ints = this.ints;
    // (x | 0) === x also holds for −0, which an Int32Array would store as 0.
    if (ints !== undefined && (x | 0) === x && (x !== 0 || 1 / x > 0)) {
      if (this.length === ints.length) this.ints = doubled(ints);
      this.ints![this.length++] = x;
    } else this.pushDouble(x);
  }

  /** The values (as pushed until `median()` sorts them). */
  get values(): Int32Array | Float64Array {
    return this.ints !== undefined ? this.ints.subarray(0, this.length) : this.doubles!.subarray(0, this.length);
  }

  /** `medianOf(values)` (helpers/median.ts); the values are left sorted. */
  median(): number {
    return quantileSorted(this.values.sort(), 0.5);
  }

  /** A value no Int32Array holds: the values so far move to a Float64Array, which takes this one and the rest. */
  private pushDouble(x: number): void {
    if (this.ints !== undefined) {
      this.doubles = new Float64Array(Math.max(64, 2 * this.length));
      this.doubles.set(this.ints.subarray(0, this.length));
      this.ints = undefined;
    }
    if (this.length === this.doubles!.length) this.doubles = doubled(this.doubles!);
    this.doubles![this.length++] = x;
  }
}
