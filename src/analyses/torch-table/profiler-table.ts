/**
 * torch's profiler table (`prof.key_averages()`), rebuilt from the trace alone
 * (docs/readings.md S14).
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
 *   and are transparent to nesting;
 * - CUPTI's overhead events, and runtime calls with no `External id` made on another thread,
 *   nest on the thread that collected the trace, as torch places them (facts/torch-placement.ts).
 * One torch bug is deliberately not copied: it credits kernels to a runtime call whose
 * correlation id equals the kernels' op's External id (see `TorchIdCollision`); here GPU
 * work is credited only to the op that owns it.
 *
 * Beyond torch: `deviceWallUs` is the wall-clock union of each instance's GPU work (its own
 * and its descendants'), so work running concurrently on several streams is not counted
 * twice; summed over instances.
 */
import type { JsonObject } from '../../core/json.js';
import { GPU_KIND_NAMES, HOST_KIND_NAMES, HostKind, type TraceModel } from '../../model/trace-model.js';
import { mergeUnion } from '../helpers/intervals.js';
import { doubled } from '../helpers/doubled.js';
import { perModelWith } from '../helpers/per-model.js';
import { computeHostMemoryUsage, hasMemoryRecords, type HostMemoryUsage } from '../facts/memory-usage.js';
import { torchHostTree, type HostTree } from '../facts/torch-placement.js';
import { gpuBusyWithin } from '../facts/gpu-time-index.js';

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
  /** torch's memory columns (facts/memory-usage.ts), bytes; present when the model holds memory records. */
  readonly memory?: ProfilerRowMemory;
}

export interface ProfilerRowMemory {
  readonly cpuBytes: number;
  readonly selfCpuBytes: number;
  readonly deviceBytes: number;
  readonly selfDeviceBytes: number;
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
  /** Whether rows carry torch's memory columns (the model holds `[memory]` records). */
  readonly hasMemory: boolean;
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

/**
 * Once per model and grouping: the report's table and its memory section's per-op columns read
 * the same table. Shared, so read-only.
 */
export const computeProfilerTable = perModelWith(computeProfilerTableOnce, (opts: ProfilerTableOptions) => opts.groupBy ?? 'name');

function computeProfilerTableOnce(m: TraceModel, opts: ProfilerTableOptions): ProfilerTable {
  const { host, gpu } = m;
  const byShape = opts.groupBy === 'shape';
  // The analysis runs once per process: each step below is its own function with one loop, so
  // V8 optimises each loop once, with that loop's complete type feedback.

  // 1. Per distinct name, not per event: whether torch keeps it and its row name. Events named
  // as their parent are the candidates of step 3, found in the same pass (assuming, until a
  // filtered name shows up, that the parent torch sees is the trace's).
  // The host tree torch nests in: the model's, with the events torch places on the collecting
  // thread moved there (facts/torch-placement.ts).
  const base = torchHostTree(m);
  const names = new RowNames(m);
  const scan = scanNames(m, names, base.parent);

  // 2. torch's view of the host tree, as linked lists: filtered events removed and transparent.
  // Step 3 moves whole child lists between events, so the heads are copies.
  const tree: TorchTree = scan.filtered
    ? keptTree(m, names, base)
    : { parent: base.parent.slice(), firstChild: base.firstChild.slice(), nextSibling: base.nextSibling, dups: scan.dups };
  // The GPU work each op owns, as linked lists in GPU order: the model's, with the heads copied
  // when step 3 may move them (an analysis never writes into the model other analyses read).
  const owned: OwnedWork = { head: tree.dups.length > 0 ? host.firstOwned.slice() : host.firstOwned, next: gpu.nextOwned };

  // 3. torch's _remove_dup_nodes: a parent with one child of the same name absorbs it.
  const absorbed = removeDupNodes(tree, owned, host.length);

  // 4. Each event's row, then one depth-first walk of the kept tree: each event's times added to its row.
  const rows = new RowSums();
  const rowOf = eventRows(m, names, absorbed, rows, byShape);
  const usage = hasMemoryRecords(m) ? computeHostMemoryUsage(m, (i) => names.kept[host.name[i]!] === 1) : undefined;
  walkTree(m, tree, owned, rowOf, rows);
  if (usage) addMemory(tree, rowOf, usage, rows);
  // Records inside no event torch keeps: torch lists each as a `[memory]` event of its own.
  if (usage && usage.unmatched.count > 0) {
    const r = rows.add('[memory]', 'cpu', 'cpu_instant_event', byShape ? '[]' : undefined, host.length);
    rows.calls[r] = usage.unmatched.count;
    rows.cpuMem[r] = rows.selfCpuMem[r] = usage.unmatched.cpuBytes;
    rows.devMem[r] = rows.selfDevMem[r] = usage.unmatched.deviceBytes;
  }
  const hostRows = rows.count;

  // 5. GPU rows: kernels, copies and memsets by name, then GPU annotations.
  addGpuRows(m, rows, byShape);
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
      ...(usage
        ? { memory: { cpuBytes: rows.cpuMem[r]!, selfCpuBytes: rows.selfCpuMem[r]!, deviceBytes: rows.devMem[r]!, selfDeviceBytes: rows.selfDevMem[r]! } }
        : {}),
    });
  }
  return { rows: out, selfCpuTotalUs: selfCpuTotalNs / 1000, selfDeviceTotalUs: selfDeviceTotalNs / 1000, hasMemory: usage !== undefined };
}

/** Per name id: whether torch keeps events of that name (-1 not yet decided), and their row name's number. */
class RowNames {
  readonly kept: Int8Array;
  readonly row: Int32Array;
  readonly rowNames: string[] = [];
  private readonly rowIds = new Map<string, number>();

  constructor(private readonly m: TraceModel) {
    this.kept = new Int8Array(m.strings.size).fill(-1);
    this.row = new Int32Array(m.strings.size);
  }

  decide(id: number): void {
    const name = this.m.strings.get(id);
    this.kept[id] = TORCH_FILTERED_NAMES.has(name) ? 0 : 1;
    const rn = torchRowName(name);
    let r = this.rowIds.get(rn);
    if (r === undefined) this.rowIds.set(rn, (r = this.rowNames.push(rn) - 1));
    this.row[id] = r;
  }
}

/** Decides every host event's name; returns the events named as their parent, and whether some name is filtered. */
function scanNames(m: TraceModel, names: RowNames, parent: Int32Array): { dups: number[]; filtered: boolean } {
  const { name, length: n } = m.host;
  const { kept, row } = names;
  let filtered = false;
  const dups: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = name[i]!;
    if (kept[id] === -1) names.decide(id);
    if (kept[id] === 0) filtered = true;
    const p = parent[i]!;
    if (p >= 0) {
      const pid = name[p]!;
      if (kept[pid] === -1) names.decide(pid);
      if (row[pid] === row[id]) dups.push(i);
    }
  }
  return { dups, filtered };
}

/** The host tree as torch sees it, as linked lists, and the events named as their parent. */
interface TorchTree {
  readonly parent: Int32Array;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  readonly dups: number[];
}

/** The tree without the events torch filters out (transparent to nesting). */
function keptTree(m: TraceModel, names: RowNames, base: HostTree): TorchTree {
  const { host } = m;
  const n = host.length;
  const kept = (i: number) => names.kept[host.name[i]!] === 1;
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let p = base.parent[i]!;
    while (p >= 0 && !kept(p)) p = base.parent[p]!;
    parent[i] = p;
  }
  const firstChild = new Int32Array(n).fill(-1);
  const nextSibling = new Int32Array(n).fill(-1);
  const lastChild = new Int32Array(n).fill(-1);
  const dups: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = parent[i]!;
    if (!kept(i) || p < 0) continue;
    if (lastChild[p]! < 0) firstChild[p] = i;
    else nextSibling[lastChild[p]!] = i;
    lastChild[p] = i;
    if (names.row[host.name[p]!] === names.row[host.name[i]!]) dups.push(i);
  }
  return { parent, firstChild, nextSibling, dups };
}

/** The GPU work each host event owns: head[h] → next[g] → …, in GPU order (the model's lists, model/owned-work.ts). */
interface OwnedWork {
  readonly head: Int32Array;
  readonly next: Int32Array;
}

/**
 * torch's _remove_dup_nodes. Only events named as their parent can ever be absorbed, and that
 * stays so as parents change (an absorbed event's children move to a parent of the same name):
 * the passes are repeated over those alone, in index order, as torch repeats them over all.
 */
function removeDupNodes(tree: TorchTree, owned: OwnedWork, n: number): Uint8Array {
  const { parent, firstChild, nextSibling, dups } = tree;
  const deleted = new Uint8Array(n);
  for (let changed = dups.length > 0; changed; ) {
    changed = false;
    for (const i of dups) {
      if (deleted[i]) continue;
      const p = parent[i]!;
      const only = firstChild[p]!;
      if (only < 0 || nextSibling[only]! >= 0) continue;
      firstChild[p] = firstChild[i]!;
      owned.head[p] = owned.head[i]!;
      for (let c = firstChild[i]!; c >= 0; c = nextSibling[c]!) parent[c] = p;
      deleted[i] = 1;
      changed = true;
    }
  }
  return deleted;
}

/**
 * The row of each event the walk visits (kept, not absorbed; -1 for the others), rows added in event order: each
 * row's first event, whose category it takes, is then its first in the table — the order torch
 * lists host rows in. Rows are keyed by numbers unless grouping by shape (which needs the dims).
 */
function eventRows(m: TraceModel, names: RowNames, absorbed: Uint8Array, rows: RowSums, byShape: boolean): Int32Array {
  const { kind, name, length: n } = m.host;
  const { kept, row: rowByName, rowNames } = names;
  const rowOf = new Int32Array(n).fill(-1);
  const cpuSlot = new Int32Array(byShape ? 0 : 2 * rowNames.length).fill(-1);
  const shapeRows = byShape ? new ShapeRows(m, names, rows) : undefined;
  for (let i = 0; i < n; i++) {
    if (kept[name[i]!] !== 1 || absorbed[i]) continue;
    const k = kind[i]!;
    const rn = rowByName[name[i]!]!;
    if (shapeRows) rowOf[i] = shapeRows.rowOf(i, k, rn);
    else {
      const slot = rn * 2 + (k === HostKind.Annotation ? 1 : 0);
      let r = cpuSlot[slot]!;
      if (r < 0) cpuSlot[slot] = r = rows.add(rowNames[rn]!, 'cpu', HOST_KIND_NAMES[k]!, undefined, i);
      rowOf[i] = r;
    }
  }
  return rowOf;
}

/**
 * One depth-first walk of the kept tree. Each event's GPU work (its own and its descendants') is
 * laid out at gpuSeq[from[i] .. end of its subtree); on the way out its times are known and
 * added to its row. One loop, what is done on leaving an event written out in it: it runs once
 * per event.
 */
function walkTree(m: TraceModel, tree: TorchTree, owned: OwnedWork, rowOf: Int32Array, rows: RowSums): void {
  const { host, gpu } = m;
  const n = host.length;
  const { durNs } = host;
  const { parent, firstChild, nextSibling } = tree;
  const { head, next } = owned;
  const gpuDurNs = gpu.durNs;
  const { calls, cpuTotalNs, selfCpuNs, selfDeviceNs, deviceTotalNs, deviceWallNs } = rows;
  const gpuSeq = new Int32Array(gpu.length);
  const from = new Int32Array(n);
  const deviceTotal = new Float64Array(n);
  const wall = new WallScratch(m);
  let pos = 0;
  for (let root = 0; root < n; root++) {
    if (parent[root]! >= 0 || rowOf[root]! < 0) continue;
    let x = root;
    for (;;) {
      from[x] = pos;
      for (let g = head[x]!; g >= 0; g = next[g]!) gpuSeq[pos++] = g;
      if (firstChild[x]! >= 0) {
        x = firstChild[x]!;
        continue;
      }
      // A leaf: leave it, and its ancestors while it is their last child.
      for (;;) {
        const dur = durNs[x]!;
        let childDur = 0;
        let sub = 0;
        for (let c = firstChild[x]!; c >= 0; c = nextSibling[c]!) {
          childDur += durNs[c]!;
          sub += deviceTotal[c]!;
        }
        let own = 0;
        for (let g = head[x]!; g >= 0; g = next[g]!) own += gpuDurNs[g]!;
        const total = own + sub;
        deviceTotal[x] = total;
        const r = rowOf[x]!;
        calls[r]++;
        cpuTotalNs[r] += dur;
        selfCpuNs[r] += dur - childDur;
        selfDeviceNs[r] += own;
        deviceTotalNs[r] += total;
        if (total > 0) deviceWallNs[r] += wall.unionNs(gpuSeq, from[x]!, pos);
        if (x === root || nextSibling[x]! >= 0) break;
        x = parent[x]!;
      }
      if (x === root) break;
      x = nextSibling[x]!;
    }
  }
}

/** torch's memory columns: each kept event's usage, less its children's (in torch's tree) for self. */
function addMemory(tree: TorchTree, rowOf: Int32Array, usage: HostMemoryUsage, rows: RowSums): void {
  const { firstChild, nextSibling } = tree;
  const { cpuBytes, deviceBytes } = usage;
  for (let x = 0; x < rowOf.length; x++) {
    const r = rowOf[x]!;
    if (r < 0) continue;
    let cpuKids = 0;
    let devKids = 0;
    for (let c = firstChild[x]!; c >= 0; c = nextSibling[c]!) {
      cpuKids += cpuBytes[c]!;
      devKids += deviceBytes[c]!;
    }
    rows.cpuMem[r] += cpuBytes[x]!;
    rows.selfCpuMem[r] += cpuBytes[x]! - cpuKids;
    rows.devMem[r] += deviceBytes[x]!;
    rows.selfDevMem[r] += deviceBytes[x]! - devKids;
  }
}

/**
 * Rows grouped by shape: keyed by (row name, annotation or not, dims), the dims numbered as they
 * appear; args objects are shared between events, so each one's dims are written once.
 */
class ShapeRows {
  private readonly slot = new Map<number, number>();
  private readonly dimsIds = new Map<string, number>();
  private readonly dimsList: string[] = [];
  private readonly dimsOfArgs = new WeakMap<object, number>();

  constructor(
    private readonly m: TraceModel,
    private readonly names: RowNames,
    private readonly rows: RowSums,
  ) {}

  /** Host event x's row, added when it is the first of its key. */
  rowOf(x: number, kind: number, rn: number): number {
    const d = this.dimsId(this.m.host.args[x]);
    const key = (d * this.names.rowNames.length + rn) * 2 + (kind === HostKind.Annotation ? 1 : 0);
    let r = this.slot.get(key) ?? -1;
    if (r < 0) this.slot.set(key, (r = this.rows.add(this.names.rowNames[rn]!, 'cpu', HOST_KIND_NAMES[kind]!, this.dimsList[d]!, x)));
    return r;
  }

  private dimsId(args: JsonObject | undefined): number {
    let id = args ? this.dimsOfArgs.get(args) : undefined;
    if (id === undefined) {
      const dims = inputDimsKey(args);
      id = this.dimsIds.get(dims);
      if (id === undefined) this.dimsIds.set(dims, (id = this.dimsList.push(dims) - 1));
      if (args) this.dimsOfArgs.set(args, id);
    }
    return id;
  }
}

/** Kernels, copies and memsets by name: self = total = wall = Σ their durations, summed per row first. */
function addGpuRows(m: TraceModel, rows: RowSums, byShape: boolean): void {
  const { gpu, strings } = m;
  const { name, kind, durNs } = gpu;
  const slotOfName = new Int32Array(strings.size).fill(-1);
  const byName = new Map<string, number>();
  // Per slot (rows in order of appearance): the row, its calls and Σ durations.
  const rowOfSlot: number[] = [];
  const calls = new Float64Array(strings.size);
  const sumNs = new Float64Array(strings.size);
  for (let g = 0; g < gpu.length; g++) {
    const id = name[g]!;
    let k = slotOfName[id]!;
    if (k < 0) {
      const n = strings.get(id);
      k = byName.get(n) ?? -1;
      if (k < 0) {
        byName.set(n, (k = rowOfSlot.length));
        rowOfSlot.push(rows.add(n, 'gpu', GPU_KIND_NAMES[kind[g]!]!, byShape ? '[]' : undefined, g));
      }
      slotOfName[id] = k;
    }
    calls[k]++;
    sumNs[k] += durNs[g]!;
  }
  rowOfSlot.forEach((r, k) => {
    rows.calls[r] = calls[k]!;
    rows.selfDeviceNs[r] = rows.deviceTotalNs[r] = rows.deviceWallNs[r] = sumNs[k]!;
  });
}

/** The table's rows as parallel arrays, grown as rows appear. */
class RowSums {
  count = 0;
  // Each array of strings starts with a placeholder (overwritten by the first row): an empty
  // array literal is, to V8, an array of small integers, and the code that adds a row would be
  // thrown away in every run, when the first name goes into a new table's empty array.
  readonly name: string[] = [''];
  readonly device: ProfilerTableDevice[] = ['cpu'];
  readonly category: string[] = [''];
  readonly inputDims: (string | undefined)[] = [undefined];
  /** Index of the row's first event (host rows are listed in that order). */
  readonly first: number[] = [];
  calls = new Float64Array(64);
  selfCpuNs = new Float64Array(64);
  cpuTotalNs = new Float64Array(64);
  selfDeviceNs = new Float64Array(64);
  deviceTotalNs = new Float64Array(64);
  deviceWallNs = new Float64Array(64);
  cpuMem = new Float64Array(64);
  selfCpuMem = new Float64Array(64);
  devMem = new Float64Array(64);
  selfDevMem = new Float64Array(64);

  add(name: string, device: ProfilerTableDevice, category: string, inputDims: string | undefined, first: number): number {
    if (this.count === this.calls.length) {
      this.calls = doubled(this.calls);
      this.selfCpuNs = doubled(this.selfCpuNs);
      this.cpuTotalNs = doubled(this.cpuTotalNs);
      this.selfDeviceNs = doubled(this.selfDeviceNs);
      this.deviceTotalNs = doubled(this.deviceTotalNs);
      this.deviceWallNs = doubled(this.deviceWallNs);
      this.cpuMem = doubled(this.cpuMem);
      this.selfCpuMem = doubled(this.selfCpuMem);
      this.devMem = doubled(this.devMem);
      this.selfDevMem = doubled(this.selfDevMem);
    }
    const r = this.count++;
    this.name[r] = name;
    this.device[r] = device;
    this.category[r] = category;
    this.inputDims[r] = inputDims;
    this.first[r] = first;
    return r;
  }
}

/**
 * Length of the union of GPU activities' intervals, for many small sets: the same result as
 * `unionLengthNs` (activities with an unreadable start left out), without building arrays
 * when the set is already in start order, as a subtree's work in launch order usually is
 * (gpuBusyWithin, facts/gpu-time-index.ts).
 */
class WallScratch {
  private starts = new Float64Array(0);
  private ends = new Float64Array(0);
  constructor(private readonly m: TraceModel) {}

  unionNs(seq: Int32Array, from: number, to: number): number {
    const { startNs } = this.m.gpu;
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
    return inOrder ? gpuBusyWithin(this.m, seq, from, to) : this.unsortedNs(seq, from, to);
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
