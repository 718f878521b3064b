/**
 * The dependency graph of one step or annotation instance, for the critical path
 * (critical-path.ts). Nodes are points in time: the start and the end of every host event
 * (ops, annotations, runtime and driver calls) and of every GPU activity (kernels, copies,
 * memsets) of the instance. Edges say what had to happen before what:
 *
 * - `cpu`: host time on one thread, in torch's nesting order (op start → first child start,
 *   child end → next child start, last child end → op end): the host was running that op.
 * - `host-gap`: between two top-level events of a thread (python, or nothing profiled).
 * - `spawn`: into the first event of another thread (autograd's backward thread) from the
 *   instance's own thread; `join`: from another thread's event end to the next top-level event of
 *   the instance's thread (the host may have waited for it).
 * - `gpu`: a GPU activity's start → end; and the start of one that was still running → the
 *   start of the next on its stream (programmatic dependent launch lets it begin early).
 * - `launch`: the launch call's start → the activity's start (HTA's KERNEL_LAUNCH_DELAY); a
 *   CUDA-graph launch has one to each kernel it ran (Kineto gives them the launch's correlation).
 * - `kernel-gap`: the previous activity's end on the same stream → the activity's start.
 * - `sync`: the GPU work a blocking call waited for → the call's end (device, stream and event
 *   synchronize, blocking copies), and the recorded event's activity → the next activity of
 *   a stream that `cudaStreamWaitEvent`s on it.
 *
 * Which edge bound a node (`binding`): of the edges into a node, the one whose source was
 * ready last, a wait counting as ready at its source's time (HTA's rule for launch versus
 * kernel-kernel: the launch binds only when the stream was empty when the call started).
 * The binding edge weighs what the trace shows (destination time − source time), so the
 * longest path from the instance's start reproduces every node's time and its length is the
 * instance's span. Other edges weigh what they would cost if they bound: CPU time its full
 * length, a wait 0, a launch or a kernel-to-kernel gap the device's median of the binding ones
 * (never more than the trace shows) — the what-if uses these when it shortens the chain that
 * bound.
 *
 * With `hta: true` the weights are HTA's instead (docs/readings.md, "HTA's critical path"):
 * destination − source time, but 0 for host gaps, sync edges, a blocking call's wait and a launch
 * edge that did not bind; annotations and zero-length events have no nodes; a kernel-kernel gap of
 * 1.5 ms or more gets no edge. Kinetoscope keeps host gaps and wake-up latencies so that the
 * path is the step's span (HTA's is shorter by every gap it zeroes).
 *
 * Ignores: GPU work outside the instance, `gpu_user_annotation` spans, HTA's cross-thread
 * CUDA-runtime-lock edges (a guess at lock order from completion times).
 * Iterative throughout (graphs reach millions of nodes).
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { CallFlag } from '../facts/runtime-calls.js';
import type { ScopeInstance } from '../host/scopes.js';
import { doubled } from '../helpers/doubled.js';
import { callName, CallName, resolveSyncs, STREAM_KEY, traceIndex, type Note, type TraceIndex } from './sync-waits.js';

export const EDGE_KINDS = ['cpu', 'host-gap', 'spawn', 'join', 'gpu', 'launch', 'kernel-gap', 'sync', 'unexplained'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];
export const enum EK {
  Cpu = 0,
  HostGap = 1,
  Spawn = 2,
  Join = 3,
  Gpu = 4,
  Launch = 5,
  KernelGap = 6,
  Sync = 7,
  Unexplained = 8,
}

/** HTA's kernel-kernel threshold (critical_path_analysis.py KERNEL_KERNEL_DELAY_THRESHOLD_US). */
export const HTA_KERNEL_KERNEL_THRESHOLD_NS = 1_500_000;

export interface GraphOptions {
  /** HTA's weights and node set (see the module comment). */
  readonly hta?: boolean;
}

/**
 * Growable edge list (typed arrays doubling), sized at the start for the usual graph (a little
 * more than one edge per node); the built graph keeps views of these arrays.
 */
class Edges {
  n = 0;
  src: Int32Array;
  dst: Int32Array;
  kind: Uint8Array;
  attr: Int32Array;
  attrGpu: Uint8Array;
  constructor(capacity: number) {
    this.src = new Int32Array(capacity);
    this.dst = new Int32Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.attr = new Int32Array(capacity);
    this.attrGpu = new Uint8Array(capacity);
  }
  add(s: number, d: number, k: EK, attr = -1, attrGpu = 0): number {
    if (this.n === this.src.length) this.grow();
    const i = this.n++;
    this.src[i] = s;
    this.dst[i] = d;
    this.kind[i] = k;
    this.attr[i] = attr;
    this.attrGpu[i] = attrGpu;
    return i;
  }
  private grow(): void {
    this.src = doubled(this.src);
    this.dst = doubled(this.dst);
    this.kind = doubled(this.kind);
    this.attr = doubled(this.attr);
    this.attrGpu = doubled(this.attrGpu);
  }
}


/**
 * One graph under construction. The build runs as one small function per phase (below) rather
 * than one function of several hundred lines: V8 optimises each hot loop on its own and soon,
 * where the single function took hundreds of milliseconds to compile (twice, after a deopt) and
 * ran unoptimised meanwhile — most of the steps of a report. Fields keep one type each (times
 * only in Float64Arrays): a field that held a small integer and then a fraction would change
 * the object's shape, and every optimised phase would be thrown away and compiled again.
 */
class GraphBuild {
  readonly host: TraceModel['host'];
  readonly gpu: TraceModel['gpu'];
  readonly diags = new Map<string, { severity: Diagnostic['severity']; message: string; count: number }>();
  readonly note: Note = (code, severity, message) => {
    const d = this.diags.get(code);
    if (d) d.count++;
    else this.diags.set(code, { severity, message, count: 1 });
  };
  /** The host events and GPU activities in the graph, in the order their nodes are made. */
  hostList: Int32Array = new Int32Array(0);
  nHost = 0;
  gpuList: Int32Array = new Int32Array(0);
  nGpu = 0;
  nNodes = 0;
  nodeEvent = new Int32Array(0);
  nodeGpu = new Uint8Array(0);
  nodeStart = new Uint8Array(0);
  /** Node times; nodeTs[0], the source's, is where the graph starts. */
  nodeTs = new Float64Array(0);
  /**
   * Start node of host event hLo + i / GPU activity gLo + i (its end node is the next), -1 when
   * not in the graph: over the instance's range of indexes only, not the whole trace's (a
   * report builds a graph per step and keeps them all).
   */
  hLo = 0;
  hostStartNode: Int32Array = new Int32Array(0);
  gLo = 0;
  gpuStartNode: Int32Array = new Int32Array(0);
  E = new Edges(0);
  /** Edges marked dropped (kind 255) so far. */
  dropped = 0;
  readonly ix: TraceIndex;
  constructor(
    readonly m: TraceModel,
    readonly hta: boolean,
  ) {
    this.host = m.host;
    this.gpu = m.gpu;
    this.ix = traceIndex(m);
  }
  /** Start node of host event h (its end node is the next); -1 when not in the graph. */
  hostNode(h: number): number {
    const i = h - this.hLo;
    return i >= 0 && i < this.hostStartNode.length ? this.hostStartNode[i]! : -1;
  }
  gpuNode(g: number): number {
    const i = g - this.gLo;
    return i >= 0 && i < this.gpuStartNode.length ? this.gpuStartNode[i]! : -1;
  }
}

/*
 * Every hot loop below sits in a function of its own that returns right after it: a local or a
 * literal of locals, no other store or call. V8 compiles a function's loop while it runs (on-stack
 * replacement) from the feedback gathered so far; code after the loop has none yet, so it
 * deoptimises when reached — and the cached loop code takes the next call back to the same
 * spot, step after step, until the whole function is compiled again. A function per loop has no
 * code after its loop: a report's first steps run optimised instead of deoptimising in turn.
 */

/** An Int32Array of -1 over the indexes from the least to the greatest of list[0..n); its first index. */
function rangeOf(list: Int32Array, n: number): { lo: number; at: Int32Array } {
  if (n === 0) return { lo: 0, at: new Int32Array(0) };
  const lo = least(list, n);
  return { lo, at: new Int32Array(greatest(list, n) - lo + 1).fill(-1) };
}

/** The least of list[0..n) (n ≥ 1). */
function least(list: Int32Array, n: number): number {
  let lo = list[0]!;
  for (let i = 1; i < n; i++) if (list[i]! < lo) lo = list[i]!;
  return lo;
}

/** The greatest of list[0..n) (n ≥ 1). */
function greatest(list: Int32Array, n: number): number {
  let hi = list[0]!;
  for (let i = 1; i < n; i++) if (list[i]! > hi) hi = list[i]!;
  return hi;
}

export function buildCriticalPathGraph(m: TraceModel, inst: ScopeInstance, opts: GraphOptions = {}): CriticalPathGraph {
  const b = new GraphBuild(m, !!opts.hta);
  takeEvents(b, inst);
  makeNodes(b, inst);
  addHostEdges(b, inst);
  addGpuEdges(b);
  dropBackEdges(b);
  return weighEdges(b);
}

// ---- which events are in the graph
function takeEvents(b: GraphBuild, inst: ScopeInstance): void {
  b.hostList = new Int32Array(inst.hostEvents.length + 1);
  b.nHost = takeHost(b, inst);
  b.gpuList = new Int32Array(inst.gpu.length);
  b.nGpu = takeGpu(b, inst.gpu);
}

/** The root, then the instance's host events, into b.hostList; how many. */
function takeHost(b: GraphBuild, inst: ScopeInstance): number {
  const { host, hta, note, hostList } = b;
  const { hostEvents } = inst;
  let n = 0;
  for (let k = -1; k < hostEvents.length; k++) {
    const h = k < 0 ? inst.root : hostEvents[k]!;
    if (h < 0) continue; // (the whole trace has no root)
    if (hta && (host.kind[h] === HostKind.Annotation || !(host.durNs[h]! > 0))) continue;
    if (!(host.durNs[h]! >= 0)) {
      note('CP_NEGATIVE_DURATION', 'warning', 'a host event with a negative or missing duration was left out of the graph');
      continue;
    }
    hostList[n++] = h;
  }
  return n;
}

/** The instance's GPU activities into b.gpuList; how many. */
function takeGpu(b: GraphBuild, list: readonly number[]): number {
  const { gpu, note, gpuList } = b;
  let n = 0;
  for (let k = 0; k < list.length; k++) {
    const g = list[k]!;
    if (!(gpu.durNs[g]! >= 0)) {
      note('CP_NEGATIVE_DURATION', 'warning', 'a GPU activity with a negative or missing duration was left out of the graph');
      continue;
    }
    gpuList[n++] = g;
  }
  return n;
}

// ---- nodes: 0 = source, then 2 per host event and 2 per GPU activity
function makeNodes(b: GraphBuild, inst: ScopeInstance): void {
  const { host, gpu, hostList, nHost, gpuList, nGpu } = b;
  const hr = rangeOf(hostList, nHost);
  const gr = rangeOf(gpuList, nGpu);
  const nNodes = 1 + 2 * (nHost + nGpu);
  b.hLo = hr.lo;
  b.hostStartNode = hr.at;
  b.gLo = gr.lo;
  b.gpuStartNode = gr.at;
  b.nNodes = nNodes;
  b.nodeEvent = new Int32Array(nNodes);
  b.nodeGpu = new Uint8Array(nNodes);
  b.nodeStart = new Uint8Array(nNodes);
  const nodeTs = (b.nodeTs = new Float64Array(nNodes));
  b.nodeEvent[0] = -1;
  b.nodeStart[0] = 1;
  // (the source's time: the earliest start, the instance's own among them, found as the nodes are made)
  const t0 = eventNodes(b, hostList, nHost, host.startNs, host.durNs, b.hLo, b.hostStartNode, 1, 0, inst.startNs);
  nodeTs[0] = eventNodes(b, gpuList, nGpu, gpu.startNs, gpu.durNs, b.gLo, b.gpuStartNode, 1 + 2 * nHost, 1, t0);
  // about one edge per node, a few more for launches and syncs (grown when there are more)
  b.E = new Edges(nNodes + (nNodes >> 2) + 64);
}

/**
 * The start and end nodes of list[0..n) (host events, or GPU activities when `isGpu`), from node
 * k; the least of t and their starts.
 */
function eventNodes(b: GraphBuild, list: Int32Array, n: number, startNs: Float64Array, durNs: Float64Array, lo: number, startNode: Int32Array, k: number, isGpu: number, t: number): number {
  const { nodeEvent, nodeGpu, nodeStart, nodeTs } = b;
  let t0 = t;
  for (let i = 0; i < n; i++) {
    const x = list[i]!;
    const start = startNs[x]!;
    t0 = Math.min(t0, start);
    startNode[x - lo] = k;
    nodeEvent[k] = x;
    nodeGpu[k] = isGpu;
    nodeStart[k] = 1;
    nodeTs[k] = start;
    nodeEvent[k + 1] = x;
    nodeGpu[k + 1] = isGpu;
    nodeTs[k + 1] = start + durNs[x]!;
    k += 2;
  }
  return t0;
}

/** Whether a host call makes the host wait for the GPU (its self time is a wait). */
function isBlocking(b: GraphBuild, h: number): boolean {
  const { host, m } = b;
  if (!(host.kind[h] === HostKind.Runtime || host.kind[h] === HostKind.Driver)) return false;
  if (b.hta) return (callName(m, b.ix, h) & CallName.HtaBlocking) !== 0;
  return (b.ix.flags[h]! & CallFlag.BlocksHost) !== 0;
}

/** Per thread: the top-level starts and ends; for the instance's own thread, its nodes in walk order (for spawn/join lookups). */
interface ThreadWalk {
  readonly seq: number[];
  readonly starts: number[];
  readonly ends: number[];
}

// ---- host: each thread's events in nesting order (an iterative walk of torch's tree)
function addHostEdges(b: GraphBuild, inst: ScopeInstance): void {
  const { host, hta, nodeTs, nodeStart, E } = b;
  const byThread = topsByThread(b);
  const rootThread = inst.root >= 0 ? host.thread[inst.root]! : -1;
  const walks = new Map<number, ThreadWalk>();
  for (const [t, tops] of byThread) walks.set(t, walkThread(b, tops, t === rootThread));

  // source → first node of the instance's thread (or of every thread when there is none)
  const rootSeqByTime = rootThread >= 0 ? sortedByTime(walks.get(rootThread)?.seq ?? [], nodeTs) : [];
  const rootStartNodes = startNodesOf(rootSeqByTime, nodeStart);
  for (const [t, { starts, ends }] of walks) {
    if (starts.length === 0) continue;
    const first = starts[0]!;
    if (t === rootThread) {
      E.add(0, first, EK.HostGap);
      continue;
    }
    // spawn: from the last node of the instance's thread at or before this thread's first event
    const j = rootSeqByTime.length > 0 ? lastAtOrBeforeNode(rootSeqByTime, nodeTs, nodeTs[first]!) : -1;
    E.add(j >= 0 ? rootSeqByTime[j]! : 0, first, j >= 0 ? EK.Spawn : EK.HostGap);
    // join: each top-level end → the next event start on the instance's thread (the host
    // there may have waited for it: autograd's backward runs while the main thread waits)
    if (!hta && rootStartNodes.length > 0) {
      for (const en of ends) {
        const i = firstAtOrAfterNode(rootStartNodes, nodeTs, nodeTs[en]!);
        if (i >= 0) E.add(en, rootStartNodes[i]!, EK.Join);
      }
    }
  }
}

/** The host events in the graph with no enclosing event in the graph, per thread. */
function topsByThread(b: GraphBuild): Map<number, number[]> {
  const { host, hostList, nHost, hLo, hostStartNode } = b;
  const { parent } = host;
  const nIndex = hostStartNode.length;
  const byThread = new Map<number, number[]>();
  for (let i = 0; i < nHost; i++) {
    const h = hostList[i]!;
    let p = parent[h]!;
    // (b.hostNode(p) < 0, written out)
    while (p >= 0 && !(p - hLo >= 0 && p - hLo < nIndex && hostStartNode[p - hLo]! >= 0)) p = parent[p]!;
    if (p >= 0) continue;
    const t = host.thread[h]!;
    let l = byThread.get(t);
    if (!l) byThread.set(t, (l = []));
    l.push(h);
  }
  return byThread;
}

/**
 * One thread's cpu and host-gap edges, from its top-level events in the graph; `keepSeq`: also
 * its nodes in walk order (start, children, end).
 */
function walkThread(b: GraphBuild, tops: number[], keepSeq: boolean): ThreadWalk {
  const { host, nodeStart, nodeEvent, E, hLo, hostStartNode } = b;
  const { firstChild, nextSibling } = host;
  const nIndex = hostStartNode.length;
  tops.sort((a, c) => host.startNs[a]! - host.startNs[c]! || a - c);
  const seq: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let last = -1; // last node on this thread
  // explicit stack of [event, child cursor, enclosing graph event] from 0 to sp; cursor -2 =
  // not entered (a plain array kept at its longest: setting its length each pop costs more)
  const stack: number[] = [];
  for (const top of tops) {
    stack[0] = top;
    stack[1] = -2;
    stack[2] = -1;
    let sp = 3;
    while (sp > 0) {
      const at = sp - 3;
      const h = stack[at]!;
      const cur = stack[at + 1]!;
      const encl = stack[at + 2]!;
      const i = h - hLo;
      const hn = i >= 0 && i < nIndex ? hostStartNode[i]! : -1;
      const inside = hn >= 0;
      if (cur === -2) {
        // enter
        if (inside) {
          const n = hn;
          // (HTA's attribution: parent start → child start is the parent's time; a sibling's
          // end → the next sibling's start, the enclosing event's. The first node of a thread
          // gets its edge in addHostEdges: from the source, or spawned from the instance's thread.)
          if (last >= 0) {
            const isTop = encl < 0;
            E.add(last, n, isTop ? EK.HostGap : EK.Cpu, isTop ? -1 : nodeStart[last] ? nodeEvent[last]! : encl);
          }
          if (encl < 0) starts.push(n);
          if (keepSeq) seq.push(n);
          last = n;
        }
        stack[at + 1] = firstChild[h]!;
        continue;
      }
      if (cur >= 0) {
        stack[at + 1] = nextSibling[cur]!;
        stack[sp] = cur;
        stack[sp + 1] = -2;
        stack[sp + 2] = inside ? h : encl;
        sp += 3;
        continue;
      }
      // exit
      sp = at;
      if (!inside) continue;
      const n = hn + 1;
      // (its own start or its last child's end → its end: the event's own time)
      E.add(last, n, EK.Cpu, h);
      if (encl < 0) ends.push(n);
      if (keepSeq) seq.push(n);
      last = n;
    }
  }
  return { seq, starts, ends };
}

// ---- GPU: per stream in start order; launch, kernel-gap and sync edges
function addGpuEdges(b: GraphBuild): void {
  const { gpu, E } = b;
  const byStream = activitiesByStream(b);
  for (const l of byStream.values()) if (!inStartOrder(gpu.startNs, l)) l.sort((a, c) => gpu.startNs[a]! - gpu.startNs[c]! || a - c);

  // cudaStreamWaitEvent and event syncs: the recorded event's activity (resolved below)
  const streamWaitSrc = new Map<number, number[]>(); // dest GPU activity → source activities
  const hostSyncSrc = new Map<number, number[]>(); // blocking host call → GPU activities it waited for
  resolveSyncs(b.m, b.ix, b.hostList.subarray(0, b.nHost), (g) => b.gpuNode(g) >= 0, byStream, hostSyncSrc, streamWaitSrc, b.note);

  for (const [, list] of byStream) streamEdges(b, list, streamWaitSrc);
  for (const [h, srcs] of hostSyncSrc) for (const src of srcs) E.add(b.gpuNode(src) + 1, b.hostNode(h) + 1, EK.Sync);
}

/** Whether `list` is in (start, index) order already (the sort then leaves it as it is). */
function inStartOrder(startNs: Float64Array, list: readonly number[]): boolean {
  for (let k = 1; k < list.length; k++) {
    const a = list[k - 1]!;
    const c = list[k]!;
    if (!(startNs[a]! < startNs[c]! || (startNs[a] === startNs[c] && a < c))) return false;
  }
  return true;
}

/** The graph's GPU activities per stream (device · 2³² + stream), in their list order. */
function activitiesByStream(b: GraphBuild): Map<number, number[]> {
  const { gpu, gpuList, nGpu } = b;
  const byStream = new Map<number, number[]>();
  for (let i = 0; i < nGpu; i++) {
    const g = gpuList[i]!;
    const key = gpu.device[g]! * STREAM_KEY + gpu.stream[g]!;
    let l = byStream.get(key);
    if (!l) byStream.set(key, (l = []));
    l.push(g);
  }
  return byStream;
}

/** One stream's edges, its activities in start order: gpu, stream-wait sync, kernel-gap (or overlap) and launch. */
function streamEdges(b: GraphBuild, list: readonly number[], streamWaitSrc: ReadonlyMap<number, readonly number[]>): void {
  const { host, gpu, hta, note, E } = b;
  let prev = -1;
  for (const g of list) {
    const s = b.gpuNode(g);
    E.add(s, s + 1, EK.Gpu, g, 1);
    const l = gpu.launcher[g]!;
    const waits = streamWaitSrc.size > 0 ? streamWaitSrc.get(g) : undefined;
    if (waits) for (const src of waits) E.add(b.gpuNode(src) + 1, s, EK.Sync);
    if (prev >= 0) {
      const gap = gpu.startNs[g]! - (gpu.startNs[prev]! + gpu.durNs[prev]!);
      if (gap < 0) {
        // started while the previous one ran (programmatic dependent launch on Hopper, or
        // clock noise): tied to the previous one's start, its time counted as that kernel's
        if (!hta) {
          E.add(b.gpuNode(prev), s, EK.Gpu, prev, 1);
        }
        note('CP_OVERLAPPING_ON_STREAM', 'info', "GPU activities overlap on one stream (programmatic dependent launch, or clock noise): the later one is tied to the earlier one's start, not its end");
      } else if (!(hta && gap >= HTA_KERNEL_KERNEL_THRESHOLD_NS)) {
        E.add(b.gpuNode(prev) + 1, s, EK.KernelGap, prev, 1);
      }
    }
    if (l >= 0 && b.hostNode(l) >= 0) {
      if (host.startNs[l]! > gpu.startNs[g]!) note('CP_KERNEL_BEFORE_LAUNCH', 'warning', 'a GPU activity starts before its launch call: its launch edge was left out');
      else {
        E.add(b.hostNode(l), s, EK.Launch);
      }
    } else {
      note('CP_NO_LAUNCH', 'warning', "a GPU activity has no launch call in the instance (no correlation to a runtime call): only its stream's order ties it to the host");
    }
    if (prev < 0 || gpu.startNs[g]! + gpu.durNs[g]! >= gpu.startNs[prev]! + gpu.durNs[prev]!) prev = g;
  }
}

// ---- edges that run back in time are left out; a node left with no edge in gets one from
// the instance's start, so that it and what follows it stay on the graph
function dropBackEdges(b: GraphBuild): void {
  const indeg = new Int32Array(b.nNodes);
  dropBackward(b, indeg);
  explainStarts(b, indeg);
}

/** Marks the edges that run back in time dropped (kind 255); counts the others into indeg. */
function dropBackward(b: GraphBuild, indeg: Int32Array): void {
  const { note, nodeTs, E } = b;
  const nE = E.n;
  const { src, dst, kind } = E;
  for (let e = 0; e < nE; e++) {
    const d = dst[e]!;
    if (nodeTs[d]! < nodeTs[src[e]!]!) {
      note('CP_NEGATIVE_EDGE', 'warning', 'an edge would run back in time (an event ends after the one that follows it on its thread, or a sync source ends after the call): it was left out');
      kind[e] = 255;
      b.dropped++;
    } else indeg[d]++;
  }
}

/** An edge from the source into every node with none. */
function explainStarts(b: GraphBuild, indeg: Int32Array): void {
  const { note, nNodes, E } = b;
  for (let n = 1; n < nNodes; n++) {
    if (indeg[n]! > 0) continue;
    note('CP_UNEXPLAINED_START', 'warning', 'an event has no edge that explains when it happened (no launch call, no stream order, no enclosing event): an edge from the instance start stands in');
    E.add(0, n, EK.Unexplained);
  }
}

/** Per edge kind but cpu: 1 when its time may be a wait (host-gap, join, launch, kernel-gap, sync, unexplained). */
const WAIT_KIND = new Uint8Array([0, 1, 0, 1, 0, 1, 1, 1, 1]);

// priority on ties: sync, kernel-gap, launch, host edges
const PRIO = new Uint8Array([1, 1, 3, 0, 4, 2, 3, 4, 0]);

/**
 * Marks each node's binding edge (see the module comment) and sets `isWait` to whether an
 * edge's time may be a wait. Host time before an event starts may be a wait (for another
 * thread); an event's end comes after its own work, unless the event is a call that blocks on
 * the GPU. (A kernel that started while the previous one ran: its edge from that one's start is
 * not a wait — the previous kernel's progress let it start, so it binds.)
 */
function bindEdges(b: GraphBuild, nE: number, src: Int32Array, dst: Int32Array, kind: Uint8Array, isWait: Uint8Array, tsDiff: Float64Array): Uint8Array {
  const { nNodes } = b;
  const best = new Int32Array(nNodes).fill(-1);
  bestEdges(b, nE, src, dst, kind, isWait, tsDiff, best);
  const binding = new Uint8Array(nE);
  markBinding(best, nNodes, binding);
  return binding;
}

/**
 * Per node, the edge in that was ready last (ties: PRIO) into best; isWait and the time difference
 * per edge (dropped ones left out: compacted away). The best edge's ready time is read back from
 * it (its wait flag is set by then) rather than kept per node.
 */
function bestEdges(b: GraphBuild, nE: number, src: Int32Array, dst: Int32Array, kind: Uint8Array, isWait: Uint8Array, tsDiff: Float64Array, best: Int32Array): void {
  const { nodeTs, nodeStart, nodeEvent } = b;
  const hostKind = b.host.kind;
  for (let e = 0; e < nE; e++) {
    const kd = kind[e]!;
    if (kd === 255) continue;
    const d = dst[e]!;
    // (only a runtime or driver call can block: no call to isBlocking for the ops)
    let wait: boolean;
    if (kd === EK.Cpu) {
      const hk = nodeStart[d] === 1 ? -1 : hostKind[nodeEvent[d]!]!;
      wait = hk === -1 || ((hk === HostKind.Runtime || hk === HostKind.Driver) && isBlocking(b, nodeEvent[d]!));
    } else wait = WAIT_KIND[kd] === 1;
    isWait[e] = wait ? 1 : 0;
    const srcTs = nodeTs[src[e]!]!;
    tsDiff[e] = nodeTs[d]! - srcTs;
    const ready = wait ? srcTs : nodeTs[d]!;
    const bi = best[d]!;
    const bestReady = bi < 0 ? -Infinity : isWait[bi] ? nodeTs[src[bi]!]! : nodeTs[d]!;
    if (ready > bestReady || (ready === bestReady && bi >= 0 && PRIO[kd]! > PRIO[kind[bi]!]!)) best[d] = e;
  }
}

function markBinding(best: Int32Array, nNodes: number, binding: Uint8Array): void {
  for (let n = 0; n < nNodes; n++) if (best[n]! >= 0) binding[best[n]!] = 1;
}

// ---- binding edges and weights
function weighEdges(b: GraphBuild): CriticalPathGraph {
  const { gpu, nodeTs, nodeEvent, nodeGpu, E } = b;
  // (the edge list's own arrays: compacted in place below, then kept as the graph's)
  const nE = E.n;
  const { src, dst, kind, attr, attrGpu } = E;
  const tsDiff = new Float64Array(nE);
  const isWait = new Uint8Array(nE);
  const binding = bindEdges(b, nE, src, dst, kind, isWait, tsDiff);

  const launchBy = new Map<number, number[]>();
  const gapBy = new Map<number, number[]>();
  bindingDiffsByDevice(nE, kind, binding, tsDiff, dst, nodeEvent, nodeGpu, gpu.device, launchBy, gapBy);
  const typicalLaunchNs = medianByDevice(launchBy);
  const typicalGapNs = medianByDevice(gapBy);
  const weight = new Float64Array(nE);
  if (b.hta) htaWeights(b, nE, dst, kind, binding, tsDiff, weight);
  else ownWeights(b, nE, dst, kind, binding, isWait, tsDiff, typicalLaunchNs, typicalGapNs, weight);
  // (nothing to compact when no edge was dropped)
  const w = b.dropped > 0 ? compact(nE, src, dst, kind, attr, attrGpu, tsDiff, weight, binding) : nE;
  return new CriticalPathGraph(b, w, { tsDiff, weight, binding }, lastTime(nodeTs, b.nNodes), typicalLaunchNs, typicalGapNs);
}

/** Kinetoscope's weights (the module comment says which). */
function ownWeights(
  b: GraphBuild,
  nE: number,
  dst: Int32Array,
  kind: Uint8Array,
  binding: Uint8Array,
  isWait: Uint8Array,
  tsDiff: Float64Array,
  typicalLaunchNs: ReadonlyMap<number, number>,
  typicalGapNs: ReadonlyMap<number, number>,
  weight: Float64Array,
): void {
  const { gpu, nodeEvent } = b;
  for (let e = 0; e < nE; e++) {
    const kd = kind[e]!;
    if (kd === 255) continue;
    if (binding[e] || !isWait[e]) weight[e] = tsDiff[e]!;
    else if (kd === EK.Launch || kd === EK.KernelGap) {
      const dev = gpu.device[nodeEvent[dst[e]!]!]!;
      const typ = (kd === EK.Launch ? typicalLaunchNs : typicalGapNs).get(dev) ?? 0;
      weight[e] = Math.min(typ, tsDiff[e]!);
    } else weight[e] = 0;
  }
}

/** HTA's weights; drops the kernel-kernel edges that did not bind. */
function htaWeights(b: GraphBuild, nE: number, dst: Int32Array, kind: Uint8Array, binding: Uint8Array, tsDiff: Float64Array, weight: Float64Array): void {
  const { nodeStart, nodeEvent } = b;
  for (let e = 0; e < nE; e++) {
    const kd = kind[e]!;
    if (kd === 255) continue;
    // HTA adds a kernel-kernel edge only where it binds (a launch edge always: zero-weight
    // where it does not, CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE)
    if (kd === EK.KernelGap && !binding[e]) {
      kind[e] = 255;
      b.dropped++;
      continue;
    }
    const blockedEnd = kd === EK.Cpu && nodeStart[dst[e]!] === 0 && isBlocking(b, nodeEvent[dst[e]!]!);
    const zero = kd === EK.HostGap || kd === EK.Sync || (kd === EK.Launch && !binding[e]) || blockedEnd;
    weight[e] = zero ? 0 : tsDiff[e]!;
  }
}

/** Compacts away the dropped edges (kind 255) in place; how many are left. */
function compact(nE: number, src: Int32Array, dst: Int32Array, kind: Uint8Array, attr: Int32Array, attrGpu: Uint8Array, tsDiff: Float64Array, weight: Float64Array, binding: Uint8Array): number {
  let w = 0;
  for (let e = 0; e < nE; e++) {
    if (kind[e] === 255) continue;
    src[w] = src[e]!;
    dst[w] = dst[e]!;
    kind[w] = kind[e]!;
    attr[w] = attr[e]!;
    attrGpu[w] = attrGpu[e]!;
    tsDiff[w] = tsDiff[e]!;
    weight[w] = weight[e]!;
    binding[w] = binding[e]!;
    w++;
  }
  return w;
}

/** The latest node time (from the source's on). */
function lastTime(nodeTs: Float64Array, nNodes: number): number {
  let tEnd = nodeTs[0]!;
  for (let n = 0; n < nNodes; n++) if (nodeTs[n]! > tEnd) tEnd = nodeTs[n]!;
  return tEnd;
}

/**
 * A built graph: its nodes and edges as typed columns. A class, not an object literal with
 * closures: every graph has one shape, its times sit in typed arrays (a time that fits a small
 * integer in one graph and not in the next would change the shape and throw away the optimised
 * code that reads graphs), and the lookups are methods on the prototype.
 */
export class CriticalPathGraph {
  readonly nodeCount: number;
  /** Host events in the graph: nodes 1 to 2·hostEventCount, the GPU activities' after them. */
  readonly hostEventCount: number;
  /** Node → event: host index, or GPU index when `nodeGpu`; -1 for the source node (node 0). */
  readonly nodeEvent: Int32Array;
  readonly nodeGpu: Uint8Array;
  readonly nodeStart: Uint8Array;
  readonly nodeTsNs: Float64Array;
  readonly edgeCount: number;
  readonly edgeSrc: Int32Array;
  readonly edgeDst: Int32Array;
  readonly edgeKind: Uint8Array;
  /** destination time − source time. */
  readonly edgeTsDiffNs: Float64Array;
  readonly edgeWeightNs: Float64Array;
  readonly edgeBinding: Uint8Array;
  /** The event an edge's time belongs to (HTA's attribution): host index, GPU index when `edgeAttrGpu`, -1 none. */
  readonly edgeAttr: Int32Array;
  readonly edgeAttrGpu: Uint8Array;
  /** Per device: the median binding launch delay and kernel-to-kernel gap used for edges that did not bind. */
  readonly typicalLaunchNs: ReadonlyMap<number, number>;
  readonly typicalGapNs: ReadonlyMap<number, number>;
  readonly diagnostics: readonly Diagnostic[];
  private readonly hLo: number;
  private readonly hostStartNode: Int32Array;
  private readonly gLo: number;
  private readonly gpuStartNode: Int32Array;
  /** The last node's time (the first node's is nodeTsNs[0]). */
  private readonly end = new Float64Array(1);
  /** The build's nodes and its first w edges (compacted), with their times, weights and binding. */
  constructor(
    b: GraphBuild,
    w: number,
    { tsDiff, weight, binding }: { readonly tsDiff: Float64Array; readonly weight: Float64Array; readonly binding: Uint8Array },
    endNs: number,
    typicalLaunchNs: ReadonlyMap<number, number>,
    typicalGapNs: ReadonlyMap<number, number>,
  ) {
    const { src, dst, kind, attr, attrGpu } = b.E;
    this.nodeCount = b.nNodes;
    this.hostEventCount = b.nHost;
    this.nodeEvent = b.nodeEvent;
    this.nodeGpu = b.nodeGpu;
    this.nodeStart = b.nodeStart;
    this.nodeTsNs = b.nodeTs;
    this.edgeCount = w;
    this.edgeSrc = src.subarray(0, w);
    this.edgeDst = dst.subarray(0, w);
    this.edgeKind = kind.subarray(0, w);
    this.edgeTsDiffNs = tsDiff.subarray(0, w);
    this.edgeWeightNs = weight.subarray(0, w);
    this.edgeBinding = binding.subarray(0, w);
    this.edgeAttr = attr.subarray(0, w);
    this.edgeAttrGpu = attrGpu.subarray(0, w);
    this.typicalLaunchNs = typicalLaunchNs;
    this.typicalGapNs = typicalGapNs;
    this.diagnostics = [...b.diags].map(([code, d]) => ({ code, severity: d.severity, message: d.message, count: d.count }));
    this.hLo = b.hLo;
    this.hostStartNode = b.hostStartNode;
    this.gLo = b.gLo;
    this.gpuStartNode = b.gpuStartNode;
    this.end[0] = endNs;
  }
  /** Where the graph was built from. */
  get startNs(): number {
    return this.nodeTsNs[0]!;
  }
  /** The last node's time: the instance's span ends here. */
  get endNs(): number {
    return this.end[0]!;
  }
  /** Start node of host event h / GPU activity g (its end node is the next), -1 when not in the graph. */
  hostStart(h: number): number {
    const i = h - this.hLo;
    return i >= 0 && i < this.hostStartNode.length ? this.hostStartNode[i]! : -1;
  }
  gpuStart(g: number): number {
    const i = g - this.gLo;
    return i >= 0 && i < this.gpuStartNode.length ? this.gpuStartNode[i]! : -1;
  }
  /** Start and end node of host event h / GPU activity g, -1 when not in the graph. */
  hostNodes(h: number): readonly [number, number] {
    const s = this.hostStart(h);
    return [s, s < 0 ? -1 : s + 1];
  }
  gpuNodes(g: number): readonly [number, number] {
    const s = this.gpuStart(g);
    return [s, s < 0 ? -1 : s + 1];
  }
}

/**
 * The nodes by time (ties: by node), as `[...nodes].sort(byTime)` orders them. A thread's walk
 * order is nearly always in time order already (torch nests events and lists children in start
 * order): then it is returned as it is, as the sort would leave it.
 */
function sortedByTime(nodes: number[], ts: Float64Array): number[] {
  return inTimeOrder(nodes, ts) ? nodes : [...nodes].sort((a, b) => ts[a]! - ts[b]! || a - b);
}

/** Whether no pair of neighbours of `nodes` is out of the sort's (time, node) order (checked without a call per pair). */
function inTimeOrder(nodes: readonly number[], ts: Float64Array): boolean {
  for (let i = 1; i < nodes.length; i++) {
    const a = nodes[i]!;
    const p = nodes[i - 1]!;
    const d = ts[a]! - ts[p]!;
    // before its neighbour by the sort's comparator: the time earlier, or (equal or unreadable) the node lower
    if (d < 0 || (!(d > 0) && a < p)) return false;
  }
  return true;
}

/** The start nodes of `seq`, in its order. */
function startNodesOf(seq: readonly number[], nodeStart: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < seq.length; i++) if (nodeStart[seq[i]!] === 1) out.push(seq[i]!);
  return out;
}

function lastAtOrBeforeNode(sorted: readonly number[], ts: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ts[sorted[mid]!]! <= x) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

function firstAtOrAfterNode(sorted: readonly number[], ts: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ts[sorted[mid]!]! >= x) {
      ans = mid;
      hi = mid - 1;
    } else lo = mid + 1;
  }
  return ans;
}

/** Per device, the median of its values. */
function medianByDevice(by: ReadonlyMap<number, number[]>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [dev, list] of by) {
    const l = ascending(list);
    const n = l.length;
    out.set(dev, n % 2 ? l[(n - 1) / 2]! : (l[n / 2 - 1]! + l[n / 2]!) / 2);
  }
  return out;
}

/**
 * The time differences of the binding launch and kernel-gap edges into GPU nodes, per device,
 * into `launchBy` and `gapBy`: one pass for both.
 */
function bindingDiffsByDevice(
  nE: number,
  kind: Uint8Array,
  binding: Uint8Array,
  tsDiff: Float64Array,
  dst: Int32Array,
  nodeEvent: Int32Array,
  nodeGpu: Uint8Array,
  device: Int32Array,
  launchBy: Map<number, number[]>,
  gapBy: Map<number, number[]>,
): void {
  for (let e = 0; e < nE; e++) {
    const k = kind[e]!;
    if (!binding[e] || (k !== EK.Launch && k !== EK.KernelGap) || !nodeGpu[dst[e]!]) continue;
    const by = k === EK.Launch ? launchBy : gapBy;
    const dev = device[nodeEvent[dst[e]!]!]!;
    const l = by.get(dev);
    if (l) l.push(tsDiff[e]!);
    else by.set(dev, [tsDiff[e]!]);
  }
}

/**
 * The numbers in ascending order, as `l.sort((a, b) => a - b)` orders them: by a typed array's
 * own sort (no call per comparison), unless a NaN or a −0 is among them (there the two sorts
 * differ, so the comparison sort it is).
 */
function ascending(l: number[]): ArrayLike<number> {
  return hasNaNOrMinusZero(l) ? l.sort((a, b) => a - b) : new Float64Array(l).sort();
}

function hasNaNOrMinusZero(l: readonly number[]): boolean {
  for (let i = 0; i < l.length; i++) {
    const x = l[i]!;
    if (x !== x || (x === 0 && 1 / x < 0)) return true;
  }
  return false;
}


