/**
 * The dispatch chain (docs/readings.md S2): nested host events of one step or annotation instance,
 * down to the runtime/driver calls and the GPU work each call launched — `aten::linear` → `aten::t`
 * → `aten::transpose` → `aten::as_strided` (views, nothing launched) and `aten::addmm` →
 * `cuLaunchKernelEx` → `nvjet_…_bias_TNT`.
 *
 * GPU activities hang under the call that launched them (`launcher`); one CUDA-graph
 * launch carries every kernel it replayed. GPU work without a launch call in the scope is
 * not shown here (see `kernels` and `doctor`).
 *
 * A step or an annotation instance is more than its own subtree: autograd runs the backward on
 * its own thread (`pt_autograd_0`), a DataLoader pins memory on another. The events of other
 * threads that start inside the instance's window (scopes.ts's rule; CUPTI's overhead left out)
 * are listed beside the tree, per thread (`otherThreads`), each thread's top events with their
 * subtrees, so the instance's GPU work is counted on every thread (`gpuUsAllThreads`).
 */
import { GPU_KIND_NAMES, HOST_KIND_NAMES, HostKind, type TraceModel } from '../../model/trace-model.js';
import { launchedBy, launchIndexOf, type LaunchIndex } from '../facts/launch-index.js';
import { isViewOpName, launchedGpuWorkOf } from '../facts/view-ops.js';
import { namedEvents } from './scopes.js';

export interface DispatchNode {
  readonly category: string;
  readonly name: string;
  readonly startUs: number;
  readonly durUs: number;
  /** Host events: CPU time minus the CPU time of the events directly inside. */
  readonly selfCpuUs?: number;
  /** Host events: Σ durations of the GPU work launched in this subtree. */
  readonly gpuUs?: number;
  /** Host events whose subtree launched no GPU work. */
  readonly launchedNothing?: boolean;
  /** A torch view op (metadata only) that launched nothing. */
  readonly view?: boolean;
  readonly inputDims?: unknown;
  /** GPU activities. */
  readonly device?: number;
  readonly stream?: number;
  readonly children: DispatchNode[];
}

export interface DispatchTreeScope {
  /** `ProfilerStep#N`'s N. */
  readonly step?: number;
  /** A user annotation name (`linear_fwd`). */
  readonly annotation?: string;
  /** Which instance of the annotation, 0-based in time order (default 0). */
  readonly instance?: number;
  /** Stop descending below this depth (root = 0); at most MAX_TREE_DEPTH. */
  readonly maxDepth?: number;
}

/**
 * The deepest level a tree shows: real dispatch chains (ops, annotations, python frames) are a
 * few hundred levels at most; a trace nesting deeper has its tree cut there (`cutAtDepth`), so the
 * views and JSON.stringify (recursive in V8, ~2,000 levels) never meet trace-controlled depth.
 */
export const MAX_TREE_DEPTH = 500;

/** One other thread's events inside the instance's window (DispatchTree.otherThreads). */
export interface OtherThreadTree {
  /** The thread's name from its metadata (`thread 1098 (pt_autograd_0)`), else `tid N`. */
  readonly thread: string;
  /** Σ durations of its top events inside the window (CPU time on that thread). */
  readonly cpuUs: number;
  /** Σ durations of the GPU work launched under them. */
  readonly gpuUs: number;
  /** Its events that start inside the window and whose parent does not (in time order), with their subtrees. */
  readonly roots: DispatchNode[];
}

export interface DispatchTree {
  /** What was selected, in words: `ProfilerStep#3`, `linear_fwd (instance 1 of 3)`. */
  readonly scope: string;
  readonly roots: DispatchNode[];
  /** A step or annotation instance: the other threads' events inside its window (see the module comment); empty when none. */
  readonly otherThreads: OtherThreadTree[];
  /** The roots' GPU time plus the other threads': the instance's GPU work on every thread. */
  readonly gpuUsAllThreads: number;
  /** How many instances the requested annotation has. */
  readonly instances: number;
  /** Set when events nest deeper than MAX_TREE_DEPTH below a root and the levels past it are left out. */
  readonly cutAtDepth?: number;
}

export type DispatchScopeError = { readonly error: string };

/** What a scope selects: its roots, in words, and how many instances it has (DispatchTree's fields). */
export interface DispatchRoots {
  /** Host indices of the roots, in time order. */
  readonly roots: number[];
  readonly label: string;
  readonly instances: number;
}

/** Host indices of the roots the scope selects, in time order (`explain` reads its chains off them, without the tree). */
export function selectDispatchRoots(m: TraceModel, scope: DispatchTreeScope): DispatchRoots | DispatchScopeError {
  const { host, strings } = m;
  if (scope.step !== undefined) {
    const s = m.steps.find((x) => x.number === scope.step);
    if (!s) {
      const have = m.steps.map((x) => x.number).join(', ') || 'none';
      return { error: `no ProfilerStep#${scope.step} in the trace (steps: ${have})` };
    }
    return { roots: [s.host], label: s.name, instances: 1 };
  }
  if (scope.annotation !== undefined) {
    // (a copy: namedEvents' list is read-only)
    const found = [...namedEvents(m, strings.find(scope.annotation))];
    found.sort((a, b) => host.startNs[a]! - host.startNs[b]!);
    if (found.length === 0) return { error: `no host event named "${scope.annotation}" in the trace` };
    const k = scope.instance ?? 0;
    if (k < 0 || k >= found.length) return { error: `"${scope.annotation}" has ${found.length} instance(s); --instance ${k} is out of range` };
    return { roots: [found[k]!], label: `${scope.annotation} (instance ${k + 1} of ${found.length})`, instances: found.length };
  }
  if (m.steps.length > 0) return { roots: [m.steps[0]!.host], label: m.steps[0]!.name, instances: m.steps.length };
  const roots: number[] = [];
  const parent = host.parent;
  for (let i = 0; i < parent.length; i++) if (parent[i] === -1) roots.push(i);
  roots.sort((a, b) => host.startNs[a]! - host.startNs[b]!);
  return { roots, label: 'whole trace', instances: 1 };
}

export function computeDispatchTree(m: TraceModel, scope: DispatchTreeScope = {}): DispatchTree | DispatchScopeError {
  const sel = selectDispatchRoots(m, scope);
  if ('error' in sel) return sel;
  const b: TreeBuild = {
    m,
    launched: launchedGpuWorkOf(m),
    // What each call launched, from the launch index the other analyses read (made once per
    // model): no map of every activity in the trace for the few calls of one instance.
    index: launchIndexOf(m),
    maxDepth: Math.min(scope.maxDepth ?? Infinity, MAX_TREE_DEPTH),
    cut: false,
  };
  const roots = sel.roots.map((r) => buildTree(b, r));
  // Another thread's top events sit one level below the instance, as its own children do.
  const below: TreeBuild = { ...b, maxDepth: b.maxDepth - 1 };
  const otherThreads: OtherThreadTree[] =
    sel.roots.length === 1 && sel.label !== 'whole trace'
      ? otherThreadRoots(m, sel.roots[0]!).map((t) => {
          const nodes = below.maxDepth >= 0 ? t.roots.map((r) => buildTree(below, r)) : [];
          const gpuNs = t.roots.reduce((x, r) => x + subtreeGpuNs(m, b.index, r), 0);
          return { thread: threadLabel(m, t.thread), cpuUs: t.roots.reduce((x, r) => x + m.host.durNs[r]!, 0) / 1000, gpuUs: gpuNs / 1000, roots: nodes };
        })
      : [];
  b.cut ||= below.cut;
  const gpuUsAllThreads = roots.reduce((x, r) => x + (r.gpuUs ?? 0), 0) + otherThreads.reduce((x, t) => x + t.gpuUs, 0);
  return { scope: sel.label, roots, otherThreads, gpuUsAllThreads, instances: sel.instances, ...(b.cut ? { cutAtDepth: MAX_TREE_DEPTH } : {}) };
}

/** Another thread's events inside an instance's window: the thread (an index into `m.threads`) and its top events there. */
export interface OtherThreadRoots {
  readonly thread: number;
  readonly roots: readonly number[];
}

/**
 * The events of other threads than `root`'s that start inside its window [start, end) and whose
 * parent does not (they head a subtree inside the window), per thread, threads in the order of
 * their first such event; CUPTI's overhead events left out (the profiler's work, scopes.ts).
 */
export function otherThreadRoots(m: TraceModel, root: number): OtherThreadRoots[] {
  const { host } = m;
  const lo = host.startNs[root]!;
  const hi = lo + host.durNs[root]!;
  const own = host.thread[root]!;
  const inside = (i: number) => host.startNs[i]! >= lo && host.startNs[i]! < hi;
  const byThread = new Map<number, number[]>();
  for (let i = 0; i < host.length; i++) {
    if (host.thread[i] === own || host.kind[i] === HostKind.Overhead || !inside(i)) continue;
    const p = host.parent[i]!;
    if (p >= 0 && inside(p)) continue;
    const list = byThread.get(host.thread[i]!);
    if (list) list.push(i);
    else byThread.set(host.thread[i]!, [i]);
  }
  const out = [...byThread].map(([thread, roots]) => ({ thread, roots: roots.sort((a, b) => host.startNs[a]! - host.startNs[b]! || a - b) }));
  return out.sort((a, b) => host.startNs[a.roots[0]!]! - host.startNs[b.roots[0]!]! || a.thread - b.thread);
}

/** A thread as a person reads it: its metadata name (`thread 1098 (pt_autograd_0)`), else its tid. */
export function threadLabel(m: TraceModel, thread: number): string {
  const t = m.threads[thread];
  return t?.name?.trim() || `tid ${String(t?.tid ?? thread)}`;
}

/** What building one tree reads and sets. */
interface TreeBuild {
  readonly m: TraceModel;
  readonly launched: Uint8Array;
  readonly index: LaunchIndex;
  readonly maxDepth: number;
  /** Set when a level past MAX_TREE_DEPTH was left out. */
  cut: boolean;
}

/** One open node of buildTree's walk. */
interface Frame {
  readonly i: number;
  readonly depth: number;
  /** The next child to visit, or -1. */
  next: number;
  childCpuNs: number;
  readonly children: DispatchNode[];
  /** Where this node's children's GPU ns start on the walk's ns stack. */
  readonly nsBase: number;
}

/**
 * The node of `root` and its subtree, depth first with an explicit stack (nesting depth is the
 * trace's). Each node's GPU ns is summed as it closes, from its own launches and its children's
 * sums (kept on a stack of numbers, in sibling order): one walk, no map of subtree sums.
 */
function buildTree(b: TreeBuild, root: number): DispatchNode {
  const { firstChild, nextSibling, durNs } = b.m.host;
  const maxDepth = b.maxDepth;
  const ns: number[] = [];
  const stack: Frame[] = [{ i: root, depth: 0, next: firstChild[root]!, childCpuNs: 0, children: [], nsBase: 0 }];
  for (;;) {
    const f = stack[stack.length - 1]!;
    if (f.next !== -1) {
      const c = f.next;
      f.next = nextSibling[c]!;
      f.childCpuNs += durNs[c]!;
      if (f.depth < maxDepth) stack.push({ i: c, depth: f.depth + 1, next: firstChild[c]!, childCpuNs: 0, children: [], nsBase: ns.length });
      else {
        // A child left out still counts in its parent's GPU time.
        ns.push(subtreeGpuNs(b.m, b.index, c));
        if (f.depth === MAX_TREE_DEPTH) b.cut = true;
      }
      continue;
    }
    stack.pop();
    let gpuNs = 0;
    const launched = launchedInTreeOrder(b.index, f.i);
    for (let k = 0; k < launched.length; k++) gpuNs += b.m.gpu.durNs[launched[k]!]!;
    for (let k = f.nsBase; k < ns.length; k++) gpuNs += ns[k]!;
    ns.length = f.nsBase;
    ns.push(gpuNs);
    if (f.depth < maxDepth) for (let k = 0; k < launched.length; k++) f.children.push(gpuNode(b.m, launched[k]!));
    const node = hostNode(b, f.i, f.childCpuNs, gpuNs, f.children);
    if (stack.length === 0) return node;
    stack[stack.length - 1]!.children.push(node);
  }
}

/** What a call launched, in GPU table order as the tree lists it (most events launched nothing: no view made for them). */
export function launchedInTreeOrder(index: LaunchIndex, h: number): Int32Array {
  const { offsets } = index;
  return offsets[h] === offsets[h + 1] ? NOTHING : inIndexOrder(launchedBy(index, h));
}

const NOTHING = new Int32Array(0);

/**
 * Σ GPU ns launched in the subtree of `root`, children before parents: a node's own launches,
 * then its children's sums in sibling order, as the tree sums its nodes' `gpuUs` (for a child
 * below the depth shown, and for `explain`'s chains, which read it without the tree).
 */
export function subtreeGpuNs(m: TraceModel, index: LaunchIndex, root: number): number {
  const { firstChild, nextSibling } = m.host;
  // Depth first with a stack of open nodes: each one's next child and its running sum, which
  // starts with its own launches and takes each child's sum as the child closes (no map of sums).
  const open = [root];
  const next = [firstChild[root]!];
  const sums = [ownGpuNs(m, index, root)];
  for (;;) {
    const top = open.length - 1;
    const c = next[top]!;
    if (c !== -1) {
      next[top] = nextSibling[c]!;
      open.push(c);
      next.push(firstChild[c]!);
      sums.push(ownGpuNs(m, index, c));
      continue;
    }
    const ns = sums.pop()!;
    open.pop();
    next.pop();
    if (open.length === 0) return ns;
    sums[top - 1] += ns;
  }
}

/** Σ durations of what host event `h` launched itself, in the tree's order. */
function ownGpuNs(m: TraceModel, index: LaunchIndex, h: number): number {
  let ns = 0;
  const { offsets } = index;
  if (offsets[h] === offsets[h + 1]) return ns;
  const launched = launchedInTreeOrder(index, h);
  for (let k = 0; k < launched.length; k++) ns += m.gpu.durNs[launched[k]!]!;
  return ns;
}

function gpuNode(m: TraceModel, g: number): DispatchNode {
  const { gpu } = m;
  return {
    category: GPU_KIND_NAMES[gpu.kind[g]!]!,
    name: m.strings.get(gpu.name[g]!),
    startUs: gpu.startNs[g]! / 1000,
    durUs: gpu.durNs[g]! / 1000,
    device: gpu.device[g]!,
    stream: gpu.stream[g]!,
    children: [],
  };
}

function hostNode(b: TreeBuild, i: number, childCpuNs: number, gpuNs: number, children: DispatchNode[]): DispatchNode {
  const { host } = b.m;
  const name = b.m.strings.get(host.name[i]!);
  const kind = host.kind[i]!;
  const isOp = kind === HostKind.Op;
  const nothing = !b.launched[i];
  const dims = host.args[i]?.['Input Dims'];
  // The optional fields set in place, in the order the node lists them (no object spread per node).
  const node: { -readonly [K in keyof DispatchNode]: DispatchNode[K] } = {
    category: HOST_KIND_NAMES[kind]!,
    name,
    startUs: host.startNs[i]! / 1000,
    durUs: host.durNs[i]! / 1000,
    selfCpuUs: (host.durNs[i]! - childCpuNs) / 1000,
    gpuUs: gpuNs / 1000,
  } as DispatchNode;
  if (isOp || kind === HostKind.Annotation) node.launchedNothing = nothing;
  if (isViewNode(kind, !nothing, name)) node.view = true;
  if (dims !== undefined) node.inputDims = dims;
  node.children = children;
  return node;
}

/** DispatchNode.view: a torch view op (metadata only) whose subtree launched nothing (`launchedAny`: launchedGpuWorkOf). */
export function isViewNode(kind: number, launchedAny: boolean, name: string): boolean {
  return kind === HostKind.Op && !launchedAny && isViewOpName(name);
}

/** A call's activities (listed in start order) in GPU table order: the list itself when it already is (one activity, or launched in order), else a sorted copy. */
function inIndexOrder(items: Int32Array): Int32Array {
  for (let k = 1; k < items.length; k++) if (items[k]! < items[k - 1]!) return items.slice().sort();
  return items;
}
