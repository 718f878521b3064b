/**
 * The nn.Module tree of a run, from the `nn.Module: Name_k` python frames torch writes under
 * with_stack (or with_modules): each module entered as a frame named after its class and a
 * per-class instance number, nested in its parent module's frame on the same thread.
 *
 * A node is one module at one place in the tree (its path of names from the root), over all
 * its calls:
 * - host total = Σ durations of its frames; host self = host total − its child modules' frames;
 * - device self = the GPU work (kernels, copies, memsets) owned by the ops whose innermost
 *   module frame is this one (the owning-op rule: a GPU activity belongs to the op that
 *   launched it, and that op to the innermost module frame around its start on its thread);
 *   device total = device self + the children's device total;
 * - allocated bytes = Σ positive `Bytes` of the `[memory]` records on the frame's thread inside
 *   it (profile_memory), self and total the same way; CPU and device memory apart;
 * - backward: the autograd engine runs backward ops on its own thread, outside every module
 *   frame. Where the trace links a backward op to its forward op (the `fwdbwd` flow, from
 *   autograd's sequence number), the backward op and everything under it are counted to the
 *   forward op's module, apart from its forward figures. Without links, backward work is
 *   counted as outside every module.
 * GPU work whose op lies outside every module frame is `outside` (optimizer steps, data
 * movement, unlinked backward): it is reported, never spread over modules.
 */
import { HostKind, type FwdBwdLink, type TraceModel } from '../../model/trace-model.js';
import { isCpuMemoryType, isDeviceMemoryType } from '../facts/memory-usage.js';
import { owningOp } from './scopes.js';
import { innermostEnclosingAt, innermostEnclosingOrdered, nestedOrder, orderByGroupStart } from '../helpers/enclosing.js';
import { perModel, perModelWith } from '../helpers/per-model.js';
import { MAX_TREE_DEPTH } from './dispatch-tree.js';

const MODULE_PREFIX = 'nn.Module: ';

export interface KernelShare {
  readonly name: string;
  readonly durNs: number;
  readonly count: number;
}

export interface ModulePhase {
  readonly deviceSelfNs: number;
  readonly deviceTotalNs: number;
}

export interface ModuleNode {
  /** As in the frame: `GPT2Block_3`. */
  readonly name: string;
  /** The class: the name less its instance number. */
  readonly className: string;
  /** Names from the root, joined with `/`. */
  readonly path: string;
  readonly depth: number;
  readonly parent: number;
  readonly children: number[];
  calls: number;
  hostTotalNs: number;
  hostSelfNs: number;
  /** Forward (and everything run inside the module's frames). */
  deviceSelfNs: number;
  deviceTotalNs: number;
  /** Backward work linked to this module's forward ops (fwdbwd); zero without links. */
  backward: { deviceSelfNs: number; deviceTotalNs: number; hostSelfNs: number; hostTotalNs: number };
  allocatedDeviceSelfBytes: number;
  allocatedDeviceTotalBytes: number;
  allocatedCpuSelfBytes: number;
  allocatedCpuTotalBytes: number;
  /** The kernels of the module's device total (forward and backward), longest first (at most `topKernels`). */
  topKernels: KernelShare[];
}

export type ModulesStatus =
  /** Python frames present, module frames among them. */
  | 'ok'
  /** No python frames at all: the trace was captured without with_stack / with_modules. */
  | 'no-python-frames'
  /** Python frames, but none is an `nn.Module:` frame (no module ran, or an old torch). */
  | 'no-module-frames'
  /** The python frames were left out when the trace was loaded. */
  | 'not-loaded';

export interface ModuleTree {
  readonly status: ModulesStatus;
  readonly nodes: readonly ModuleNode[];
  readonly roots: readonly number[];
  /** fwdbwd links the trace has (0: backward work is outside every module). */
  readonly backwardLinks: number;
  /** GPU work owned by no op inside a module frame (nor a linked backward op). */
  readonly outside: { readonly deviceNs: number; readonly kernels: KernelShare[] };
  /** Σ durations of all GPU work in the trace (for shares). */
  readonly deviceNs: number;
  /** Host op → module node it runs in (forward frames), −1 when none. */
  readonly moduleOfOp: Int32Array;
  /** Host op → module node whose backward it belongs to (fwdbwd), −1 when none. */
  readonly backwardModuleOfOp: Int32Array;
  /**
   * Set when module frames nest deeper than MAX_TREE_DEPTH levels: the tree stops there, and a
   * deeper frame counts in its ancestor at the last level (its ops, GPU work and allocations;
   * its host time is inside that ancestor's already).
   */
  readonly cutAtDepth?: number;
}

export interface ModuleTreeOptions {
  /** Kernels listed per module (default 5). */
  readonly topKernels?: number;
}

/** Once per model and `topKernels`: `modules`, `memory` and the report read the same tree. Shared, so read-only. */
export const computeModuleTree = perModelWith(computeModuleTreeOnce, (opts: ModuleTreeOptions) => String(opts.topKernels ?? 5));

function computeModuleTreeOnce(m: TraceModel, opts: ModuleTreeOptions): ModuleTree {
  const topN = opts.topKernels ?? 5;
  const { python, host, strings } = m;
  const emptyOps = () => new Int32Array(host.length).fill(-1);
  const empty = (status: ModulesStatus): ModuleTree => ({
    status,
    nodes: [],
    roots: [],
    backwardLinks: 0,
    outside: { deviceNs: sumGpuNs(m), kernels: [] },
    deviceNs: sumGpuNs(m),
    moduleOfOp: emptyOps(),
    backwardModuleOfOp: emptyOps(),
  });
  if (m.omitted.includes('python')) return empty('not-loaded');
  if (python.length === 0) return empty('no-python-frames');

  // 1. Module frames, by thread then start (longest first at equal starts: the outer frame).
  // (Each pass over a table is a function of its own: V8 compiles a function while its first hot
  // loop runs, and throws that code away at a later loop that has not run yet.)
  const moduleRows = moduleFrameRows(m);
  if (moduleRows.length === 0) return empty('no-module-frames');
  const frames = nestedOrder(python, moduleRows);

  // 2. The tree: each frame's node is (its enclosing module frame's node, its name).
  const nodes: ModuleNode[] = [];
  const roots: number[] = [];
  // A node's children by name id (ids and names are one to one), the roots' under -1.
  const rootByName = new Map<number, number>();
  const childByName: Map<number, number>[] = [];
  const nameOf = new Map<number, string>();
  const nodeOfFrame = new Int32Array(python.length).fill(-1);
  const stack: number[] = [];
  let thread = -1;
  let cut = false;
  for (let j = 0; j < frames.length; j++) {
    const f = frames[j]!;
    const t = python.thread[f]!;
    const s = python.startNs[f]!;
    if (t !== thread) {
      stack.length = 0;
      thread = t;
    }
    while (stack.length > 0 && endOf(m, stack[stack.length - 1]!) <= s) stack.pop();
    const parentFrame = stack.length > 0 ? stack[stack.length - 1]! : -1;
    const parent = parentFrame >= 0 ? nodeOfFrame[parentFrame]! : -1;
    if (parent >= 0 && nodes[parent]!.depth + 1 >= MAX_TREE_DEPTH) {
      // Deeper than the tree goes (a path per node is as long as the depth: a trace nesting
      // 50,000 modules would make strings of 10^10 characters): counted in the ancestor.
      nodeOfFrame[f] = parent;
      cut = true;
      stack.push(f);
      continue;
    }
    const id = python.name[f]!;
    const byName = parent >= 0 ? childByName[parent]! : rootByName;
    let node = byName.get(id);
    if (node === undefined) {
      let name = nameOf.get(id);
      if (name === undefined) nameOf.set(id, (name = strings.get(id).slice(MODULE_PREFIX.length)));
      node = nodes.length;
      byName.set(id, node);
      childByName.push(new Map());
      const depth = parent >= 0 ? nodes[parent]!.depth + 1 : 0;
      nodes.push(newNode(name, parent >= 0 ? `${nodes[parent]!.path}/${name}` : name, depth, parent));
      if (parent >= 0) nodes[parent]!.children.push(node);
      else roots.push(node);
    }
    nodeOfFrame[f] = node;
    const n = nodes[node]!;
    const dur = python.durNs[f]!;
    n.calls++;
    n.hostTotalNs += dur;
    n.hostSelfNs += dur;
    if (parent >= 0) nodes[parent]!.hostSelfNs -= dur;
    stack.push(f);
  }

  // 3. Each op's innermost module frame on its thread (a sweep per thread over frames and ops).
  // (the ops in nested order answer as points too: a point's answer depends only on its thread
  // and time, and that order is by thread and time; the memory timeline sweeps them as intervals)
  const nested = opsInNestedOrder(m);
  let moduleOfOp: Int32Array;
  if (nested.finite) {
    moduleOfOp = frameModules(innermostEnclosingOrdered(python, frames, nested.order, host.thread, host.startNs, host.length), nodeOfFrame);
  } else {
    const ops = opColumns(m);
    moduleOfOp = opModules(ops.ops, innermostEnclosingAt(python, frames, ops.thread, ops.start), nodeOfFrame, emptyOps());
  }

  // 4. Backward: ops linked from a forward op (fwdbwd) and everything under them.
  const backwardModuleOfOp = emptyOps();
  // Inner backward ops first: a linked op inside another's subtree keeps its own module.
  const links = deepestFirst(m);
  const backwardLinks = markBackward(m, links, moduleOfOp, backwardModuleOfOp);
  backwardHostTime(m, links, backwardModuleOfOp, nodes);

  // 5. GPU work by the owning op's module (forward) or linked backward module.
  // (kernels keyed by name id, one to one with names: the names are read once, in topKernels)
  const selfKernels = nodes.map((): KernelSums => new Map());
  const outsideKernels: KernelSums = new Map();
  const { outsideNs, deviceNs } = gpuWork(m, moduleOfOp, backwardModuleOfOp, nodes, selfKernels, outsideKernels);

  // 6. Memory records on a module frame's thread, inside it.
  if (!m.omitted.includes('memory') && m.memory.length > 0) {
    const recs = allocationColumns(m);
    allocationsInFrames(m, recs.recs, innermostEnclosingAt(python, frames, recs.thread, recs.ts), nodeOfFrame, nodes);
  }

  // 7. Totals, children before parents (a child is always created after its parent).
  const totalKernels = selfKernels.map((k) => new Map(k));
  for (let k = nodes.length - 1; k >= 0; k--) {
    const n = nodes[k]!;
    n.deviceTotalNs += n.deviceSelfNs;
    n.backward.deviceTotalNs += n.backward.deviceSelfNs;
    n.backward.hostTotalNs += n.backward.hostSelfNs;
    n.allocatedDeviceTotalBytes += n.allocatedDeviceSelfBytes;
    n.allocatedCpuTotalBytes += n.allocatedCpuSelfBytes;
    n.topKernels = topKernels(m, totalKernels[k]!, topN);
    if (n.parent < 0) continue;
    const p = nodes[n.parent]!;
    p.deviceTotalNs += n.deviceTotalNs;
    p.backward.deviceTotalNs += n.backward.deviceTotalNs;
    p.backward.hostTotalNs += n.backward.hostTotalNs;
    p.allocatedDeviceTotalBytes += n.allocatedDeviceTotalBytes;
    p.allocatedCpuTotalBytes += n.allocatedCpuTotalBytes;
    const into = totalKernels[n.parent]!;
    for (const [name, v] of totalKernels[k]!) {
      const cur = into.get(name);
      if (cur) {
        cur.durNs += v.durNs;
        cur.count += v.count;
      } else into.set(name, { ...v });
    }
  }
  return {
    status: 'ok',
    nodes,
    roots,
    backwardLinks,
    outside: { deviceNs: outsideNs, kernels: topKernels(m, outsideKernels, topN) },
    deviceNs,
    moduleOfOp,
    backwardModuleOfOp,
    ...(cut ? { cutAtDepth: MAX_TREE_DEPTH } : {}),
  };
}

/** The nodes depth-first, children in order of first call (an explicit stack: modules nest as deep as the trace says). */
export function modulesInTreeOrder(t: ModuleTree): number[] {
  const out: number[] = [];
  const stack: number[] = [];
  for (let r = t.roots.length - 1; r >= 0; r--) stack.push(t.roots[r]!);
  while (stack.length > 0) {
    const k = stack.pop()!;
    out.push(k);
    const children = t.nodes[k]!.children;
    for (let c = children.length - 1; c >= 0; c--) stack.push(children[c]!);
  }
  return out;
}

/** What to tell a user whose trace has no module tree, with the profiler flag to set. */
export function modulesStatusLine(status: ModulesStatus): string | undefined {
  switch (status) {
    case 'no-python-frames':
      return 'no python frames in this trace: capture it with torch.profiler.profile(with_stack=True) (or with_modules=True) to see the nn.Module tree';
    case 'no-module-frames':
      return 'the trace has python frames but no nn.Module frames: no nn.Module ran while profiling, or the torch version does not record them (with_stack=True on torch ≥ 1.13)';
    case 'not-loaded':
      return 'the python frames were left out when the trace was loaded';
    default:
      return undefined;
  }
}

/**
 * The cpu_ops in host order, and in sortNested's order (thread, start, the outer first), once per
 * model: the module tree sweeps them as points, the memory timeline as intervals. `finite`: every
 * op's start and duration readable (else the comparator gave the order).
 */
export const opsInNestedOrder = perModel((m: TraceModel): { readonly ops: Int32Array; readonly order: Int32Array; readonly finite: boolean } => {
  const { host } = m;
  const ops = hostOps(m);
  const fast = orderByGroupStart(ops, host.thread, host.startNs, host.durNs);
  return { ops, order: fast ?? nestedOrder(host, ops), finite: fast !== null };
});

/** The cpu_ops, in host order. */
function hostOps(m: TraceModel): Int32Array {
  const { kind } = m.host;
  const ops = new Int32Array(kind.length);
  let n = 0;
  for (let i = 0; i < kind.length; i++) if (kind[i] === HostKind.Op) ops[n++] = i;
  return ops.subarray(0, n);
}

/** Per host event: the node of its innermost module frame (`frameOf`, per host event), or −1. */
function frameModules(frameOf: Int32Array, nodeOfFrame: Int32Array): Int32Array {
  for (let i = 0; i < frameOf.length; i++) {
    const f = frameOf[i]!;
    if (f >= 0) frameOf[i] = nodeOfFrame[f]!;
  }
  return frameOf;
}

/** The `nn.Module:` python frames, in table order. */
function moduleFrameRows(m: TraceModel): number[] {
  const { python, strings } = m;
  const isModule = new Int8Array(strings.size).fill(-1);
  const rows: number[] = [];
  for (let f = 0; f < python.length; f++) {
    const id = python.name[f]!;
    if (isModule[id] === -1) isModule[id] = strings.get(id).startsWith(MODULE_PREFIX) ? 1 : 0;
    if (isModule[id] === 1) rows.push(f);
  }
  return rows;
}

/** The cpu_ops in host order, each one's thread and start beside it. */
function opColumns(m: TraceModel): { ops: Int32Array; thread: Float64Array; start: Float64Array } {
  const { host } = m;
  const ops = new Int32Array(host.length);
  const thread = new Float64Array(host.length);
  const start = new Float64Array(host.length);
  let n = 0;
  for (let i = 0; i < host.length; i++) {
    if (host.kind[i] !== HostKind.Op) continue;
    ops[n] = i;
    thread[n] = host.thread[i]!;
    start[n++] = host.startNs[i]!;
  }
  return { ops: ops.subarray(0, n), thread: thread.subarray(0, n), start: start.subarray(0, n) };
}

/** Into `out` (per host event): the node of each op's innermost module frame (`frameOfOp`, by position in `ops`). */
function opModules(ops: Int32Array, frameOfOp: Int32Array, nodeOfFrame: Int32Array, out: Int32Array): Int32Array {
  for (let k = 0; k < ops.length; k++) {
    const f = frameOfOp[k]!;
    if (f >= 0) out[ops[k]!] = nodeOfFrame[f]!;
  }
  return out;
}

/** Marks each linked backward op's subtree with its forward op's module; how many links had one. */
function markBackward(m: TraceModel, links: readonly FwdBwdLink[], moduleOfOp: Int32Array, backwardModuleOfOp: Int32Array): number {
  let marked = 0;
  const todo: number[] = [];
  for (const link of links) {
    const mod = moduleOfOp[link.fwd]!;
    if (mod < 0) continue;
    marked++;
    markSubtree(m, link.bwd, mod, backwardModuleOfOp, todo);
  }
  return marked;
}

/** A backward op's host time to its module (its own, not nested in another linked backward op). */
function backwardHostTime(m: TraceModel, links: readonly FwdBwdLink[], backwardModuleOfOp: Int32Array, nodes: ModuleNode[]): void {
  const { host } = m;
  for (const link of links) {
    const mod = backwardModuleOfOp[link.bwd]!;
    if (mod < 0) continue;
    let nested = false;
    for (let p = host.parent[link.bwd]!; p >= 0 && !nested; p = host.parent[p]!) if (backwardModuleOfOp[p]! >= 0) nested = true;
    if (!nested) nodes[mod]!.backward.hostSelfNs += host.durNs[link.bwd]!;
  }
}

/** GPU work by the owning op's module (forward) or linked backward module, else outside; Σ outside and Σ all. */
function gpuWork(
  m: TraceModel,
  moduleOfOp: Int32Array,
  backwardModuleOfOp: Int32Array,
  nodes: ModuleNode[],
  selfKernels: KernelSums[],
  outsideKernels: KernelSums,
): { outsideNs: number; deviceNs: number } {
  const { gpu } = m;
  let outsideNs = 0;
  let deviceNs = 0;
  for (let g = 0; g < gpu.length; g++) {
    const dur = gpu.durNs[g]!;
    if (dur !== dur) continue;
    deviceNs += dur;
    const o = owningOp(m, g);
    const fwd = o >= 0 ? moduleOfOp[o]! : -1;
    const bwd = o >= 0 && fwd < 0 ? backwardModuleOfOp[o]! : -1;
    const name = gpu.name[g]!;
    if (fwd >= 0) nodes[fwd]!.deviceSelfNs += dur;
    else if (bwd >= 0) nodes[bwd]!.backward.deviceSelfNs += dur;
    else {
      outsideNs += dur;
      addKernel(outsideKernels, name, dur);
      continue;
    }
    addKernel(selfKernels[fwd >= 0 ? fwd : bwd]!, name, dur);
  }
  return { outsideNs, deviceNs };
}

/** The allocation records, each one's thread and time beside it. */
function allocationColumns(m: TraceModel): { recs: Int32Array; thread: Float64Array; ts: Float64Array } {
  const mem = m.memory;
  const recs = new Int32Array(mem.length);
  const thread = new Float64Array(mem.length);
  const ts = new Float64Array(mem.length);
  let n = 0;
  for (let r = 0; r < mem.length; r++) {
    if (mem.outOfMemory[r] || !(mem.bytes[r]! > 0)) continue;
    recs[n] = r;
    thread[n] = mem.thread[r]!;
    ts[n++] = mem.tsNs[r]!;
  }
  return { recs: recs.subarray(0, n), thread: thread.subarray(0, n), ts: ts.subarray(0, n) };
}

/** Each allocation's bytes to the node of its innermost module frame (`frameOfRec`), device and CPU memory apart. */
function allocationsInFrames(m: TraceModel, recs: Int32Array, frameOfRec: Int32Array, nodeOfFrame: Int32Array, nodes: ModuleNode[]): void {
  const mem = m.memory;
  for (let k = 0; k < recs.length; k++) {
    const f = frameOfRec[k]!;
    if (f < 0) continue;
    const r = recs[k]!;
    const n = nodes[nodeOfFrame[f]!]!;
    const t = mem.deviceType[r]!;
    if (isDeviceMemoryType(t)) n.allocatedDeviceSelfBytes += mem.bytes[r]!;
    else if (isCpuMemoryType(t)) n.allocatedCpuSelfBytes += mem.bytes[r]!;
  }
}

function newNode(name: string, path: string, depth: number, parent: number): ModuleNode {
  return {
    name,
    className: name.replace(/_\d+$/, ''),
    path,
    depth,
    parent,
    children: [],
    calls: 0,
    hostTotalNs: 0,
    hostSelfNs: 0,
    deviceSelfNs: 0,
    deviceTotalNs: 0,
    backward: { deviceSelfNs: 0, deviceTotalNs: 0, hostSelfNs: 0, hostTotalNs: 0 },
    allocatedDeviceSelfBytes: 0,
    allocatedDeviceTotalBytes: 0,
    allocatedCpuSelfBytes: 0,
    allocatedCpuTotalBytes: 0,
    topKernels: [],
  };
}

function endOf(m: TraceModel, f: number): number {
  return m.python.startNs[f]! + m.python.durNs[f]!;
}

/**
 * The fwdbwd links by their backward op's depth, deepest first, ties in the trace's order (the
 * stable sort `(a, b) => depth[b.bwd] - depth[a.bwd]` gives): a count per depth, not a comparator.
 */
function deepestFirst(m: TraceModel): FwdBwdLink[] {
  const { depth } = m.host;
  const links = m.fwdBwd;
  let max = -1;
  for (const l of links) if (depth[l.bwd]! > max) max = depth[l.bwd]!;
  if (max > links.length + 1024 || links.some((l) => !(depth[l.bwd]! >= 0))) return [...links].sort((a, b) => depth[b.bwd]! - depth[a.bwd]!);
  // at[d]: where depth d's links begin, the deepest first
  const at = new Int32Array(max + 2);
  for (const l of links) at[max - depth[l.bwd]! + 1]++;
  for (let d = 0; d <= max; d++) at[d + 1] += at[d]!;
  const out = new Array<FwdBwdLink>(links.length);
  for (const l of links) out[at[max - depth[l.bwd]!]!++] = l;
  return out;
}

/** Marks `root` and its subtree as `mod`'s backward, where not marked yet (`todo`: a stack to reuse). */
function markSubtree(m: TraceModel, root: number, mod: number, out: Int32Array, todo: number[]): void {
  const { firstChild, nextSibling } = m.host;
  todo.length = 0;
  todo.push(root);
  while (todo.length > 0) {
    const x = todo.pop()!;
    if (out[x]! >= 0) continue;
    out[x] = mod;
    for (let c = firstChild[x]!; c >= 0; c = nextSibling[c]!) todo.push(c);
  }
}

/** Per kernel name id: Σ durations and count. */
type KernelSums = Map<number, { durNs: number; count: number }>;

function addKernel(map: KernelSums, name: number, dur: number): void {
  const cur = map.get(name);
  if (cur) {
    cur.durNs += dur;
    cur.count++;
  } else map.set(name, { durNs: dur, count: 1 });
}

function topKernels(m: TraceModel, map: KernelSums, n: number): KernelShare[] {
  return [...map]
    .map(([id, v]) => ({ name: m.strings.get(id), durNs: v.durNs, count: v.count }))
    .sort((a, b) => b.durNs - a.durNs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, n);
}

function sumGpuNs(m: TraceModel): number {
  let s = 0;
  for (let g = 0; g < m.gpu.length; g++) {
    const d = m.gpu.durNs[g]!;
    if (d === d) s += d;
  }
  return s;
}
