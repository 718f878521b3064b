/**
 * GPU activities that overlap their predecessor on the same (device, stream). A stream runs
 * its work in order, so an overlap is either Hopper/Blackwell programmatic dependent launch
 * (a few µs, legitimate) or a corrupt duration (kineto-format.md §5.6). Either way, sums of
 * durations on that stream exceed its busy time; the diagnostic says by how much.
 */
import type { DiagnosticSink } from '../core/diagnostics.js';
import type { StreamOrder } from './time-order.js';

export interface StreamOverlapInput {
  readonly length: number;
  readonly device: Int32Array;
  readonly stream: Int32Array;
  readonly startNs: Float64Array;
  readonly durNs: Float64Array;
}

/**
 * `streams`: the activities in stream order (time-order.ts), when every start is finite.
 * Returns the latest end of any activity, at least 0 (NaN when an activity's times are unreadable).
 */
export function reportStreamOverlaps(g: StreamOverlapInput, diagnostics: DiagnosticSink, streams?: StreamOrder): number {
  const order =
    streams?.order ??
    Array.from({ length: g.length }, (_, i) => i).sort(
      (a, b) => g.device[a]! - g.device[b]! || g.stream[a]! - g.stream[b]! || g.startNs[a]! - g.startNs[b]! || a - b,
    );
  const { count, maxNs, totalNs, latestEndNs } = findOverlaps(g, order);
  if (count > 0) {
    diagnostics.add({
      code: 'OVERLAPPING_KERNELS',
      severity: 'warning',
      count,
      message:
        `${count} GPU activit(ies) start before the previous one on the same stream ends (max overlap ${(maxNs / 1000).toFixed(3)} µs, ` +
        `${(totalNs / 1000).toFixed(3)} µs in all): programmatic dependent launch on Hopper/Blackwell, or corrupt durations; ` +
        `sums of durations on those streams exceed their busy time by that much.`,
    });
  }
  return latestEndNs;
}

/**
 * The walk in stream order, in a function of its own that ends in returning its counts (it runs
 * once per trace, optimised while it runs: code after the loop, never run yet, would throw that
 * code away when reached).
 */
function findOverlaps(g: StreamOverlapInput, order: Int32Array | readonly number[]) {
  const { device, stream, startNs, durNs } = g;
  let count = 0;
  let maxNs = 0;
  let totalNs = 0;
  let prevEnd = -Infinity;
  let latestEndNs = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const prev = k > 0 ? order[k - 1]! : -1;
    if (prev < 0 || device[prev] !== device[i] || stream[prev] !== stream[i]) prevEnd = -Infinity;
    const s = startNs[i]!;
    const e = s + durNs[i]!;
    if (e > latestEndNs || e !== e) latestEndNs = e; // Math.max, NaN included, without a call
    if (s < prevEnd) {
      const overlap = Math.min(prevEnd, e) - s;
      count++;
      totalNs += overlap;
      if (overlap > maxNs) maxNs = overlap;
    }
    if (e > prevEnd) prevEnd = e;
  }
  return { count, maxNs, totalNs, latestEndNs };
}
