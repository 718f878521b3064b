/**
 * Launch anatomy (docs/readings.md S5): what every kernel launch cost the host and how long the
 * kernel then waited, which runtime/driver calls each op makes around its launches, and where
 * the host stopped to wait for the GPU.
 *
 * Handles:
 * - every runtime/driver call, as facts/runtime-calls.ts defines them: kernel and graph launches
 *   (a graph launch is one launch with N kernels; any call CUPTI linked to a kernel is a launch
 *   too), copies, memsets, synchronizations.
 * - launch latency, two ways (docs/readings.md, "HTA's kernel launch statistics"): kernel start −
 *   end of the launch call (HTA's `launch_delay`, clipped at 0 there; kept signed here) and kernel
 *   start − start of the call (HTA's critical-path / `runtime_delay`). For a graph, of its first
 *   GPU activity.
 * - per op: the runtime/driver calls it makes, grouped into patterns (op-call-patterns.ts).
 * - host synchronizations (facts/runtime-calls.ts `syncKindAt`), each with where it was called
 *   from, what the GPU did meanwhile, the GPU idle it caused and whose call it was
 *   (sync-costs.ts); `.item()` recognised through `aten::item` / `_local_scalar_dense`.
 * - HTA's launch statistics and their outliers (launch-outliers.ts).
 *
 * Ignores: `cuda_sync` records (Kineto's own sync activity; `doctor` reads those).
 */
import { perModel, perModelWith } from '../helpers/per-model.js';
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { compareText } from '../../core/compare-text.js';
import { quantileSorted, timeStats, type TimeStats } from '../helpers/quantiles.js';
import { gpuBusyDuring } from '../facts/gpu-time-index.js';
import { launchedBy, launchIndexOf, type LaunchIndex } from '../facts/launch-index.js';
import { apiCallList, countCallWork, type ApiCallList, type PerCall } from './call-list.js';
import { launchOutliers, LaunchRows, launchRows, type LaunchOutliers, type LaunchStatsRow } from './launch-outliers.js';
import { opCallPatterns, type OpCallPattern } from './op-call-patterns.js';
import { ApiNames, CallFlag, isLaunchCall, runtimeCallFlags, syncBlocksHost, type ApiRole, type SyncKind } from '../facts/runtime-calls.js';
import { gpuIdleAfterSyncsNs, syncCallers, type SyncCaller } from './sync-costs.js';

// ------------------------------------------------------------------------------------------------
// Results

export type { LaunchOutliers, LaunchStatsRow, OpCallPattern };

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
  /** The GPU idle the sync causes (sync-costs.ts): from its start to the first GPU activity after it returned (its step's end at the latest), less the GPU work in between. A stream wait causes none here. */
  readonly gpuIdleAfterUs: number;
  /** Whose call it was (sync-costs.ts), when the python frames or the ops around it say. */
  readonly caller?: SyncCaller;
}

export interface SyncRow {
  readonly api: string;
  readonly kind: SyncKind;
  readonly cause: string;
  /** Whose calls these are (the first sync's of the row; rows are per caller name). */
  readonly caller?: SyncCaller;
  readonly count: number;
  readonly blockedUs: number;
  readonly gpuBusyDuringUs: number;
  /** Σ HostSync.gpuIdleAfterUs: the GPU idle these syncs caused. */
  readonly gpuIdleAfterUs: number;
  readonly maxUs: number;
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
  // What the GPU did during each synchronization and after it, and whose call it was (most traces have few or none).
  const syncs: HostSync[] = [];
  const busyNs = syncHost.length ? gpuBusyDuring(m, syncHost) : undefined;
  // a stream wait blocks no host: it causes no idle of this kind
  const blocking = syncHost.filter((_, k) => syncBlocksHost(syncKind[k]!));
  const idleNs = gpuIdleAfterSyncsNs(m, blocking);
  const callers = syncCallers(m, blocking);
  const at = new Map(blocking.map((h, k) => [h, k]));
  for (let k = 0; k < syncHost.length; k++) {
    const b = at.get(syncHost[k]!);
    syncs.push(hostSync(m, launched, syncHost[k]!, syncApi[k]!, syncKind[k]!, busyNs![k]!, b === undefined ? 0 : idleNs[b]!, b === undefined ? undefined : callers[b]));
  }
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

/** Host call i, a synchronization of kind `kind`: where it was called from and what it waited for. */
function hostSync(m: TraceModel, launched: LaunchIndex, i: number, api: string, kind: SyncKind, gpuBusyNs: number, gpuIdleAfterNs: number, caller: SyncCaller | undefined): HostSync {
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
    gpuIdleAfterUs: gpuIdleAfterNs / 1000,
    ...(caller ? { caller } : {}),
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

// --- syncs by cause

function syncRows(syncs: readonly HostSync[]): { rows: SyncRow[]; hostSyncs: number; hostBlockedUs: number } {
  const syncAcc = new Map<string, { api: string; kind: SyncKind; cause: string; caller: SyncCaller | undefined; count: number; blocked: number; busy: number; idle: number; max: number }>();
  let hostBlockedUs = 0;
  let hostSyncs = 0;
  for (const s of syncs) {
    const cause = syncCause(s);
    const key = `${s.api}\u0000${cause}\u0000${s.caller?.name ?? ''}`;
    let a = syncAcc.get(key);
    if (!a) syncAcc.set(key, (a = { api: s.api, kind: s.kind, cause, caller: s.caller, count: 0, blocked: 0, busy: 0, idle: 0, max: 0 }));
    a.count++;
    a.blocked += s.blockedUs;
    a.busy += s.gpuBusyDuringUs;
    a.idle += s.gpuIdleAfterUs;
    a.max = Math.max(a.max, s.blockedUs);
    if (syncBlocksHost(s.kind)) {
      hostSyncs++;
      hostBlockedUs += s.blockedUs;
    }
  }
  const rows: SyncRow[] = [...syncAcc.values()]
    .map((a) => ({ api: a.api, kind: a.kind, cause: a.cause, ...(a.caller ? { caller: a.caller } : {}), count: a.count, blockedUs: a.blocked, gpuBusyDuringUs: a.busy, gpuIdleAfterUs: a.idle, maxUs: a.max }))
    .sort((a, b) => b.blockedUs - a.blockedUs || compareText(a.api, b.api));
  return { rows, hostSyncs, hostBlockedUs };
}

/** What a sync waited for, as the rows name it: `.item()`, the op path (`aten::index > aten::nonzero`), or where it was called. */
export function syncCause(s: Pick<HostSync, 'item' | 'op' | 'topOp' | 'kind'>): string {
  if (s.item) return '.item()';
  if (s.topOp) return s.topOp === s.op || !s.op ? s.topOp : `${s.topOp} > ${s.op}`;
  return s.kind === 'device' ? 'torch.cuda.synchronize() (outside any op)' : '(outside any op)';
}

/** computeLaunches, computed once per model and options (per-model.ts): the result is shared, read-only. */
export const computeLaunches = perModelWith(computeLaunchesOnce);
