/**
 * The kernel catalog (docs/readings.md S6): every kernel, memcpy and memset name with its calls,
 * time statistics, streams, the ops that launched it and what its name says (decoded by
 * kernel-name.ts; what cannot be decoded stays undecoded). Where the trace has them, also the
 * streams' priorities Kineto wrote on kernels (`priority`, CUDA ≥ 13.1, docs/kineto-format.md
 * §9.4) and the CUDA-graph regions whose replays ran the name (graph-regions.ts).
 */
import { perModel } from '../helpers/per-model.js';
import { GPU_KIND_NAMES, type TraceModel } from '../../model/trace-model.js';
import { describeKernelName, type DecodedKernelName } from './kernel-name.js';
import { compareText } from '../../core/compare-text.js';
import { computeGraphRegions } from './graph-regions.js';

export interface KernelCatalogEntry {
  readonly name: string;
  readonly shortName: string;
  /** `kernel`, `gpu_memcpy` or `gpu_memset`. */
  readonly category: string;
  readonly calls: number;
  readonly totalUs: number;
  readonly meanUs: number;
  readonly minUs: number;
  readonly maxUs: number;
  /** Share of all GPU activity time (Σ durations). */
  readonly share: number;
  readonly devices: number[];
  readonly streams: number[];
  /** The cpu_ops that own it, most frequent first; `(none)` for work launched outside any op. */
  readonly ops: { name: string; calls: number }[];
  /** The runtime/driver calls that launched it (`cuLaunchKernelEx`, `cudaGraphLaunch`, …). */
  readonly launchedBy: { name: string; calls: number }[];
  readonly decoded: DecodedKernelName;
  /** The `priority` values its kernels carry (the stream's priority: lower runs first), ascending; absent when none does. */
  readonly priorities?: number[];
  /** The CUDA-graph regions (annotation names) whose replays ran it, most calls first; absent when none. */
  readonly graphRegions?: { name: string; calls: number }[];
}

export interface KernelCatalog {
  readonly entries: KernelCatalogEntry[];
  readonly totalUs: number;
  readonly activities: number;
}

/** A name id no event has (ids are ≥ 0, and -1 stands for none). */
const NONE = -2;

const NO_OP = '(none)';
const NO_LAUNCH = '(no launch in trace)';

/**
 * The per-name sums as columns indexed by name id (names are interned: one id per name), so the
 * pass over the GPU table reads and writes typed arrays only and allocates nothing per activity.
 * A name's activities mostly come from one op through one API, on one device and stream: each is
 * counted as runs, with a map or set touched only where the op, API, device or stream changes
 * (each entered at first sight: the maps and sets keep that order).
 */
class NameSums {
  /** Name ids in order of first appearance, and the category of each (its first activity's kind). */
  readonly ids: number[] = [];
  readonly categories: string[] = [];
  readonly calls: Int32Array;
  readonly totalNs: Float64Array;
  readonly minNs: Float64Array;
  readonly maxNs: Float64Array;
  readonly lastDevice: Float64Array;
  readonly lastStream: Float64Array;
  /** The last op and launcher name ids met, and the calls since, not yet added to the maps. */
  readonly lastOp: Int32Array;
  readonly opRun: Int32Array;
  readonly lastApi: Int32Array;
  readonly apiRun: Int32Array;
  /** Per name id (holes for ids no activity has): its devices and streams, its calls by the owning op's and the launching call's name id (-1: none). */
  readonly devices: Set<number>[];
  readonly streams: Set<number>[];
  readonly ops: Map<number, number>[];
  readonly launchedBy: Map<number, number>[];

  constructor(size: number) {
    this.calls = new Int32Array(size);
    this.totalNs = new Float64Array(size);
    this.minNs = new Float64Array(size).fill(Infinity);
    this.maxNs = new Float64Array(size).fill(-Infinity);
    this.lastDevice = new Float64Array(size).fill(NaN);
    this.lastStream = new Float64Array(size).fill(NaN);
    this.lastOp = new Int32Array(size).fill(NONE);
    this.opRun = new Int32Array(size);
    this.lastApi = new Int32Array(size).fill(NONE);
    this.apiRun = new Int32Array(size);
    this.devices = new Array<Set<number>>(size);
    this.streams = new Array<Set<number>>(size);
    this.ops = new Array<Map<number, number>>(size);
    this.launchedBy = new Array<Map<number, number>>(size);
  }

  /** Name id `id`'s first activity, of GPU kind `kind`. */
  first(id: number, kind: number): void {
    this.ids.push(id);
    this.categories.push(GPU_KIND_NAMES[kind]!);
    this.devices[id] = new Set();
    this.streams[id] = new Set();
    this.ops[id] = new Map();
    this.launchedBy[id] = new Map();
  }

  device(id: number, dev: number): void {
    this.devices[id]!.add((this.lastDevice[id] = dev));
  }

  stream(id: number, str: number): void {
    this.streams[id]!.add((this.lastStream[id] = str));
  }

  op(id: number, op: number): void {
    this.flushOps(id);
    const ops = this.ops[id]!;
    if (!ops.has(op)) ops.set(op, 0);
    this.lastOp[id] = op;
  }

  api(id: number, api: number): void {
    this.flushApis(id);
    const apis = this.launchedBy[id]!;
    if (!apis.has(api)) apis.set(api, 0);
    this.lastApi[id] = api;
  }

  flushOps(id: number): void {
    const run = this.opRun[id]!;
    if (run) this.ops[id]!.set(this.lastOp[id]!, this.ops[id]!.get(this.lastOp[id]!)! + run);
    this.opRun[id] = 0;
  }

  flushApis(id: number): void {
    const run = this.apiRun[id]!;
    if (run) this.launchedBy[id]!.set(this.lastApi[id]!, this.launchedBy[id]!.get(this.lastApi[id]!)! + run);
    this.apiRun[id] = 0;
  }
}

function computeKernelCatalogOnce(m: TraceModel): KernelCatalog {
  const { gpu, host, strings } = m;
  const sums = new NameSums(strings.size);
  const { calls, minNs, maxNs, lastDevice, lastStream, lastOp, opRun, lastApi, apiRun } = sums;
  const sumNs = sums.totalNs;
  const { name, durNs, device, stream, owner, launcher } = gpu;
  const hostName = host.name;
  let totalNs = 0;
  for (let g = 0; g < gpu.length; g++) {
    const id = name[g]!;
    if (calls[id] === 0) sums.first(id, gpu.kind[g]!);
    const d = durNs[g]!;
    calls[id]++;
    sumNs[id] += d;
    totalNs += d;
    if (d < minNs[id]!) minNs[id] = d;
    if (d > maxNs[id]!) maxNs[id] = d;
    if (device[g] !== lastDevice[id]) sums.device(id, device[g]!);
    if (stream[g] !== lastStream[id]) sums.stream(id, stream[g]!);
    const o = owner[g]!;
    const op = o >= 0 ? hostName[o]! : -1;
    if (op !== lastOp[id]) sums.op(id, op);
    opRun[id]++;
    const l = launcher[g]!;
    const api = l >= 0 ? hostName[l]! : -1;
    if (api !== lastApi[id]) sums.api(id, api);
    apiRun[id]++;
  }
  for (const id of sums.ids) {
    sums.flushOps(id);
    sums.flushApis(id);
  }
  // By name, in order of first appearance (an op literally named `(none)` shares the row of none).
  const named = (mp: Map<number, number>, none: string) => {
    const out = new Map<string, number>();
    for (const [id, calls] of mp) {
      const name = id >= 0 ? strings.get(id) : none;
      out.set(name, (out.get(name) ?? 0) + calls);
    }
    return out;
  };
  const ranked = (mp: Map<string, number>) =>
    [...mp].map(([name, calls]) => ({ name, calls })).sort((x, y) => y.calls - x.calls || compareText(x.name, y.name));
  const entries: KernelCatalogEntry[] = [];
  for (let k = 0; k < sums.ids.length; k++) {
    const id = sums.ids[k]!;
    const name = strings.get(id);
    // One parse of the name for both.
    const { decoded, shortName } = describeKernelName(name);
    entries.push({
      name,
      shortName,
      category: sums.categories[k]!,
      calls: calls[id]!,
      totalUs: sumNs[id]! / 1000,
      meanUs: sumNs[id]! / calls[id]! / 1000,
      minUs: minNs[id]! / 1000,
      maxUs: maxNs[id]! / 1000,
      share: totalNs > 0 ? sumNs[id]! / totalNs : 0,
      devices: [...sums.devices[id]!].sort((x, y) => x - y),
      streams: [...sums.streams[id]!].sort((x, y) => x - y),
      ops: ranked(named(sums.ops[id]!, NO_OP)),
      launchedBy: ranked(named(sums.launchedBy[id]!, NO_LAUNCH)),
      decoded,
    });
  }
  addPrioritiesAndRegions(m, entries, sums.ids);
  entries.sort((x, y) => y.totalUs - x.totalUs || compareText(x.name, y.name));
  return { entries, totalUs: totalNs / 1000, activities: gpu.length };
}

/**
 * Each entry's priorities and graph regions, from a pass over the activities' args: only traces
 * that carry either pay for more than that pass (entries in the order of `ids`, one per name id).
 */
function addPrioritiesAndRegions(m: TraceModel, entries: KernelCatalogEntry[], ids: readonly number[]): void {
  const { gpu } = m;
  const priorities = new Map<number, Set<number>>();
  for (let g = 0; g < gpu.length; g++) {
    const p = gpu.args[g]?.['priority'];
    if (typeof p !== 'number') continue;
    const id = gpu.name[g]!;
    let set = priorities.get(id);
    if (!set) priorities.set(id, (set = new Set()));
    set.add(p);
  }
  const graph = computeGraphRegions(m);
  const regions = new Map<number, Map<string, number>>();
  if (graph.annotated > 0) {
    for (let g = 0; g < gpu.length; g++) {
      const r = graph.regionOf[g]!;
      if (r < 0) continue;
      const id = gpu.name[g]!;
      let byRegion = regions.get(id);
      if (!byRegion) regions.set(id, (byRegion = new Map()));
      const name = graph.regions[r]!.name;
      byRegion.set(name, (byRegion.get(name) ?? 0) + 1);
    }
  }
  if (!priorities.size && !regions.size) return;
  for (let k = 0; k < ids.length; k++) {
    const p = priorities.get(ids[k]!);
    const r = regions.get(ids[k]!);
    if (!p && !r) continue;
    entries[k] = {
      ...entries[k]!,
      ...(p ? { priorities: [...p].sort((x, y) => x - y) } : {}),
      ...(r ? { graphRegions: [...r].map(([name, calls]) => ({ name, calls })).sort((x, y) => y.calls - x.calls || compareText(x.name, y.name)) } : {}),
    };
  }
}

/** computeKernelCatalog, computed once per model (per-model.ts): the result is shared, read-only. */
export const computeKernelCatalog = perModel(computeKernelCatalogOnce);
