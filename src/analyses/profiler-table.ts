/**
 * torch's profiler table (`prof.key_averages()`), rebuilt from the trace alone (S14).
 *
 * Definitions, as torch computes them (torch/autograd/profiler_util.py):
 * - rows are keyed by name (`ProfilerStep#N` → `ProfilerStep*`) and device (cpu / gpu);
 *   host events are rows of the cpu device, GPU kernels, copies, memsets and GPU
 *   annotations rows of the gpu device;
 * - CPU total = Σ durations; self CPU = Σ (duration − durations of direct children);
 * - self device = Σ durations of the GPU work an op owns directly; device total = self
 *   device + children's device total (so an annotation's device total is all the GPU work
 *   of the ops inside it); GPU rows: self = total = Σ their own durations;
 * - a parent whose single child has the same name absorbs it (the child's kernels move up);
 * - names torch filters out (`aten::is_leaf`, `profiler::_record_function_*`, …) are skipped
 *   and are transparent to nesting.
 * One torch bug is deliberately not copied: it credits kernels to a runtime call whose
 * correlation id equals the kernels' op's External id (see `TorchIdCollision`); here GPU
 * work is credited only to the op that owns it.
 *
 * Beyond torch: `deviceWallUs` is the wall-clock union of each instance's GPU work (its own
 * and its descendants'), so work running concurrently on several streams is not counted
 * twice; summed over instances.
 */
import { GPU_KIND_NAMES, HOST_KIND_NAMES, HostKind, type TraceModel } from '../model/trace-model.js';
import { mergeUnion } from './intervals.js';

export type ProfilerTableDevice = 'cpu' | 'gpu';

export interface ProfilerTableRow {
  readonly name: string;
  readonly device: ProfilerTableDevice;
  /** Kineto category of the events in the row (`cpu_op`, `user_annotation`, `kernel`, …). */
  readonly category: string;
  /** `Input Dims` of the row's events, when grouped by shape. */
  readonly inputDims?: string;
  readonly calls: number;
  readonly selfCpuUs: number;
  readonly cpuTotalUs: number;
  readonly selfDeviceUs: number;
  readonly deviceTotalUs: number;
  readonly deviceWallUs: number;
}

export interface ProfilerTableOptions {
  readonly groupBy?: 'name' | 'shape';
}

export interface ProfilerTable {
  readonly rows: ProfilerTableRow[];
  /** Σ self CPU over all rows, as torch prints under its table. */
  readonly selfCpuTotalUs: number;
  /** Σ self device time over kernels, copies and memsets (GPU annotations excluded, as torch). */
  readonly selfDeviceTotalUs: number;
}

/** Names torch drops before building its table (`_filter_name` in torch/autograd/profiler.py). */
const TORCH_FILTERED_NAMES = new Set([
  '[memory]',
  '[OutOfMemory]',
  'profiler::_record_function_enter',
  'profiler::_record_function_enter_new',
  'profiler::_record_function_exit',
  'aten::is_leaf',
  'aten::output_nr',
  'aten::_version',
]);

/** Whether torch leaves this host event out of its table (and treats it as transparent to nesting). */
export function isTorchFilteredName(name: string): boolean {
  return TORCH_FILTERED_NAMES.has(name);
}

export function torchRowName(name: string): string {
  return name.startsWith('ProfilerStep#') ? 'ProfilerStep*' : name;
}

export function computeProfilerTable(m: TraceModel, opts: ProfilerTableOptions = {}): ProfilerTable {
  const { host, gpu, strings } = m;
  const n = host.length;
  const byShape = opts.groupBy === 'shape';

  // 1. torch's view of the host tree: filtered names removed and transparent.
  // Per distinct name, not per event: whether torch keeps it and its row name.
  const keptByName = new Int8Array(strings.size).fill(-1);
  const rowByName = new Int32Array(strings.size);
  const rowNames: string[] = [];
  const rowIds = new Map<string, number>();
  const kept = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const id = host.name[i]!;
    if (keptByName[id] === -1) {
      const name = strings.get(id);
      keptByName[id] = TORCH_FILTERED_NAMES.has(name) ? 0 : 1;
      const rn = torchRowName(name);
      let r = rowIds.get(rn);
      if (r === undefined) rowIds.set(rn, (r = rowNames.push(rn) - 1));
      rowByName[id] = r;
    }
    kept[i] = keptByName[id]!;
  }
  const rowName = (i: number) => rowByName[host.name[i]!]!;
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let p = host.parent[i]!;
    while (p >= 0 && !kept[p]) p = host.parent[p]!;
    parent[i] = p;
  }
  // Child lists and owned-GPU lists as offset arrays (CSR): list L is items[off[L]..off[L+1]).
  // _remove_dup_nodes below swaps whole lists between events, so each event points at a list.
  const childOff = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) if (kept[i] && parent[i]! >= 0) childOff[parent[i]! + 1]++;
  const childItems = fillLists(childOff, n, n, (i) => (kept[i] ? parent[i]! : -1));
  const ownedOff = new Int32Array(n + 1);
  for (let g = 0; g < gpu.length; g++) if (gpu.owner[g]! >= 0) ownedOff[gpu.owner[g]! + 1]++;
  const ownedItems = fillLists(ownedOff, n, gpu.length, (g) => gpu.owner[g]!);
  const childList = new Int32Array(n);
  const ownedList = new Int32Array(n);
  for (let i = 0; i < n; i++) childList[i] = ownedList[i] = i;

  // 2. torch's _remove_dup_nodes: a parent with one child of the same name absorbs it.
  // Only events named as their parent can ever be absorbed, and that stays so as parents
  // change (an absorbed event's children move to a parent of the same name): repeat the
  // passes over those alone, in index order, as torch repeats them over all.
  const dups: number[] = [];
  for (let i = 0; i < n; i++) if (kept[i] && parent[i]! >= 0 && rowName(parent[i]!) === rowName(i)) dups.push(i);
  const deleted = new Uint8Array(n);
  for (let changed = dups.length > 0; changed; ) {
    changed = false;
    for (const i of dups) {
      if (deleted[i]) continue;
      const p = parent[i]!;
      const P = childList[p]!;
      if (childOff[P + 1]! - childOff[P]! !== 1) continue;
      childList[p] = childList[i]!;
      ownedList[p] = ownedList[i]!;
      const L = childList[i]!;
      for (let k = childOff[L]!; k < childOff[L + 1]!; k++) parent[childItems[k]!] = p;
      deleted[i] = 1;
      changed = true;
    }
  }

  // 3. One depth-first walk of the kept tree: each event's GPU work (its own and its
  // descendants') lies at gpuSeq[gpuFrom[i] .. gpuTo[i]); device totals add up on the way out.
  const gpuSeq = new Int32Array(gpu.length);
  const gpuFrom = new Int32Array(n);
  const gpuTo = new Int32Array(n);
  const deviceTotal = new Float64Array(n);
  const stack: number[] = [];
  let pos = 0;
  for (let r = 0; r < n; r++) {
    if (!kept[r] || parent[r]! >= 0) continue;
    stack.push(r);
    while (stack.length > 0) {
      const e = stack.pop()!;
      if (e < 0) {
        const i = ~e;
        gpuTo[i] = pos;
        let own = 0;
        const O = ownedList[i]!;
        for (let q = ownedOff[O]!; q < ownedOff[O + 1]!; q++) own += gpu.durNs[ownedItems[q]!]!;
        let sub = 0;
        const L = childList[i]!;
        for (let q = childOff[L]!; q < childOff[L + 1]!; q++) sub += deviceTotal[childItems[q]!]!;
        deviceTotal[i] = own + sub;
        continue;
      }
      gpuFrom[e] = pos;
      const O = ownedList[e]!;
      for (let q = ownedOff[O]!; q < ownedOff[O + 1]!; q++) gpuSeq[pos++] = ownedItems[q]!;
      stack.push(~e);
      const L = childList[e]!;
      for (let q = childOff[L + 1]! - 1; q >= childOff[L]!; q--) stack.push(childItems[q]!);
    }
  }

  // 4. Group into rows, in order of first appearance (keyed by numbers unless grouping by
  // shape, which needs the dims): per-row sums in typed arrays, no object per event.
  const rows = new RowSums();
  const cpuSlot = new Int32Array(byShape ? 0 : 2 * rowNames.length).fill(-1);
  const shapeSlot = new Map<string, number>();
  const wall = new WallScratch(m);
  for (let i = 0; i < n; i++) {
    if (!kept[i] || deleted[i]) continue;
    const kind = host.kind[i]!;
    const isAnnotation = kind === HostKind.Annotation;
    const rn = rowName(i);
    let r: number;
    if (byShape) {
      const dims = inputDimsKey(host.args[i]);
      const key = `${isAnnotation ? 'a' : 'o'}\u0000${rowNames[rn]}\u0000${dims}`;
      r = shapeSlot.get(key) ?? -1;
      if (r < 0) shapeSlot.set(key, (r = rows.add(rowNames[rn]!, 'cpu', HOST_KIND_NAMES[kind]!, dims)));
    } else {
      const key = rn * 2 + (isAnnotation ? 1 : 0);
      r = cpuSlot[key]!;
      if (r < 0) cpuSlot[key] = r = rows.add(rowNames[rn]!, 'cpu', HOST_KIND_NAMES[kind]!, undefined);
    }
    const dur = host.durNs[i]!;
    let childDur = 0;
    const L = childList[i]!;
    for (let q = childOff[L]!; q < childOff[L + 1]!; q++) childDur += host.durNs[childItems[q]!]!;
    let own = 0;
    const O = ownedList[i]!;
    for (let q = ownedOff[O]!; q < ownedOff[O + 1]!; q++) own += gpu.durNs[ownedItems[q]!]!;
    rows.calls[r]++;
    rows.cpuTotalNs[r] += dur;
    rows.selfCpuNs[r] += dur - childDur;
    rows.selfDeviceNs[r] += own;
    rows.deviceTotalNs[r] += deviceTotal[i]!;
    // The wall-clock union of the subtree's GPU work.
    if (deviceTotal[i]! > 0) rows.deviceWallNs[r] += wall.unionNs(gpuSeq, gpuFrom[i]!, gpuTo[i]!);
  }
  const gpuSlot = new Int32Array(strings.size).fill(-1);
  const gpuByName = new Map<string, number>();
  for (let g = 0; g < gpu.length; g++) {
    const id = gpu.name[g]!;
    let r = gpuSlot[id]!;
    if (r < 0) {
      const name = strings.get(id);
      r = gpuByName.get(name) ?? -1;
      if (r < 0) gpuByName.set(name, (r = rows.add(name, 'gpu', GPU_KIND_NAMES[gpu.kind[g]!]!, byShape ? '[]' : undefined)));
      gpuSlot[id] = r;
    }
    const d = gpu.durNs[g]!;
    rows.calls[r]++;
    rows.selfDeviceNs[r] += d;
    rows.deviceTotalNs[r] += d;
    rows.deviceWallNs[r] += d;
  }
  const annByName = new Map<string, number>();
  for (const ann of m.gpuAnnotations) {
    let r = annByName.get(ann.name) ?? -1;
    if (r < 0) annByName.set(ann.name, (r = rows.add(ann.name, 'gpu', 'gpu_user_annotation', byShape ? '[]' : undefined)));
    rows.calls[r]++;
    rows.selfDeviceNs[r] += ann.durNs;
    rows.deviceTotalNs[r] += ann.durNs;
    rows.deviceWallNs[r] += ann.durNs;
  }

  let selfCpuTotalNs = 0;
  let selfDeviceTotalNs = 0;
  const out: ProfilerTableRow[] = [];
  for (let r = 0; r < rows.count; r++) {
    const device = rows.device[r]!;
    const category = rows.category[r]!;
    const inputDims = rows.inputDims[r];
    selfCpuTotalNs += rows.selfCpuNs[r]!;
    if (device === 'gpu' && category !== 'gpu_user_annotation') selfDeviceTotalNs += rows.selfDeviceNs[r]!;
    out.push({
      name: rows.name[r]!,
      device,
      category,
      ...(inputDims !== undefined ? { inputDims } : {}),
      calls: rows.calls[r]!,
      selfCpuUs: rows.selfCpuNs[r]! / 1000,
      cpuTotalUs: rows.cpuTotalNs[r]! / 1000,
      selfDeviceUs: rows.selfDeviceNs[r]! / 1000,
      deviceTotalUs: rows.deviceTotalNs[r]! / 1000,
      deviceWallUs: rows.deviceWallNs[r]! / 1000,
    });
  }
  return { rows: out, selfCpuTotalUs: selfCpuTotalNs / 1000, selfDeviceTotalUs: selfDeviceTotalNs / 1000 };
}

/** The table's rows as parallel arrays, grown as rows appear. */
class RowSums {
  count = 0;
  readonly name: string[] = [];
  readonly device: ProfilerTableDevice[] = [];
  readonly category: string[] = [];
  readonly inputDims: (string | undefined)[] = [];
  calls = new Float64Array(64);
  selfCpuNs = new Float64Array(64);
  cpuTotalNs = new Float64Array(64);
  selfDeviceNs = new Float64Array(64);
  deviceTotalNs = new Float64Array(64);
  deviceWallNs = new Float64Array(64);

  add(name: string, device: ProfilerTableDevice, category: string, inputDims: string | undefined): number {
    if (this.count === this.calls.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.calls = grow(this.calls);
      this.selfCpuNs = grow(this.selfCpuNs);
      this.cpuTotalNs = grow(this.cpuTotalNs);
      this.selfDeviceNs = grow(this.selfDeviceNs);
      this.deviceTotalNs = grow(this.deviceTotalNs);
      this.deviceWallNs = grow(this.deviceWallNs);
    }
    this.name.push(name);
    this.device.push(device);
    this.category.push(category);
    this.inputDims.push(inputDims);
    return this.count++;
  }
}

/**
 * Length of the union of GPU activities' intervals, for many small sets: the same result as
 * `unionLengthNs` (activities with an unreadable start left out), without building arrays
 * when the set is already in start order, as a subtree's work in launch order usually is.
 */
class WallScratch {
  private starts = new Float64Array(0);
  private ends = new Float64Array(0);
  constructor(private readonly m: TraceModel) {}

  unionNs(seq: Int32Array, from: number, to: number): number {
    const { startNs, durNs } = this.m.gpu;
    let prev = -Infinity;
    let inOrder = true;
    for (let k = from; k < to; k++) {
      const s = startNs[seq[k]!]!;
      if (s < prev) {
        inOrder = false;
        break;
      }
      if (s === s) prev = s;
    }
    if (!inOrder) return this.unsortedNs(seq, from, to);
    let total = 0;
    let cs = NaN;
    let ce = NaN;
    for (let k = from; k < to; k++) {
      const g = seq[k]!;
      const s = startNs[g]!;
      let e = s + durNs[g]!;
      if (s !== s || e !== e) continue;
      if (e < s) e = s;
      if (s <= ce) {
        if (e > ce) ce = e;
      } else {
        if (ce === ce) total += ce - cs;
        cs = s;
        ce = e;
      }
    }
    if (ce === ce) total += ce - cs;
    return total;
  }

  private unsortedNs(seq: Int32Array, from: number, to: number): number {
    const { startNs, durNs } = this.m.gpu;
    const n = to - from;
    if (this.starts.length < n) {
      this.starts = new Float64Array(Math.max(n, 2 * this.starts.length));
      this.ends = new Float64Array(this.starts.length);
    }
    const starts = this.starts.subarray(0, n);
    const ends = this.ends.subarray(0, n);
    for (let k = 0; k < n; k++) {
      const g = seq[from + k]!;
      starts[k] = startNs[g]!;
      ends[k] = startNs[g]! + durNs[g]!;
    }
    const u = mergeUnion(starts, ends);
    let total = 0;
    for (let k = 0; k < u.starts.length; k++) total += u.ends[k]! - u.starts[k]!;
    return total;
  }
}

function inputDimsKey(args: Record<string, unknown> | undefined): string {
  const dims = args?.['Input Dims'] ?? args?.['Input dims'];
  return dims === undefined ? '[]' : JSON.stringify(dims);
}

/**
 * Fills offset lists (CSR) whose sizes are already counted in `off[l + 1]`: item j goes to
 * list `listOf(j)` (none when negative), in item order. Turns the counts into offsets.
 */
function fillLists(off: Int32Array, lists: number, items: number, listOf: (item: number) => number): Int32Array {
  for (let l = 0; l < lists; l++) off[l + 1]! += off[l]!;
  const fill = off.slice(0, lists);
  const out = new Int32Array(off[lists]!);
  for (let j = 0; j < items; j++) {
    const l = listOf(j);
    if (l >= 0) out[fill[l]!++] = j;
  }
  return out;
}
