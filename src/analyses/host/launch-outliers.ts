/**
 * HTA's `get_cuda_kernel_launch_stats` (docs/readings.md, "HTA's kernel launch statistics"): per
 * (launch call, GPU activity): short kernels (call ≤ runtime cutoff and kernel shorter than the
 * call), runtime outliers (call > runtime cutoff), launch-delay outliers (delay > launch-delay
 * cutoff). Unlike HTA, driver (`cuLaunchKernel*`), HIP and graph launches are included: HTA's name
 * list misses them.
 */
import type { TraceModel } from '../../model/trace-model.js';
import type { LaunchIndex } from '../facts/launch-index.js';
import { CallFlag, runtimeCallFlags, type ApiNames } from '../facts/runtime-calls.js';
import type { ApiCallList } from './call-list.js';

export interface LaunchStatsRow {
  /** Host index of the call and GPU index of the activity. */
  readonly host: number;
  readonly gpu: number;
  readonly api: string;
  readonly name: string;
  readonly correlation: number;
  readonly cpuDurationUs: number;
  readonly gpuDurationUs: number;
  /** max(0, GPU start − call end), as HTA. */
  readonly launchDelayUs: number;
}

export interface LaunchOutliers {
  readonly runtimeCutoffUs: number;
  readonly launchDelayCutoffUs: number;
  /** (call, activity) pairs examined. */
  readonly rows: number;
  readonly shortKernels: number;
  readonly runtimeOutliers: number;
  readonly launchDelayOutliers: number;
  /** The worst few of each class (longest call, largest delay, shortest kernel). */
  readonly topShortKernels: LaunchStatsRow[];
  readonly topRuntimeOutliers: LaunchStatsRow[];
  readonly topLaunchDelayOutliers: LaunchStatsRow[];
}

/** HTA's launch stats rows: each (call, activity) pair of the launches, and of the copies and memsets with `includeMemory`. */
export function launchRows(m: TraceModel, launched: LaunchIndex, apiCalls: ApiCallList, apiNames: ApiNames, includeMemory: boolean, rowHost: number[], rowGpu: number[]): void {
  const { offsets, items } = launched;
  const { list, count } = apiCalls;
  const { name } = m.host;
  const flags = runtimeCallFlags(m);
  for (let c = 0; c < count; c++) {
    const i = list[c]!;
    // A call that is no launch has its name's role.
    const role = apiNames.of(name[i]!).role;
    if (!(flags[i]! & CallFlag.Launch || (includeMemory && (role === 'memcpy' || role === 'memset')))) continue;
    for (let q = offsets[i]!; q < offsets[i + 1]!; q++) {
      rowHost.push(i);
      rowGpu.push(items[q]!);
    }
  }
}

/** HTA's (call, activity) rows, read by row number. */
export class LaunchRows {
  constructor(
    private readonly m: TraceModel,
    readonly rowHost: readonly number[],
    private readonly rowGpu: readonly number[],
  ) {}

  get length(): number {
    return this.rowHost.length;
  }

  cpuUs(k: number): number {
    return this.m.host.durNs[this.rowHost[k]!]! / 1000;
  }

  gpuUs(k: number): number {
    return this.m.gpu.durNs[this.rowGpu[k]!]! / 1000;
  }

  delayUs(k: number): number {
    const { host, gpu } = this.m;
    const h = this.rowHost[k]!;
    return Math.max(0, gpu.startNs[this.rowGpu[k]!]! - (host.startNs[h]! + host.durNs[h]!)) / 1000;
  }

  row(k: number): LaunchStatsRow {
    const { host, gpu, strings } = this.m;
    const h = this.rowHost[k]!;
    const g = this.rowGpu[k]!;
    const end = host.startNs[h]! + host.durNs[h]!;
    return {
      host: h,
      gpu: g,
      api: strings.get(host.name[h]!),
      name: strings.get(gpu.name[g]!),
      correlation: host.correlation[h]!,
      cpuDurationUs: host.durNs[h]! / 1000,
      gpuDurationUs: gpu.durNs[g]! / 1000,
      launchDelayUs: Math.max(0, gpu.startNs[g]! - end) / 1000,
    };
  }

  all(): LaunchStatsRow[] {
    return this.rowHost.map((_, k) => this.row(k));
  }
}

export function launchOutliers(rows: LaunchRows, runtimeCutoffUs: number, launchDelayCutoffUs: number, top: number): LaunchOutliers {
  const short: number[] = [];
  const runtime: number[] = [];
  const delay: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    const c = rows.cpuUs(k);
    if (c <= runtimeCutoffUs && rows.gpuUs(k) < c) short.push(k);
    if (c > runtimeCutoffUs) runtime.push(k);
    if (rows.delayUs(k) > launchDelayCutoffUs) delay.push(k);
  }
  const topBy = (list: number[], score: (k: number) => number) => firstInOrder(list, score, rows.rowHost, top).map((k) => rows.row(k));
  return {
    runtimeCutoffUs,
    launchDelayCutoffUs,
    rows: rows.length,
    shortKernels: short.length,
    runtimeOutliers: runtime.length,
    launchDelayOutliers: delay.length,
    topShortKernels: topBy(short, (k) => rows.cpuUs(k) - rows.gpuUs(k)),
    topRuntimeOutliers: topBy(runtime, (k) => rows.cpuUs(k)),
    topLaunchDelayOutliers: topBy(delay, (k) => rows.delayUs(k)),
  };
}

/**
 * The first `top` of `list` (ascending row numbers) in the order of the stable sort by score,
 * highest first, then by call index: what `list.sort(…).slice(0, top)` gives, without sorting
 * every row to keep ten (a trace has a row per launch). Each row is placed into a short sorted
 * list; a NaN score has no place in that order, and then the sort itself decides, as before.
 */
function firstInOrder(list: number[], score: (k: number) => number, rowHost: readonly number[], top: number): number[] {
  const byOrder = (a: number, b: number) => score(b) - score(a) || rowHost[a]! - rowHost[b]!;
  if (top === 0) return []; // none asked for
  if (!(Number.isInteger(top) && top > 0)) return list.sort(byOrder).slice(0, top);
  const scores = new Float64Array(list.length);
  for (let k = 0; k < list.length; k++) {
    scores[k] = score(list[k]!);
    if (scores[k] !== scores[k]) return list.sort(byOrder).slice(0, top);
  }
  // Kept positions into list, best first; ties broken by the earlier position (the stable sort's).
  const kept: number[] = [];
  const before = (p: number, q: number) => {
    const d = scores[q]! - scores[p]!; // NaN (two equal infinities) is a tie, as in the sort's comparator
    if (d !== 0 && d === d) return d < 0;
    const h = rowHost[list[p]!]! - rowHost[list[q]!]!;
    return h !== 0 ? h < 0 : p < q;
  };
  for (let p = 0; p < list.length; p++) {
    if (kept.length === top && !before(p, kept[top - 1]!)) continue;
    let at = kept.length === top ? top - 1 : kept.length;
    while (at > 0 && before(p, kept[at - 1]!)) {
      kept[at] = kept[at - 1]!;
      at--;
    }
    kept[at] = p;
  }
  return kept.map((p) => list[p]!);
}
