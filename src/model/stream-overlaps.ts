/**
 * GPU activities that overlap their predecessor on the same (device, stream). A stream runs
 * its work in order, so an overlap is either programmatic dependent launch (PDL) or a corrupt
 * duration (docs/kineto-format.md §5.6).
 *
 * PDL (CUDA ≥ 11.8, compute capability 9.0+: Hopper, Blackwell): a kernel launched with
 * `cudaLaunchAttributeProgrammaticStreamSerialization` may start its prologue while the kernel
 * before it on the stream drains, and waits (`griddepcontrol.wait`) before reading that kernel's
 * output; cuBLAS's nvjet kernels and Inductor's are launched so. An overlap is read as PDL when
 * all of these hold: the device's `deviceProperties` say compute capability ≥ 9; both activities
 * are kernels (copies and memsets are not launched with the attribute); the second overlaps the
 * activity right before it (no earlier, longer one); and the second ends at or after the first
 * ends (a dependent kernel waits for its primary; one that ends inside its predecessor is not
 * that). Kineto (torch 2.11) records no launch attribute on kernel events (docs/kineto-format.md
 * §2.3's argument list), so the ordering and the device are the evidence; a kernel argument
 * naming the attribute, where a trace has one, must not say it was off.
 *
 * The PDL pairs are `PDL_OVERLAP` (info, the kernel pairs named); every other overlap is
 * `OVERLAPPING_KERNELS` (warning). Either way sums of durations on that stream exceed its busy
 * time; the diagnostics say by how much.
 */
import type { DiagnosticSink } from '../core/diagnostics.js';
import { GpuKind } from './trace-model.js';
import type { StreamOrder } from './time-order.js';

export interface StreamOverlapInput {
  readonly length: number;
  readonly device: Int32Array;
  readonly stream: Int32Array;
  readonly startNs: Float64Array;
  readonly durNs: Float64Array;
  /** GpuKind per activity; without it no overlap is read as PDL. */
  readonly kind?: Uint8Array;
}

/** Compute capability (major) from which a device can launch programmatically dependent kernels. */
export const PDL_MIN_COMPUTE_MAJOR = 9;

export interface StreamOverlaps {
  /** Activities that start before an earlier one on their stream ended, not read as PDL. */
  readonly other: number[];
  readonly otherMaxNs: number;
  readonly otherTotalNs: number;
  /** Pairs [earlier, later] read as programmatic dependent launch. */
  readonly pdl: Array<readonly [number, number]>;
  readonly pdlMaxNs: number;
  readonly pdlTotalNs: number;
  /** The overlap of each activity in `other`, ns, in the same order. */
  readonly otherOverlapNs: number[];
  readonly latestEndNs: number;
}

/** Devices (ids) whose deviceProperties give compute capability ≥ 9. */
export function pdlCapableDevices(devices: readonly { readonly id: number; readonly computeMajor?: unknown }[]): Set<number> {
  const out = new Set<number>();
  for (const d of devices) if (typeof d.computeMajor === 'number' && d.computeMajor >= PDL_MIN_COMPUTE_MAJOR) out.add(d.id);
  return out;
}

export function streamOrderOf(g: StreamOverlapInput): Int32Array | number[] {
  return Array.from({ length: g.length }, (_, i) => i).sort(
    (a, b) => g.device[a]! - g.device[b]! || g.stream[a]! - g.stream[b]! || g.startNs[a]! - g.startNs[b]! || a - b,
  );
}

/**
 * `streams`: the activities in stream order (time-order.ts), when every start is finite.
 * Returns the latest end of any activity, at least 0 (NaN when an activity's times are unreadable).
 */
export function reportStreamOverlaps(
  g: StreamOverlapInput,
  diagnostics: DiagnosticSink,
  streams?: StreamOrder,
  pdlDevices: ReadonlySet<number> = new Set(),
  name: (i: number) => string = () => '',
): number {
  const o = findStreamOverlaps(g, streams?.order ?? streamOrderOf(g), pdlDevices);
  const count = o.other.length;
  if (count > 0) {
    diagnostics.add({
      code: 'OVERLAPPING_KERNELS',
      severity: 'warning',
      count,
      message:
        `${count} GPU activit(ies) start before the previous one on the same stream ends (max overlap ${(o.otherMaxNs / 1000).toFixed(3)} µs, ` +
        `${(o.otherTotalNs / 1000).toFixed(3)} µs in all), not as programmatic dependent launch leaves them: corrupt durations, or an overlap of a kind this reader does not know; ` +
        `sums of durations on those streams exceed their busy time by that much.`,
    });
  }
  if (o.pdl.length > 0) {
    diagnostics.add({
      code: 'PDL_OVERLAP',
      severity: 'info',
      count: o.pdl.length,
      message:
        `${o.pdl.length} kernel(s) start before the kernel before them on their stream ends (max ${(o.pdlMaxNs / 1000).toFixed(3)} µs, ${(o.pdlTotalNs / 1000).toFixed(3)} µs in all), ` +
        `on a device of compute capability ≥ ${PDL_MIN_COMPUTE_MAJOR}: programmatic dependent launch, by design — ${describePdlPairs(o.pdl, name)}.`,
    });
  }
  return o.latestEndNs;
}

/** The most frequent (earlier → later) kernel name pairs, `a → b ×n`, at most `max`. */
export function describePdlPairs(pairs: ReadonlyArray<readonly [number, number]>, name: (i: number) => string, max = 3): string {
  const byPair = new Map<string, number>();
  for (const [a, b] of pairs) {
    const k = `\`${name(a)}\` → \`${name(b)}\``;
    byPair.set(k, (byPair.get(k) ?? 0) + 1);
  }
  const sorted = [...byPair].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const shown = sorted.slice(0, max).map(([k, n]) => `${k} ×${n}`);
  return `${shown.join(', ')}${sorted.length > max ? ` and ${sorted.length - max} more pair(s)` : ''}`;
}

/**
 * The walk in stream order, in a function of its own that ends in returning its results (it runs
 * once per trace, optimised while it runs: code after the loop, never run yet, would throw that
 * code away when reached).
 */
export function findStreamOverlaps(g: StreamOverlapInput, order: Int32Array | readonly number[], pdlDevices: ReadonlySet<number>): StreamOverlaps {
  const { device, stream, startNs, durNs, kind } = g;
  const other: number[] = [];
  const otherOverlapNs: number[] = [];
  const pdl: Array<readonly [number, number]> = [];
  let otherMaxNs = 0;
  let otherTotalNs = 0;
  let pdlMaxNs = 0;
  let pdlTotalNs = 0;
  let maxEnd = -Infinity;
  let latestEndNs = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const prev = k > 0 ? order[k - 1]! : -1;
    if (prev < 0 || device[prev] !== device[i] || stream[prev] !== stream[i]) maxEnd = -Infinity;
    const s = startNs[i]!;
    const e = s + durNs[i]!;
    if (e > latestEndNs || e !== e) latestEndNs = e; // Math.max, NaN included, without a call
    if (s < maxEnd) {
      const overlap = Math.min(maxEnd, e) - s;
      const prevEnd = startNs[prev]! + durNs[prev]!;
      const isPdl =
        kind !== undefined &&
        kind[i] === GpuKind.Kernel &&
        kind[prev] === GpuKind.Kernel &&
        pdlDevices.has(device[i]!) &&
        prevEnd === maxEnd &&
        e >= prevEnd;
      if (isPdl) {
        pdl.push([prev, i]);
        pdlTotalNs += overlap;
        if (overlap > pdlMaxNs) pdlMaxNs = overlap;
      } else {
        other.push(i);
        otherOverlapNs.push(overlap);
        otherTotalNs += overlap;
        if (overlap > otherMaxNs) otherMaxNs = overlap;
      }
    }
    if (e > maxEnd) maxEnd = e;
  }
  return { other, otherMaxNs, otherTotalNs, pdl, pdlMaxNs, pdlTotalNs, otherOverlapNs, latestEndNs };
}
