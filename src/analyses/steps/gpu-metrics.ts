/**
 * GPU metrics of a time window, as the TensorBoard profiler plugin's Overview defined them
 * (kineto tb_plugin `gpu_metrics_parser.py`, `tensor_cores_parser.py`, `range_utils.py`;
 * docs/readings.md, "The TensorBoard plugin's Overview"), plus which kernels are communication
 * and which use Tensor Cores.
 *
 * - GPU utilization: the union of kernel intervals inside the window ÷ the window.
 * - Est. SM efficiency: ∫ min(Σ blocks-per-SM of the kernels running at t, 1) dt over the window
 *   ÷ the window. Blocks per SM is Kineto's `blocks per SM` kernel arg (grid ÷ #SMs); when a
 *   trace lacks it, grid size ÷ `numSms` of the device's `deviceProperties`. Non-positive values
 *   are skipped, as the plugin does.
 * - Est. achieved occupancy: Kineto's `est. achieved occupancy %`, weighted by each kernel's
 *   time inside the window (kernels without the arg, or with a negative one, are left out, and
 *   so are kernels whose 0 means unknown: `occupancyIsUnknown`).
 * - Tensor-Core share: time inside the window of kernels whose name says they use Tensor Cores
 *   (`decodeKernelName(name).tensorCores`) ÷ the time inside the window of all kernels. The
 *   plugin's allow-list predates Hopper; the decoder's rules cover `nvjet_*`, `sm90_xmma_*`,
 *   CUTLASS 3.x and the older families.
 * Multi-GPU traces: utilization and SM efficiency are computed per device and averaged over
 * the devices that ran kernels in the window, as the plugin shows one figure per device.
 *
 * Ignores: memcpy/memset (not kernels, as in the plugin); GPU annotations.
 */
import type { JsonObject } from '../../core/json.js';
import { GpuKind, type TraceModel } from '../../model/trace-model.js';
import { gpuWorkTypes, isCommunicationOpName, KernelTypeId } from '../facts/gpu-work-type.js';
import { clipNs } from '../helpers/intervals.js';
import { decodeKernelName } from '../kernels/kernel-name.js';
import { NsValues } from './ns-values.js';
import { doubled } from '../helpers/doubled.js';
import type { GpuTimeIndex } from '../facts/gpu-time-index.js';

// ------------------------------------------------------------------------------------------------
// Kernel classes

/** Per-trace caches of name-derived kernel facts (decoding is done once per distinct name). */
export interface KernelClasses {
  /** Indexed by GPU table index: 1 when the kernel uses Tensor Cores. */
  readonly tensorCores: Uint8Array;
  /**
   * Indexed by GPU table index: 1 when the kernel is communication — its work type
   * (facts/gpu-work-type.ts), or, the plugin's rule, its owner is an `nccl:*` / `gloo:*` op (the
   * kernel's External id is a communication op's).
   */
  readonly communication: Uint8Array;
  /** Blocks per SM per GPU index (NaN when unknown). */
  readonly blocksPerSm: Float64Array;
  /** `est. achieved occupancy %` per GPU index (NaN when absent or unknown: `occupancyIsUnknown`). */
  readonly occupancyPct: Float64Array;
}

/**
 * Whether Kineto's `est. achieved occupancy %` of 0 means "unknown" rather than "under 0.5%".
 * Kineto writes `(int)(0.5 + occupancy·100)` with occupancy = min(blocks per SM, the CUDA
 * occupancy calculator's active blocks per SM) × threads per block ÷ the SM's maximum threads
 * (libkineto `kernelOccupancy`, `output_json.cpp`). The calculator does not know a kernel's
 * opt-in shared memory or cluster launch, so for cuBLAS's nvjet kernels (> 48 KB of shared
 * memory, clusters) it finds room for no block and the figure is 0 — impossible for a kernel that
 * ran. A 0 is a real (rounded) figure only when even one resident block, min(1, blocks per SM) ×
 * threads per block ÷ max threads per SM, stays under 0.5%; where any of those is missing, it
 * is unknown too.
 */
export function occupancyIsUnknown(occPct: number, blocksPerSm: number, threadsPerBlock: number, maxThreadsPerSm: number | undefined): boolean {
  if (occPct !== 0) return false;
  if (!(blocksPerSm > 0) || !(threadsPerBlock > 0) || !(maxThreadsPerSm !== undefined && maxThreadsPerSm > 0)) return true;
  return (Math.min(1, blocksPerSm) * threadsPerBlock) / maxThreadsPerSm >= 0.005;
}

export function classifyKernels(m: TraceModel): KernelClasses {
  const { kind, length: n } = m.gpu;
  const classifier = new KernelClassifier(m);
  for (let g = 0; g < n; g++) if (kind[g] === GpuKind.Kernel) classifier.classify(g);
  return classifier.classes;
}

/**
 * Fills KernelClasses one kernel at a time (`classifyKernels` does every kernel; a caller that
 * walks the GPU table anyway classifies each kernel as it meets it, the table read once).
 */
export class KernelClassifier {
  readonly classes: KernelClasses;
  // What a name says is decided once per name (decoding is costly), what an args object says
  // once per object (args are shared between kernels launched alike), whether an owner is an
  // nccl:/gloo: op once per op name: the first time each is met.
  private readonly tensorCoresByName: Uint8Array;
  private readonly workTypes: Uint8Array;
  private readonly commOp: Uint8Array;
  private readonly args = new KernelArgsTable();
  private readonly smsByDevice = new Map<number, number>();
  private readonly maxThreadsByDevice = new Map<number, number>();

  constructor(private readonly m: TraceModel) {
    const n = m.gpu.length;
    this.classes = {
      tensorCores: new Uint8Array(n),
      communication: new Uint8Array(n),
      blocksPerSm: new Float64Array(n).fill(NaN),
      occupancyPct: new Float64Array(n).fill(NaN),
    };
    this.tensorCoresByName = new Uint8Array(m.strings.size).fill(UNDECIDED);
    this.workTypes = gpuWorkTypes(m);
    this.commOp = new Uint8Array(m.strings.size).fill(UNDECIDED);
    for (const d of m.devices) if (typeof d.numSms === 'number' && d.numSms > 0) this.smsByDevice.set(d.id, d.numSms);
    for (const d of m.devices) if (typeof d['maxThreadsPerMultiprocessor'] === 'number') this.maxThreadsByDevice.set(d.id, d['maxThreadsPerMultiprocessor']);
  }

  /** Kernel g's classes, written into `classes`; returns whether it is communication. */
  classify(g: number): boolean {
    const { gpu, host, strings } = this.m;
    const { tensorCoresByName, commOp, args } = this;
    const { tensorCores, communication, blocksPerSm, occupancyPct } = this.classes;
    const id = gpu.name[g]!;
    let tc = tensorCoresByName[id]!;
    if (tc === UNDECIDED) tensorCoresByName[id] = tc = decodeKernelName(strings.get(id)).tensorCores === true ? 1 : 0;
    tensorCores[g] = tc;
    const kernelArgs = gpu.args[g];
    const a = kernelArgs ? args.slotOf(kernelArgs) : -1;
    let comm = this.workTypes[g] === KernelTypeId.Communication;
    const o = gpu.owner[g]!;
    if (!comm && o >= 0) {
      const on = host.name[o]!;
      if (commOp[on] === UNDECIDED) commOp[on] = isCommunicationOpName(strings.get(on)) ? 1 : 0;
      comm = commOp[on] === 1;
    }
    communication[g] = comm ? 1 : 0;
    if (a < 0) return comm;
    // Blocks per SM and occupancy depend on the args and the device only: worked out once per
    // args object for the device it was last met on (a trace's kernels are mostly on one device).
    const dev = gpu.device[g]!;
    if (args.device[a] !== dev) args.decideOnDevice(a, dev, this.smsByDevice.get(dev), this.maxThreadsByDevice.get(dev));
    blocksPerSm[g] = args.bpsOnDevice[a]!;
    occupancyPct[g] = args.occOnDevice[a]!;
    return comm;
  }
}

const UNDECIDED = 255;

/**
 * What each distinct args object of the kernels says, in typed arrays by slot: `blocks per SM`, the grid's size, occupancy (NaN when absent).
 */
class KernelArgsTable {
  hasBlocksPerSm = new Uint8Array(64);
  blocksPerSm = new Float64Array(64);
  hasGrid = new Uint8Array(64);
  gridSize = new Float64Array(64);
  /** Threads per block (the `block` arg's product; NaN when absent). */
  blockThreads = new Float64Array(64);
  occupancyPct = new Float64Array(64);
  /** The device `bpsOnDevice` and `occOnDevice` were decided for (NaN: none yet). */
  device = new Float64Array(64).fill(NaN);
  /** Blocks per SM on that device (NaN when unknown), and occupancy there (NaN when absent or unknown). */
  bpsOnDevice = new Float64Array(64);
  occOnDevice = new Float64Array(64);
  private count = 0;
  private readonly slots = new Map<JsonObject, number>();

  /** The slot of an args object, read the first time it is met. */
  slotOf(args: JsonObject): number {
    const k = this.slots.get(args);
    return k !== undefined ? k : this.read(args);
  }

  /** A kernel's blocks per SM and occupancy with args slot `k` on device `dev` (`sms`, `maxThreads`: the device's properties). */
  decideOnDevice(k: number, dev: number, sms: number | undefined, maxThreads: number | undefined): void {
    let bps = NaN;
    if (this.hasBlocksPerSm[k]) bps = this.blocksPerSm[k]!;
    else if (sms && this.hasGrid[k]) bps = this.gridSize[k]! / sms;
    const occ = this.occupancyPct[k]!;
    this.device[k] = dev;
    this.bpsOnDevice[k] = bps;
    this.occOnDevice[k] = occupancyIsUnknown(occ, bps, this.blockThreads[k]!, maxThreads) ? NaN : occ;
  }

  private read(args: JsonObject): number {
    const k = this.count++;
    if (k === this.hasBlocksPerSm.length) this.grow();
    this.slots.set(args, k);
    const bps = args['blocks per SM'];
    if (typeof bps === 'number') {
      this.hasBlocksPerSm[k] = 1;
      this.blocksPerSm[k] = bps;
    }
    const grid = args['grid'];
    if (Array.isArray(grid) && grid.every((v) => typeof v === 'number')) {
      this.hasGrid[k] = 1;
      this.gridSize[k] = (grid as number[]).reduce((p, v) => p * v, 1);
    }
    const block = args['block'];
    this.blockThreads[k] = Array.isArray(block) && block.every((v) => typeof v === 'number') ? (block as number[]).reduce((p, v) => p * v, 1) : NaN;
    const occ = args['est. achieved occupancy %'];
    this.occupancyPct[k] = typeof occ === 'number' ? occ : NaN;
    return k;
  }

  private grow(): void {
    this.hasBlocksPerSm = doubled(this.hasBlocksPerSm);
    this.blocksPerSm = doubled(this.blocksPerSm);
    this.hasGrid = doubled(this.hasGrid);
    this.gridSize = doubled(this.gridSize);
    this.blockThreads = doubled(this.blockThreads);
    this.occupancyPct = doubled(this.occupancyPct);
    const device = new Float64Array(2 * this.device.length).fill(NaN);
    device.set(this.device);
    this.device = device;
    this.bpsOnDevice = doubled(this.bpsOnDevice);
    this.occOnDevice = doubled(this.occOnDevice);
  }
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
 * from `gpuInWindow`); non-kernel activities are skipped here.
 */
export function computeWindowGpuMetrics(m: TraceModel, classes: KernelClasses, inWindow: ArrayLike<number>, lo: number, hi: number): WindowGpuMetrics {
  const { gpu } = m;
  const sums = new KernelSums();
  // The window's kernels per device, devices in order of first appearance.
  const devices: DeviceInWindow[] = [];
  const kernelsOf: number[][] = [];
  for (let j = 0; j < inWindow.length; j++) {
    const g = inWindow[j]!;
    if (gpu.kind[g] !== GpuKind.Kernel) continue;
    const s = gpu.startNs[g]!;
    sums.add(classes, g, clipNs(s, s + gpu.durNs[g]!, lo, hi));
    const dev = gpu.device[g]!;
    let k = devices.findIndex((at) => at.device === dev);
    if (k < 0) {
      k = devices.push(new DeviceInWindow(dev)) - 1;
      kernelsOf.push([]);
    }
    kernelsOf[k]!.push(g);
  }
  devices.forEach((at, k) => {
    at.unionNs = unionOfClipped(m, kernelsOf[k]!, lo, hi);
    sweepSm(m, classes, kernelsOf[k]!, lo, hi, at.sm);
  });
  return windowMetrics(lo, hi, sums, devices);
}

/** Sums over a window's kernels, each added with its time inside the window. */
class KernelSums {
  kernelNs = 0;
  tensorCoreNs = 0;
  occupancyWeighted = 0;
  occupancyNs = 0;

  add(classes: KernelClasses, g: number, d: number): void {
    this.kernelNs += d;
    if (classes.tensorCores[g]) this.tensorCoreNs += d;
    const occ = classes.occupancyPct[g]!;
    if (occ >= 0 && d > 0) {
      this.occupancyWeighted += occ * d;
      this.occupancyNs += d;
    }
  }
}

/** One device's kernels inside one window: the union of their clipped intervals and their SM sweep. */
class DeviceInWindow {
  /** Length of the union of the kernels' intervals clipped to the window. */
  unionNs = 0;
  /** The union's last segment, while the one pass sweeps it. */
  cs = -Infinity;
  ce = -Infinity;
  readonly sm = new SmSweep();
  /** Kernels with an SM point so far (their order, for the sweep's ties). */
  smPoints = 0;

  constructor(readonly device: number) {}
}

/** The entry of `device` in a window's devices, added when it is new. */
function deviceIn(devices: DeviceInWindow[], device: number): DeviceInWindow {
  for (let k = 0; k < devices.length; k++) if (devices[k]!.device === device) return devices[k]!;
  const at = new DeviceInWindow(device);
  devices.push(at);
  return at;
}

/** The metrics from a window's sums and its devices' unions and SM sweeps (devices averaged). */
function windowMetrics(lo: number, hi: number, sums: KernelSums, devices: readonly DeviceInWindow[]): WindowGpuMetrics {
  const span = hi - lo;
  let util = 0;
  let sm = 0;
  let smDevices = 0;
  for (const at of devices) {
    util += at.unionNs / span;
    const smNs = at.sm.finish();
    if (smNs === smNs) {
      sm += smNs / span;
      smDevices++;
    }
  }
  const { kernelNs, tensorCoreNs, occupancyWeighted, occupancyNs } = sums;
  return {
    gpuUtilization: devices.length && span > 0 ? util / devices.length : NaN,
    smEfficiency: smDevices && span > 0 ? sm / smDevices : NaN,
    achievedOccupancyPct: occupancyNs > 0 ? occupancyWeighted / occupancyNs : NaN,
    tensorCoreShare: kernelNs > 0 ? tensorCoreNs / kernelNs : NaN,
    kernelNs,
    tensorCoreKernelNs: tensorCoreNs,
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

/**
 * ∫ min(Σ blocks per SM of running kernels, 1) dt over [lo, hi) — the plugin's
 * `merge_ranges_with_value`: the kernels' clipped start and end points sorted by time, starts
 * before ends at equal times, then in the order the kernels were given; kernels with no blocks
 * per SM, or no duration, have none. Swept as the kernels come in start order: each end waits,
 * in a short list kept in order (the kernels running at once), until a later start passes it
 * (or the sweep ends) — the steps of the sorted points, in the same order, with nothing sorted.
 */
class SmSweep {
  private total = 0;
  private level = 0;
  private t = NaN;
  private points = 0;
  // Pending ends, in order of (time, place among the kernels as given), at [head, head + pending):
  // ends that passed leave from the front by moving `head`, without copying the rest.
  private endTime = new Float64Array(8);
  private endBps = new Float64Array(8);
  private endSeq = new Int32Array(8);
  private head = 0;
  private pending = 0;

  /** A kernel's clipped start and end with its blocks per SM; `seq`: its place among the kernels as given. Starts come in time order (ties as given). */
  add(cs: number, ce: number, bps: number, seq: number): void {
    const { endTime, endBps } = this;
    let { total, level, t } = this;
    // The ends before this start, then the start (each step written out: this runs per kernel).
    const end = this.head + this.pending;
    let k = this.head;
    for (; k < end && endTime[k]! < cs; k++) {
      if (endTime[k]! > t && level > 1e-12) total += (endTime[k]! - t) * Math.min(level, 1);
      t = endTime[k]!;
      level -= endBps[k]!;
    }
    if (cs > t && level > 1e-12) total += (cs - t) * Math.min(level, 1);
    t = cs;
    level += bps;
    this.total = total;
    this.level = level;
    this.t = t;
    this.pending = end - k;
    this.head = this.pending === 0 ? 0 : k;
    // This kernel's end, in its place.
    if (this.head + this.pending === endTime.length) this.makeRoom();
    const time = this.endTime;
    const bpsAt = this.endBps;
    const seqAt = this.endSeq;
    const head = this.head;
    let i = head + this.pending++;
    for (; i > head && (time[i - 1]! > ce || (time[i - 1] === ce && seqAt[i - 1]! > seq)); i--) {
      time[i] = time[i - 1]!;
      bpsAt[i] = bpsAt[i - 1]!;
      seqAt[i] = seqAt[i - 1]!;
    }
    time[i] = ce;
    bpsAt[i] = bps;
    seqAt[i] = seq;
    this.points++;
  }

  /** The integral in ns; NaN when no kernel had a point. */
  finish(): number {
    const end = this.head + this.pending;
    for (let k = this.head; k < end; k++) {
      const time = this.endTime[k]!;
      if (time > this.t && this.level > 1e-12) this.total += (time - this.t) * Math.min(this.level, 1);
      this.t = time;
      this.level -= this.endBps[k]!;
    }
    this.head = 0;
    this.pending = 0;
    return this.points > 0 ? this.total : NaN;
  }

  /** Room for one more end at the back: the pending ends moved to the front, or the arrays doubled. */
  private makeRoom(): void {
    const { head, pending } = this;
    if (head > 0) {
      this.endTime.copyWithin(0, head, head + pending);
      this.endBps.copyWithin(0, head, head + pending);
      this.endSeq.copyWithin(0, head, head + pending);
      this.head = 0;
      return;
    }
    const time = new Float64Array(2 * this.endTime.length);
    const bps = new Float64Array(time.length);
    const seq = new Int32Array(time.length);
    time.set(this.endTime);
    bps.set(this.endBps);
    seq.set(this.endSeq);
    this.endTime = time;
    this.endBps = bps;
    this.endSeq = seq;
  }
}

/** The SM sweep of a window's kernels given in any order: their points put in start order first (ties as given). */
function sweepSm(m: TraceModel, classes: KernelClasses, kernels: readonly number[], lo: number, hi: number, sm: SmSweep): void {
  const { startNs, durNs } = m.gpu;
  const withPoints = kernels.filter((g) => classes.blocksPerSm[g]! > 0 && startNs[g]! + durNs[g]! > startNs[g]!);
  const clippedStart = (g: number) => Math.max(startNs[g]!, lo);
  const order = withPoints.map((_, k) => k).sort((a, b) => clippedStart(withPoints[a]!) - clippedStart(withPoints[b]!) || a - b);
  for (const k of order) {
    const g = withPoints[k]!;
    sm.add(clippedStart(g), Math.min(startNs[g]! + durNs[g]!, hi), classes.blocksPerSm[g]!, k);
  }
}

// ------------------------------------------------------------------------------------------------
// Many windows at once

/**
 * The activities of windows in time order that do not overlap, starts readable
 * (`ix.startsReadable`), one window after the other: the one walk both passes below share, so
 * which activities a window holds and its GPU busy are defined once. A window's activities are
 * those carried from the window before (they run past its end), then those starting before its
 * end that no earlier window took: all in start order, as gpuInWindow lists them, each clipped
 * to the window. An activity is visited once per window it overlaps, however long it runs.
 */
class WindowWalk {
  /** The window's activities, [0, count), with their starts and ends clipped to it. */
  gpu = new Int32Array(64);
  clippedStart = new Float64Array(64);
  clippedEnd = new Float64Array(64);
  count = 0;
  /** The length of the union of the window's clipped activities: its GPU busy time. */
  busyNs = 0;
  private carry = new Int32Array(16);
  private nCarry = 0;
  private next = new Int32Array(16);
  /** The next activity of the start order not yet taken by a window. */
  private k = 0;

  constructor(
    private readonly m: TraceModel,
    private readonly ix: GpuTimeIndex,
  ) {}

  /** Moves to the window [lo, hi), which starts at or after the previous one's end. */
  take(lo: number, hi: number): void {
    const { startNs, durNs } = this.m.gpu;
    const { order } = this.ix;
    const n = order.length;
    const carry = this.carry;
    const nCarry = this.nCarry;
    let next = this.next;
    let nNext = 0;
    let count = 0;
    let busy = 0;
    // The union's last segment (clipped starts are at least lo: none yet). The activities come in
    // order of clipped start (those carried are clipped to lo), so the union is one sweep.
    let us = lo;
    let ue = lo;
    for (let j = -nCarry; ; j++) {
      let g: number;
      if (j < 0) g = carry[j + nCarry]!;
      else {
        if (this.k === n) break;
        g = order[this.k]!;
        // Activities starting at or after the window's end are the next windows'.
        if (!(startNs[g]! < hi)) break;
        this.k++;
      }
      const s = startNs[g]!;
      const e = s + durNs[g]!;
      // As gpuInWindow: overlapping, or zero-length at or after the window's start. An activity
      // that misses a window misses every later one too.
      if (!(e > lo || (e === s && s >= lo))) continue;
      if (e > hi) {
        if (nNext === next.length) next = doubled(next);
        next[nNext++] = g;
      }
      // Clipped (clipNs: its end is readable here); an unreadable end overlaps nothing, as the
      // union of readable intervals leaves it out.
      const cs = s > lo ? s : lo;
      const ce = e < hi ? e : hi;
      if (ce > cs) {
        if (cs > ue) {
          busy += ue - us;
          us = cs;
          ue = ce;
        } else if (ce > ue) ue = ce;
      }
      if (count === this.gpu.length) this.grow();
      this.gpu[count] = g;
      this.clippedStart[count] = cs;
      this.clippedEnd[count] = ce;
      count++;
    }
    this.count = count;
    this.busyNs = busy + (ue - us);
    this.carry = next;
    this.next = carry;
    this.nCarry = nNext;
  }

  private grow(): void {
    this.gpu = doubled(this.gpu);
    this.clippedStart = doubled(this.clippedStart);
    this.clippedEnd = doubled(this.clippedEnd);
  }
}

/**
 * `computeWindowGpuMetrics(m, classes, gpuInWindow(m, ix, lo, hi), lo, hi)` for every window
 * — windows in time order that do not overlap, activities with readable starts — in one walk
 * (WindowWalk). Each kernel is added to the windows it overlaps, in the order gpuInWindow lists
 * them, so every sum is taken in the same order and every figure is the same. The same walk
 * gives windowsGpuActivity's figures, for a caller that needs both.
 */
export function computeWindowsGpuMetrics(
  m: TraceModel,
  classes: KernelClasses,
  ix: GpuTimeIndex,
  windows: ReadonlyArray<{ readonly lo: number; readonly hi: number }>,
): { readonly metrics: WindowGpuMetrics[]; readonly activity: WindowsGpuActivity } {
  const metrics: WindowGpuMetrics[] = [];
  const activity = emptyActivity(windows.length);
  const walk = new WindowWalk(m, ix);
  for (let w = 0; w < windows.length; w++) {
    const { lo, hi } = windows[w]!;
    walk.take(lo, hi);
    tallyActivity(m, walk, activity, w);
    metrics.push(windowMetricsOf(m, classes, walk, lo, hi));
  }
  return { metrics, activity };
}

/** The metrics of the window `walk` is at: computeWindowGpuMetrics' sums, its kernels as the walk lists them. */
function windowMetricsOf(m: TraceModel, classes: KernelClasses, walk: WindowWalk, lo: number, hi: number): WindowGpuMetrics {
  const { kind, device, startNs, durNs } = m.gpu;
  const { tensorCores, occupancyPct, blocksPerSm } = classes;
  const { gpu, clippedStart, clippedEnd, count } = walk;
  const devices: DeviceInWindow[] = [];
  let at: DeviceInWindow | undefined;
  let kernelNs = 0;
  let tensorCoreNs = 0;
  let occupancyWeighted = 0;
  let occupancyNs = 0;
  for (let j = 0; j < count; j++) {
    const g = gpu[j]!;
    if (kind[g] !== GpuKind.Kernel) continue;
    const cs = clippedStart[j]!;
    const ce = clippedEnd[j]!;
    const d = ce > cs ? ce - cs : 0;
    // KernelSums.add, written out: this runs per kernel.
    kernelNs += d;
    if (tensorCores[g]) tensorCoreNs += d;
    const occ = occupancyPct[g]!;
    if (occ >= 0 && d > 0) {
      occupancyWeighted += occ * d;
      occupancyNs += d;
    }
    const dev = device[g]!;
    if (at === undefined || at.device !== dev) at = deviceIn(devices, dev);
    // The device's union and SM sweep, as its kernels come (in start order).
    if (ce > cs) {
      if (cs > at.ce) {
        if (at.ce > at.cs) at.unionNs += at.ce - at.cs;
        at.cs = cs;
        at.ce = ce;
      } else if (ce > at.ce) at.ce = ce;
    }
    const bps = blocksPerSm[g]!;
    if (bps > 0 && startNs[g]! + durNs[g]! > startNs[g]!) at.sm.add(cs, ce, bps, at.smPoints++);
  }
  for (const d of devices) if (d.ce > d.cs) d.unionNs += d.ce - d.cs;
  const sums = new KernelSums();
  sums.kernelNs = kernelNs;
  sums.tensorCoreNs = tensorCoreNs;
  sums.occupancyWeighted = occupancyWeighted;
  sums.occupancyNs = occupancyNs;
  return windowMetrics(lo, hi, sums, devices);
}

/** Each window's GPU activity as the verdict reads it (windowsGpuActivity). */
export interface WindowsGpuActivity {
  /** GPU busy: the length of the union of all GPU activity (kernels, copies, memsets) inside the window. */
  readonly busyNs: Float64Array;
  /** The durations of the window's kernels (those overlapping it, as gpuInWindow lists them: in start order). */
  readonly kernelDurNs: NsValues[];
  /** Σ the kernels' time inside the window: computeWindowGpuMetrics' kernelNs. */
  readonly kernelNs: Float64Array;
}

/**
 * Each window's GPU busy, kernel durations and kernel time — windows in time order that do not
 * overlap, starts readable (`ix.startsReadable`) — in the walk computeWindowsGpuMetrics makes,
 * each sum in the same order.
 */
export function windowsGpuActivity(m: TraceModel, ix: GpuTimeIndex, windows: ReadonlyArray<{ readonly lo: number; readonly hi: number }>): WindowsGpuActivity {
  const activity = emptyActivity(windows.length);
  const walk = new WindowWalk(m, ix);
  for (let w = 0; w < windows.length; w++) {
    walk.take(windows[w]!.lo, windows[w]!.hi);
    tallyActivity(m, walk, activity, w);
  }
  return activity;
}

function emptyActivity(nW: number): WindowsGpuActivity {
  return { busyNs: new Float64Array(nW), kernelDurNs: [], kernelNs: new Float64Array(nW) };
}

/** Window `w`'s figures from the window `walk` is at. */
function tallyActivity(m: TraceModel, walk: WindowWalk, out: WindowsGpuActivity, w: number): void {
  const { kind, durNs } = m.gpu;
  const { gpu, clippedStart, clippedEnd, count } = walk;
  const durs = new NsValues();
  let kernelNs = 0;
  for (let j = 0; j < count; j++) {
    const g = gpu[j]!;
    if (kind[g] !== GpuKind.Kernel) continue;
    const d = clippedEnd[j]! - clippedStart[j]!;
    kernelNs += d > 0 ? d : 0;
    durs.push(durNs[g]!);
  }
  out.busyNs[w] = walk.busyNs;
  out.kernelDurNs.push(durs);
  out.kernelNs[w] = kernelNs;
}
