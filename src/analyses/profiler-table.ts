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
import { unionLengthNs } from './intervals.js';

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

interface Acc {
  name: string;
  device: ProfilerTableDevice;
  category: string;
  inputDims?: string;
  calls: number;
  selfCpuNs: number;
  cpuTotalNs: number;
  selfDeviceNs: number;
  deviceTotalNs: number;
  deviceWallNs: number;
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
  const rowName = new Int32Array(n);
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
    rowName[i] = rowByName[id]!;
  }
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let p = host.parent[i]!;
    while (p >= 0 && !kept[p]) p = host.parent[p]!;
    parent[i] = p;
  }
  // Child lists and owned-GPU lists as offset arrays (CSR): list L is items[off[L]..off[L+1]).
  // _remove_dup_nodes below swaps whole lists between events, so each event points at a list.
  const children = buildLists(n, (emit) => {
    for (let i = 0; i < n; i++) if (kept[i] && parent[i]! >= 0) emit(parent[i]!, i);
  });
  const owned = buildLists(n, (emit) => {
    for (let g = 0; g < gpu.length; g++) if (gpu.owner[g]! >= 0) emit(gpu.owner[g]!, g);
  });
  const childList = Int32Array.from({ length: n }, (_, i) => i);
  const ownedList = Int32Array.from({ length: n }, (_, i) => i);

  // 3. torch's _remove_dup_nodes: a parent with one child of the same name absorbs it.
  const deleted = new Uint8Array(n);
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < n; i++) {
      if (!kept[i] || deleted[i]) continue;
      const p = parent[i]!;
      if (p < 0 || rowName[p] !== rowName[i] || children.size(childList[p]!) !== 1) continue;
      childList[p] = childList[i]!;
      ownedList[p] = ownedList[i]!;
      const L = childList[i]!;
      for (let k = children.off[L]!; k < children.off[L + 1]!; k++) parent[children.items[k]!] = p;
      deleted[i] = 1;
      changed = true;
    }
  }

  // 4. Per-event times, children before parents: deepest first (a counting sort by depth).
  let maxDepth = 0;
  for (let i = 0; i < n; i++) if (host.depth[i]! > maxDepth) maxDepth = host.depth[i]!;
  const byDepth = buildLists(maxDepth + 1, (emit) => {
    for (let i = 0; i < n; i++) if (kept[i] && !deleted[i]) emit(host.depth[i]!, i);
  });
  const deviceTotal = new Float64Array(n);
  const selfDevice = new Float64Array(n);
  for (let d = maxDepth; d >= 0; d--) {
    for (let k = byDepth.off[d]!; k < byDepth.off[d + 1]!; k++) {
      const i = byDepth.items[k]!;
      let own = 0;
      const O = ownedList[i]!;
      for (let q = owned.off[O]!; q < owned.off[O + 1]!; q++) own += gpu.durNs[owned.items[q]!]!;
      let sub = 0;
      const L = childList[i]!;
      for (let q = children.off[L]!; q < children.off[L + 1]!; q++) sub += deviceTotal[children.items[q]!]!;
      selfDevice[i] = own;
      deviceTotal[i] = own + sub;
    }
  }

  // 5. Group into rows (keyed by numbers unless grouping by shape, which needs the dims).
  const rows = new Map<string | number, Acc>();
  const row = (key: string | number, init: () => Omit<Acc, 'calls' | 'selfCpuNs' | 'cpuTotalNs' | 'selfDeviceNs' | 'deviceTotalNs' | 'deviceWallNs'>) => {
    let a = rows.get(key);
    if (!a) rows.set(key, (a = { ...init(), calls: 0, selfCpuNs: 0, cpuTotalNs: 0, selfDeviceNs: 0, deviceTotalNs: 0, deviceWallNs: 0 }));
    return a;
  };
  const wallScratch: number[] = [];
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!kept[i] || deleted[i]) continue;
    const kind = host.kind[i]!;
    const dims = byShape ? inputDimsKey(host.args[i]) : undefined;
    const isAnnotation = kind === HostKind.Annotation;
    const key = byShape ? `cpu\u0000${isAnnotation ? 'a' : 'o'}\u0000${rowNames[rowName[i]!]}\u0000${dims}` : rowName[i]! * 2 + (isAnnotation ? 1 : 0);
    const a = row(key, () => ({ name: rowNames[rowName[i]!]!, device: 'cpu', category: HOST_KIND_NAMES[kind]!, inputDims: dims }));
    a.calls++;
    const dur = host.durNs[i]!;
    let childDur = 0;
    const L = childList[i]!;
    for (let q = children.off[L]!; q < children.off[L + 1]!; q++) childDur += host.durNs[children.items[q]!]!;
    a.cpuTotalNs += dur;
    a.selfCpuNs += dur - childDur;
    a.selfDeviceNs += selfDevice[i]!;
    a.deviceTotalNs += deviceTotal[i]!;
    if (deviceTotal[i]! > 0) {
      // The GPU work of the subtree, as intervals, then their union.
      wallScratch.length = 0;
      stack.length = 0;
      stack.push(i);
      while (stack.length > 0) {
        const e = stack.pop()!;
        const O = ownedList[e]!;
        for (let q = owned.off[O]!; q < owned.off[O + 1]!; q++) {
          const g = owned.items[q]!;
          wallScratch.push(gpu.startNs[g]!, gpu.startNs[g]! + gpu.durNs[g]!);
        }
        const C = childList[e]!;
        for (let q = children.off[C]!; q < children.off[C + 1]!; q++) if (deviceTotal[children.items[q]!]! > 0) stack.push(children.items[q]!);
      }
      a.deviceWallNs += unionLengthNs(wallScratch);
    }
  }
  for (let g = 0; g < gpu.length; g++) {
    const name = strings.get(gpu.name[g]!);
    const a = row(`gpu\u0000k\u0000${name}\u0000${byShape ? '[]' : ''}`, () => ({
      name,
      device: 'gpu',
      category: GPU_KIND_NAMES[gpu.kind[g]!]!,
      inputDims: byShape ? '[]' : undefined,
    }));
    a.calls++;
    const d = gpu.durNs[g]!;
    a.selfDeviceNs += d;
    a.deviceTotalNs += d;
    a.deviceWallNs += d;
  }
  for (const ann of m.gpuAnnotations) {
    const a = row(`gpu\u0000a\u0000${ann.name}\u0000${byShape ? '[]' : ''}`, () => ({
      name: ann.name,
      device: 'gpu',
      category: 'gpu_user_annotation',
      inputDims: byShape ? '[]' : undefined,
    }));
    a.calls++;
    a.selfDeviceNs += ann.durNs;
    a.deviceTotalNs += ann.durNs;
    a.deviceWallNs += ann.durNs;
  }

  let selfCpuTotalNs = 0;
  let selfDeviceTotalNs = 0;
  const out: ProfilerTableRow[] = [];
  for (const a of rows.values()) {
    selfCpuTotalNs += a.selfCpuNs;
    if (a.device === 'gpu' && a.category !== 'gpu_user_annotation') selfDeviceTotalNs += a.selfDeviceNs;
    out.push({
      name: a.name,
      device: a.device,
      category: a.category,
      ...(a.inputDims !== undefined ? { inputDims: a.inputDims } : {}),
      calls: a.calls,
      selfCpuUs: a.selfCpuNs / 1000,
      cpuTotalUs: a.cpuTotalNs / 1000,
      selfDeviceUs: a.selfDeviceNs / 1000,
      deviceTotalUs: a.deviceTotalNs / 1000,
      deviceWallUs: a.deviceWallNs / 1000,
    });
  }
  return { rows: out, selfCpuTotalUs: selfCpuTotalNs / 1000, selfDeviceTotalUs: selfDeviceTotalNs / 1000 };
}

function inputDimsKey(args: Record<string, unknown> | undefined): string {
  const dims = args?.['Input Dims'] ?? args?.['Input dims'];
  return dims === undefined ? '[]' : JSON.stringify(dims);
}

interface Lists {
  readonly off: Int32Array;
  readonly items: Int32Array;
  size(list: number): number;
}

/** Groups items into `lists` lists given (list, item) pairs, in emission order (CSR). */
function buildLists(lists: number, pairs: (emit: (list: number, item: number) => void) => void): Lists {
  const off = new Int32Array(lists + 1);
  pairs((l) => off[l + 1]!++);
  for (let l = 0; l < lists; l++) off[l + 1]! += off[l]!;
  const fill = off.slice(0, lists);
  const items = new Int32Array(off[lists]!);
  pairs((l, item) => (items[fill[l]!++] = item));
  return { off, items, size: (l) => off[l + 1]! - off[l]! };
}
