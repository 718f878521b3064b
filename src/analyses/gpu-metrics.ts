/**
 * GPU metrics of a time window, as the TensorBoard profiler plugin's Overview defined them
 * (kineto tb_plugin `gpu_metrics_parser.py`, `tensor_cores_parser.py`, `range_utils.py`;
 * research/peers.md §B.2), plus which kernels are communication and which use Tensor Cores.
 *
 * - GPU utilization: the union of kernel intervals inside the window ÷ the window.
 * - Est. SM efficiency: ∫ min(Σ blocks-per-SM of the kernels running at t, 1) dt over the window
 *   ÷ the window. Blocks per SM is Kineto's `blocks per SM` kernel arg (grid ÷ #SMs); when a
 *   trace lacks it, grid size ÷ `numSms` of the device's `deviceProperties`. Non-positive values
 *   are skipped, as the plugin does.
 * - Est. achieved occupancy: Kineto's `est. achieved occupancy %`, weighted by each kernel's
 *   time inside the window (kernels without the arg, or with a negative one, are left out).
 * - Tensor-Core share: time inside the window of kernels whose name says they use Tensor Cores
 *   (`decodeKernelName(name).tensorCores`) ÷ the time inside the window of all kernels. The
 *   plugin's allow-list predates Hopper; the decoder's rules cover `nvjet_*`, `sm90_xmma_*`,
 *   CUTLASS 3.x and the older families.
 * Multi-GPU traces: utilization and SM efficiency are computed per device and averaged over
 * the devices that ran kernels in the window, as the plugin shows one figure per device.
 *
 * Ignores: memcpy/memset (not kernels, as in the plugin); GPU annotations.
 */
import type { JsonObject } from '../ingest/raw-event.js';
import { GpuKind, type TraceModel } from '../model/trace-model.js';
import { hasCollectiveArgs, isCommunicationKernelName, isCommunicationOpName } from './communication.js';
import { clipNs, lowerBound } from './intervals.js';
import { decodeKernelName } from './kernel-name.js';
import { orderByStart } from './time-order.js';

/** GPU activities sorted by start, for window queries without scanning the whole table. */
export interface GpuTimeIndex {
  /** GPU table indices sorted by start time. */
  readonly order: Int32Array;
  readonly sortedStartNs: Float64Array;
  /** The longest duration, so a window query knows how far back to look. */
  readonly maxDurNs: number;
}

export function createGpuTimeIndex(m: TraceModel): GpuTimeIndex {
  const { gpu } = m;
  const all = new Int32Array(gpu.length);
  for (let g = 0; g < gpu.length; g++) all[g] = g;
  const order = orderByStart(all, gpu.startNs);
  const sortedStartNs = new Float64Array(order.length);
  let maxDurNs = 0;
  for (let k = 0; k < order.length; k++) {
    const g = order[k]!;
    sortedStartNs[k] = gpu.startNs[g]!;
    if (gpu.durNs[g]! > maxDurNs) maxDurNs = gpu.durNs[g]!;
  }
  return { order, sortedStartNs, maxDurNs };
}

/** GPU activities (any kind) whose interval overlaps [lo, hi), in start order. */
export function gpuInWindow(m: TraceModel, ix: GpuTimeIndex, lo: number, hi: number): number[] {
  const out: number[] = [];
  const from = lowerBound(ix.sortedStartNs, lo - ix.maxDurNs);
  const to = lowerBound(ix.sortedStartNs, hi);
  for (let k = from; k < to; k++) {
    const g = ix.order[k]!;
    const s = m.gpu.startNs[g]!;
    const e = s + m.gpu.durNs[g]!;
    // A zero-length activity at the window's start still belongs to it.
    if (e > lo || (e === s && s >= lo)) out.push(g);
  }
  return out;
}



// ------------------------------------------------------------------------------------------------
// Kernel classes

export { isCommunicationKernelName, isCommunicationOpName };

/**
 * Whether GPU kernel `g` is communication: by name or collective args (communication.ts), or by
 * its owner being an `nccl:*` / `gloo:*` op (the plugin's rule: the kernel's External id is a
 * communication op's).
 */
export function isCommunicationKernel(m: TraceModel, g: number, name = m.strings.get(m.gpu.name[g]!)): boolean {
  if (isCommunicationKernelName(name) || hasCollectiveArgs(m.gpu.args[g])) return true;
  const o = m.gpu.owner[g]!;
  return o >= 0 && isCommunicationOpName(m.strings.get(m.host.name[o]!));
}

/** Per-trace caches of name-derived kernel facts (decoding is done once per distinct name). */
export interface KernelClasses {
  /** Indexed by GPU table index: 1 when the kernel uses Tensor Cores. */
  readonly tensorCores: Uint8Array;
  /** Indexed by GPU table index: 1 when the kernel is communication. */
  readonly communication: Uint8Array;
  /** Blocks per SM per GPU index (NaN when unknown). */
  readonly blocksPerSm: Float64Array;
  /** `est. achieved occupancy %` per GPU index (NaN when absent). */
  readonly occupancyPct: Float64Array;
}

export function classifyKernels(m: TraceModel): KernelClasses {
  const { gpu, host, strings } = m;
  const n = gpu.length;
  const tensorCores = new Uint8Array(n);
  const communication = new Uint8Array(n);
  const blocksPerSm = new Float64Array(n).fill(NaN);
  const occupancyPct = new Float64Array(n).fill(NaN);
  // Per distinct kernel name: bit 0 Tensor Cores, bit 1 communication by name; -1 not yet decided.
  const byName = new Int8Array(strings.size).fill(-1);
  // Per distinct owner name: 1 when an nccl:/gloo: op; -1 not yet decided.
  const commOp = new Int8Array(strings.size).fill(-1);
  const smsByDevice = new Map<number, number>();
  for (const d of m.devices) if (typeof d.numSms === 'number' && d.numSms > 0) smsByDevice.set(d.id, d.numSms);
  // What each distinct args object says (args are shared between kernels launched alike),
  // read once: collective args, `blocks per SM`, the grid's size, occupancy.
  const argsIndex = new Map<JsonObject, number>();
  const argsComm: boolean[] = [];
  const argsBps: (number | undefined)[] = [];
  const argsGrid: (number | undefined)[] = [];
  const argsOcc: number[] = [];
  const factsOf = (args: JsonObject): number => {
    let k = argsIndex.get(args);
    if (k === undefined) {
      k = argsComm.length;
      argsIndex.set(args, k);
      argsComm.push(hasCollectiveArgs(args));
      const bps = args['blocks per SM'];
      argsBps.push(typeof bps === 'number' ? bps : undefined);
      const grid = args['grid'];
      argsGrid.push(Array.isArray(grid) && grid.every((v) => typeof v === 'number') ? (grid as number[]).reduce((p, v) => p * v, 1) : undefined);
      const occ = args['est. achieved occupancy %'];
      argsOcc.push(typeof occ === 'number' ? occ : NaN);
    }
    return k;
  };
  for (let g = 0; g < n; g++) {
    if (gpu.kind[g] !== GpuKind.Kernel) continue;
    const id = gpu.name[g]!;
    let facts = byName[id]!;
    if (facts < 0) {
      const name = strings.get(id);
      facts = (decodeKernelName(name).tensorCores === true ? 1 : 0) | (isCommunicationKernelName(name) ? 2 : 0);
      byName[id] = facts;
    }
    tensorCores[g] = facts & 1;
    const args = gpu.args[g];
    const a = args ? factsOf(args) : -1;
    // isCommunicationKernel, with its name test decided once per name and its owner's once per op name.
    let comm = (facts & 2) !== 0 || (a >= 0 && argsComm[a]!);
    const o = gpu.owner[g]!;
    if (!comm && o >= 0) {
      const on = host.name[o]!;
      if (commOp[on]! < 0) commOp[on] = isCommunicationOpName(strings.get(on)) ? 1 : 0;
      comm = commOp[on] === 1;
    }
    communication[g] = comm ? 1 : 0;
    if (a < 0) continue;
    const bps = argsBps[a];
    if (bps !== undefined) blocksPerSm[g] = bps;
    else {
      const sms = smsByDevice.get(gpu.device[g]!);
      const grid = argsGrid[a];
      if (sms && grid !== undefined) blocksPerSm[g] = grid / sms;
    }
    occupancyPct[g] = argsOcc[a]!;
  }
  return { tensorCores, communication, blocksPerSm, occupancyPct };
}

// ------------------------------------------------------------------------------------------------
// Window metrics

export interface WindowGpuMetrics {
  /** Union of kernel time in the window ÷ window, averaged over devices with kernels; NaN when none. */
  readonly gpuUtilization: number;
  /** The plugin's estimated SM efficiency (0–1), averaged over devices; NaN when no kernel states blocks per SM. */
  readonly smEfficiency: number;
  /** Duration-weighted mean `est. achieved occupancy %` (0–100); NaN when no kernel has it. */
  readonly achievedOccupancyPct: number;
  /** Tensor-Core kernel time ÷ kernel time (0–1); NaN when no kernel ran. */
  readonly tensorCoreShare: number;
  /** Σ kernel time inside the window (ns). */
  readonly kernelNs: number;
  readonly tensorCoreKernelNs: number;
}

/**
 * The plugin's metrics over [lo, hi) for the GPU activities `inWindow` (those overlapping it,
 * from `gpuInWindow` or `gpuByWindow`); non-kernel activities are skipped here.
 */
export function computeWindowGpuMetrics(m: TraceModel, classes: KernelClasses, inWindow: Iterable<number>, lo: number, hi: number): WindowGpuMetrics {
  const { gpu } = m;
  const span = hi - lo;
  let kernelNs = 0;
  let tcNs = 0;
  let occWeighted = 0;
  let occNs = 0;
  // The window's kernels per device, devices in order of first appearance.
  const devices: number[] = [];
  const perDevice: number[][] = [];
  for (const g of inWindow) {
    if (gpu.kind[g] !== GpuKind.Kernel) continue;
    const s = gpu.startNs[g]!;
    const e = s + gpu.durNs[g]!;
    const d = clipNs(s, e, lo, hi);
    kernelNs += d;
    if (classes.tensorCores[g]) tcNs += d;
    const occ = classes.occupancyPct[g]!;
    if (occ >= 0 && d > 0) {
      occWeighted += occ * d;
      occNs += d;
    }
    const dev = gpu.device[g]!;
    let k = devices.length === 1 && devices[0] === dev ? 0 : devices.indexOf(dev);
    if (k < 0) {
      k = devices.push(dev) - 1;
      perDevice.push([]);
    }
    perDevice[k]!.push(g);
  }
  let util = 0;
  let sm = 0;
  let smDevices = 0;
  for (const kernels of perDevice) {
    util += unionOfClipped(m, kernels, lo, hi) / span;
    if (hasSmPoints(m, classes, kernels)) {
      sm += smEfficiencyNs(m, classes, kernels, lo, hi) / span;
      smDevices++;
    }
  }
  return {
    gpuUtilization: devices.length && span > 0 ? util / devices.length : NaN,
    smEfficiency: smDevices && span > 0 ? sm / smDevices : NaN,
    achievedOccupancyPct: occNs > 0 ? occWeighted / occNs : NaN,
    tensorCoreShare: kernelNs > 0 ? tcNs / kernelNs : NaN,
    kernelNs,
    tensorCoreKernelNs: tcNs,
  };
}

/** Length of the union of the kernels' intervals clipped to [lo, hi); kernels in start order make one sweep. */
function unionOfClipped(m: TraceModel, kernels: readonly number[], lo: number, hi: number): number {
  const { startNs, durNs } = m.gpu;
  const n = kernels.length;
  let order: ArrayLike<number> = kernels;
  for (let k = 1; k < n; k++) {
    if (Math.max(startNs[kernels[k]!]!, lo) < Math.max(startNs[kernels[k - 1]!]!, lo)) {
      // Not in start order (a caller's own list): sort by clipped start, ties in list order.
      const clipped = (g: number) => Math.max(startNs[g]!, lo);
      order = Array.from({ length: n }, (_, j) => j)
        .sort((a, b) => clipped(kernels[a]!) - clipped(kernels[b]!))
        .map((j) => kernels[j]!);
      break;
    }
  }
  let total = 0;
  let cs = -Infinity;
  let ce = -Infinity;
  for (let k = 0; k < n; k++) {
    const g = order[k]!;
    const s0 = startNs[g]!;
    const e0 = s0 + durNs[g]!;
    const s = Math.max(s0, lo);
    const e = Math.min(e0, hi);
    if (e <= s) continue;
    if (s > ce) {
      if (ce > cs) total += ce - cs;
      cs = s;
      ce = e;
    } else if (e > ce) ce = e;
  }
  if (ce > cs) total += ce - cs;
  return total;
}

/** Scratch for the SM-efficiency sweep, reused across windows. */
let pointTime = new Float64Array(256);
let pointValue = new Float64Array(256);
let pointEnd = new Uint8Array(256);
let pointOrder = new Int32Array(256);

/** Whether some kernel states its blocks per SM (and has a duration). */
function hasSmPoints(m: TraceModel, classes: KernelClasses, kernels: readonly number[]): boolean {
  const { startNs, durNs } = m.gpu;
  for (const g of kernels) if (classes.blocksPerSm[g]! > 0 && startNs[g]! + durNs[g]! > startNs[g]!) return true;
  return false;
}

/**
 * ∫ min(Σ blocks per SM of running kernels, 1) dt over [lo, hi) — the plugin's
 * `merge_ranges_with_value`: endpoints sorted by time with starts before ends at equal times
 * (then in the order the kernels were given).
 */
function smEfficiencyNs(m: TraceModel, classes: KernelClasses, kernels: readonly number[], lo: number, hi: number): number {
  const { startNs, durNs } = m.gpu;
  growPoints(2 * kernels.length);
  let n = 0;
  for (const g of kernels) {
    const bps = classes.blocksPerSm[g]!;
    const s = startNs[g]!;
    const e = s + durNs[g]!;
    if (bps > 0 && e > s) {
      pointTime[n] = Math.max(s, lo);
      pointValue[n] = bps;
      pointEnd[n++] = 0;
      pointTime[n] = Math.min(e, hi);
      pointValue[n] = bps;
      pointEnd[n++] = 1;
    }
  }
  return smSweep(n);
}

/** smEfficiencyNs of points already listed as flat (time, 0 start | 1 end, blocks per SM) triples. */
function smEfficiencyOfPoints(flat: readonly number[]): number {
  const n = flat.length / 3;
  growPoints(n);
  for (let k = 0; k < n; k++) {
    pointTime[k] = flat[3 * k]!;
    pointEnd[k] = flat[3 * k + 1]!;
    pointValue[k] = flat[3 * k + 2]!;
  }
  return smSweep(n);
}

function growPoints(n: number): void {
  if (pointTime.length >= n) return;
  const size = Math.max(n, 2 * pointTime.length);
  pointTime = new Float64Array(size);
  pointValue = new Float64Array(size);
  pointEnd = new Uint8Array(size);
  pointOrder = new Int32Array(size);
}

/** The sweep over the first n points of the scratch arrays. */
function smSweep(n: number): number {
  if (n === 0) return 0;
  const order = pointOrder.subarray(0, n);
  let inOrder = true;
  for (let k = 0; k < n; k++) {
    order[k] = k;
    if (k > 0 && (pointTime[k]! < pointTime[k - 1]! || (pointTime[k] === pointTime[k - 1] && pointEnd[k]! < pointEnd[k - 1]!))) inOrder = false;
  }
  if (!inOrder) order.sort((a, b) => pointTime[a]! - pointTime[b]! || pointEnd[a]! - pointEnd[b]! || a - b);
  let total = 0;
  let level = 0;
  let t = pointTime[order[0]!]!;
  for (let k = 0; k < n; k++) {
    const p = order[k]!;
    const time = pointTime[p]!;
    if (time > t && level > 1e-12) total += (time - t) * Math.min(level, 1);
    t = time;
    level += pointEnd[p] === 0 ? pointValue[p]! : -pointValue[p]!;
  }
  return total;
}

// ------------------------------------------------------------------------------------------------
// Many windows at once

/** One device's kernels inside one window, as the one-pass metrics gather them. */
interface DeviceInWindow {
  readonly device: number;
  /** The union of clipped kernel intervals, swept as they come (in start order). */
  unionNs: number;
  cs: number;
  ce: number;
  /** SM-efficiency points, flat (time, 0 start | 1 end, blocks per SM). */
  readonly points: number[];
}

export interface WindowsGpuMetrics {
  /** computeWindowGpuMetrics of each window. */
  readonly metrics: WindowGpuMetrics[];
  /** Durations of each window's kernels (those overlapping it), in start order. */
  readonly kernelDurNs: number[][];
}

/**
 * `computeWindowGpuMetrics(m, classes, gpuInWindow(m, ix, lo, hi), lo, hi)` for every window
 * — windows in time order that do not overlap, activities with readable starts — in one pass
 * over the activities in start order. Each kernel is added to the windows it overlaps, in the
 * order gpuInWindow lists them, so every sum is taken in the same order and every figure is
 * the same; an activity is visited once per window it overlaps, however long it runs (a
 * window query looks back over everything that started within the longest duration).
 */
export function computeWindowsGpuMetrics(
  m: TraceModel,
  classes: KernelClasses,
  ix: GpuTimeIndex,
  windows: ReadonlyArray<{ readonly lo: number; readonly hi: number }>,
): WindowsGpuMetrics {
  const { gpu } = m;
  const { startNs, durNs } = gpu;
  const nW = windows.length;
  const kernelNs = new Float64Array(nW);
  const tcNs = new Float64Array(nW);
  const occWeighted = new Float64Array(nW);
  const occNs = new Float64Array(nW);
  const devices: DeviceInWindow[][] = Array.from({ length: nW }, () => []);
  const kernelDurNs: number[][] = Array.from({ length: nW }, () => []);
  let w0 = 0;
  for (let k = 0; k < ix.order.length; k++) {
    const g = ix.order[k]!;
    const s = startNs[g]!;
    const e = s + durNs[g]!;
    // The first window ending after the start; every later one does too.
    while (w0 < nW && !(s < windows[w0]!.hi)) w0++;
    if (w0 === nW) break;
    if (gpu.kind[g] !== GpuKind.Kernel) continue;
    const dev = gpu.device[g]!;
    const bps = classes.blocksPerSm[g]!;
    const occ = classes.occupancyPct[g]!;
    for (let w = w0; w < nW; w++) {
      const { lo, hi } = windows[w]!;
      // As gpuInWindow: overlapping, or zero-length at or after the window's start.
      if (!(e > lo || (e === s && s >= lo))) break;
      kernelDurNs[w]!.push(durNs[g]!);
      const d = clipNs(s, e, lo, hi);
      kernelNs[w] += d;
      if (classes.tensorCores[g]) tcNs[w] += d;
      if (occ >= 0 && d > 0) {
        occWeighted[w] += occ * d;
        occNs[w] += d;
      }
      const list = devices[w]!;
      let at = list.length === 1 && list[0]!.device === dev ? list[0] : list.find((x) => x.device === dev);
      if (!at) list.push((at = { device: dev, unionNs: 0, cs: -Infinity, ce: -Infinity, points: [] }));
      const cs = Math.max(s, lo);
      const ce = Math.min(e, hi);
      if (ce > cs) {
        if (cs > at.ce) {
          if (at.ce > at.cs) at.unionNs += at.ce - at.cs;
          at.cs = cs;
          at.ce = ce;
        } else if (ce > at.ce) at.ce = ce;
      }
      if (bps > 0 && e > s) at.points.push(cs, 0, bps, ce, 1, bps);
    }
  }
  const metrics = windows.map(({ lo, hi }, w): WindowGpuMetrics => {
    const span = hi - lo;
    let util = 0;
    let sm = 0;
    let smDevices = 0;
    for (const at of devices[w]!) {
      util += (at.ce > at.cs ? at.unionNs + (at.ce - at.cs) : at.unionNs) / span;
      if (at.points.length) {
        sm += smEfficiencyOfPoints(at.points) / span;
        smDevices++;
      }
    }
    const n = devices[w]!.length;
    return {
      gpuUtilization: n && span > 0 ? util / n : NaN,
      smEfficiency: smDevices && span > 0 ? sm / smDevices : NaN,
      achievedOccupancyPct: occNs[w]! > 0 ? occWeighted[w]! / occNs[w]! : NaN,
      tensorCoreShare: kernelNs[w]! > 0 ? tcNs[w]! / kernelNs[w]! : NaN,
      kernelNs: kernelNs[w]!,
      tensorCoreKernelNs: tcNs[w]!,
    };
  });
  return { metrics, kernelDurNs };
}
