/**
 * Launch anatomy (BRIEF reading S5): what every kernel launch cost the host and how long the
 * kernel then waited, which runtime/driver calls each op makes around its launches, and where
 * the host stopped to wait for the GPU.
 *
 * Handles:
 * - every runtime/driver call, as facts/runtime-calls.ts defines them: kernel and graph launches
 *   (a graph launch is one launch with N kernels; any call CUPTI linked to a kernel is a launch
 *   too), copies, memsets, synchronizations.
 * - launch latency, two ways (research/hta.md §1.17): kernel start − end of the launch call
 *   (HTA's `launch_delay`, clipped at 0 there; kept signed here) and kernel start − start of the
 *   call (HTA's critical-path / `runtime_delay`). For a graph, of its first GPU activity.
 * - per op: the runtime/driver calls whose innermost enclosing `cpu_op` is that op (torch gives
 *   them the op's External id), grouped into patterns: "aten::addmm = 1× cudaMemsetAsync
 *   (+1 memset), 1× cuLaunchKernelEx (+1 kernel)".
 * - host synchronizations (facts/runtime-calls.ts `syncKindOf`), each with where it was called
 *   from and what the GPU did meanwhile; `.item()` recognised through `aten::item` /
 *   `_local_scalar_dense`.
 * - HTA's `get_cuda_kernel_launch_stats` (research/hta.md §1.6): per (launch call, GPU activity):
 *   short kernels (call ≤ runtime cutoff and kernel shorter than the call), runtime outliers (call
 *   > runtime cutoff), launch-delay outliers (delay > launch-delay cutoff). Unlike HTA, driver
 *   (`cuLaunchKernel*`), HIP and graph launches are included: HTA's name list misses them.
 *
 * Ignores: `cuda_sync` records (Kineto's own sync activity; `doctor` reads those).
 */
import { perModel, perModelWith } from '../helpers/per-model.js';
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { compareText } from '../../core/compare-text.js';
import { doubled } from '../helpers/doubled.js';
import { quantileSorted, timeStats, type TimeStats } from '../helpers/quantiles.js';
import { gpuBusyDuring } from '../facts/gpu-time-index.js';
import { launchedBy, launchIndexOf, type LaunchIndex } from '../facts/launch-index.js';
import { ApiNames, CallFlag, isLaunchCall, runtimeCallFlags, syncBlocksHost, type ApiRole, type SyncKind } from '../facts/runtime-calls.js';

// ------------------------------------------------------------------------------------------------
// Results

export interface ApiRow {
  readonly api: string;
  readonly role: ApiRole;
  readonly calls: number;
  /** CPU time of the calls (their durations). */
  readonly cpu: TimeStats;
  /** GPU activities the calls launched (kernels, copies, memsets). */
  readonly kernels: number;
  readonly memcpys: number;
  readonly memsets: number;
  /** Calls that launched no GPU activity the trace kept (launch APIs only matter here). */
  readonly callsWithoutGpuWork: number;
  /** First GPU activity start − call end, over calls that launched something. */
  readonly latency: TimeStats;
  /** First GPU activity start − call start. */
  readonly startToStart: TimeStats;
}

export interface KernelLaunchRow {
  readonly name: string;
  readonly kind: 'kernel' | 'gpu_memcpy' | 'gpu_memset';
  readonly count: number;
  /** Launch API → how many of these activities it launched. */
  readonly apis: Record<string, number>;
  /** How many were launched through a graph launch (latency then includes their place in the graph). */
  readonly viaGraph: number;
  readonly gpu: TimeStats;
  /** CPU time of the launching call (a graph launch's call is counted once per activity it launched). */
  readonly launchCpu: TimeStats;
  /** Activity start − launching call end. */
  readonly latency: TimeStats;
  /** Activity start − launching call start. */
  readonly startToStart: TimeStats;
}

export interface OpCallPattern {
  readonly op: string;
  /** Runtime/driver calls per instance, in first-call order: "1× cudaMemsetAsync (+1 memset), 1× cuLaunchKernelEx (+1 kernel)". */
  readonly pattern: string;
  readonly calls: ReadonlyArray<{ readonly api: string; readonly count: number; readonly kernels: number; readonly memcpys: number; readonly memsets: number }>;
  readonly instances: number;
  /** Mean CPU total of the op instance. */
  readonly meanOpUs: number;
  /** Mean CPU time inside its runtime/driver calls. */
  readonly meanApiUs: number;
  /** Mean CPU time inside its kernel/graph launch calls. */
  readonly meanLaunchUs: number;
}

export interface HostSync {
  /** Host table index of the call. */
  readonly host: number;
  readonly api: string;
  readonly kind: SyncKind;
  readonly startUs: number;
  /** Host time inside the call: the time it was blocked (a stream wait does not block; its duration is only the call). */
  readonly blockedUs: number;
  /** Part of the call during which some GPU activity was running (the host waiting on real work). */
  readonly gpuBusyDuringUs: number;
  /** Innermost and outermost enclosing cpu_op, when any. */
  readonly op?: string;
  readonly topOp?: string;
  /** Under `aten::item` / `aten::_local_scalar_dense`: a `.item()` (or `bool(tensor)`, `float(tensor)`). */
  readonly item: boolean;
  /** The op issued a device-to-host copy before waiting (the value the host is waiting for). */
  readonly afterDtoH: boolean;
}

export interface SyncRow {
  readonly api: string;
  readonly kind: SyncKind;
  readonly cause: string;
  readonly count: number;
  readonly blockedUs: number;
  readonly gpuBusyDuringUs: number;
  readonly maxUs: number;
}

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

export interface LaunchTotals {
  /** Launch calls (`isLaunchCall`): kernel and graph launches. */
  readonly launches: number;
  readonly graphLaunches: number;
  readonly kernelsViaGraphs: number;
  readonly launchCpuUs: number;
  readonly launchesWithoutKernel: number;
  /** Kernels no runtime/driver call is linked to. */
  readonly kernelsWithoutLaunch: number;
  readonly kernels: number;
  /** GPU memsets and copies: counted beside the launches, not as launches. */
  readonly memsets: number;
  readonly memcpys: number;
  readonly hostSyncs: number;
  readonly hostBlockedUs: number;
}

export interface LaunchAnatomy {
  readonly totals: LaunchTotals;
  readonly byApi: ApiRow[];
  readonly byKernel: KernelLaunchRow[];
  readonly ops: OpCallPattern[];
  readonly syncs: HostSync[];
  readonly syncsByCause: SyncRow[];
  readonly outliers: LaunchOutliers;
  /** Every (launch call, activity) pair, as HTA's launch stats; only with `keepRows`. */
  readonly rows?: LaunchStatsRow[];
}

export interface LaunchOptions {
  /** HTA's `runtime_cutoff` (µs), default 50. */
  readonly runtimeCutoffUs?: number;
  /** HTA's `launch_delay_cutoff` (µs), default 100. */
  readonly launchDelayCutoffUs?: number;
  /** Count memcpy/memset calls in the outlier stats (HTA's `include_memory_events`, default true). */
  readonly includeMemoryEvents?: boolean;
  /** How many of each outlier class to keep, default 10. */
  readonly top?: number;
  /** Keep every (call, activity) row. */
  readonly keepRows?: boolean;
}

// ------------------------------------------------------------------------------------------------

/** Innermost enclosing `cpu_op` of host event `i` (annotations skipped), or -1. */
export function innermostOp(m: TraceModel, i: number): number {
  for (let p = m.host.parent[i]!; p >= 0; p = m.host.parent[p]!) if (m.host.kind[p] === HostKind.Op) return p;
  return -1;
}

const ITEM_OPS = new Set(['aten::item', 'aten::_local_scalar_dense']);

// The analysis runs once per process, so its first run is the one that counts. Each phase below
// is its own function with one loop over a table, or over what an earlier phase collected: V8
// optimises each loop once, with that loop's type feedback, instead of recompiling one large
// function (and running it unoptimised meanwhile) each time it reaches a loop it has not run yet —
// eight compiles of the single function this was, on the 160 MB trace.

function computeLaunchesOnce(m: TraceModel, opts: LaunchOptions = {}): LaunchAnatomy {
  const runtimeCutoffUs = opts.runtimeCutoffUs ?? 50;
  const launchDelayCutoffUs = opts.launchDelayCutoffUs ?? 100;
  const includeMemory = opts.includeMemoryEvents ?? true;
  const top = opts.top ?? 10;
  const launched = launchIndexOf(m);
  const apiNames = new ApiNames(m);
  const apiCalls = apiCallList(m);
  const calls = scanApiCalls(m, launched, apiCalls, apiNames, includeMemory, true, true);
  const byApi = apiRows(calls.apis);
  const work = scanLaunchedWork(m, apiNames, true);
  const byKernel = kernelRows(m, work.byName);
  const ops = opCallPatterns(m, apiCalls, calls.perCall);
  const bySync = syncRows(calls.syncs);
  const rows = new LaunchRows(m, calls.rowHost, calls.rowGpu);
  return {
    totals: {
      launches: calls.launches,
      graphLaunches: calls.graphLaunches,
      kernelsViaGraphs: calls.kernelsViaGraphs,
      launchCpuUs: calls.launchCpuNs / 1000,
      launchesWithoutKernel: calls.launchesWithoutKernel,
      kernelsWithoutLaunch: work.kernelsWithoutLaunch,
      kernels: work.kernels,
      memsets: work.memsets,
      memcpys: work.memcpys,
      hostSyncs: bySync.hostSyncs,
      hostBlockedUs: bySync.hostBlockedUs,
    },
    byApi,
    byKernel,
    ops,
    syncs: calls.syncs,
    syncsByCause: bySync.rows,
    outliers: launchOutliers(rows, runtimeCutoffUs, launchDelayCutoffUs, top),
    ...(opts.keepRows ? { rows: rows.all() } : {}),
  };
}

/**
 * What `explain` says of the launches (S5): per API its calls, the activities it launched, its
 * CPU per call and the median latency of its launches; per activity name its launch APIs and
 * mean duration; each op's calls; the host synchronizations. The same phases as
 * `computeLaunches`, without what `explain` does not print: HTA's rows and outliers, and the
 * other statistics of each list (a sort each).
 */
export interface LaunchDigest {
  /** `LaunchTotals.launches`. */
  readonly launches: number;
  /** In `LaunchAnatomy.byApi`'s order. */
  readonly byApi: readonly ApiDigestRow[];
  /** In `LaunchAnatomy.byKernel`'s order. */
  readonly byKernel: readonly KernelDigestRow[];
  readonly ops: readonly OpCallPattern[];
  readonly syncs: readonly HostSync[];
  readonly syncsByCause: readonly SyncRow[];
}

export interface ApiDigestRow extends Pick<ApiRow, 'api' | 'role' | 'calls' | 'kernels'> {
  /** `ApiRow.cpu`'s total and mean, `ApiRow.latency`'s median. */
  readonly cpuTotalUs: number;
  readonly cpuMeanUs: number;
  readonly latencyMedianUs: number;
}

export interface KernelDigestRow extends Pick<KernelLaunchRow, 'name' | 'kind' | 'count' | 'apis'> {
  /** `KernelLaunchRow.gpu`'s total and mean. */
  readonly gpuTotalUs: number;
  readonly gpuMeanUs: number;
}

function computeLaunchDigestOnce(m: TraceModel): LaunchDigest {
  const launched = launchIndexOf(m);
  const apiNames = new ApiNames(m);
  const apiCalls = apiCallList(m);
  const calls = scanApiCalls(m, launched, apiCalls, apiNames, true, false, false);
  const work = scanLaunchedWork(m, apiNames, false);
  return {
    launches: calls.launches,
    byApi: apiDigestRows(calls.apis),
    byKernel: kernelDigestRows(m, work.byName),
    ops: opCallPatterns(m, apiCalls, calls.perCall),
    syncs: calls.syncs,
    syncsByCause: syncRows(calls.syncs).rows,
  };
}

/** computeLaunchDigest, computed once per model (per-model.ts): the result is shared, read-only. */
export const computeLaunchDigest = perModel(computeLaunchDigestOnce);

function apiDigestRows(apis: Map<string, ApiAcc>): ApiDigestRow[] {
  const rows: ApiDigestRow[] = [...apis].map(([api, a]) => {
    // The sum of integer ns: exact, the same as timeStats's total.
    const cpuTotalUs = a.cpuNs / 1000;
    return { api, role: a.role, calls: a.calls, kernels: a.kernels, cpuTotalUs, cpuMeanUs: a.calls ? a.cpuNs / a.calls / 1000 : NaN, latencyMedianUs: quantileSorted(new Float64Array(a.latency).sort(), 0.5) / 1000 };
  });
  return rows.sort((a, b) => apiOrder(a.cpuTotalUs, a.api, b.cpuTotalUs, b.api));
}

function kernelDigestRows(m: TraceModel, byName: Map<number, KernelAcc>): KernelDigestRow[] {
  const rows: KernelDigestRow[] = [...byName].map(([id, a]) => {
    // timeStats(a.gpu)'s total and mean: the durations summed in the same order as they came.
    return { name: m.strings.get(id), kind: KIND[a.kind]!, count: a.count, apis: a.apis, gpuTotalUs: a.gpuNs / 1000, gpuMeanUs: a.gpuNs / a.count / 1000 };
  });
  return rows.sort((a, b) => kernelOrder(a.count, a.gpuTotalUs, a.name, b.count, b.gpuTotalUs, b.name));
}

// --- per API, and the launch records

interface ApiAcc {
  role: ApiRole;
  calls: number;
  /** Σ of the calls' durations (integer ns: exact in any order). */
  cpuNs: number;
  /** The calls' durations and start-to-start times: only for `computeLaunches` (the digest reads cpuNs). */
  cpu: number[];
  kernels: number;
  memcpys: number;
  memsets: number;
  without: number;
  latency: number[];
  s2s: number[];
}

interface ApiCallScan {
  /** By API name, in order of first call. */
  readonly apis: Map<string, ApiAcc>;
  /** Per call (by its place in the call list). */
  readonly perCall: PerCall;
  readonly launches: number;
  readonly graphLaunches: number;
  readonly kernelsViaGraphs: number;
  readonly launchCpuNs: number;
  readonly launchesWithoutKernel: number;
  readonly syncs: HostSync[];
  /** HTA's (call, activity) pairs, kept compact: a million launches make a million rows (empty unless asked for). */
  readonly rowHost: number[];
  readonly rowGpu: number[];
}

/** What each call in the call list launched, by its place in the list. */
interface PerCall {
  readonly kernels: Int32Array;
  readonly memcpys: Int32Array;
  readonly memsets: Int32Array;
  /**
   * The call's name id and its three counts as one number: two calls with the same signature
   * have the same name and counts.
   */
  readonly sig: Float64Array;
}

/** The runtime/driver calls, host indices in host order: list[0 .. count). */
interface ApiCallList {
  readonly list: Int32Array;
  readonly count: number;
}

/** The one pass over the host table: the launch scans and the op grouping read the calls it lists. */
function apiCallList(m: TraceModel): ApiCallList {
  const flags = runtimeCallFlags(m);
  const n = m.host.length;
  // Room for every event: no growth step in the loop (a branch first taken in V8's optimised
  // code, which then throws the code away).
  const list = new Int32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) if (flags[i]! & CallFlag.Api) list[count++] = i;
  return { list, count };
}

/**
 * The runtime/driver calls, per API: the launches, HTA's rows (with `keepRows`) and the host
 * synchronizations; with `allTimes` false, of the times per API only the total CPU and the
 * latencies (what the digest reads). Each step is a loop of its own over the call list, with
 * the sums per API name id in typed arrays (no object per API updated per call): the rarer
 * work (the times `computeLaunches` alone reads, HTA's rows, the synchronizations) runs over
 * the calls that need it, not inside the loop every call goes through.
 */
function scanApiCalls(m: TraceModel, launched: LaunchIndex, apiCalls: ApiCallList, apiNames: ApiNames, includeMemory: boolean, keepRows: boolean, allTimes: boolean): ApiCallScan {
  const perCall = countCallWork(m, launched, apiCalls);
  const sums = new ApiSums(m.strings.size, apiNames);
  const scan = sumPerApi(m, launched, apiCalls, perCall, sums);
  if (allTimes) addAllTimes(m, launched, apiCalls, sums);
  const rowHost: number[] = [];
  const rowGpu: number[] = [];
  if (keepRows) launchRows(m, launched, apiCalls, apiNames, includeMemory, rowHost, rowGpu);
  // Host synchronizations: by name, else a blocking copy (facts/runtime-calls.ts).
  const { list } = apiCalls;
  const syncHost: number[] = [];
  const syncApi: string[] = [];
  const syncKind: SyncKind[] = [];
  for (const c of scan.syncs) {
    const i = list[c]!;
    const info = apiNames.of(m.host.name[i]!);
    syncHost.push(i);
    syncApi.push(info.name);
    syncKind.push(info.sync ?? 'blocking-copy');
  }
  // What the GPU did during each synchronization (most traces have few or none).
  const syncs: HostSync[] = [];
  const busyNs = syncHost.length ? gpuBusyDuring(m, syncHost) : undefined;
  for (let k = 0; k < syncHost.length; k++) syncs.push(hostSync(m, launched, syncHost[k]!, syncApi[k]!, syncKind[k]!, busyNs![k]!));
  // By API name, in order of first call (one name id per name).
  const apis = new Map<string, ApiAcc>();
  for (let s = 0; s < sums.order.length; s++) {
    const id = sums.order[s]!;
    apis.set(apiNames.of(id).name, {
      role: sums.role[s]!,
      calls: sums.calls[id]!,
      cpuNs: sums.cpuNs[id]!,
      cpu: sums.cpu[s] ?? [],
      kernels: sums.kernels[id]!,
      memcpys: sums.memcpys[id]!,
      memsets: sums.memsets[id]!,
      without: sums.without[id]!,
      latency: sums.latency[s]!,
      s2s: sums.s2s[s] ?? [],
    });
  }
  const { launches, graphLaunches, kernelsViaGraphs, launchCpuNs, launchesWithoutKernel } = scan;
  return { apis, perCall, launches, graphLaunches, kernelsViaGraphs, launchCpuNs, launchesWithoutKernel, syncs, rowHost, rowGpu };
}

/**
 * The sums per API, by call name id; the names in order of first call, and by that order (a
 * dense list: name ids run to the string table's size) the lists per API.
 */
class ApiSums {
  /** Per name id, its place in `order`; -1 until its first call. */
  readonly slot: Int32Array;
  readonly calls: Int32Array;
  readonly cpuNs: Float64Array;
  readonly kernels: Int32Array;
  readonly memcpys: Int32Array;
  readonly memsets: Int32Array;
  readonly without: Int32Array;
  readonly order: number[] = [];
  /** The API's role: its name's, or a kernel launch when its first call launched a kernel. */
  readonly role: ApiRole[] = [];
  readonly latency: number[][] = [];
  /** Only with `allTimes`. */
  readonly cpu: number[][] = [];
  readonly s2s: number[][] = [];

  constructor(
    size: number,
    private readonly apiNames: ApiNames,
  ) {
    this.slot = new Int32Array(size).fill(-1);
    this.calls = new Int32Array(size);
    this.cpuNs = new Float64Array(size);
    this.kernels = new Int32Array(size);
    this.memcpys = new Int32Array(size);
    this.memsets = new Int32Array(size);
    this.without = new Int32Array(size);
  }

  /** The first call of name `id`, which launched `kernels` kernels. */
  meet(id: number, kernels: number): void {
    const info = this.apiNames.of(id);
    let role = info.role;
    // A call CUPTI linked to a kernel is a launch whatever its name.
    if (role !== 'kernel-launch' && role !== 'graph-launch' && isLaunchCall(false, kernels > 0)) role = 'kernel-launch';
    this.slot[id] = this.order.length;
    this.order.push(id);
    this.role.push(role);
    this.latency.push([]);
  }
}

/** The kernels, copies and memsets each call launched, and each call's signature. */
function countCallWork(m: TraceModel, launched: LaunchIndex, apiCalls: ApiCallList): PerCall {
  const { offsets, items } = launched;
  const { list, count } = apiCalls;
  const gpuKind = m.gpu.kind;
  const hostName = m.host.name;
  const kernels = new Int32Array(count);
  const memcpys = new Int32Array(count);
  const memsets = new Int32Array(count);
  const sig = new Float64Array(count);
  for (let c = 0; c < count; c++) {
    const i = list[c]!;
    const to = offsets[i + 1]!;
    let k = 0;
    let mc = 0;
    let ms = 0;
    for (let q = offsets[i]!; q < to; q++) {
      const gk = gpuKind[items[q]!];
      if (gk === GpuKind.Kernel) k++;
      else if (gk === GpuKind.Memcpy) mc++;
      else ms++;
    }
    kernels[c] = k;
    memcpys[c] = mc;
    memsets[c] = ms;
    // The signature (see SIG_NAMES).
    const api = hostName[i]!;
    sig[c] = api < SIG_NAMES && k < SIG_KERNELS && mc < SIG_COPIES && ms < SIG_COPIES ? ((api * SIG_KERNELS + k) * SIG_COPIES + mc) * SIG_COPIES + ms : -1 - c;
  }
  return { kernels, memcpys, memsets, sig };
}

// A call's signature packs its name id and counts exactly (below 2^53); a call whose numbers do
// not fit gets one of its own, -1 - its place, equal to no other call's.
const SIG_NAMES = 2 ** 26;
const SIG_KERNELS = 2 ** 15;
const SIG_COPIES = 2 ** 6;

interface PerApiScan {
  readonly launches: number;
  readonly graphLaunches: number;
  readonly kernelsViaGraphs: number;
  readonly launchCpuNs: number;
  readonly launchesWithoutKernel: number;
  /** Places of the calls that synchronize (by name, or a blocking copy), in call order. */
  readonly syncs: number[];
}

/** Per API its calls, CPU, launched work and latencies; the launches and the synchronizations. */
function sumPerApi(m: TraceModel, launched: LaunchIndex, apiCalls: ApiCallList, perCall: PerCall, sums: ApiSums): PerApiScan {
  const { offsets, items } = launched;
  const { list, count } = apiCalls;
  const hostName = m.host.name;
  const hostStart = m.host.startNs;
  const hostDur = m.host.durNs;
  const gpuStart = m.gpu.startNs;
  const flags = runtimeCallFlags(m);
  const { kernels, memcpys, memsets } = perCall;
  const { slot, calls, cpuNs, latency, without } = sums;
  const apiKernels = sums.kernels;
  const apiMemcpys = sums.memcpys;
  const apiMemsets = sums.memsets;
  let launches = 0;
  let graphLaunches = 0;
  let kernelsViaGraphs = 0;
  let launchCpuNs = 0;
  let launchesWithoutKernel = 0;
  const syncs: number[] = [];
  for (let c = 0; c < count; c++) {
    const i = list[c]!;
    const id = hostName[i]!;
    const k = kernels[c]!;
    const f = flags[i]!;
    if (slot[id]! < 0) sums.meet(id, k);
    const dur = hostDur[i]!;
    calls[id]++;
    cpuNs[id] += dur;
    const from = offsets[i]!;
    if (offsets[i + 1]! > from) {
      apiKernels[id] += k;
      apiMemcpys[id] += memcpys[c]!;
      apiMemsets[id] += memsets[c]!;
      latency[slot[id]!]!.push(gpuStart[items[from]!]! - (hostStart[i]! + dur));
    } else without[id]++;
    if (f & CallFlag.Launch) {
      launches++;
      launchCpuNs += dur;
      if (f & CallFlag.GraphLaunch) {
        graphLaunches++;
        kernelsViaGraphs += k;
      }
      if (k === 0) launchesWithoutKernel++;
    }
    if (f & (CallFlag.SyncByName | CallFlag.BlockingCopy)) syncs.push(c);
  }
  return { launches, graphLaunches, kernelsViaGraphs, launchCpuNs, launchesWithoutKernel, syncs };
}

/** Per API, every call's duration and its start-to-start time: what `computeLaunches` alone reads. */
function addAllTimes(m: TraceModel, launched: LaunchIndex, apiCalls: ApiCallList, sums: ApiSums): void {
  const { offsets, items } = launched;
  const { list, count } = apiCalls;
  const { name, startNs, durNs } = m.host;
  const gpuStart = m.gpu.startNs;
  for (let c = 0; c < count; c++) {
    const i = list[c]!;
    const s = sums.slot[name[i]!]!;
    (sums.cpu[s] ??= []).push(durNs[i]!);
    const s2s = (sums.s2s[s] ??= []);
    if (offsets[i + 1]! > offsets[i]!) s2s.push(gpuStart[items[offsets[i]!]!]! - startNs[i]!);
  }
}

/** HTA's launch stats rows: each (call, activity) pair of the launches, and of the copies and memsets with `includeMemory`. */
function launchRows(m: TraceModel, launched: LaunchIndex, apiCalls: ApiCallList, apiNames: ApiNames, includeMemory: boolean, rowHost: number[], rowGpu: number[]): void {
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

/** Host call i, a synchronization of kind `kind`: where it was called from and what it waited for. */
function hostSync(m: TraceModel, launched: LaunchIndex, i: number, api: string, kind: SyncKind, gpuBusyNs: number): HostSync {
  const { host, gpu, strings } = m;
  const start = host.startNs[i]!;
  const dur = host.durNs[i]!;
  const op = innermostOp(m, i);
  let topOp = -1;
  let item = false;
  for (let p = op; p >= 0; p = host.parent[p]!) {
    if (host.kind[p] !== HostKind.Op) continue;
    topOp = p;
    if (ITEM_OPS.has(strings.get(host.name[p]!))) item = true;
  }
  let afterDtoH = false;
  if (op >= 0) {
    for (let c = host.firstChild[op]!; c >= 0 && c !== i; c = host.nextSibling[c]!) {
      for (const g of launchedBy(launched, c)) {
        if (gpu.kind[g] === GpuKind.Memcpy && /DtoH/.test(strings.get(gpu.name[g]!))) afterDtoH = true;
      }
    }
  }
  return {
    host: i,
    api,
    kind,
    startUs: start / 1000,
    blockedUs: dur / 1000,
    gpuBusyDuringUs: gpuBusyNs / 1000,
    ...(op >= 0 ? { op: strings.get(host.name[op]!) } : {}),
    ...(topOp >= 0 ? { topOp: strings.get(host.name[topOp]!) } : {}),
    item,
    afterDtoH,
  };
}

function apiRows(apis: Map<string, ApiAcc>): ApiRow[] {
  const byApi: ApiRow[] = [...apis].map(([api, a]) => ({
    api,
    role: a.role,
    calls: a.calls,
    cpu: timeStats(a.cpu),
    kernels: a.kernels,
    memcpys: a.memcpys,
    memsets: a.memsets,
    callsWithoutGpuWork: a.without,
    latency: timeStats(a.latency),
    startToStart: timeStats(a.s2s),
  }));
  return byApi.sort((a, b) => apiOrder(a.cpu.totalUs, a.api, b.cpu.totalUs, b.api));
}

/** The order of the per-API rows (`byApi`, and explain's digest of them): most CPU first, then by name. */
function apiOrder(aCpuUs: number, aApi: string, bCpuUs: number, bApi: string): number {
  return bCpuUs - aCpuUs || compareText(aApi, bApi);
}

// --- per kernel name

interface KernelAcc {
  kind: GpuKind;
  apis: Record<string, number>;
  viaGraph: number;
  /** Activities, and the Σ of their durations in the order they came. */
  count: number;
  gpuNs: number;
  /** The activities' durations, their calls' durations and latencies: only for `computeLaunches`. */
  gpu: number[];
  cpu: number[];
  latency: number[];
  s2s: number[];
}

interface LaunchedWorkScan {
  /** By GPU name id, in order of first activity launched. */
  readonly byName: Map<number, KernelAcc>;
  readonly kernelsWithoutLaunch: number;
  readonly kernels: number;
  readonly memsets: number;
  readonly memcpys: number;
}

/**
 * One pass over the GPU table: each launched activity with its launching call, by activity name;
 * with `allTimes`, a second pass for the times only `computeLaunches` reads (the activities'
 * durations, their calls' durations and latencies). Summed per GPU name id in typed arrays, with
 * its first launch API written beside it (most names have one): a second API, and the names,
 * are met rarely and handled out of the loop.
 */
function scanLaunchedWork(m: TraceModel, apiNames: ApiNames, allTimes: boolean): LaunchedWorkScan {
  const { host, gpu } = m;
  const { kind, launcher, durNs, length: nGpu } = gpu;
  const gpuName = gpu.name;
  const hostName = host.name;
  const size = m.strings.size;
  const count = new Int32Array(size);
  const gpuNs = new Float64Array(size);
  const firstApi = new Int32Array(size).fill(-1);
  const firstApiCount = new Int32Array(size);
  const more = new MoreApis();
  let kernelsWithoutLaunch = 0;
  let kernels = 0;
  let memsets = 0;
  let memcpys = 0;
  for (let g = 0; g < nGpu; g++) {
    const k = kind[g]!;
    if (k === GpuKind.Kernel) kernels++;
    else if (k === GpuKind.Memcpy) memcpys++;
    else memsets++;
    const h = launcher[g]!;
    if (h < 0) {
      if (k === GpuKind.Kernel) kernelsWithoutLaunch++;
      continue;
    }
    const id = gpuName[g]!;
    if (count[id]++ === 0) more.meet(id, k);
    gpuNs[id] += durNs[g]!;
    const api = hostName[h]!;
    if (firstApi[id] === api) firstApiCount[id]++;
    else if (firstApi[id]! < 0) {
      firstApi[id] = api;
      firstApiCount[id] = 1;
    } else more.tally(id, api);
  }
  const times = allTimes ? launchedTimes(m, more.order) : undefined;
  const byName = new Map<number, KernelAcc>();
  for (let j = 0; j < more.order.length; j++) {
    const id = more.order[j]!;
    // Launch APIs in order of first launch; whether each is a graph launch, decided once per name.
    const apis: Record<string, number> = {};
    let viaGraph = 0;
    const add = (api: number, n: number) => {
      const info = apiNames.of(api);
      apis[info.name] = n;
      if (info.graph) viaGraph += n;
    };
    add(firstApi[id]!, firstApiCount[id]!);
    const others = more.apis[id];
    if (others) for (let q = 0; q < others.ids.length; q++) add(others.ids[q]!, others.counts[q]!);
    const tm = times?.[j];
    byName.set(id, { kind: more.kinds[j]!, apis, viaGraph, count: count[id]!, gpuNs: gpuNs[id]!, gpu: tm?.gpu ?? [], cpu: tm?.cpu ?? [], latency: tm?.latency ?? [], s2s: tm?.s2s ?? [] });
  }
  return { byName, kernelsWithoutLaunch, kernels, memsets, memcpys };
}

/** The launched activities' names in order of first launch, and their launch APIs after the first (by GPU name id). */
class MoreApis {
  readonly order: number[] = [];
  readonly kinds: GpuKind[] = [];
  readonly apis: Array<{ ids: number[]; counts: number[] } | undefined> = [];

  meet(id: number, kind: GpuKind): void {
    this.order.push(id);
    this.kinds.push(kind);
  }

  /** One more activity of name `id` launched by the call name id `api`, not its first API. */
  tally(id: number, api: number): void {
    const a = (this.apis[id] ??= { ids: [], counts: [] });
    let j = 0;
    while (j < a.ids.length && a.ids[j] !== api) j++;
    if (j === a.ids.length) {
      a.ids.push(api);
      a.counts.push(1);
    } else a.counts[j]++;
  }
}

/** Per launched activity name (in `order`), the activities' durations, their calls' durations and the latencies, in GPU order: what `computeLaunches` reads. */
function launchedTimes(m: TraceModel, order: readonly number[]): Array<{ gpu: number[]; cpu: number[]; latency: number[]; s2s: number[] }> {
  const { host, gpu } = m;
  const slot = new Int32Array(m.strings.size);
  for (let j = 0; j < order.length; j++) slot[order[j]!] = j;
  const out = order.map(() => ({ gpu: [] as number[], cpu: [] as number[], latency: [] as number[], s2s: [] as number[] }));
  for (let g = 0; g < gpu.length; g++) {
    const h = gpu.launcher[g]!;
    if (h < 0) continue;
    const acc = out[slot[gpu.name[g]!]!]!;
    acc.gpu.push(gpu.durNs[g]!);
    acc.cpu.push(host.durNs[h]!);
    acc.latency.push(gpu.startNs[g]! - (host.startNs[h]! + host.durNs[h]!));
    acc.s2s.push(gpu.startNs[g]! - host.startNs[h]!);
  }
  return out;
}

const KIND = ['kernel', 'gpu_memcpy', 'gpu_memset'] as const;

function kernelRows(m: TraceModel, byName: Map<number, KernelAcc>): KernelLaunchRow[] {
  const byKernel: KernelLaunchRow[] = [...byName].map(([id, a]) => ({
    name: m.strings.get(id),
    kind: KIND[a.kind]!,
    count: a.count,
    apis: a.apis,
    viaGraph: a.viaGraph,
    gpu: timeStats(a.gpu),
    launchCpu: timeStats(a.cpu),
    latency: timeStats(a.latency),
    startToStart: timeStats(a.s2s),
  }));
  return byKernel.sort((a, b) => kernelOrder(a.count, a.gpu.totalUs, a.name, b.count, b.gpu.totalUs, b.name));
}

/** The order of the per-activity rows (`byKernel`, and explain's digest of them): most launched first, then most GPU time, then by name. */
function kernelOrder(aCount: number, aGpuUs: number, aName: string, bCount: number, bGpuUs: number, bName: string): number {
  return bCount - aCount || bGpuUs - aGpuUs || compareText(aName, bName);
}

// --- per op: the runtime/driver calls it makes

// The calls are listed in host order, where an op's calls mostly come one after another (a nested
// op's calls between two of them are rare: 42 of 22k ops on a GPT-2 trace). So each run of one
// op's calls that holds all of them is that op's instance, added where it is met, and only the
// other ops' calls are gathered by op afterwards: two loops over the calls, no sort, nothing
// host-table sized but the per-op call counts. The sums are of integer ns (the same in any
// order), and the patterns are listed by their first instance in the order ops by first call,
// then the calls outside every op (`PatternTable.firstRank`), whatever order they are met in.

function opCallPatterns(m: TraceModel, apiCalls: ApiCallList, perCall: PerCall): OpCallPattern[] {
  const opOf = new Int32Array(apiCalls.count);
  const callsOfOp = new Int32Array(m.host.length);
  innermostOps(m, apiCalls, opOf, callsOfOp);
  const table = new PatternTable(m, apiCalls, perCall);
  const split = addRuns(m, table, opOf, callsOfOp, perCall);
  if (split.length) addSplitOps(m, table, opOf, split);
  const patterns = table.results();
  // A total order (one pattern per op name and call pattern) while every duration is readable.
  return patterns.sort((a, b) => b.instances * b.meanApiUs - a.instances * a.meanApiUs || compareText(a.op, b.op) || compareText(a.pattern, b.pattern));
}

/** Each call's innermost enclosing op (-1 when none), and per op (by host index) its number of calls. */
function innermostOps(m: TraceModel, apiCalls: ApiCallList, opOf: Int32Array, callsOfOp: Int32Array): void {
  const { kind, parent } = m.host;
  const { list, count } = apiCalls;
  for (let c = 0; c < count; c++) {
    // innermostOp, written into the loop.
    let op = parent[list[c]!]!;
    while (op >= 0 && kind[op] !== HostKind.Op) op = parent[op]!;
    opOf[c] = op;
    if (op >= 0) callsOfOp[op]++;
  }
}

/**
 * Each op whose calls are one run of the list added as an instance, and each call outside every
 * op as one of its own; returns the places of the other ops' calls, in list order. An instance
 * whose calls have, one by one, the signatures of one of the last two instances of its op name
 * has that instance's pattern: found by comparing the runs in place, with no scratch, hash or
 * lookup (most instances repeat a recent one; the others go through `PatternTable.patternOf`).
 */
function addRuns(m: TraceModel, table: PatternTable, opOf: Int32Array, callsOfOp: Int32Array, perCall: PerCall): number[] {
  const { name, durNs } = m.host;
  const { list } = table;
  const { sig } = perCall;
  const flags = runtimeCallFlags(m);
  const count = opOf.length;
  // Two entries per op name, at 2 × (name id + 1) (0: outside every op): where one of its last
  // instances' calls start, how many, its pattern.
  const size = 2 * (m.strings.size + 1);
  const lastStart = new Int32Array(size).fill(-1);
  const lastLength = new Int32Array(size);
  const lastPattern = new Int32Array(size);
  const split: number[] = [];
  let c = 0;
  while (c < count) {
    const op = opOf[c]!;
    let e = c + 1;
    if (op >= 0) {
      while (e < count && opOf[e] === op) e++;
      if (e - c !== callsOfOp[op]) {
        for (let k = c; k < e; k++) split.push(k);
        c = e;
        continue;
      }
    }
    // Two entries per op name, the last instance's first (an op name often alternates between
    // two patterns: with and without a memset, say).
    const key = op < 0 ? 0 : 2 * (name[op]! + 1);
    const n = e - c;
    let at = key;
    let same = false;
    for (; !same && at < key + 2; at++) {
      const prev = lastStart[at]!;
      same = prev >= 0 && lastLength[at] === n;
      for (let q = 0; same && q < n; q++) same = sig[prev + q] === sig[c + q];
    }
    const p = same ? lastPattern[at - 1]! : table.patternOf(op < 0 ? -1 : name[op]!, c, e);
    if (at - 1 !== key || !same) {
      // The other entry becomes the older one.
      lastStart[key + 1] = lastStart[key]!;
      lastLength[key + 1] = lastLength[key]!;
      lastPattern[key + 1] = lastPattern[key]!;
    }
    lastStart[key] = c;
    lastLength[key] = n;
    lastPattern[key] = p;
    let apiNs = 0;
    let launchNs = 0;
    for (let q = c; q < e; q++) {
      const d = durNs[list[q]!]!;
      apiNs += d;
      if (flags[list[q]!]! & CallFlag.Launch) launchNs += d;
    }
    table.instances[p]++;
    // The instance's rank (`firstRank`): ops by first call, then the calls outside every op.
    const rank = op < 0 ? count + c : c;
    if (rank < table.firstRank[p]!) table.firstRank[p] = rank;
    table.opNs[p] += op < 0 ? NaN : durNs[op]!;
    table.apiNs[p] += apiNs;
    table.launchNs[p] += launchNs;
    c = e;
  }
  return split;
}

/** The ops whose calls are split by a nested op's: each op's calls (in list order), one instance per op. */
function addSplitOps(m: TraceModel, table: PatternTable, opOf: Int32Array, split: number[]): void {
  const byOp = new Map<number, number[]>();
  for (const c of split) {
    const op = opOf[c]!;
    let calls = byOp.get(op);
    if (!calls) byOp.set(op, (calls = []));
    calls.push(c);
  }
  const { durNs } = m.host;
  const flags = runtimeCallFlags(m);
  for (const [op, calls] of byOp) {
    table.begin();
    for (const c of calls) table.tally(c);
    const p = findPattern(table, m.host.name[op]!, table.nIds);
    let apiNs = 0;
    let launchNs = 0;
    for (const c of calls) {
      const d = durNs[table.list[c]!]!;
      apiNs += d;
      if (flags[table.list[c]!]! & CallFlag.Launch) launchNs += d;
    }
    table.instances[p]++;
    if (calls[0]! < table.firstRank[p]!) table.firstRank[p] = calls[0]!;
    table.opNs[p] += durNs[op]!;
    table.apiNs[p] += apiNs;
    table.launchNs[p] += launchNs;
  }
}

/**
 * Patterns in order of first instance, found by a hash of their numbers (op name id, then per
 * call name id its calls, kernels, memcpys, memsets) and compared number by number: no text key
 * built per op instance, and names read only when a pattern is new. Each pattern's sums are in
 * typed arrays by pattern number, not fields of an object per pattern (updated per instance).
 */
class PatternTable {
  /** Per pattern: op name id (-1 for calls outside every op), then five numbers per call name id. */
  readonly keys: number[][] = [];
  readonly calls: Array<OpCallPattern['calls']> = [];
  instances = new Int32Array(16);
  /**
   * Per pattern, the rank of its first instance in the order ops by first call, then the calls
   * outside every op: the patterns are listed in that order, so the final sort sees them as it
   * always did (its comparator is no total order where a duration is unreadable: NaN).
   */
  firstRank = new Float64Array(16).fill(Infinity);
  opNs = new Float64Array(16);
  apiNs = new Float64Array(16);
  launchNs = new Float64Array(16);
  readonly byHash = new Map<number, number[]>();
  // Scratch for one instance: distinct API name ids in first-call order and their counts, four
  // per id (calls, kernels, memcpys, memsets), reused from instance to instance.
  ids = new Int32Array(16);
  counts = new Int32Array(64);
  /** The scratch's distinct ids. */
  nIds = 0;
  readonly list: Int32Array;
  private readonly callName: Int32Array;
  private readonly kernels: Int32Array;
  private readonly memcpys: Int32Array;
  private readonly memsets: Int32Array;

  constructor(
    readonly m: TraceModel,
    apiCalls: ApiCallList,
    perCall: PerCall,
  ) {
    this.callName = m.host.name;
    this.list = apiCalls.list;
    ({ kernels: this.kernels, memcpys: this.memcpys, memsets: this.memsets } = perCall);
  }

  /** The pattern of an instance (op name id, -1 outside every op) whose calls are the places from..to of the list, found or added. */
  patternOf(opNameId: number, from: number, to: number): number {
    this.begin();
    for (let c = from; c < to; c++) this.tally(c);
    return findPattern(this, opNameId, this.nIds);
  }

  /** An instance's calls into the scratch: `begin`, then `tally` each call in list order. */
  begin(): void {
    this.nIds = 0;
  }

  /** One more call (place c in the call list) into the scratch, by name id in first-call order. */
  tally(c: number): void {
    const id = this.callName[this.list[c]!]!;
    // The scratch slot of the call's name id, added (counts zeroed) when new.
    const nIds = this.nIds;
    let j = 0;
    while (j < nIds && this.ids[j] !== id) j++;
    if (j === nIds) {
      if (j === this.ids.length) {
        this.ids = doubled(this.ids);
        this.counts = doubled(this.counts);
      }
      this.ids[j] = id;
      this.counts.fill(0, 4 * j, 4 * j + 4);
      this.nIds++;
    }
    const e = 4 * j;
    const { counts } = this;
    counts[e]++;
    counts[e + 1] += this.kernels[c]!;
    counts[e + 2] += this.memcpys[c]!;
    counts[e + 3] += this.memsets[c]!;
  }

  /** Room for pattern p's sums. */
  grow(p: number): void {
    if (p < this.instances.length) return;
    this.instances = doubled(this.instances);
    this.firstRank = doubled(this.firstRank).fill(Infinity, this.firstRank.length);
    this.opNs = doubled(this.opNs);
    this.apiNs = doubled(this.apiNs);
    this.launchNs = doubled(this.launchNs);
  }

  /** The patterns, in order of first instance (`firstRank`). */
  results(): OpCallPattern[] {
    const { m } = this;
    const byRank = this.keys.map((_, p) => p).sort((p, q) => this.firstRank[p]! - this.firstRank[q]!);
    return byRank.map((p) => {
      const key = this.keys[p]!;
      const instances = this.instances[p]!;
      return {
        op: key[0]! < 0 ? '(outside any cpu_op)' : m.strings.get(key[0]!),
        pattern: this.calls[p]!.map(describeCall).join(', '),
        calls: this.calls[p]!,
        instances,
        meanOpUs: this.opNs[p]! / instances / 1000,
        meanApiUs: this.apiNs[p]! / instances / 1000,
        meanLaunchUs: this.launchNs[p]! / instances / 1000,
      };
    });
  }
}

/** Whether a pattern's key holds these numbers: op name id, then per id its four counts. */
function sameKey(key: readonly number[], opNameId: number, ids: Int32Array, counts: Int32Array, nIds: number): boolean {
  if (key.length !== 1 + 5 * nIds || key[0] !== opNameId) return false;
  for (let j = 0; j < nIds; j++) {
    const at = 1 + 5 * j;
    if (key[at] !== ids[j] || key[at + 1] !== counts[4 * j] || key[at + 2] !== counts[4 * j + 1] || key[at + 3] !== counts[4 * j + 2] || key[at + 4] !== counts[4 * j + 3]) return false;
  }
  return true;
}

/**
 * The pattern of the scratch's numbers (nIds ids), found by their hash and compared number by
 * number with the others of that hash; added when new.
 */
function findPattern(table: PatternTable, opNameId: number, nIds: number): number {
  const { ids, counts, m, keys } = table;
  let hash = Math.imul(opNameId ^ 0x811c9dc5, 0x01000193);
  for (let j = 0; j < nIds; j++) {
    hash = Math.imul(hash ^ ids[j]!, 0x01000193);
    for (let q = 4 * j; q < 4 * j + 4; q++) hash = Math.imul(hash ^ counts[q]!, 0x01000193);
  }
  let bucket = table.byHash.get(hash);
  if (!bucket) table.byHash.set(hash, (bucket = []));
  for (let b = 0; b < bucket.length; b++) if (sameKey(keys[bucket[b]!]!, opNameId, ids, counts, nIds)) return bucket[b]!;
  const key = [opNameId];
  const list: Array<OpCallPattern['calls'][number]> = [];
  for (let j = 0; j < nIds; j++) {
    key.push(ids[j]!, counts[4 * j]!, counts[4 * j + 1]!, counts[4 * j + 2]!, counts[4 * j + 3]!);
    list.push({ api: m.strings.get(ids[j]!), count: counts[4 * j]!, kernels: counts[4 * j + 1]!, memcpys: counts[4 * j + 2]!, memsets: counts[4 * j + 3]! });
  }
  const p = keys.length;
  keys.push(key);
  table.calls.push(list);
  table.grow(p);
  bucket.push(p);
  return p;
}

// --- syncs by cause

function syncRows(syncs: readonly HostSync[]): { rows: SyncRow[]; hostSyncs: number; hostBlockedUs: number } {
  const syncAcc = new Map<string, { api: string; kind: SyncKind; cause: string; count: number; blocked: number; busy: number; max: number }>();
  let hostBlockedUs = 0;
  let hostSyncs = 0;
  for (const s of syncs) {
    const cause = syncCause(s);
    const key = `${s.api}\u0000${cause}`;
    let a = syncAcc.get(key);
    if (!a) syncAcc.set(key, (a = { api: s.api, kind: s.kind, cause, count: 0, blocked: 0, busy: 0, max: 0 }));
    a.count++;
    a.blocked += s.blockedUs;
    a.busy += s.gpuBusyDuringUs;
    a.max = Math.max(a.max, s.blockedUs);
    if (syncBlocksHost(s.kind)) {
      hostSyncs++;
      hostBlockedUs += s.blockedUs;
    }
  }
  const rows: SyncRow[] = [...syncAcc.values()]
    .map((a) => ({ api: a.api, kind: a.kind, cause: a.cause, count: a.count, blockedUs: a.blocked, gpuBusyDuringUs: a.busy, maxUs: a.max }))
    .sort((a, b) => b.blockedUs - a.blockedUs || compareText(a.api, b.api));
  return { rows, hostSyncs, hostBlockedUs };
}

// --- HTA's outliers

/** HTA's (call, activity) rows, read by row number. */
class LaunchRows {
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

function launchOutliers(rows: LaunchRows, runtimeCutoffUs: number, launchDelayCutoffUs: number, top: number): LaunchOutliers {
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

function describeCall(c: { api: string; count: number; kernels: number; memcpys: number; memsets: number }): string {
  const work: string[] = [];
  if (c.kernels) work.push(`${c.kernels} kernel${c.kernels === 1 ? '' : 's'}`);
  if (c.memcpys) work.push(`${c.memcpys} memcpy`);
  if (c.memsets) work.push(`${c.memsets} memset`);
  return `${c.count}× ${c.api}${work.length ? ` (+${work.join(', +')})` : ''}`;
}

function syncCause(s: HostSync): string {
  if (s.item) return '.item()';
  if (s.topOp) return s.topOp === s.op || !s.op ? s.topOp : `${s.topOp} > ${s.op}`;
  return s.kind === 'device' ? 'torch.cuda.synchronize() (outside any op)' : '(outside any op)';
}

/** computeLaunches, computed once per model and options (per-model.ts): the result is shared, read-only. */
export const computeLaunches = perModelWith(computeLaunchesOnce);
