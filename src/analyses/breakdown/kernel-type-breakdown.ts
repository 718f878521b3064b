/**
 * Kernel-type breakdown (HTA's `get_gpu_kernel_breakdown`): how the GPU's busy time splits
 * between computation, communication and memory work, and which kernels make up each type.
 *
 * Time is wall-clock, not a sum of durations: the intervals of each type are merged, and every
 * stretch of time is labelled with the set of types running in it — `computation`, or
 * `computation overlapping communication` when both run at once — so the rows add up to the
 * GPU's busy time, never more (HTA's definition). Per type the summed kernel durations and the
 * kernels that take the most time are listed as well.
 *
 * Types: kinetoscope's one rule for GPU work (facts/gpu-work-type.ts: communication by name or
 * collective args, memory, computation); `--hta-compat` uses HTA's regexes (hta-compat.ts).
 *
 * Also home of `BreakdownActivities`, the GPU-time rows the three breakdowns share, and of
 * `collectActivities`, which builds them from the model with exact nanoseconds.
 */
import { gpuWorkTypes, KERNEL_TYPES, KernelTypeId, type KernelType } from '../facts/gpu-work-type.js';
import type { TraceModel } from '../../model/trace-model.js';
import { compareText } from '../../core/compare-text.js';

/**
 * GPU time as the breakdowns see it: one row per activity, times in ns relative to the
 * trace start. In kinetoscope's view these are the model's kernels, copies and memsets;
 * in HTA's view (hta-compat.ts) the rows HTA keeps, with HTA's rounding.
 */
export interface BreakdownActivities {
  readonly length: number;
  readonly startNs: Float64Array;
  /** End; HTA's rounding can put it before the start (a sub-µs event becomes −1 µs long). */
  readonly endNs: Float64Array;
  /** Device the time is counted on (HTA: one rank = one group, so all 0). */
  readonly device: Int32Array;
  readonly stream: Float64Array;
  readonly type: Uint8Array;
  readonly name: readonly string[];
  /** Start of the call that launched it (`cudaLaunchKernel`, …), NaN when unknown. */
  readonly launchStartNs: Float64Array;
  /** Whether the per-stream idle breakdown looks at it (HTA: kernels, copies and memsets only). */
  readonly inIdle: Uint8Array;
  /** Index in the model's GPU table, -1 for rows that are not GPU activities (HTA mode only). */
  readonly gpu: Int32Array;
}

/** The model's kernels, copies and memsets, exact ns, typed by kinetoscope's rule (facts/gpu-work-type.ts). */
export function collectActivities(m: TraceModel): BreakdownActivities {
  const { gpu, host } = m;
  const n = gpu.length;
  const launchStartNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  const names: string[] = new Array(n);
  for (let g = 0; g < n; g++) {
    names[g] = m.strings.get(gpu.name[g]!);
    endNs[g] = gpu.startNs[g]! + gpu.durNs[g]!;
    const l = gpu.launcher[g]!;
    launchStartNs[g] = l >= 0 ? host.startNs[l]! : NaN;
  }
  return {
    length: n,
    startNs: gpu.startNs,
    endNs,
    device: gpu.device,
    stream: Float64Array.from(gpu.stream),
    type: gpuWorkTypes(m),
    name: names,
    launchStartNs,
    inIdle: new Uint8Array(n).fill(1),
    gpu: Int32Array.from({ length: n }, (_, k) => k),
  };
}

// ------------------------------------------------------------------------------------------------
// Interval arithmetic shared with the temporal breakdown

/** Merged intervals as flat [start, end, …] pairs. */
export type MergedIntervals = number[];

/**
 * Merges intervals the way HTA does (`merge_kernel_intervals`): sorted by start, an interval
 * joins the current group when it starts at or before the running maximum end; a group is
 * [min start, max end]. With non-negative durations this is the ordinary union; with HTA's
 * −1 µs durations a group can end before it starts, and is kept that way so HTA's arithmetic
 * is reproduced.
 */
export function mergeRows(a: BreakdownActivities, rows: readonly number[]): MergedIntervals {
  const order = [...rows].sort((x, y) => a.startNs[x]! - a.startNs[y]! || x - y);
  const out: number[] = [];
  let runningMax = -Infinity;
  let gs = 0;
  let ge = 0;
  let open = false;
  for (const r of order) {
    const s = a.startNs[r]!;
    const e = a.endNs[r]!;
    if (!open) {
      gs = s;
      ge = e;
      open = true;
    } else if (s > runningMax) {
      out.push(gs, ge);
      gs = s;
      ge = e;
    } else if (e > ge) ge = e;
    if (e > runningMax) runningMax = e;
  }
  if (open) out.push(gs, ge);
  return out;
}

export function mergedLengthNs(merged: MergedIntervals): number {
  let t = 0;
  for (let k = 0; k < merged.length; k += 2) t += merged[k + 1]! - merged[k]!;
  return t;
}

// ------------------------------------------------------------------------------------------------
// The breakdown

export interface KernelStats {
  /** Kernel name, or `others` for the rest folded together. */
  readonly name: string;
  readonly count: number;
  readonly sumNs: number;
  readonly minNs: number;
  readonly maxNs: number;
  readonly meanNs: number;
  /** Sample standard deviation (0 for one kernel), as pandas computes it. */
  readonly stdNs: number;
}

export interface KernelTypeRow {
  /** `computation`, `communication`, `memory`, or a set such as `computation overlapping communication`. */
  readonly type: string;
  /** Wall-clock time during which exactly this set of types was running. */
  readonly sumNs: number;
  /** sumNs over the sum of all rows (the GPU's busy time with non-`other` work). */
  readonly share: number;
}

export interface KernelTypeTotals {
  readonly type: KernelType;
  readonly count: number;
  /** Σ durations of the type's activities (concurrent ones counted each). */
  readonly durationSumNs: number;
  /** Wall-clock union of the type's activities. */
  readonly unionNs: number;
  /** The kernels that take the most time, by Σ duration; the rest folded into `others`. */
  readonly kernels: readonly KernelStats[];
}

export interface KernelTypeBreakdown {
  readonly rows: readonly KernelTypeRow[];
  readonly types: readonly KernelTypeTotals[];
}

export interface KernelTypeOptions {
  /** How many kernels to list per type before folding the rest into `others` (HTA: 10). */
  readonly topKernels?: number;
  /** HTA's folding rule: also fold kernels past the `durationRatio` quantile of the cumulative sum. */
  readonly htaFolding?: boolean;
  /** HTA's `duration_ratio` (0.8). */
  readonly durationRatio?: number;
}

/** Types the sweep labels, in HTA's bit order (COMPUTATION, COMMUNICATION, MEMORY). */
const SWEPT: readonly KernelTypeId[] = [KernelTypeId.Computation, KernelTypeId.Communication, KernelTypeId.Memory];

export function computeKernelTypeBreakdown(
  a: BreakdownActivities,
  opts: KernelTypeOptions = {},
): KernelTypeBreakdown {
  const top = opts.topKernels ?? 10;
  // HTA sums the per-rank sweeps; kinetoscope sums per-device sweeps (one rank's devices are
  // separate GPUs, whose overlap says nothing).
  const byDevice = new Map<number, number[]>();
  for (let r = 0; r < a.length; r++) {
    let list = byDevice.get(a.device[r]!);
    if (!list) byDevice.set(a.device[r]!, (list = []));
    list.push(r);
  }
  const sums = new Map<string, number>();
  for (const rows of byDevice.values()) {
    for (const [label, ns] of sweepTypes(a, rows)) sums.set(label, (sums.get(label) ?? 0) + ns);
  }
  const total = [...sums.values()].reduce((s, v) => s + v, 0);
  const rows: KernelTypeRow[] = [...sums]
    .map(([type, sumNs]) => ({ type, sumNs, share: total > 0 ? sumNs / total : 0 }))
    .sort((x, y) => y.sumNs - x.sumNs || compareText(x.type, y.type));

  const types: KernelTypeTotals[] = [];
  for (let t = 0; t < KERNEL_TYPES.length; t++) {
    const members: number[] = [];
    for (let r = 0; r < a.length; r++) if (a.type[r] === t) members.push(r);
    if (members.length === 0) continue;
    let durationSumNs = 0;
    for (const r of members) durationSumNs += a.endNs[r]! - a.startNs[r]!;
    let unionNs = 0;
    for (const rowsOfDevice of byDevice.values()) {
      const mine = rowsOfDevice.filter((r) => a.type[r] === t);
      if (mine.length) unionNs += mergedLengthNs(mergeRows(a, mine));
    }
    types.push({
      type: KERNEL_TYPES[t]!,
      count: members.length,
      durationSumNs,
      unionNs,
      kernels: kernelStats(a, members, top, opts.htaFolding ? (opts.durationRatio ?? 0.8) : undefined),
    });
  }
  return { rows, types };
}

/** Labels every stretch of one device's time with the set of types running in it (HTA's sweep). */
function sweepTypes(a: BreakdownActivities, rows: readonly number[]): Map<string, number> {
  const events: { t: number; d: number }[] = [];
  SWEPT.forEach((type, bit) => {
    const mine = rows.filter((r) => a.type[r] === type);
    if (mine.length === 0) return;
    const merged = mergeRows(a, mine);
    for (let k = 0; k < merged.length; k += 2) {
      events.push({ t: merged[k]!, d: 1 << bit }, { t: merged[k + 1]!, d: -(1 << bit) });
    }
  });
  events.sort((x, y) => x.t - y.t);
  const out = new Map<string, number>();
  let running = 0;
  for (let k = 0; k < events.length; k++) {
    running += events[k]!.d;
    const next = events[k + 1];
    if (!next || running <= 0) continue;
    const dur = next.t - events[k]!.t;
    if (dur === 0) continue;
    // HTA names a running value by the bits it has set — even a value a −1 µs interval made
    // up (its end sorts before its start); kept so HTA's figures come out the same.
    const label = SWEPT.filter((_, bit) => running & (1 << bit))
      .map((t) => KERNEL_TYPES[t])
      .join(' overlapping ');
    if (!label) continue;
    out.set(label, (out.get(label) ?? 0) + dur);
  }
  return out;
}

function stats(name: string, durs: readonly number[]): KernelStats {
  const n = durs.length;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const d of durs) {
    sum += d;
    if (d < min) min = d;
    if (d > max) max = d;
  }
  const mean = sum / n;
  let sq = 0;
  for (const d of durs) sq += (d - mean) ** 2;
  return { name, count: n, sumNs: sum, minNs: min, maxNs: max, meanNs: mean, stdNs: n > 1 ? Math.sqrt(sq / (n - 1)) : 0 };
}

/** Linear-interpolated quantile of ascending values (pandas' default). */
function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * Per kernel name: count and Σ/min/max/mean/std of durations, largest Σ first; past `top`
 * names the rest are folded into `others`. kinetoscope folds the kernels themselves (the
 * `others` row's figures are over every folded kernel); HTA folds the per-name rows, so its
 * `others` min/max/mean/std are over per-name sums, and it also folds every name whose
 * cumulative sum passes the `durationRatio` quantile of the cumulative sums — both reproduced
 * under `htaRatio`. Rows come back in HTA's order (by name) in HTA mode, else largest first.
 */
function kernelStats(
  a: BreakdownActivities,
  members: readonly number[],
  top: number,
  htaRatio: number | undefined,
): KernelStats[] {
  const durs = new Map<string, number[]>();
  for (const r of members) {
    let list = durs.get(a.name[r]!);
    if (!list) durs.set(a.name[r]!, (list = []));
    list.push(a.endNs[r]! - a.startNs[r]!);
  }
  const perName = [...durs].map(([id, d]) => ({ id, s: stats(id, d) }));
  perName.sort((x, y) => y.s.sumNs - x.s.sumNs || (x.s.name < y.s.name ? -1 : x.s.name > y.s.name ? 1 : 0));
  if (perName.length <= top) return htaRatio === undefined ? perName.map((p) => p.s) : byName(perName.map((p) => p.s));
  if (htaRatio === undefined) {
    const folded = perName.slice(top).flatMap((p) => durs.get(p.id)!);
    return [...perName.slice(0, top).map((p) => p.s), stats('others', folded)];
  }
  const cumsum: number[] = [];
  let acc = 0;
  for (const p of perName) cumsum.push((acc += p.s.sumNs));
  const q = quantile(cumsum, htaRatio);
  const kept: KernelStats[] = [];
  const foldedSums: number[] = [];
  let foldedCount = 0;
  perName.forEach((p, k) => {
    if (cumsum[k]! > q || k >= top) {
      foldedSums.push(p.s.sumNs);
      foldedCount += p.s.count;
    } else kept.push(p.s);
  });
  if (foldedSums.length) kept.push({ ...stats('others', foldedSums), count: foldedCount });
  return byName(kept);
}

/** HTA's row order: by name, as Python compares strings (code points). */
function byName(rows: KernelStats[]): KernelStats[] {
  return [...rows].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}
