/**
 * Where one piece of compute work sits on the roofline of its device: achieved TFLOP/s, % of the
 * dense peak for the math it did, the ridge point, the bound, the attainable ceiling. One
 * definition shared by the GEMM table and the roofline of every compute op.
 *
 * - achieved TFLOP/s = FLOPs / mean kernel time;
 * - ridge point = peak FLOP/s / memory bandwidth (FLOP per byte where the roofline bends);
 * - roof: memory when the arithmetic intensity (FLOPs / bytes) is below the ridge point, else compute;
 * - attainable = min(peak, intensity × bandwidth); % of roofline = achieved / attainable;
 * - bound: the roof, unless the work reached less than LATENCY_BOUND_SHARE of its attainable rate
 *   (far below both roofs: the attainable rate is the lower of the two at its intensity) on a
 *   kernel that does not fill the GPU — its launch has fewer thread blocks than the device has SMs
 *   (Kineto's `blocks per SM` below 1) — or whose grid is not recorded: then its bound is
 *   `latency` (latency/occupancy: too little parallel work per launch, a serial reduction, waits on
 *   its own dependencies). Seen: the weight-grad of a 3-input-channel convolution, 14 blocks on 132
 *   SMs, at 0.3% of the fp16 peak and 2.5% of its roofline (cnn_train; issue 37), which a "memory"
 *   label sent looking for bytes to save. A kernel far below both roofs on a full grid keeps its
 *   roof: gpt2_train's vocabulary GEMM (12,800 blocks, 9.5% of the bf16 peak on an align1 kernel)
 *   is slow for its kernel's sake, not for want of parallel work.
 */
import type { PeakDtype, ResolvedPeaks } from './device-peaks.js';

/** Which roof the intensity puts the work under: left of the ridge point, memory; right, compute. */
export type RoofSide = 'memory' | 'compute';
export type RooflineBound = RoofSide | 'latency';

/**
 * Work below this share of its attainable rate is latency/occupancy-bound (10%: an order of
 * magnitude under the roof it sits under, so neither more bandwidth nor more FLOP/s would be what
 * it waits for; the well-fed GEMMs and convolutions of our captures reach 20–80%).
 */
export const LATENCY_BOUND_SHARE = 0.1;

/** The same share under the name `diff`'s branch gave it. */
export const FAR_BELOW_ROOF_SHARE = LATENCY_BOUND_SHARE;

export interface RooflinePoint {
  readonly arithmeticIntensity?: number;
  readonly tflops?: number;
  readonly peakTflops?: number;
  /** 0–100. */
  readonly percentOfPeak?: number;
  readonly ridgePoint?: number;
  /** The roof the intensity puts it under. */
  readonly roof?: RoofSide;
  /** The roof, or `latency` when far below both (LATENCY_BOUND_SHARE). */
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
  roof: true,
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

/**
 * `blocksPerSm`: the work's main kernel's thread blocks per SM (Kineto's `blocks per SM`, or its
 * grid over the device's SMs), undefined when the trace does not record it.
 */
export function placeOnRoofline(
  flops: number | undefined,
  bytes: number | undefined,
  meanUs: number | undefined,
  peakDtype: PeakDtype | undefined,
  peaks: ResolvedPeaks | undefined,
  blocksPerSm?: number,
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
  const roof: RoofSide | undefined = onGpu && ridgePoint !== undefined && intensity !== undefined ? (intensity < ridgePoint ? 'memory' : 'compute') : undefined;
  const percentOfRoofline = attainableTflops && tflops !== undefined ? (100 * tflops) / attainableTflops : undefined;
  return rooflineFields({
    arithmeticIntensity: intensity,
    tflops,
    peakTflops,
    percentOfPeak: tflops !== undefined && peakTflops ? (100 * tflops) / peakTflops : undefined,
    ridgePoint,
    roof,
    bound: roof && percentOfRoofline !== undefined ? boundOf(roof, percentOfRoofline, blocksPerSm) : roof,
    attainableTflops,
    percentOfRoofline,
  });
}

/** The bound of work under `roof` that reached `percentOfRoofline` (0–100) of its attainable rate, on a kernel of `blocksPerSm`. */
export function boundOf(roof: RoofSide, percentOfRoofline: number, blocksPerSm?: number): RooflineBound {
  return percentOfRoofline < 100 * LATENCY_BOUND_SHARE && !(blocksPerSm !== undefined && blocksPerSm >= 1) ? 'latency' : roof;
}

/** A kernel's thread blocks per SM: Kineto's `blocks per SM`, else its grid over `numSms`; undefined when neither is recorded. */
export function blocksPerSmOf(args: { readonly [key: string]: unknown } | undefined, numSms: number | undefined): number | undefined {
  const recorded = args?.['blocks per SM'];
  if (typeof recorded === 'number' && Number.isFinite(recorded)) return recorded;
  const grid = args?.['grid'];
  if (Array.isArray(grid) && grid.length && grid.every((x) => typeof x === 'number') && numSms) return (grid as number[]).reduce((p, x) => p * x, 1) / numSms;
  return undefined;
}

/**
 * The least time work of these FLOPs and bytes can take on the device: on its roofline, the
 * larger of FLOPs at the peak and bytes at the bandwidth (µs); undefined without both.
 */
export function rooflineFloorUs(flops: number | undefined, bytes: number | undefined, peakTflops: number | undefined, bandwidthGBs: number | undefined): number | undefined {
  if (flops === undefined || bytes === undefined || !peakTflops || !bandwidthGBs) return undefined;
  return Math.max(flops / (peakTflops * 1e6), bytes / (bandwidthGBs * 1e3));
}
