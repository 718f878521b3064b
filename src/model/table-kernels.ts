/**
 * The model's once-per-trace loops over a whole table, as another implementation may take them
 * over: the native addon's (native/table-kernels.h), which loadTrace hands to the model builder
 * when it is built. The JavaScript ones — time-order.ts `mergeRuns`, nesting.ts `nest`,
 * linking.ts `firstOpByExternalId` — are the reference: they run everywhere else (a browser, a
 * worker, no addon), and another implementation must give the same results
 * (test/model/table-kernels.test.ts).
 *
 * Why these: each runs once per trace over every host event, before V8 has optimised it
 * (~4–8, ~7 and ~5 ms of the 169 MB trace's load, against ~1 ms each natively).
 */
import type { nest } from './nesting.js';

export interface TableKernels {
  /**
   * `order[bounds[k], bounds[k + 1])` are runs in (start, [end descending,] file) order: merges
   * them, in place, into one run in that order, a stable merge (time-order.ts mergeRuns).
   */
  mergeRuns(order: Int32Array, bounds: Int32Array, startNs: Float64Array, durNs: Float64Array, endDescending: boolean): void;
  /** Torch's nesting walk over the rows in `order`, as nesting.ts `nest`, its reference. */
  nest: typeof nest;
  /**
   * For each finite `named[g]`: the first row (in row order) whose kind is `want` and whose id
   * is `named[g]` (as `===` compares), else −1; −1 where `named[g]` is not finite
   * (linking.ts firstOpByExternalId).
   */
  firstRowWithId(kind: Uint8Array, ids: Float64Array, want: number, named: Float64Array): Int32Array;
}
