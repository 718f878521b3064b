/**
 * Where the memory went (profile_memory): per device, the allocator's allocated and reserved
 * bytes over time from the `[memory]` records, the peak, what was alive at the peak, per-op
 * statistics, allocations never freed, and memory per profiler step.
 *
 * What each record says (torch's profiler, c10 allocator callbacks): `Bytes` (> 0 an
 * allocation, < 0 a free), `Addr` (a free carries its block's address), and the device's
 * `Total Allocated` / `Total Reserved` just after it. The series are those totals as written;
 * nothing is summed here, so blocks allocated before the profiler started count in them.
 *
 * Attribution: a record belongs to the outermost `cpu_op` around it on its own thread (the op
 * the user's code called: `aten::linear`, an autograd node's `evaluate_function`), else to no
 * op (`(no op)`); to a module by the innermost `nn.Module` frame around it on its thread, else
 * by the module whose backward its op belongs to (fwdbwd links, modules.ts).
 * Alive at the peak: allocations made in the trace, not freed by the peak's record; what the
 * totals hold beyond them was allocated before the trace (`beforeTraceBytes`).
 * Per-op statistics follow torch's interval rule (facts/memory-usage.ts): an op counts every record
 * in its span on any thread, its callees' included.
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { innermostEnclosingAt } from '../helpers/enclosing.js';
import { isCpuMemoryType, memoryTimeOrder, recordBound } from '../facts/memory-usage.js';
import { computeModuleTree, opsInNestedOrder, type ModuleTree } from '../host/modules.js';
import { perModelWith } from '../helpers/per-model.js';
import { computeProfilerTable, torchRowName, type ProfilerTable } from '../torch-table/profiler-table.js';

export const NO_OP = '(no op)';
export const NO_MODULE = '(no module)';

export interface AliveGroup {
  readonly key: string;
  readonly bytes: number;
  readonly count: number;
}

export interface MemoryOpStats {
  readonly op: string;
  /** Calls of the op (every call, with records or not). */
  readonly calls: number;
  /** Records in the op's spans (any thread, callees included), and their sums. */
  readonly allocations: number;
  readonly allocatedBytes: number;
  readonly frees: number;
  readonly freedBytes: number;
  /** Net bytes (torch's memory usage of this device kind: cpu or device), total and self. */
  readonly totalBytes: number;
  readonly selfBytes: number;
}

export interface MemoryStep {
  readonly step: string;
  readonly startNs: number;
  readonly endNs: number;
  /** Allocated just before the step began (the last record before it). */
  readonly startBytes: number;
  readonly peakBytes: number;
  readonly peakAtNs: number;
  /** Allocated when the step ended (the last record up to its end). */
  readonly endBytes: number;
}

export interface LeakSuspect {
  /** Growth of allocated bytes from the first step's end to the last step's end. */
  readonly growthBytes: number;
  readonly steps: number;
  /** Allocations made inside the steps and never freed in the trace, by op, largest first. */
  readonly neverFreedByOp: readonly AliveGroup[];
}

export interface MemoryDeviceTimeline {
  /** `cpu`, `cuda:0`, `hip:1`, … */
  readonly device: string;
  readonly deviceType: number;
  readonly deviceId: number;
  readonly records: number;
  /** Whether every record carries `Addr` (else alive-at-peak, never-freed and leak ops are not computed). */
  readonly pairedByAddr: boolean;
  /** The series, in time order: one point per record. */
  readonly tsNs: Float64Array;
  readonly allocatedBytes: Float64Array;
  readonly reservedBytes: Float64Array;
  /** Per point: the record's Bytes, Addr and op (the outermost cpu_op around it, or NO_OP). */
  readonly bytes: Float64Array;
  readonly addr: Float64Array;
  readonly op: readonly string[];
  readonly peakAllocatedBytes: number;
  readonly peakAtNs: number;
  readonly peakReservedBytes: number;
  readonly peakReservedAtNs: number;
  readonly firstAllocatedBytes: number;
  readonly lastAllocatedBytes: number;
  readonly alive: {
    readonly byOp: readonly AliveGroup[];
    readonly byModule: readonly AliveGroup[];
    readonly bytes: number;
    readonly beforeTraceBytes: number;
  };
  readonly byOp: readonly MemoryOpStats[];
  readonly neverFreed: { readonly bytes: number; readonly count: number; readonly byOp: readonly AliveGroup[] };
  readonly steps: readonly MemoryStep[];
  readonly leakSuspect: LeakSuspect | undefined;
  /** `totalGlobalMem` of deviceProperties for this GPU, when known. */
  readonly capacityBytes: number | undefined;
}

export interface MemoryTimeline {
  readonly status: 'ok' | 'no-records' | 'not-loaded';
  /** The device that held the most first (its peak, allocated or reserved), then by type and id: byHoldingMost. */
  readonly devices: readonly MemoryDeviceTimeline[];
  /** `[OutOfMemory]` records (allocation failures). */
  readonly outOfMemory: number;
}

/** Fraction of totalGlobalMem at which a reserved peak is called near the device's capacity. */
export const NEAR_CAPACITY = 0.9;

export function deviceLabel(deviceType: number, deviceId: number): string {
  if (isCpuMemoryType(deviceType)) return 'cpu';
  if (deviceType === 1) return `cuda:${deviceId}`;
  if (deviceType === 6) return `hip:${deviceId}`;
  if (deviceType === 20) return `privateuse1:${deviceId}`;
  return `device-type-${deviceType}:${deviceId}`;
}

export interface MemoryTimelineOptions {
  /** Groups listed per table (default 10). */
  readonly top?: number;
}

/** Once per model and `top`: `memory` and the report read the same timeline. Shared, so read-only. */
export const computeMemoryTimeline = perModelWith(computeMemoryTimelineOnce, (opts: MemoryTimelineOptions) => String(opts.top ?? 10));

function computeMemoryTimelineOnce(m: TraceModel, opts: MemoryTimelineOptions): MemoryTimeline {
  if (m.omitted.includes('memory')) return { status: 'not-loaded', devices: [], outOfMemory: 0 };
  const mem = m.memory;
  const outOfMemory = countSet(mem.outOfMemory);
  const order = memoryTimeOrder(m);
  if (order.length === 0) return { status: 'no-records', devices: [], outOfMemory };
  const top = opts.top ?? 10;

  // Each record's op (outermost cpu_op on its thread around it) and module.
  const opOf = recordOps(m, order);
  // Alive-at-peak by module, where the python frames were read (the same tree `modules` prints).
  const moduleOf = recordModules(m, order, opOf.innermost, m.omitted.includes('python') ? undefined : computeModuleTree(m));

  const byDevice = recordsByDevice(m, order);
  // torch's table: calls and the self / total memory columns of each op.
  const table = computeProfilerTable(m);
  const devices: MemoryDeviceTimeline[] = [];
  const ops = countedOps(m, opOf.ops, opOf.ts);
  for (const ks of byDevice.values()) devices.push(deviceTimeline(m, order, ks, opOf.outermost, moduleOf, top, table, ops));
  devices.sort(byHoldingMost);
  return { status: 'ok', devices, outOfMemory };
}

/**
 * The device whose memory peaked highest (allocated or reserved, whichever is larger) first: the
 * GPU's gigabytes, not the CPU allocator's few bytes (a trace of a GPU model records both, the
 * CPU's first by device type). Ties by device type, then id.
 */
export function byHoldingMost(a: MemoryDeviceTimeline, b: MemoryDeviceTimeline): number {
  const held = (d: MemoryDeviceTimeline) => Math.max(d.peakAllocatedBytes, d.peakReservedBytes);
  return held(b) - held(a) || a.deviceType - b.deviceType || a.deviceId - b.deviceId;
}

function countSet(flags: Uint8Array): number {
  let n = 0;
  for (let r = 0; r < flags.length; r++) if (flags[r]) n++;
  return n;
}

/** Records (time-order positions) per device, in time order (the device's list looked up only when the device changes). */
function recordsByDevice(m: TraceModel, order: Int32Array): Map<string, number[]> {
  const mem = m.memory;
  const byDevice = new Map<string, number[]>();
  let list: number[] = [];
  let type = NaN;
  let id = NaN;
  for (let k = 0; k < order.length; k++) {
    const r = order[k]!;
    if (mem.deviceType[r] !== type || mem.deviceId[r] !== id) {
      type = mem.deviceType[r]!;
      id = mem.deviceId[r]!;
      const key = `${type}|${id}`;
      const known = byDevice.get(key);
      if (known) list = known;
      else byDevice.set(key, (list = []));
    }
    list.push(k);
  }
  return byDevice;
}

function deviceTimeline(
  m: TraceModel,
  order: Int32Array,
  ks: readonly number[],
  opName: readonly string[],
  moduleName: readonly string[],
  top: number,
  table: ProfilerTable,
  ops: CountedOps,
): MemoryDeviceTimeline {
  const mem = m.memory;
  const r0 = order[ks[0]!]!;
  const deviceType = mem.deviceType[r0]!;
  const deviceId = mem.deviceId[r0]!;
  const n = ks.length;
  const tsNs = new Float64Array(n);
  const allocatedBytes = new Float64Array(n);
  const reservedBytes = new Float64Array(n);
  const bytes = new Float64Array(n);
  const addrs = new Float64Array(n);
  const op = new Array<string>(n);
  let peak = -1;
  let peakRes = -1;
  // Records written without `Addr` cannot be paired: then nothing is said of blocks (pairedByAddr false).
  let paired = true;
  for (let j = 0; j < n; j++) {
    const k = ks[j]!;
    const r = order[k]!;
    tsNs[j] = mem.tsNs[r]!;
    allocatedBytes[j] = mem.totalAllocated[r]!;
    reservedBytes[j] = mem.totalReserved[r]!;
    bytes[j] = mem.bytes[r]!;
    addrs[j] = mem.addr[r]!;
    op[j] = opName[k]!;
    if (addrs[j] !== addrs[j]) paired = false;
    if (peak < 0 || allocatedBytes[j]! > allocatedBytes[peak]!) peak = j;
    if (peakRes < 0 || reservedBytes[j]! > reservedBytes[peakRes]!) peakRes = j;
  }

  // Replay allocations and frees by address; snapshot what is alive at the peak.
  const live = new Map<number, number>(); // addr → k of its allocation
  let aliveAtPeak = replay(ks, bytes, addrs, peak, live);
  if (!paired) {
    aliveAtPeak = [];
    live.clear();
  }
  const bytesOf = (k: number) => mem.bytes[order[k]!]!;
  const alivePeakBytes = aliveAtPeak.reduce((s, k) => s + bytesOf(k), 0);
  const neverFreedKs = [...live.values()];

  const capacity = deviceType === 1 || deviceType === 6 ? m.devices.find((d) => d.id === deviceId)?.totalGlobalMem : undefined;
  const steps = memorySteps(m, tsNs, allocatedBytes, ks, order);
  return {
    device: deviceLabel(deviceType, deviceId),
    deviceType,
    deviceId,
    records: n,
    pairedByAddr: paired,
    tsNs,
    allocatedBytes,
    reservedBytes,
    bytes,
    addr: addrs,
    op,
    peakAllocatedBytes: allocatedBytes[peak]!,
    peakAtNs: tsNs[peak]!,
    peakReservedBytes: reservedBytes[peakRes]!,
    peakReservedAtNs: tsNs[peakRes]!,
    firstAllocatedBytes: allocatedBytes[0]! - bytesOf(ks[0]!),
    lastAllocatedBytes: allocatedBytes[n - 1]!,
    alive: {
      byOp: group(aliveAtPeak, (k) => opName[k]!, bytesOf).slice(0, top),
      byModule: group(aliveAtPeak, (k) => moduleName[k]!, bytesOf).slice(0, top),
      bytes: alivePeakBytes,
      beforeTraceBytes: allocatedBytes[peak]! - alivePeakBytes,
    },
    byOp: opStats(bytesAt(order.length, ks, bytes), ops, table, isCpuMemoryType(deviceType)).slice(0, Math.max(top, 20)),
    neverFreed: {
      bytes: neverFreedKs.reduce((s, k) => s + bytesOf(k), 0),
      count: neverFreedKs.length,
      byOp: group(neverFreedKs, (k) => opName[k]!, bytesOf).slice(0, top),
    },
    steps,
    leakSuspect: leakSuspect(steps, neverFreedKs, (k) => mem.tsNs[order[k]!]!, (k) => opName[k]!, bytesOf, top),
    capacityBytes: typeof capacity === 'number' ? capacity : undefined,
  };
}

/** The allocations and frees replayed by address into `live` (addr → k of its allocation); what was alive just after record `peak`. */
function replay(ks: readonly number[], bytes: Float64Array, addrs: Float64Array, peak: number, live: Map<number, number>): number[] {
  let aliveAtPeak: number[] = [];
  for (let j = 0; j < ks.length; j++) {
    const b = bytes[j]!;
    const addr = addrs[j]!;
    if (addr === addr) {
      if (b > 0) live.set(addr, ks[j]!);
      else if (b < 0) live.delete(addr);
    }
    if (j === peak) aliveAtPeak = [...live.values()];
  }
  return aliveAtPeak;
}

/** Allocated bytes at each profiler step's start, peak and end. */
function memorySteps(m: TraceModel, tsNs: Float64Array, alloc: Float64Array, ks: readonly number[], order: Int32Array): MemoryStep[] {
  const out: MemoryStep[] = [];
  const n = tsNs.length;
  const before = alloc[0]! - m.memory.bytes[order[ks[0]!]!]!;
  /** Allocated after the records before position k. */
  const at = (k: number): number => (k === 0 ? before : alloc[k - 1]!);
  let first = 0;
  for (const s of m.steps) {
    // The step's records: positions [first, last) (the series is in time order).
    first = recordBound(tsNs, s.startNs, false, first);
    const last = recordBound(tsNs, s.endNs, true, first);
    let peak = at(first);
    let peakAt = s.startNs;
    // (an unreadable start or end bounds nothing on its side: no comparison with NaN excludes a record)
    const to = s.endNs === s.endNs ? last : n;
    for (let j = s.startNs === s.startNs ? first : 0; j < to; j++) {
      if (alloc[j]! > peak) {
        peak = alloc[j]!;
        peakAt = tsNs[j]!;
      }
    }
    out.push({ step: s.name, startNs: s.startNs, endNs: s.endNs, startBytes: at(first), peakBytes: peak, peakAtNs: peakAt, endBytes: at(last) });
  }
  return out;
}

/**
 * Growth across steps: allocated at each step's end above the previous step's end, for every
 * step (at least two). Names the ops of the allocations made in the steps and never freed.
 */
function leakSuspect(
  steps: readonly MemoryStep[],
  neverFreed: readonly number[],
  tsOf: (k: number) => number,
  opOf: (k: number) => string,
  bytesOf: (k: number) => number,
  top: number,
): LeakSuspect | undefined {
  if (steps.length < 2) return undefined;
  for (let i = 1; i < steps.length; i++) if (!(steps[i]!.endBytes > steps[i - 1]!.endBytes)) return undefined;
  const first = steps[0]!;
  const last = steps[steps.length - 1]!;
  const inSteps = neverFreed.filter((k) => tsOf(k) >= first.startNs && tsOf(k) <= last.endNs);
  return { growthBytes: last.endBytes - first.endBytes, steps: steps.length, neverFreedByOp: group(inSteps, opOf, bytesOf).slice(0, top) };
}

/** Prefix sums of the records' allocations and frees: `allocPre[j]` = Σ allocated bytes of the first j records, and so on. */
function prefixSums(bytes: Float64Array): { allocPre: Float64Array; allocCnt: Float64Array; freePre: Float64Array; freeCnt: Float64Array } {
  const n = bytes.length;
  const allocPre = new Float64Array(n + 1);
  const allocCnt = new Float64Array(n + 1);
  const freePre = new Float64Array(n + 1);
  const freeCnt = new Float64Array(n + 1);
  for (let j = 0; j < n; j++) {
    const b = bytes[j]!;
    allocPre[j + 1] = allocPre[j]! + (b > 0 ? b : 0);
    allocCnt[j + 1] = allocCnt[j]! + (b > 0 ? 1 : 0);
    freePre[j + 1] = freePre[j]! + (b < 0 ? -b : 0);
    freeCnt[j + 1] = freeCnt[j]! + (b < 0 ? 1 : 0);
  }
  return { allocPre, allocCnt, freePre, freeCnt };
}

/** The device's records' bytes at their positions in the time order of every record, 0 at the other devices' records. */
function bytesAt(n: number, ks: readonly number[], bytes: Float64Array): Float64Array {
  const out = new Float64Array(n);
  for (let j = 0; j < ks.length; j++) out[ks[j]!] = bytes[j]!;
  return out;
}

/**
 * Per row: the sums of the records in its calls' spans, added in host order. The prefix sums run
 * over every record in time order, with 0 for the other devices' records: a span's difference is
 * the sum of this device's records in it, the value its own records' prefix sums give (x + 0 = x).
 */
function rowSums(
  pre: ReturnType<typeof prefixSums>,
  ops: CountedOps,
  allocations: Float64Array,
  allocatedBytes: Float64Array,
  frees: Float64Array,
  freedBytes: Float64Array,
): void {
  const { allocPre, allocCnt, freePre, freeCnt } = pre;
  for (let c = 0; c < ops.row.length; c++) {
    const lo = ops.lo[c]!;
    const hi = ops.hi[c]!;
    const r = ops.row[c]!;
    allocations[r] += allocCnt[hi]! - allocCnt[lo]!;
    allocatedBytes[r] += allocPre[hi]! - allocPre[lo]!;
    frees[r] += freeCnt[hi]! - freeCnt[lo]!;
    freedBytes[r] += freePre[hi]! - freePre[lo]!;
  }
}

/**
 * The ops opStats counts, in host order: the records in their spans (positions [lo, hi) of the
 * time order of every record; only the ops with some) and their row (torch's row name) in `names`.
 */
interface CountedOps {
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  readonly row: Int32Array;
  readonly names: readonly string[];
}

/**
 * The calls of `ops` (every op, in host order), less torch's duplicates (a call inside a call of the same name as its only
 * child: absorbed, profiler-table.ts), each with its row: found once, for every device's opStats.
 */
function countedOps(m: TraceModel, ops: Int32Array, ts: Float64Array): CountedOps {
  const { host } = m;
  const los = new Int32Array(ops.length);
  const his = new Int32Array(ops.length);
  const row = new Int32Array(ops.length);
  // (torch's row name looked up once per name id)
  const rowOfName = new Int32Array(m.strings.size).fill(-1);
  const rowIds = new Map<string, number>();
  const names: string[] = [];
  let c = 0;
  let lo = 0;
  for (let k = 0; k < ops.length; k++) {
    const i = ops[k]!;
    const p = host.parent[i]!;
    if (p >= 0 && host.name[p] === host.name[i] && host.firstChild[p] === i && host.nextSibling[i]! < 0) continue;
    const s = host.startNs[i]!;
    lo = recordBound(ts, s, false, lo);
    const hi = recordBound(ts, s + host.durNs[i]!, true, lo);
    if (hi <= lo) continue;
    los[c] = lo;
    his[c] = hi;
    const id = host.name[i]!;
    let r = rowOfName[id]!;
    if (r < 0) {
      const name = torchRowName(m.strings.get(id));
      r = rowIds.get(name) ?? -1;
      if (r < 0) rowIds.set(name, (r = names.push(name) - 1));
      rowOfName[id] = r;
    }
    row[c++] = r;
  }
  return { lo: los.subarray(0, c), hi: his.subarray(0, c), row: row.subarray(0, c), names };
}

/**
 * Per op name: records in its calls' spans on any thread (torch's rule), allocations and frees
 * apart (countedOps: torch's duplicates not counted again). Calls and the net self / total are
 * torch's table's. `ts` and `bytes`: the device's records in time order.
 */
function opStats(bytes: Float64Array, ops: CountedOps, table: ProfilerTable, cpu: boolean): MemoryOpStats[] {
  const rows = ops.names.length;
  const allocations = new Float64Array(rows);
  const allocatedBytes = new Float64Array(rows);
  const frees = new Float64Array(rows);
  const freedBytes = new Float64Array(rows);
  rowSums(prefixSums(bytes), ops, allocations, allocatedBytes, frees, freedBytes);
  const torchRows = new Map(table.rows.filter((r) => r.device === 'cpu' && r.category === 'cpu_op').map((r) => [r.name, r]));
  const out: MemoryOpStats[] = [];
  for (let r = 0; r < rows; r++) {
    if (!(allocations[r]! + frees[r]! > 0)) continue;
    const op = ops.names[r]!;
    const t = torchRows.get(op);
    const mem = t?.memory;
    out.push({
      op,
      calls: t?.calls ?? 0,
      allocations: allocations[r]!,
      allocatedBytes: allocatedBytes[r]!,
      frees: frees[r]!,
      freedBytes: freedBytes[r]!,
      totalBytes: mem ? (cpu ? mem.cpuBytes : mem.deviceBytes) : 0,
      selfBytes: mem ? (cpu ? mem.selfCpuBytes : mem.selfDeviceBytes) : 0,
    });
  }
  return out.sort((a, b) => b.allocatedBytes - a.allocatedBytes || (a.op < b.op ? -1 : a.op > b.op ? 1 : 0));
}

/** Per record (by time-order position): the innermost and the outermost cpu_op around it on its thread; the ops, in host order; and the records' times. */
function recordOps(m: TraceModel, order: Int32Array): { innermost: Int32Array; outermost: string[]; ops: Int32Array; ts: Float64Array } {
  // (each pass a function of its own: V8 compiles a function while its first hot loop runs, and
  // throws that code away at a later loop that has not run yet)
  const nested = opsInNestedOrder(m);
  const { thread, ts } = recordColumns(m, order);
  const innermost = innermostEnclosingAt(m.host, nested.order, thread, ts);
  return { innermost, outermost: outermostNames(m, innermost), ops: nested.ops, ts };
}

/** The records' threads and times, in `order`. */
function recordColumns(m: TraceModel, order: Int32Array): { thread: Float64Array; ts: Float64Array } {
  const mem = m.memory;
  const thread = new Float64Array(order.length);
  const ts = new Float64Array(order.length);
  for (let k = 0; k < order.length; k++) {
    thread[k] = mem.thread[order[k]!]!;
    ts[k] = mem.tsNs[order[k]!]!;
  }
  return { thread, ts };
}

/** Per record: the name of the outermost cpu_op around its innermost one, or NO_OP. */
function outermostNames(m: TraceModel, innermost: Int32Array): string[] {
  const { host } = m;
  // The outermost op once per innermost op (many records share one), by host index: a typed
  // array read per record, not a Map lookup.
  const topOf = new Int32Array(host.length).fill(-1);
  const outermost = new Array<string>(innermost.length);
  for (let k = 0; k < innermost.length; k++) {
    const i = innermost[k]!;
    if (i < 0) {
      outermost[k] = NO_OP;
      continue;
    }
    let top = topOf[i]!;
    if (top < 0) {
      top = i;
      for (let p = host.parent[i]!; p >= 0; p = host.parent[p]!) if (host.kind[p] === HostKind.Op) top = p;
      topOf[i] = top;
    }
    outermost[k] = m.strings.get(host.name[top]!);
  }
  return outermost;
}

/** Per record: the module path it was made in (forward frame, else linked backward), or NO_MODULE. */
function recordModules(m: TraceModel, order: Int32Array, innermostOp: Int32Array, modules: ModuleTree | undefined): string[] {
  const out = new Array<string>(order.length).fill(NO_MODULE);
  if (!modules || modules.status !== 'ok') return out;
  // A module's backward name made once, not once per record.
  const backwardName = modules.nodes.map((n) => `${n.path} (backward)`);
  for (let k = 0; k < order.length; k++) {
    const op = innermostOp[k]!;
    if (op < 0) continue;
    const fwd = modules.moduleOfOp[op]!;
    if (fwd >= 0) out[k] = modules.nodes[fwd]!.path;
    else {
      const bwd = modules.backwardModuleOfOp[op]!;
      if (bwd >= 0) out[k] = backwardName[bwd]!;
    }
  }
  return out;
}

function group(ks: readonly number[], keyOf: (k: number) => string, bytesOf: (k: number) => number): AliveGroup[] {
  const g = new Map<string, { bytes: number; count: number }>();
  for (const k of ks) {
    const key = keyOf(k);
    const cur = g.get(key);
    if (cur) {
      cur.bytes += bytesOf(k);
      cur.count++;
    } else g.set(key, { bytes: bytesOf(k), count: 1 });
  }
  return [...g]
    .map(([key, v]) => ({ key, bytes: v.bytes, count: v.count }))
    .sort((a, b) => b.bytes - a.bytes || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * What was alive after each of the given points (ascending indexes into the device's series),
 * by op, the `top` largest: one replay of the allocations and frees up to the last point.
 * Empty lists when the records cannot be paired (no Addr).
 */
export function aliveByOpAt(d: MemoryDeviceTimeline, points: readonly number[], top: number): AliveGroup[][] {
  if (!d.pairedByAddr) return points.map(() => []);
  if (Number.isInteger(top) && top >= 0 && exactSums(d.bytes)) return aliveByOpReplayed(d, points, top);
  const live = new Map<number, number>(); // addr → point of its allocation
  const out: AliveGroup[][] = [];
  let j = 0;
  for (const p of points) {
    for (; j <= p && j < d.bytes.length; j++) {
      const b = d.bytes[j]!;
      if (b > 0) live.set(d.addr[j]!, j);
      else if (b < 0) live.delete(d.addr[j]!);
    }
    out.push(group([...live.values()], (k) => d.op[k]!, (k) => d.bytes[k]!).slice(0, top));
  }
  return out;
}

/** Whether every allocation's bytes are an integer and all of them sum below 2^53: then any sum of some of them is exact, in any order. */
function exactSums(bytes: Float64Array): boolean {
  let sum = 0;
  for (let j = 0; j < bytes.length; j++) {
    const b = bytes[j]!;
    if (b > 0) {
      if (!Number.isInteger(b)) return false;
      sum += b;
    }
  }
  return sum <= Number.MAX_SAFE_INTEGER;
}

/** Each record's op as an index into `keys` (filled here, in order of first record). */
function opNumbers(op: readonly string[], keys: string[]): Int32Array {
  const opIndex = new Map<string, number>();
  const opOf = new Int32Array(op.length);
  // (neighbouring records mostly share their op: looked up only when it changes)
  let last: string | undefined;
  let o = -1;
  for (let k = 0; k < op.length; k++) {
    const key = op[k]!;
    if (key !== last) {
      last = key;
      o = opIndex.get(key) ?? -1;
      if (o < 0) opIndex.set(key, (o = keys.push(key) - 1));
    }
    opOf[k] = o;
  }
  return opOf;
}

/**
 * aliveByOpAt keeping each op's live bytes and blocks as the replay goes (the sums exact: see
 * exactSums), so a point costs a look at each op rather than a regrouping of every live block.
 */
function aliveByOpReplayed(d: MemoryDeviceTimeline, points: readonly number[], top: number): AliveGroup[][] {
  const keys: string[] = [];
  const opOf = opNumbers(d.op, keys);
  const bytes = new Float64Array(keys.length);
  const blocks = new Float64Array(keys.length);
  const live = new Map<number, number>(); // addr → point of its allocation
  const drop = (k: number | undefined) => {
    if (k === undefined) return;
    bytes[opOf[k]!] -= d.bytes[k]!;
    blocks[opOf[k]!]--;
  };
  const out: AliveGroup[][] = [];
  // The `top` largest groups (bytes descending, then key), as group() orders them.
  const best: number[] = [];
  const before = (a: number, b: number) => bytes[a]! > bytes[b]! || (bytes[a] === bytes[b] && keys[a]! < keys[b]!);
  let j = 0;
  for (const p of points) {
    for (; j <= p && j < d.bytes.length; j++) {
      const b = d.bytes[j]!;
      if (b > 0) {
        const addr = d.addr[j]!;
        drop(live.get(addr));
        live.set(addr, j);
        bytes[opOf[j]!] += b;
        blocks[opOf[j]!]++;
      } else if (b < 0) {
        const addr = d.addr[j]!;
        drop(live.get(addr));
        live.delete(addr);
      }
    }
    best.length = 0;
    for (let o = 0; o < keys.length; o++) {
      if (blocks[o] === 0) continue;
      if (best.length === top) {
        // Not before the last kept (before(o, w) written out: this runs for every op at every point).
        if (top === 0) continue;
        const w = best[top - 1]!;
        if (bytes[o]! < bytes[w]! || (bytes[o] === bytes[w] && !(keys[o]! < keys[w]!))) continue;
      }
      let at = best.length < top ? best.length : top - 1;
      while (at > 0 && before(o, best[at - 1]!)) {
        best[at] = best[at - 1]!;
        at--;
      }
      best[at] = o;
    }
    out.push(best.map((o) => ({ key: keys[o]!, bytes: bytes[o]!, count: blocks[o]! })));
  }
  return out;
}
