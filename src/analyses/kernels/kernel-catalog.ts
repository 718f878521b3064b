/**
 * The kernel catalog (S6): every kernel, memcpy and memset name with its calls, time
 * statistics, streams, the ops that launched it and what its name says (decoded by
 * kernel-name.ts; what cannot be decoded stays undecoded).
 */
import { perModel } from '../helpers/per-model.js';
import { GPU_KIND_NAMES, type TraceModel } from '../../model/trace-model.js';
import { describeKernelName, type DecodedKernelName } from './kernel-name.js';
import { compareText } from '../../core/compare-text.js';

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
}

export interface KernelCatalog {
  readonly entries: KernelCatalogEntry[];
  readonly totalUs: number;
  readonly activities: number;
}

/** A name id no event has (ids are ≥ 0, and -1 stands for none). */
const NONE = -2;

interface RunCounts {
  /** Calls by the owning op's and the launching call's name id (-1: none), in first-seen order. */
  ops: Map<number, number>;
  launchedBy: Map<number, number>;
  /** The last op and launcher name ids met, and the calls since, not yet added to the maps. */
  lastOp: number;
  opRun: number;
  lastApi: number;
  apiRun: number;
}

function flushOps(a: RunCounts): void {
  if (a.opRun) a.ops.set(a.lastOp, a.ops.get(a.lastOp)! + a.opRun);
  a.opRun = 0;
}

function flushApis(a: RunCounts): void {
  if (a.apiRun) a.launchedBy.set(a.lastApi, a.launchedBy.get(a.lastApi)! + a.apiRun);
  a.apiRun = 0;
}

const NO_OP = '(none)';
const NO_LAUNCH = '(no launch in trace)';

function computeKernelCatalogOnce(m: TraceModel): KernelCatalog {
  const { gpu, host, strings } = m;
  /** Per kernel name; the run counters (RunCounts) hold its calls by op and by launching call. */
  interface Acc extends RunCounts {
    id: number;
    category: string;
    calls: number;
    totalNs: number;
    minNs: number;
    maxNs: number;
    devices: Set<number>;
    streams: Set<number>;
    lastDevice: number;
    lastStream: number;
  }
  // Per distinct name id (names are interned: one id per name), in first-seen order.
  const slot = new Int32Array(strings.size).fill(-1);
  const accs: Acc[] = [];
  let totalNs = 0;
  for (let g = 0; g < gpu.length; g++) {
    const id = gpu.name[g]!;
    let k = slot[id]!;
    if (k < 0) {
      slot[id] = k = accs.length;
      accs.push({ id, category: GPU_KIND_NAMES[gpu.kind[g]!]!, calls: 0, totalNs: 0, minNs: Infinity, maxNs: -Infinity, devices: new Set(), streams: new Set(), lastDevice: NaN, lastStream: NaN, ops: new Map(), launchedBy: new Map(), lastOp: NONE, opRun: 0, lastApi: NONE, apiRun: 0 });
    }
    const a = accs[k]!;
    const d = gpu.durNs[g]!;
    a.calls++;
    a.totalNs += d;
    totalNs += d;
    if (d < a.minNs) a.minNs = d;
    if (d > a.maxNs) a.maxNs = d;
    const dev = gpu.device[g]!;
    if (dev !== a.lastDevice) a.devices.add((a.lastDevice = dev));
    const str = gpu.stream[g]!;
    if (str !== a.lastStream) a.streams.add((a.lastStream = str));
    // A name's activities mostly come from one op through one API: counted as runs, a map
    // lookup only when the op or API changes (each entered at first sight: the maps keep that order).
    const o = gpu.owner[g]!;
    const op = o >= 0 ? host.name[o]! : -1;
    if (op !== a.lastOp) {
      flushOps(a);
      if (!a.ops.has(op)) a.ops.set(op, 0);
      a.lastOp = op;
    }
    a.opRun++;
    const l = gpu.launcher[g]!;
    const api = l >= 0 ? host.name[l]! : -1;
    if (api !== a.lastApi) {
      flushApis(a);
      if (!a.launchedBy.has(api)) a.launchedBy.set(api, 0);
      a.lastApi = api;
    }
    a.apiRun++;
  }
  for (const a of accs) {
    flushOps(a);
    flushApis(a);
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
  for (const a of accs) {
    const name = strings.get(a.id);
    // One parse of the name for both.
    const { decoded, shortName } = describeKernelName(name);
    entries.push({
      name,
      shortName,
      category: a.category,
      calls: a.calls,
      totalUs: a.totalNs / 1000,
      meanUs: a.totalNs / a.calls / 1000,
      minUs: a.minNs / 1000,
      maxUs: a.maxNs / 1000,
      share: totalNs > 0 ? a.totalNs / totalNs : 0,
      devices: [...a.devices].sort((x, y) => x - y),
      streams: [...a.streams].sort((x, y) => x - y),
      ops: ranked(named(a.ops, NO_OP)),
      launchedBy: ranked(named(a.launchedBy, NO_LAUNCH)),
      decoded,
    });
  }
  entries.sort((x, y) => y.totalUs - x.totalUs || compareText(x.name, y.name));
  return { entries, totalUs: totalNs / 1000, activities: gpu.length };
}

/** computeKernelCatalog, computed once per model (per-model.ts): the result is shared, read-only. */
export const computeKernelCatalog = perModel(computeKernelCatalogOnce);
