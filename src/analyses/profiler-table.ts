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
import type { JsonObject } from '../ingest/raw-event.js';
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

  // 1. Per distinct name, not per event: whether torch keeps it and its row name. Events named
  // as their parent are the candidates of step 3, found in the same pass (assuming, until a
  // filtered name shows up, that the parent torch sees is the trace's).
  const keptByName = new Int8Array(strings.size).fill(-1);
  const rowByName = new Int32Array(strings.size);
  const rowNames: string[] = [];
  const rowIds = new Map<string, number>();
  const decide = (id: number) => {
    const name = strings.get(id);
    keptByName[id] = TORCH_FILTERED_NAMES.has(name) ? 0 : 1;
    const rn = torchRowName(name);
    let r = rowIds.get(rn);
    if (r === undefined) rowIds.set(rn, (r = rowNames.push(rn) - 1));
    rowByName[id] = r;
  };
  const rowOf = (i: number) => rowByName[host.name[i]!]!;
  const kept = (i: number) => keptByName[host.name[i]!] === 1;
  let filtered = false;
  let dups: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = host.name[i]!;
    if (keptByName[id] === -1) decide(id);
    if (keptByName[id] === 0) filtered = true;
    const p = host.parent[i]!;
    if (p >= 0) {
      const pid = host.name[p]!;
      if (keptByName[pid] === -1) decide(pid);
      if (rowByName[pid] === rowByName[id]) dups.push(i);
    }
  }

  // 2. torch's view of the host tree, as linked lists: filtered events removed and transparent.
  // Step 3 moves whole child lists between events, so the heads are copies.
  let parent: Int32Array;
  let firstChild: Int32Array;
  let nextSibling: Int32Array;
  if (!filtered) {
    parent = host.parent.slice();
    firstChild = host.firstChild.slice();
    nextSibling = host.nextSibling;
  } else {
    parent = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let p = host.parent[i]!;
      while (p >= 0 && !kept(p)) p = host.parent[p]!;
      parent[i] = p;
    }
    firstChild = new Int32Array(n).fill(-1);
    nextSibling = new Int32Array(n).fill(-1);
    const lastChild = new Int32Array(n).fill(-1);
    dups = [];
    for (let i = 0; i < n; i++) {
      const p = parent[i]!;
      if (!kept(i) || p < 0) continue;
      if (lastChild[p]! < 0) firstChild[p] = i;
      else nextSibling[lastChild[p]!] = i;
      lastChild[p] = i;
      if (rowOf(p) === rowOf(i)) dups.push(i);
    }
  }
  // The GPU work each op owns, as linked lists in GPU order (heads copied for step 3 too).
  const ownedHead = new Int32Array(n).fill(-1);
  const ownedNext = new Int32Array(gpu.length);
  for (let g = gpu.length - 1; g >= 0; g--) {
    const o = gpu.owner[g]!;
    if (o >= 0) {
      ownedNext[g] = ownedHead[o]!;
      ownedHead[o] = g;
    }
  }

  // 3. torch's _remove_dup_nodes: a parent with one child of the same name absorbs it.
  // Only events named as their parent can ever be absorbed, and that stays so as parents
  // change (an absorbed event's children move to a parent of the same name): repeat the
  // passes over those alone, in index order, as torch repeats them over all.
  const deleted = new Uint8Array(n);
  for (let changed = dups.length > 0; changed; ) {
    changed = false;
    for (const i of dups) {
      if (deleted[i]) continue;
      const p = parent[i]!;
      const only = firstChild[p]!;
      if (only < 0 || nextSibling[only]! >= 0) continue;
      firstChild[p] = firstChild[i]!;
      ownedHead[p] = ownedHead[i]!;
      for (let c = firstChild[i]!; c >= 0; c = nextSibling[c]!) parent[c] = p;
      deleted[i] = 1;
      changed = true;
    }
  }

  // 4. One depth-first walk of the kept tree. Each event's GPU work (its own and its
  // descendants') is laid out at gpuSeq[from[i] .. end of its subtree); on the way out its
  // times are known and added to its row. Rows are keyed by numbers unless grouping by shape
  // (which needs the dims) and listed in order of their first event, as torch lists them.
  const rows = new RowSums();
  const cpuSlot = new Int32Array(byShape ? 0 : 2 * rowNames.length).fill(-1);
  // By shape: rows keyed by (row name, annotation or not, dims), the dims numbered as they
  // appear; args objects are shared between events, so each one's dims are written once.
  const shapeSlot = new Map<number, number>();
  const dimsIds = new Map<string, number>();
  const dimsList: string[] = [];
  const dimsOfArgs = new WeakMap<object, number>();
  const dimsId = (args: JsonObject | undefined): number => {
    let id = args ? dimsOfArgs.get(args) : undefined;
    if (id === undefined) {
      const dims = inputDimsKey(args);
      id = dimsIds.get(dims);
      if (id === undefined) dimsIds.set(dims, (id = dimsList.push(dims) - 1));
      if (args) dimsOfArgs.set(args, id);
    }
    return id;
  };
  const wall = new WallScratch(m);
  const gpuSeq = new Int32Array(gpu.length);
  const from = new Int32Array(n);
  const deviceTotal = new Float64Array(n);
  let pos = 0;
  const leave = (x: number) => {
    const dur = host.durNs[x]!;
    let childDur = 0;
    let sub = 0;
    for (let c = firstChild[x]!; c >= 0; c = nextSibling[c]!) {
      childDur += host.durNs[c]!;
      sub += deviceTotal[c]!;
    }
    let own = 0;
    for (let g = ownedHead[x]!; g >= 0; g = ownedNext[g]!) own += gpu.durNs[g]!;
    const total = own + sub;
    deviceTotal[x] = total;
    const kind = host.kind[x]!;
    const isAnnotation = kind === HostKind.Annotation;
    const rn = rowOf(x);
    let r: number;
    if (byShape) {
      const d = dimsId(host.args[x]);
      const key = (d * rowNames.length + rn) * 2 + (isAnnotation ? 1 : 0);
      r = shapeSlot.get(key) ?? -1;
      if (r < 0) shapeSlot.set(key, (r = rows.add(rowNames[rn]!, 'cpu', HOST_KIND_NAMES[kind]!, dimsList[d]!, x)));
    } else {
      const key = rn * 2 + (isAnnotation ? 1 : 0);
      r = cpuSlot[key]!;
      if (r < 0) cpuSlot[key] = r = rows.add(rowNames[rn]!, 'cpu', HOST_KIND_NAMES[kind]!, undefined, x);
    }
    // The row's category is its first event's (ops and runtime calls of one name share a row).
    if (x < rows.first[r]!) {
      rows.first[r] = x;
      rows.category[r] = HOST_KIND_NAMES[kind]!;
    }
    rows.calls[r]++;
    rows.cpuTotalNs[r] += dur;
    rows.selfCpuNs[r] += dur - childDur;
    rows.selfDeviceNs[r] += own;
    rows.deviceTotalNs[r] += total;
    if (total > 0) rows.deviceWallNs[r] += wall.unionNs(gpuSeq, from[x]!, pos);
  };
  for (let root = 0; root < n; root++) {
    if (parent[root]! >= 0 || !kept(root)) continue;
    let x = root;
    for (;;) {
      from[x] = pos;
      for (let g = ownedHead[x]!; g >= 0; g = ownedNext[g]!) gpuSeq[pos++] = g;
      if (firstChild[x]! >= 0) {
        x = firstChild[x]!;
        continue;
      }
      // A leaf: leave it, and its ancestors while it is their last child.
      while (x !== root && nextSibling[x]! < 0) {
        leave(x);
        x = parent[x]!;
      }
      leave(x);
      if (x === root) break;
      x = nextSibling[x]!;
    }
  }
  const hostRows = rows.count;

  const gpuSlot = new Int32Array(strings.size).fill(-1);
  const gpuByName = new Map<string, number>();
  for (let g = 0; g < gpu.length; g++) {
    const id = gpu.name[g]!;
    let r = gpuSlot[id]!;
    if (r < 0) {
      const name = strings.get(id);
      r = gpuByName.get(name) ?? -1;
      if (r < 0) gpuByName.set(name, (r = rows.add(name, 'gpu', GPU_KIND_NAMES[gpu.kind[g]!]!, byShape ? '[]' : undefined, g)));
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
    if (r < 0) annByName.set(ann.name, (r = rows.add(ann.name, 'gpu', 'gpu_user_annotation', byShape ? '[]' : undefined, 0)));
    rows.calls[r]++;
    rows.selfDeviceNs[r] += ann.durNs;
    rows.deviceTotalNs[r] += ann.durNs;
    rows.deviceWallNs[r] += ann.durNs;
  }

  // Host rows in order of their first event, then GPU rows in order of appearance.
  const order = Array.from({ length: rows.count }, (_, r) => r);
  const hostOrder = order.slice(0, hostRows).sort((a, b) => rows.first[a]! - rows.first[b]!);
  let selfCpuTotalNs = 0;
  let selfDeviceTotalNs = 0;
  const out: ProfilerTableRow[] = [];
  for (const r of [...hostOrder, ...order.slice(hostRows)]) {
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
  /** Index of the row's first event (host rows are listed in that order). */
  readonly first: number[] = [];
  calls = new Float64Array(64);
  selfCpuNs = new Float64Array(64);
  cpuTotalNs = new Float64Array(64);
  selfDeviceNs = new Float64Array(64);
  deviceTotalNs = new Float64Array(64);
  deviceWallNs = new Float64Array(64);

  add(name: string, device: ProfilerTableDevice, category: string, inputDims: string | undefined, first: number): number {
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
    this.first.push(first);
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
