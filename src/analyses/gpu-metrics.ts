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
import { GpuKind, type TraceModel } from '../model/trace-model.js';
import { hasCollectiveArgs, isCommunicationKernelName, isCommunicationOpName } from './communication.js';
import { clipNs, lowerBound } from './intervals.js';
import { decodeKernelName } from './kernel-name.js';

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
  const idx = Array.from({ length: gpu.length }, (_, g) => g).sort((a, b) => gpu.startNs[a]! - gpu.startNs[b]! || a - b);
  const order = Int32Array.from(idx);
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
  const { gpu, strings } = m;
  const n = gpu.length;
  const tensorCores = new Uint8Array(n);
  const communication = new Uint8Array(n);
  const blocksPerSm = new Float64Array(n).fill(NaN);
  const occupancyPct = new Float64Array(n).fill(NaN);
  const tcByName = new Map<number, boolean>();
  const smsByDevice = new Map<number, number>();
  for (const d of m.devices) if (typeof d.numSms === 'number' && d.numSms > 0) smsByDevice.set(d.id, d.numSms);
  for (let g = 0; g < n; g++) {
    if (gpu.kind[g] !== GpuKind.Kernel) continue;
    const id = gpu.name[g]!;
    const name = strings.get(id);
    let tc = tcByName.get(id);
    if (tc === undefined) {
      tc = decodeKernelName(name).tensorCores === true;
      tcByName.set(id, tc);
    }
    tensorCores[g] = tc ? 1 : 0;
    communication[g] = isCommunicationKernel(m, g, name) ? 1 : 0;
    const args = gpu.args[g];
    const bps = args?.['blocks per SM'];
    if (typeof bps === 'number') blocksPerSm[g] = bps;
    else {
      const sms = smsByDevice.get(gpu.device[g]!);
      const grid = args?.['grid'];
      if (sms && Array.isArray(grid) && grid.every((v) => typeof v === 'number')) {
        blocksPerSm[g] = (grid as number[]).reduce((p, v) => p * v, 1) / sms;
      }
    }
    const occ = args?.['est. achieved occupancy %'];
    if (typeof occ === 'number') occupancyPct[g] = occ;
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
 * from `gpuInWindow`); non-kernel activities are skipped here.
 */
export function computeWindowGpuMetrics(m: TraceModel, classes: KernelClasses, inWindow: readonly number[], lo: number, hi: number): WindowGpuMetrics {
  const { gpu } = m;
  const span = hi - lo;
  let kernelNs = 0;
  let tcNs = 0;
  let occWeighted = 0;
  let occNs = 0;
  const byDevice = new Map<number, { flat: number[]; points: [number, number, number][] }>();
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
    let dev = byDevice.get(gpu.device[g]!);
    if (!dev) byDevice.set(gpu.device[g]!, (dev = { flat: [], points: [] }));
    dev.flat.push(Math.max(s, lo), Math.min(e, hi));
    const bps = classes.blocksPerSm[g]!;
    if (bps > 0 && e > s) {
      dev.points.push([Math.max(s, lo), 0, bps], [Math.min(e, hi), 1, bps]);
    }
  }
  let util = 0;
  let sm = 0;
  let smDevices = 0;
  for (const dev of byDevice.values()) {
    util += unionOfClipped(dev.flat) / span;
    if (dev.points.length) {
      sm += smEfficiencyNs(dev.points) / span;
      smDevices++;
    }
  }
  return {
    gpuUtilization: byDevice.size && span > 0 ? util / byDevice.size : NaN,
    smEfficiency: smDevices && span > 0 ? sm / smDevices : NaN,
    achievedOccupancyPct: occNs > 0 ? occWeighted / occNs : NaN,
    tensorCoreShare: kernelNs > 0 ? tcNs / kernelNs : NaN,
    kernelNs,
    tensorCoreKernelNs: tcNs,
  };
}

function unionOfClipped(flat: number[]): number {
  const n = flat.length >> 1;
  const idx = Array.from({ length: n }, (_, k) => k).sort((a, b) => flat[2 * a]! - flat[2 * b]!);
  let total = 0;
  let cs = -Infinity;
  let ce = -Infinity;
  for (const k of idx) {
    const s = flat[2 * k]!;
    const e = flat[2 * k + 1]!;
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
 * ∫ min(Σ blocks per SM of running kernels, 1) dt — the plugin's `merge_ranges_with_value`:
 * endpoints sorted by time with starts before ends at equal times.
 */
function smEfficiencyNs(points: [number, number, number][]): number {
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let total = 0;
  let level = 0;
  let t = points[0]![0];
  for (const [time, type, v] of points) {
    if (time > t && level > 1e-12) total += (time - t) * Math.min(level, 1);
    t = time;
    level += type === 0 ? v : -v;
  }
  return total;
}
