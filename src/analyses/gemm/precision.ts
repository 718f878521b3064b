/**
 * Matrix math in fp32 or TF32 where the device has faster math (issue 37: "an fp32 MLP is never
 * told that bf16 has twice the TF32 peak"): the roofline's rows held against the peaks of the
 * lower precisions of the same device. Every ratio is the device's own, from the peaks table
 * (device-peaks.ts): on an H200 TF32 is 7.4× fp32 and bf16 2× TF32; another GPU has other ratios,
 * and a GPU the table lacks (or lacks a dtype for) gets no reading.
 *
 * Rows: those the roofline holds against the fp32 peak (fp32 operands on CUDA cores: TF32 not
 * allowed, or a kernel without tensor cores) or the TF32 peak (fp32 operands on tensor cores), with
 * FLOPs, bytes and kernel time.
 *
 * At stake, an upper bound per step: for each row, its time less the least time the same work
 * takes in bf16 — the larger of its FLOPs at the bf16 peak and its bytes halved (2-byte operands)
 * at the HBM bandwidth. TF32 keeps fp32 storage: its floor is the FLOPs at the TF32 peak or the
 * unchanged bytes at the bandwidth, given beside it.
 *
 * Ignores: fp64 (a choice of the science, not of speed), rows without FLOPs.
 */
import type { PeakDtype } from './device-peaks.js';
import { rooflineFloorUs } from './roofline-point.js';
import type { ComputeKind, RooflineReport, RooflineRow } from './roofline.js';

export interface PrecisionRow {
  readonly row: RooflineRow;
  /** Per step (per trace without profiler steps): the row's kernel time now. */
  readonly usPerStep: number;
  /** The least time the same work takes in TF32 and in bf16, per step. */
  readonly tf32FloorUsPerStep?: number;
  readonly bf16FloorUsPerStep: number;
}

export interface PrecisionReading {
  /** `fp32` rows (CUDA cores) and `tf32` rows, by time per step. */
  readonly rows: readonly PrecisionRow[];
  readonly fp32UsPerStep: number;
  readonly tf32UsPerStep: number;
  /** The device's dense peaks the ratios come from, TFLOP/s. */
  readonly peaks: { readonly fp32?: number; readonly tf32?: number; readonly bf16: number };
  /** Σ (time − bf16 floor) per step: at most what bf16 saves. */
  readonly bf16AtStakeUs: number;
  /** Σ over the fp32 rows of (time − TF32 floor) per step: at most what allowing TF32 saves; undefined without a TF32 peak or fp32 rows. */
  readonly tf32AtStakeUs?: number;
  readonly per: 'step' | 'trace';
  /** Every kernel's time per step (per trace), the base of the shares. */
  readonly kernelUsPerStep: number;
}

const FP32_MATH: ReadonlySet<PeakDtype | undefined> = new Set(['fp32', 'tf32']);

/**
 * The reading over every row, once per roofline report (the roofline is itself once per model);
 * undefined when no fp32/TF32 row has FLOPs, bytes and time, or the device has no bf16 peak or bandwidth.
 */
export const computePrecisionReading: (r: RooflineReport) => PrecisionReading | undefined = (() => {
  const cache = new WeakMap<RooflineReport, PrecisionReading | undefined>();
  return (r: RooflineReport) => {
    if (!cache.has(r)) cache.set(r, precisionReadingOnce(r));
    return cache.get(r);
  };
})();

/** The reading restricted to rows of `kinds` (`gemm` prints the GEMMs' alone), its sums over those rows; undefined when none is left. */
export function precisionOfKinds(p: PrecisionReading | undefined, kinds: readonly ComputeKind[]): PrecisionReading | undefined {
  if (!p) return undefined;
  const rows = p.rows.filter((x) => kinds.includes(x.row.kind));
  return rows.length ? summed(rows, p.peaks, p.per, p.kernelUsPerStep) : undefined;
}

function precisionReadingOnce(r: RooflineReport): PrecisionReading | undefined {
  const byId = new Map(r.devices.map((d) => [d.id, d]));
  const rows: PrecisionRow[] = [];
  let peaks: PrecisionReading['peaks'] | undefined;
  for (const row of r.rows) {
    if (!FP32_MATH.has(row.peakDtype) || row.flops === undefined || row.bytes === undefined || row.meanUs === undefined) continue;
    const p = (row.device !== undefined ? byId.get(row.device) : r.device)?.peaks;
    const bf16 = p?.denseTflops.bf16;
    const bw = p?.memoryBandwidthGBs;
    if (!bf16 || !bw) continue;
    peaks ??= { ...(p.denseTflops.fp32 ? { fp32: p.denseTflops.fp32 } : {}), ...(p.denseTflops.tf32 ? { tf32: p.denseTflops.tf32 } : {}), bf16 };
    const calls = r.atStakePer === 'step' ? (row.callsPerStep ?? 0) : row.kernelCalls;
    if (!calls) continue;
    const bf16Floor = rooflineFloorUs(row.flops, row.bytes / 2, bf16, bw)!;
    const tf32Floor = row.peakDtype === 'fp32' ? rooflineFloorUs(row.flops, row.bytes, p.denseTflops.tf32, bw) : undefined;
    rows.push({ row, usPerStep: row.meanUs * calls, ...(tf32Floor !== undefined ? { tf32FloorUsPerStep: tf32Floor * calls } : {}), bf16FloorUsPerStep: bf16Floor * calls });
  }
  if (!rows.length || !peaks) return undefined;
  rows.sort((a, b) => b.usPerStep - a.usPerStep);
  return summed(rows, peaks, r.atStakePer, r.atStakePer === 'step' && r.stepCount ? r.totals.traceKernelUs / r.stepCount : r.totals.traceKernelUs);
}

function summed(rows: readonly PrecisionRow[], peaks: PrecisionReading['peaks'], per: PrecisionReading['per'], kernelUsPerStep: number): PrecisionReading {
  const sum = (f: (x: PrecisionRow) => number) => rows.reduce((s, x) => s + f(x), 0);
  const fp32 = rows.filter((x) => x.row.peakDtype === 'fp32');
  const tf32Known = fp32.length > 0 && fp32.every((x) => x.tf32FloorUsPerStep !== undefined);
  return {
    rows,
    fp32UsPerStep: sum((x) => (x.row.peakDtype === 'fp32' ? x.usPerStep : 0)),
    tf32UsPerStep: sum((x) => (x.row.peakDtype === 'tf32' ? x.usPerStep : 0)),
    peaks,
    bf16AtStakeUs: sum((x) => Math.max(0, x.usPerStep - x.bf16FloorUsPerStep)),
    ...(tf32Known ? { tf32AtStakeUs: fp32.reduce((s, x) => s + Math.max(0, x.usPerStep - x.tf32FloorUsPerStep!), 0) } : {}),
    per,
    kernelUsPerStep,
  };
}
