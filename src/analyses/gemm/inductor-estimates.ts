/**
 * Inductor's own estimates of a kernel's work, where the trace carries them, held against the
 * roofline's (docs/kineto-format.md §9.2). Inductor writes into kernel args:
 * - `kernel_flop` (FLOPs of one launch) and `kernel_num_gb` (bytes moved, in units of 1e9 bytes):
 *   Inductor's estimates of a Triton kernel (pytorch/pytorch#149697), read on the kernel or on the
 *   `cpu_op` named after it; and on every kernel by `torch._inductor.analysis.profile_analysis`
 *   (`--augment_trace`), which gives each kernel of an op that op's figures;
 * - `achieved_flops_percent`, `achieved_bandwidth_percent`, `arithmetic_intensity` (FLOP/byte),
 *   `roofline_bound` (`memory` / `compute`), `roofline_ceiling_tflops`,
 *   `roofline_efficiency_percent`: `add_utilization_annotations()`, run at export through
 *   `torch.profiler.register_export_chrome_trace_callback` (pytorch/pytorch#173664/#173665).
 *
 * A roofline row's Inductor figures are those of each call's longest kernel that carries them
 * (an op's kernels all carry the op's figures; a Triton kernel is its own call), averaged over
 * the calls. Only FLOPs, bytes and the bound are compared: the achieved percentages rest on
 * Inductor's peak table, which the row states beside kinetoscope's.
 */
import type { JsonObject } from '../../core/json.js';
import { hostName, gpuName, type TraceModel } from '../../model/trace-model.js';
import type { RoofSide } from './roofline-point.js';

export interface InductorEstimate {
  readonly flops?: number;
  readonly bytes?: number;
  readonly achievedFlopsPercent?: number;
  readonly achievedBandwidthPercent?: number;
  readonly arithmeticIntensity?: number;
  /** Inductor's `roofline_bound`: the roof its intensity puts the kernel under. */
  readonly bound?: RoofSide;
  readonly ceilingTflops?: number;
}

/** The disagreements worth a sentence: a relative difference above this. */
const TOLERANCE = 0.01;

const num = (a: JsonObject | undefined, k: string): number | undefined => {
  const v = a?.[k];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

/** `kernel_flop` and `kernel_num_gb`: 0 is how Inductor writes "not estimated" (its own analysis skips it). */
const work = (a: JsonObject | undefined, k: string): number | undefined => {
  const v = num(a, k);
  return v ? v : undefined;
};

function readEstimate(a: JsonObject | undefined): InductorEstimate | undefined {
  if (!a) return undefined;
  const gb = work(a, 'kernel_num_gb');
  const flop = work(a, 'kernel_flop');
  const bound = a['roofline_bound'];
  const e: InductorEstimate = {
    ...(flop !== undefined ? { flops: flop } : {}),
    ...(gb !== undefined ? { bytes: gb * 1e9 } : {}),
    ...(num(a, 'achieved_flops_percent') !== undefined ? { achievedFlopsPercent: num(a, 'achieved_flops_percent') } : {}),
    ...(num(a, 'achieved_bandwidth_percent') !== undefined ? { achievedBandwidthPercent: num(a, 'achieved_bandwidth_percent') } : {}),
    ...(num(a, 'arithmetic_intensity') !== undefined ? { arithmeticIntensity: num(a, 'arithmetic_intensity') } : {}),
    ...(bound === 'memory' || bound === 'compute' ? { bound } : {}),
    ...(num(a, 'roofline_ceiling_tflops') !== undefined ? { ceilingTflops: num(a, 'roofline_ceiling_tflops') } : {}),
  };
  return Object.keys(e).length ? e : undefined;
}

/** Kernel g's estimate: its own args, else those of its owning op when that op is Inductor's launch of it (named after it). */
export function inductorEstimateOf(m: TraceModel, g: number): InductorEstimate | undefined {
  const own = readEstimate(m.gpu.args[g]);
  if (own) return own;
  const o = m.gpu.owner[g]!;
  const oa = o >= 0 ? m.host.args[o] : undefined;
  if (!oa || (oa['kernel_flop'] === undefined && oa['kernel_num_gb'] === undefined)) return undefined;
  return hostName(m, o) === gpuName(m, g) ? readEstimate(oa) : undefined;
}

/** A roofline row's Inductor figures per call, and the sentences where they and kinetoscope's disagree. */
export interface InductorCheck {
  /** Calls whose kernels carry an estimate. */
  readonly calls: number;
  readonly flops?: number;
  readonly bytes?: number;
  readonly achievedFlopsPercent?: number;
  readonly achievedBandwidthPercent?: number;
  /** When every estimated call says the same. */
  readonly bound?: RoofSide;
  /** Inductor's figure ÷ kinetoscope's, where both exist. */
  readonly flopsRatio?: number;
  readonly bytesRatio?: number;
  readonly disagreements: readonly string[];
}

/** What a row of the roofline states, for the comparison. */
export interface RowFigures {
  readonly label: string;
  readonly flops?: number;
  readonly bytes?: number;
  /** The roof the row's intensity puts it under (Inductor's roofline_bound says the same thing; a latency-bound row still has a roof). */
  readonly roof?: RoofSide;
  readonly arithmeticIntensity?: number;
  readonly ridgePoint?: number;
}

/** `calls`: each call's kernels. */
export function checkAgainstInductor(m: TraceModel, row: RowFigures, calls: readonly (readonly number[])[]): InductorCheck | undefined {
  const picked: InductorEstimate[] = [];
  for (const kernels of calls) {
    let best: InductorEstimate | undefined;
    let bestNs = -1;
    for (const g of kernels) {
      const e = inductorEstimateOf(m, g);
      if (e && m.gpu.durNs[g]! > bestNs) {
        best = e;
        bestNs = m.gpu.durNs[g]!;
      }
    }
    if (best) picked.push(best);
  }
  if (!picked.length) return undefined;
  const mean = (k: keyof InductorEstimate): number | undefined => {
    const v = picked.map((e) => e[k]).filter((x): x is number => typeof x === 'number');
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : undefined;
  };
  const bounds = new Set(picked.map((e) => e.bound));
  const bound = bounds.size === 1 ? [...bounds][0] : undefined;
  const flops = mean('flops');
  const bytes = mean('bytes');
  const flopsRatio = flops !== undefined && row.flops ? flops / row.flops : undefined;
  const bytesRatio = bytes !== undefined && row.bytes ? bytes / row.bytes : undefined;
  const disagreements: string[] = [];
  if (flopsRatio !== undefined && Math.abs(flopsRatio - 1) > TOLERANCE) {
    disagreements.push(`${row.label}: Inductor's kernel_flop gives ${si(flops!, 'FLOP')} per call, kinetoscope counts ${si(row.flops!, 'FLOP')} (Inductor ÷ kinetoscope = ${ratio(flopsRatio)})`);
  }
  if (bytesRatio !== undefined && Math.abs(bytesRatio - 1) > TOLERANCE) {
    disagreements.push(`${row.label}: Inductor's kernel_num_gb gives ${si(bytes!, 'B')} moved per call, kinetoscope counts ${si(row.bytes!, 'B')} (Inductor ÷ kinetoscope = ${ratio(bytesRatio)})`);
  }
  if (bound && row.roof && bound !== row.roof) {
    const theirs = mean('arithmeticIntensity');
    const ours = row.arithmeticIntensity;
    const ridge = row.ridgePoint !== undefined ? ` against a ridge of ${row.ridgePoint.toPrecision(4)} FLOP/B` : '';
    disagreements.push(
      `${row.label}: Inductor's roofline_bound says ${bound}-bound${theirs !== undefined ? ` (intensity ${theirs.toPrecision(4)} FLOP/B)` : ''}, ` +
        `kinetoscope ${row.roof}-bound${ours !== undefined ? ` (intensity ${ours.toPrecision(4)} FLOP/B${ridge})` : ''}` +
        `${theirs !== undefined && ours ? `; Inductor ÷ kinetoscope intensity = ${ratio(theirs / ours)}` : ''}`,
    );
  }
  const flopsPct = mean('achievedFlopsPercent');
  const bwPct = mean('achievedBandwidthPercent');
  return {
    calls: picked.length,
    ...(flops !== undefined ? { flops } : {}),
    ...(bytes !== undefined ? { bytes } : {}),
    ...(flopsPct !== undefined ? { achievedFlopsPercent: flopsPct } : {}),
    ...(bwPct !== undefined ? { achievedBandwidthPercent: bwPct } : {}),
    ...(bound ? { bound } : {}),
    ...(flopsRatio !== undefined ? { flopsRatio } : {}),
    ...(bytesRatio !== undefined ? { bytesRatio } : {}),
    disagreements,
  };
}

/** 4 significant digits with an SI prefix: `9.664 GFLOP`, `12.58 MB`. */
function si(x: number, unit: string): string {
  const prefixes = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  let k = 0;
  let v = x;
  while (Math.abs(v) >= 1000 && k < prefixes.length - 1) {
    v /= 1000;
    k++;
  }
  return `${v.toPrecision(4)} ${prefixes[k]}${unit}`;
}

const ratio = (x: number) => x.toPrecision(3);
