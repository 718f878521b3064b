/**
 * torch's memory columns of an event (`cpu_memory_usage`, `device_memory_usage` of a
 * FunctionEvent; profile_memory), from the trace's `[memory]` records.
 *
 * As torch computes them (torch/autograd/profiler.py `_parse_kineto_results`, MemRecordsAcc):
 * a host event's usage is the sum of `Bytes` of every record whose time lies in
 * [start, end] — both ends included, on ANY thread (a step annotation on the main thread
 * counts the frees the autograd thread makes during backward). Records of device types CPU,
 * MKLDNN and IDEEP count as CPU memory; CUDA, HIP and PrivateUse1 as device memory; others
 * in neither. Self usage (profiler_util.py) is the usage less the usage of the event's
 * children in torch's tree (profiler-table.ts walks it).
 *
 * Records no host event encloses become `[memory]` events of their own in torch's list (one
 * per record); `unmatched` counts them.
 */
import type { TraceModel } from '../../model/trace-model.js';
import { orderByStart } from '../helpers/natural-merge-sort.js';
import { perModel } from '../helpers/per-model.js';

/** c10::DeviceType numbers torch adds to CPU memory: CPU, MKLDNN, IDEEP. */
const CPU_MEMORY_TYPES = new Set([0, 2, 5]);
/** …and to device memory: CUDA, HIP, PrivateUse1. */
const DEVICE_MEMORY_TYPES = new Set([1, 6, 20]);

export function isCpuMemoryType(deviceType: number): boolean {
  return CPU_MEMORY_TYPES.has(deviceType);
}

export function isDeviceMemoryType(deviceType: number): boolean {
  return DEVICE_MEMORY_TYPES.has(deviceType);
}

export interface HostMemoryUsage {
  /** Per host event: Σ Bytes of CPU-memory records in [start, end] (any thread). */
  readonly cpuBytes: Float64Array;
  /** Per host event: Σ Bytes of device-memory records in [start, end] (any thread). */
  readonly deviceBytes: Float64Array;
  /** `[memory]` records inside no host event (torch lists each as an event of its own). */
  readonly unmatched: { readonly count: number; readonly cpuBytes: number; readonly deviceBytes: number };
}

/** Whether the model holds memory records to read (loaded, and the trace has some). */
export function hasMemoryRecords(m: TraceModel): boolean {
  return !m.omitted.includes('memory') && m.memory.length > 0;
}

/**
 * The records' order by (time, index) (OutOfMemory records left out: they carry no allocation),
 * once per model: torch's memory columns and the memory timeline both read it. Shared, so read-only.
 */
export const memoryTimeOrder = perModel((m: TraceModel): Int32Array => {
  const { tsNs, outOfMemory, length } = m.memory;
  const idx = new Int32Array(length);
  let n = 0;
  for (let r = 0; r < length; r++) if (!outOfMemory[r] && tsNs[r] === tsNs[r]) idx[n++] = r;
  // (readable times only: orderByStart's merge of the runs gives the comparator's order)
  return orderByStart(idx.subarray(0, n), tsNs);
});

/** `counts(i)`: whether host event i is one torch keeps (profiler-table.ts: filtered names match no record). */
export function computeHostMemoryUsage(m: TraceModel, counts: (i: number) => boolean = () => true): HostMemoryUsage {
  const { host, memory } = m;
  const order = memoryTimeOrder(m);
  const n = order.length;
  const ts = new Float64Array(n);
  // Prefix sums: cpuPre[k] = Σ CPU bytes of the first k records in time order.
  const cpuPre = new Float64Array(n + 1);
  const devPre = new Float64Array(n + 1);
  for (let k = 0; k < n; k++) {
    const r = order[k]!;
    ts[k] = memory.tsNs[r]!;
    const b = memory.bytes[r]!;
    const t = memory.deviceType[r]!;
    const ok = b === b;
    cpuPre[k + 1] = cpuPre[k]! + (ok && isCpuMemoryType(t) ? b : 0);
    devPre[k + 1] = devPre[k]! + (ok && isDeviceMemoryType(t) ? b : 0);
  }
  const cpuBytes = new Float64Array(host.length);
  const deviceBytes = new Float64Array(host.length);
  // Coverage of records by some host event: +1 at the first record inside, −1 after the last.
  const cover = new Int32Array(n + 1);
  let lo = 0;
  for (let i = 0; i < host.length; i++) {
    const s = host.startNs[i]!;
    const e = s + host.durNs[i]!;
    if (s !== s || e !== e || !counts(i)) continue;
    lo = recordBound(ts, s, false, lo);
    const hi = recordBound(ts, e, true, lo);
    if (hi <= lo) continue;
    cpuBytes[i] = cpuPre[hi]! - cpuPre[lo]!;
    deviceBytes[i] = devPre[hi]! - devPre[lo]!;
    cover[lo]++;
    cover[hi]--;
  }
  let count = 0;
  let uc = 0;
  let ud = 0;
  for (let k = 0, depth = 0; k < n; k++) {
    depth += cover[k]!;
    if (depth > 0) continue;
    count++;
    uc += cpuPre[k + 1]! - cpuPre[k]!;
    ud += devPre[k + 1]! - devPre[k]!;
  }
  return { cpuBytes, deviceBytes, unmatched: { count, cpuBytes: uc, deviceBytes: ud } };
}

/**
 * First position of `sorted` (ascending) whose value is ≥ x (`after`: > x) — a binary search's
 * answer — looked for outward from `near` (0 ≤ near ≤ length): a few steps when the answer is
 * close, as it is for the records inside one host event, or after its thread's previous one.
 */
export function recordBound(sorted: Float64Array, x: number, after: boolean, near: number): number {
  const n = sorted.length;
  let lo: number;
  let hi: number;
  if (near < n && (after ? sorted[near]! <= x : sorted[near]! < x)) {
    // After `near`: steps of 1, 2, 4, … until a position is not before x.
    lo = near + 1;
    hi = near + 1;
    for (let step = 1; hi < n && (after ? sorted[hi]! <= x : sorted[hi]! < x); hi = near + step) {
      lo = hi + 1;
      step *= 2;
    }
    if (hi > n) hi = n;
  } else {
    // At or before `near`: the same steps down until a position is before x.
    hi = near;
    lo = near - 1;
    for (let step = 1; lo >= 0 && !(after ? sorted[lo]! <= x : sorted[lo]! < x); lo = near - step) {
      hi = lo;
      step *= 2;
    }
    lo = lo < 0 ? 0 : lo + 1;
  }
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (after ? sorted[mid]! <= x : sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
