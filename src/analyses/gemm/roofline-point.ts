/**
 * Where one piece of compute work sits on the roofline of its device: achieved TFLOP/s, % of the
 * dense peak for the math it did, the ridge point, the bound, the attainable ceiling. One
 * definition shared by the GEMM table and the roofline of every compute op.
 *
 * - achieved TFLOP/s = FLOPs / mean kernel time;
 * - ridge point = peak FLOP/s / memory bandwidth (FLOP per byte where the roofline bends);
 * - attainable = min(peak, intensity × bandwidth); % of roofline = achieved / attainable;
 * - bound: `latency` (latency- or occupancy-bound) when the work reaches less than
 *   FAR_BELOW_ROOF_SHARE of its attainable rate — far below both roofs, neither HBM nor the math
 *   units limit it: too few blocks for the device, a tail wave, a long serial chain, launch and
 *   synchronisation latency (a 3-channel convolution's weight gradient at 0.3% of peak); else
 *   `memory` when the arithmetic intensity (FLOPs / bytes) is below the ridge point, `compute`
 *   above it.
 */
import type { PeakDtype, ResolvedPeaks } from './device-peaks.js';

export type RooflineBound = 'memory' | 'compute' | 'latency';

/** Below this share of its attainable rate, work is latency/occupancy-bound: a tenth, an order of magnitude under its roof. */
export const FAR_BELOW_ROOF_SHARE = 0.1;

export interface RooflinePoint {
  readonly arithmeticIntensity?: number;
  readonly tflops?: number;
  readonly peakTflops?: number;
  /** 0–100. */
  readonly percentOfPeak?: number;
  readonly ridgePoint?: number;
  readonly bound?: RooflineBound;
  readonly attainableTflops?: number;
  /** 0–100. */
  readonly percentOfRoofline?: number;
}

/**
 * Every field of a RooflinePoint, in the order rows carry them; the mapped type makes the
 * compiler refuse a list that misses or adds one.
 */
const FIELD_ORDER: { readonly [K in keyof RooflinePoint]-?: true } = {
  arithmeticIntensity: true,
  tflops: true,
  peakTflops: true,
  percentOfPeak: true,
  ridgePoint: true,
  bound: true,
  attainableTflops: true,
  percentOfRoofline: true,
};
const FIELDS = Object.keys(FIELD_ORDER) as (keyof RooflinePoint)[];
const FIELDS_BUT_INTENSITY = FIELDS.filter((k) => k !== 'arithmeticIntensity');

/**
 * The fields `point` has, in that order, to spread into a row (a point of another row, or the
 * point itself); those whose value is undefined are left out. `intensity: false` leaves out the arithmetic intensity, for a row that carries
 * it beside the shape it comes from (the GEMM table's) and the rest after the kernel times.
 */
export function rooflineFields(point: RooflinePoint, opts: { readonly intensity?: boolean } = {}): RooflinePoint {
  const out: Record<string, unknown> = {};
  for (const k of opts.intensity === false ? FIELDS_BUT_INTENSITY : FIELDS) if (point[k] !== undefined) out[k] = point[k];
  return out as RooflinePoint;
}

/**
 * How often a piece of compute work ran and how long its kernels took: the figures a roofline
 * row is measured from (the GEMM table's and the roofline's rows both carry them).
 */
export interface MeasuredCalls {
  readonly calls: number;
  /** Calls inside ProfilerStep#N spans ÷ number of steps; undefined without steps. */
  readonly callsPerStep?: number;
  /** Calls that launched at least one kernel of the row (the mean is over these). */
  readonly kernelCalls: number;
  readonly totalUs: number;
  readonly meanUs?: number;
  readonly minUs?: number;
  readonly maxUs?: number;
}

export function placeOnRoofline(
  flops: number | undefined,
  bytes: number | undefined,
  meanUs: number | undefined,
  peakDtype: PeakDtype | undefined,
  peaks: ResolvedPeaks | undefined,
): RooflinePoint {
  const intensity = flops !== undefined && bytes ? flops / bytes : undefined;
  const tflops = flops !== undefined && meanUs ? flops / meanUs / 1e6 : undefined;
  const peakTflops = peakDtype ? peaks?.denseTflops[peakDtype] : undefined;
  const bwGBs = peaks?.memoryBandwidthGBs;
  const ridgePoint = peakTflops && bwGBs ? (peakTflops * 1e12) / (bwGBs * 1e9) : undefined;
  // The bound and the attainable rate place work that ran on the GPU: with no kernel time (an op
  // on CPU tensors, or its kernels outside the trace) the work is on no GPU roofline.
  const onGpu = meanUs !== undefined;
  const attainableTflops = onGpu && peakTflops && bwGBs && intensity !== undefined ? Math.min(peakTflops, (intensity * bwGBs) / 1000) : undefined;
  const farBelow = attainableTflops !== undefined && tflops !== undefined && tflops < FAR_BELOW_ROOF_SHARE * attainableTflops;
  return rooflineFields({
    arithmeticIntensity: intensity,
    tflops,
    peakTflops,
    percentOfPeak: tflops !== undefined && peakTflops ? (100 * tflops) / peakTflops : undefined,
    ridgePoint,
    bound: onGpu && ridgePoint !== undefined && intensity !== undefined ? (farBelow ? 'latency' : intensity < ridgePoint ? 'memory' : 'compute') : undefined,
    attainableTflops,
    percentOfRoofline: attainableTflops && tflops !== undefined ? (100 * tflops) / attainableTflops : undefined,
  });
}
