/**
 * What bounds a step: the longest path through the instance's dependency graph
 * (critical-path-graph.ts), read as a breakdown by what bounds it — CPU ops, kernel compute,
 * launch overhead, kernel-to-kernel gaps, synchronization — and as its heaviest segments; and
 * what-if answers: rescale some nodes (kernels by a name regex, an op's host time, the
 * launches) and take the longest path again, through the same graph.
 *
 * The longest path runs from the instance's start (node 0) in a topological order found by
 * Kahn's algorithm (iterative; ties at equal times are common, so time order alone is not one).
 * With the graph's own weights its length is the instance's span: every node's earliest time is
 * the time the trace shows (critical-path-graph.ts says why), so that path is read off the
 * binding edges instead, once checked (bindingPath), and the order is found only for a what-if
 * or where the check fails.
 *
 * Ignores: nodes the start cannot reach (counted in `unreachableNodes`).
 */
import { compareText } from '../../core/compare-text.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { buildCriticalPathGraph, EK, EDGE_KINDS, type CriticalPathGraph, type EdgeKind } from './critical-path-graph.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';
import { computeScopeInstances, type ScopeInstance } from '../host/scopes.js';
import { computeRecompute, recomputeRegionOfHost } from '../host/recompute.js';
import { regexHazard } from '../../core/safe-regex.js';

export const BOUND_KEYS = ['cpuUs', 'kernelUs', 'launchUs', 'kernelGapUs', 'syncUs', 'unexplainedUs'] as const;
export type BoundKey = (typeof BOUND_KEYS)[number];
export const BOUND_LABELS: Record<BoundKey, string> = {
  cpuUs: 'CPU ops',
  kernelUs: 'kernel compute',
  launchUs: 'launch overhead',
  kernelGapUs: 'kernel-to-kernel gaps',
  syncUs: 'synchronization',
  unexplainedUs: 'unexplained',
};

/** Which bound each edge kind counts toward. */
export function boundOf(kind: EK): BoundKey {
  switch (kind) {
    case EK.Cpu:
    case EK.HostGap:
    case EK.Spawn:
      return 'cpuUs';
    case EK.Gpu:
      return 'kernelUs';
    case EK.Launch:
      return 'launchUs';
    case EK.KernelGap:
      return 'kernelGapUs';
    case EK.Sync:
    case EK.Join:
      return 'syncUs';
    default:
      return 'unexplainedUs';
  }
}

/** boundOf as a table: per edge kind, its bound's index in BOUND_KEYS. */
const BOUND_OF_KIND = Uint8Array.from(EDGE_KINDS, (_, k) => BOUND_KEYS.indexOf(boundOf(k as EK)));

export interface LongestPath {
  /** Node ids from the start to the last node, and the edges between them. */
  readonly nodes: Int32Array;
  readonly edges: Int32Array;
  readonly lengthNs: number;
  readonly unreachableNodes: number;
  /** Nodes left out of the order because they sit on a cycle (0 on a well-formed trace). */
  readonly cycleNodes: number;
}

export interface PathOptions {
  /** HTA's semantics (nx.dag_longest_path): the path may start at any node. */
  readonly anyStart?: boolean;
}

/*
 * Each hot loop below sits in a function of its own that returns right after it (why:
 * critical-path-graph.ts, above rangeOf): the first steps of a report run optimised.
 */

/** Topological order (Kahn) of the graph's nodes; nodes on a cycle are left out. */
export function topologicalOrder(g: CriticalPathGraph): { order: Int32Array; outStart: Int32Array; outEdges: Int32Array } {
  const n = g.nodeCount;
  const nE = g.edgeCount;
  const { edgeSrc, edgeDst, nodeTsNs } = g;
  const outStart = new Int32Array(n + 1);
  const indeg = new Int32Array(n);
  countDegrees(nE, edgeSrc, edgeDst, outStart, indeg);
  prefixSums(n, outStart);
  const fill = outStart.slice(0, n);
  const outEdges = new Int32Array(nE);
  placeOutEdges(nE, edgeSrc, fill, outEdges);
  // a queue ordered by time would keep ties stable; a FIFO seeded in time order is enough here
  const seeds: number[] = [];
  sourcesOf(n, indeg, seeds);
  seeds.sort((a, b) => nodeTsNs[a]! - nodeTsNs[b]! || a - b);
  const order = new Int32Array(n);
  let tail = 0;
  for (const s of seeds) order[tail++] = s;
  tail = kahn(order, tail, outStart, outEdges, edgeDst, indeg);
  return { order: order.subarray(0, tail), outStart, outEdges };
}

/** Out-degrees (into outStart[src + 1]) and in-degrees. */
function countDegrees(nE: number, edgeSrc: Int32Array, edgeDst: Int32Array, outStart: Int32Array, indeg: Int32Array): void {
  for (let e = 0; e < nE; e++) {
    outStart[edgeSrc[e]! + 1]++;
    indeg[edgeDst[e]!]++;
  }
}

function prefixSums(n: number, outStart: Int32Array): void {
  for (let i = 0; i < n; i++) outStart[i + 1] += outStart[i]!;
}

/** Each node's out-edges, in edge order, from fill[node] on. */
function placeOutEdges(nE: number, edgeSrc: Int32Array, fill: Int32Array, outEdges: Int32Array): void {
  for (let e = 0; e < nE; e++) outEdges[fill[edgeSrc[e]!]!++] = e;
}

function sourcesOf(n: number, indeg: Int32Array, seeds: number[]): void {
  for (let i = 0; i < n; i++) if (indeg[i] === 0) seeds.push(i);
}

/** Kahn's FIFO from order[0..tail); the new tail. */
function kahn(order: Int32Array, tail: number, outStart: Int32Array, outEdges: Int32Array, edgeDst: Int32Array, indeg: Int32Array): number {
  let head = 0;
  while (head < tail) {
    const u = order[head++]!;
    const to = outStart[u + 1]!;
    for (let k = outStart[u]!; k < to; k++) {
      const v = edgeDst[outEdges[k]!]!;
      if (--indeg[v] === 0) order[tail++] = v;
    }
  }
  return tail;
}

/** The longest path from node 0 (or from anywhere, `anyStart`) under `weights`. */
export function longestPath(g: CriticalPathGraph, weights: Float64Array = g.edgeWeightNs, opts: PathOptions = {}, topo = topologicalOrder(g)): LongestPath {
  const n = g.nodeCount;
  const anyStart = !!opts.anyStart;
  const dist = new Float64Array(n).fill(anyStart ? 0 : -Infinity);
  const via = new Int32Array(n).fill(-1);
  if (!anyStart) dist[0] = 0;
  relax(topo, g.edgeDst, g.edgeBinding, weights, anyStart, dist, via);
  const end = pathEnd(n, dist, g.nodeTsNs);
  const { nodes, edges } = walkBack(g.edgeSrc, via, end);
  return { nodes, edges, lengthNs: end >= 0 ? dist[end]! : 0, unreachableNodes: unreachable(n, dist), cycleNodes: n - topo.order.length };
}

/**
 * longestPath under the graph's own weights (`g.edgeWeightNs`), read off the binding edges without
 * a topological order; undefined when the checks below fail (then longestPath decides).
 *
 * Why it is the same path: take D[v] = v's time − the start's (finite). When the start has no
 * edge in, every other node has one binding edge, each binding edge gives exactly D (D[src] +
 * weight = D[dst], the sum relax makes), no edge gives more, and the graph has no cycle, then
 * relax, in any topological order, leaves each node D and its binding edge as `via` (by
 * induction along the order: the binding edge reaches D, nothing exceeds it, and at a tie the
 * binding edge wins either way — it replaces an earlier edge, a later one does not replace it),
 * and Kahn's order holds every node (none unreachable, none on a cycle); pathEnd then picks the
 * first of the latest nodes. Edges run forward in time (backward ones were dropped), so a cycle
 * can only be of edges between nodes at one time, and none from the start: only those are
 * checked. The graph's weights make this hold on a well-formed trace (its binding edges weigh
 * what the trace shows).
 */
export function bindingPath(g: CriticalPathGraph): LongestPath | undefined {
  const n = g.nodeCount;
  const nE = g.edgeCount;
  const { edgeSrc, edgeDst, edgeBinding, edgeWeightNs, nodeTsNs } = g;
  const via = new Int32Array(n).fill(-1);
  const sameTime = bindingTight(nE, edgeSrc, edgeDst, edgeBinding, edgeWeightNs, nodeTsNs, via);
  if (sameTime < 0 || via[0]! >= 0) return undefined;
  const end = pathEndIfBound(n, nodeTsNs, via);
  if (end < 0) return undefined;
  if (sameTime > 0 && hasSameTimeCycle(nE, edgeSrc, edgeDst, nodeTsNs)) return undefined;
  const { nodes, edges } = walkBack(edgeSrc, via, end);
  return { nodes, edges, lengthNs: nodeTsNs[end]! - nodeTsNs[0]!, unreachableNodes: 0, cycleNodes: 0 };
}

/**
 * Checks every edge against D (bindingPath; D[v] = v's time − the start's, worked out per edge):
 * it runs forward in time, gives no more than D, exactly D when it binds (set as its
 * destination's `via`; a second one into a node, or one into the start, fails). How many edges
 * (not from the start) join two nodes at one time, or -1 when an edge fails.
 */
function bindingTight(nE: number, edgeSrc: Int32Array, edgeDst: Int32Array, edgeBinding: Uint8Array, weights: Float64Array, nodeTsNs: Float64Array, via: Int32Array): number {
  const t0 = nodeTsNs[0]!;
  let sameTime = 0;
  for (let e = 0; e < nE; e++) {
    const s = edgeSrc[e]!;
    const d = edgeDst[e]!;
    const ts = nodeTsNs[s]!;
    const td = nodeTsNs[d]!;
    const reach = ts - t0 + weights[e]!;
    const dd = td - t0;
    if (!(reach <= dd && ts <= td && d !== 0)) return -1;
    if (edgeBinding[e]) {
      if (reach !== dd || via[d]! >= 0) return -1;
      via[d] = e;
    }
    sameTime += ts === td && s !== 0 ? 1 : 0;
  }
  return sameTime;
}

/**
 * pathEnd's answer for the distances D (the first of the latest nodes: D grows with the time);
 * -1 when a node but the start has no binding edge or a time is not a finite number.
 */
function pathEndIfBound(n: number, nodeTsNs: Float64Array, via: Int32Array): number {
  const t0 = nodeTsNs[0]!;
  let ok = t0 - t0 === 0;
  let end = 0;
  let last = t0;
  for (let v = 1; v < n; v++) {
    const t = nodeTsNs[v]!;
    const d = t - t0;
    ok = ok && via[v]! >= 0 && d - d === 0;
    if (t > last) {
      last = t;
      end = v;
    }
  }
  return ok ? end : -1;
}

/** Whether the edges between nodes at one time (none from the start) close a cycle: Kahn's algorithm over them. */
function hasSameTimeCycle(nE: number, edgeSrc: Int32Array, edgeDst: Int32Array, nodeTsNs: Float64Array): boolean {
  const indeg = new Map<number, number>();
  const out = new Map<number, number[]>();
  let count = 0;
  for (let e = 0; e < nE; e++) {
    const s = edgeSrc[e]!;
    const d = edgeDst[e]!;
    if (s === 0 || nodeTsNs[s] !== nodeTsNs[d]) continue;
    count++;
    indeg.set(d, (indeg.get(d) ?? 0) + 1);
    const l = out.get(s);
    if (l) l.push(d);
    else out.set(s, [d]);
  }
  const queue = [...out.keys()].filter((u) => !indeg.has(u));
  let taken = 0;
  while (queue.length > 0) {
    for (const v of out.get(queue.pop()!) ?? []) {
      taken++;
      const left = indeg.get(v)! - 1;
      indeg.set(v, left);
      if (left === 0) queue.push(v);
    }
  }
  return taken < count;
}

/** Each node's longest distance and the edge it came by, in topological order. */
function relax(topo: { order: Int32Array; outStart: Int32Array; outEdges: Int32Array }, edgeDst: Int32Array, edgeBinding: Uint8Array, weights: Float64Array, anyStart: boolean, dist: Float64Array, via: Int32Array): void {
  const { order, outStart, outEdges } = topo;
  for (let i = 0; i < order.length; i++) {
    const u = order[i]!;
    const du = dist[u]!;
    if (du === -Infinity) continue;
    const to = outStart[u + 1]!;
    for (let k = outStart[u]!; k < to; k++) {
      const e = outEdges[k]!;
      const v = edgeDst[e]!;
      const d = du + weights[e]!;
      const cur = dist[v]!;
      // ties: keep the edge that bound in the trace
      if (d > cur || (d === cur && via[v]! >= 0 && edgeBinding[e]! > edgeBinding[via[v]!]!) || (anyStart && d === cur && via[v]! < 0 && d > 0)) {
        dist[v] = d;
        via[v] = e;
      }
    }
  }
}

/** The path's last node: the farthest reached (ties: the later, then the first); -1 when none. */
function pathEnd(n: number, dist: Float64Array, nodeTsNs: Float64Array): number {
  let end = -1;
  for (let i = 0; i < n; i++) {
    if (dist[i] === -Infinity) continue;
    if (end < 0 || dist[i]! > dist[end]! || (dist[i] === dist[end] && nodeTsNs[i]! > nodeTsNs[end]!)) end = i;
  }
  return end;
}

/** Nodes the start does not reach. */
function unreachable(n: number, dist: Float64Array): number {
  let count = 0;
  for (let i = 0; i < n; i++) if (dist[i] === -Infinity) count++;
  return count;
}

// ------------------------------------------------------------------------------------------------
// Reading a path

export type Bounds = Record<BoundKey, number>;

export interface PathSegment {
  /** What bounds this stretch of the path. */
  readonly bound: BoundKey;
  readonly startUs: number;
  readonly durUs: number;
  /** `thread 416` or `stream 7` (device 0), where the stretch ran. */
  readonly where: string;
  /**
   * The heaviest events of the stretch: ops (host) or kernels (GPU), with their time on the path.
   * Forward ops recomputed inside a backward node (host/recompute.ts) are one entry,
   * `recomputed forward (in NativeDropoutBackward0)`, apart from the node's own time; that entry
   * and the kernels they launched carry `recomputed`.
   */
  readonly events: readonly { readonly name: string; readonly gpu: boolean; readonly durUs: number; readonly count: number; readonly recomputed?: true }[];
  readonly edges: number;
}

export interface PathReading {
  readonly lengthUs: number;
  readonly bounds: Bounds;
  readonly edgeKinds: Record<EdgeKind, number>;
  /** Maximal runs of consecutive path edges with one bound on one thread or stream, heaviest first. */
  readonly segments: readonly PathSegment[];
  readonly nodeCount: number;
  /** GPU activities on the path, and those of them a CUDA-graph launch ran. */
  readonly gpuActivities: number;
  readonly graphLaunchedActivities: number;
}

const us = (ns: number) => ns / 1000;

function placeName(m: TraceModel, place: number): string {
  if (place === Number.MAX_SAFE_INTEGER) return 'start';
  if (place < 0) {
    const key = -1 - place;
    const device = Math.floor(key / 4294967296);
    return `stream ${key - device * 4294967296} (device ${device})`;
  }
  const t = m.threads[place];
  return t ? `thread ${String(t.tid)}` : 'thread ?';
}

/**
 * The event an edge's time belongs to — its attributed event, else its destination's — as
 * host index h ≥ 0 or GPU index g as −1 − g; undefined for edges between events (gaps, joins).
 */
function eventOf(g: CriticalPathGraph, e: number): number | undefined {
  let ev = g.edgeAttr[e]!;
  let gpu = g.edgeAttrGpu[e]! === 1;
  if (ev < 0) {
    const k = g.edgeKind[e]! as EK;
    if (k === EK.HostGap || k === EK.Join || k === EK.Spawn || k === EK.Unexplained) return undefined;
    const d = g.edgeDst[e]!;
    ev = g.nodeEvent[d]!;
    gpu = g.nodeGpu[d] === 1;
    if (ev < 0) return undefined;
  }
  return gpu ? -1 - ev : ev;
}

export function readPath(m: TraceModel, g: CriticalPathGraph, p: LongestPath, weights: Float64Array = g.edgeWeightNs, limit = 10): PathReading {
  const boundNs = new Float64Array(BOUND_KEYS.length);
  const kindNs = new Float64Array(EDGE_KINDS.length);
  // segments as ranges of path edges [from, to) with their bound, place and time; only the
  // heaviest `limit` are read in full (a GPU-bound path alternates kernels and gaps: a segment
  // per edge, hundreds of thousands on a long step)
  const segs: Segments = { from: [], bound: [], place: [], ns: [] };
  // GPU activities on the path, and those of them a CUDA-graph launch ran
  const acts = new Int32Array(2);
  splitPath(m, g, p.edges, weights, boundNs, kindNs, segs, acts);
  const bounds = Object.fromEntries(BOUND_KEYS.map((key, i) => [key, us(boundNs[i]!)])) as Bounds;
  const edgeKinds = Object.fromEntries(EDGE_KINDS.map((key, i) => [key, us(kindNs[i]!)])) as Record<EdgeKind, number>;
  // the segments (their events, most of a reading's work) are read at the first look:
  // `critical-path` prints only the longest instance's, `report` the first of each
  let segments: readonly PathSegment[] | undefined;
  return {
    lengthUs: us(p.lengthNs),
    bounds,
    edgeKinds,
    get segments(): readonly PathSegment[] {
      return (segments ??= readSegments(m, g, p, weights, segs, limit));
    },
    nodeCount: p.nodes.length,
    gpuActivities: acts[0]!,
    graphLaunchedActivities: acts[1]!,
  };
}

/** The heaviest `limit` segments, heaviest first, each with its heaviest events. */
function readSegments(m: TraceModel, g: CriticalPathGraph, p: LongestPath, weights: Float64Array, segs: Segments, limit: number): PathSegment[] {
  const top = heaviest(segs.ns, limit);
  // an event counted in segment j is stamped j + 1 at its start node
  const stamp = top.length > 0 ? new Int32Array(g.nodeCount) : new Int32Array(0);
  // a name's entry in a segment's list, + 1 (0: none yet): host name ids first, GPU ones after
  // them, then the recomputed forward by its holder's name and the kernels it launched
  // (RECOMPUTE_HOST, RECOMPUTE_GPU); put back to 0 after each segment
  const nameSlot = top.length > 0 ? new Int32Array(4 * m.strings.size) : new Int32Array(0);
  const recompute = top.length > 0 ? recomputeOnPath(m) : undefined;
  return top.map((j) => {
    const from = segs.from[j]!;
    const to = j + 1 < segs.from.length ? segs.from[j + 1]! : p.edges.length;
    // events by name (GPU names apart from host names), with their time and instances, in the
    // order their names first appear
    const acc: EventsByName[] = [];
    eventsOn(m, g, p.edges, weights, from, to, j + 1, stamp, nameSlot, acc, recompute!);
    for (const x of acc) nameSlot[x.key] = 0;
    const events = firstThree(
      acc.map((x) => ({ name: x.recomputed && !x.gpu ? `recomputed forward (in ${m.strings.get(x.name)})` : m.strings.get(x.name), gpu: x.gpu, recomputed: x.recomputed, durNs: x.durNs, count: x.count })),
      (a, b) => b.durNs - a.durNs || compareText(a.name, b.name),
    ).map((x) => ({ name: x.name, gpu: x.gpu, durUs: us(x.durNs), count: x.count, ...(x.recomputed ? { recomputed: true as const } : {}) }));
    const startNs = g.nodeTsNs[g.edgeSrc[p.edges[from]!]!]!;
    return { bound: BOUND_KEYS[segs.bound[j]!]!, where: placeName(m, segs.place[j]!), startUs: us(startNs - g.startNs), durUs: us(segs.ns[j]!), edges: to - from, events };
  });
}

/** A path's segments: first edge, bound (index in BOUND_KEYS), place (splitPath's) and time. */
interface Segments {
  readonly from: number[];
  readonly bound: number[];
  readonly place: number[];
  readonly ns: number[];
}

/**
 * One pass over the path's edges: time per bound and per edge kind, the segments; how many GPU
 * activities the path has, and how many of them a CUDA-graph launch ran, into acts[0] and acts[1]
 * (counted in the loop: nothing after it, see above topologicalOrder).
 */
function splitPath(m: TraceModel, g: CriticalPathGraph, edges: Int32Array, weights: Float64Array, boundNs: Float64Array, kindNs: Float64Array, segs: Segments, acts: Int32Array): void {
  const { from, bound, place: places, ns } = segs;
  const { edgeKind, edgeSrc, edgeDst, nodeEvent, nodeGpu } = g;
  const { device, stream } = m.gpu;
  const thread = m.host.thread;
  const calls = runtimeCallFlags(m);
  let curBound = -1;
  let curPlace = 0;
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i]!;
    const k = edgeKind[e]! as EK;
    const w = weights[e]!;
    const b = BOUND_OF_KIND[k]!;
    boundNs[b]! += w;
    kindNs[k]! += w;
    // an activity's own edge (start → its end), not the start → start edge of an overlap
    if (k === EK.Gpu && edgeDst[e] === edgeSrc[e]! + 1) {
      acts[0]++;
      const l = m.gpu.launcher[nodeEvent[edgeSrc[e]!]!]!;
      if (l >= 0 && calls[l]! & CallFlag.GraphLaunch) acts[1]++;
    }
    // where the edge ran, as a number: its destination's thread (host index ≥ 0) or stream (−1 −
    // device·2³² − stream), the start's MAX_SAFE_INTEGER; the text is made once per segment
    // (`placeName`). A launch, a gap or a stream wait ends on the GPU; a host sync on the host.
    const node = edgeDst[e]!;
    const ev = nodeEvent[node]!;
    const place = ev < 0 ? Number.MAX_SAFE_INTEGER : nodeGpu[node] ? -1 - (device[ev]! * 4294967296 + stream[ev]!) : thread[ev]!;
    if (curBound !== b || curPlace !== place) {
      from.push(i);
      bound.push(b);
      places.push(place);
      ns.push(0);
      curBound = b;
      curPlace = place;
    }
    ns[ns.length - 1] += w;
  }
}

/**
 * The first three of `xs` in `cmp` order, as `[...xs].sort(cmp).slice(0, 3)` gives them (the
 * sort is stable: of equals, the earlier first), without sorting the rest.
 */
function firstThree<T>(xs: readonly T[], cmp: (a: T, b: T) => number): T[] {
  const top: T[] = [];
  for (const x of xs) {
    let at = top.length;
    while (at > 0 && cmp(x, top[at - 1]!) < 0) at--;
    if (at < 3) top.splice(at, 0, x);
    if (top.length > 3) top.pop();
  }
  return top;
}

/** The `limit` heaviest segments, heaviest first (ties: the earlier), by one pass keeping a short sorted list. */
function heaviest(segNs: readonly number[], limit: number): number[] {
  const top: number[] = [];
  for (let j = 0; j < segNs.length; j++) {
    if (top.length === limit && !(segNs[j]! > segNs[top[top.length - 1]!]!)) continue;
    let at = top.length;
    while (at > 0 && segNs[j]! > segNs[top[at - 1]!]!) at--;
    top.splice(at, 0, j);
    if (top.length > limit) top.pop();
  }
  return top;
}

/** One name's events in a segment: their time on the path and how many. */
interface EventsByName {
  /** The event's name id; for the recomputed forward, its holder's. */
  readonly name: number;
  /** Its slot in `nameSlot`. */
  readonly key: number;
  readonly gpu: boolean;
  readonly recomputed: boolean;
  durNs: number;
  count: number;
}

/** What the path reading needs of the recompute (host/recompute.ts): each host event's region, each region's holder and window. */
interface RecomputeOnPath {
  readonly regionOf: Int32Array;
  readonly holder: Int32Array;
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  /** Its first recomputed op: an entry counts regions by their first op's node. */
  readonly firstOp: Int32Array;
  /** Region by holder host index. */
  readonly byHolder: Map<number, number>;
}

function recomputeOnPath(m: TraceModel): RecomputeOnPath {
  const regions = computeRecompute(m).regions;
  return {
    regionOf: regions.length ? recomputeRegionOfHost(m) : new Int32Array(0),
    holder: Int32Array.from(regions, (r) => r.holder),
    startNs: Float64Array.from(regions, (r) => r.startNs),
    endNs: Float64Array.from(regions, (r) => r.endNs),
    firstOp: Int32Array.from(regions, (r) => r.ops[0]!),
    byHolder: new Map(regions.map((r, k) => [r.holder, k])),
  };
}

/**
 * The events of path edges [from, to) by name into acc (a name's entry found through
 * nameSlot, see readPath), with their time and instances (an instance counted once: stamped
 * `mark` at its start node).
 */
function eventsOn(
  m: TraceModel,
  g: CriticalPathGraph,
  edges: Int32Array,
  weights: Float64Array,
  from: number,
  to: number,
  mark: number,
  stamp: Int32Array,
  nameSlot: Int32Array,
  acc: EventsByName[],
  rc: RecomputeOnPath,
): void {
  const size = m.strings.size;
  for (let i = from; i < to; i++) {
    const e = edges[i]!;
    const w = weights[e]!;
    const ev = eventOf(g, e);
    if (ev === undefined || !(w > 0)) continue;
    const gpu = ev < 0;
    let name = gpu ? m.gpu.name[-1 - ev]! : m.host.name[ev]!;
    // The recomputed forward's time is its own entry, named by the backward node that holds it:
    // its ops and what is nested in them, and the holder's own time inside the recompute's window.
    let region = -1;
    if (rc.holder.length) {
      const h = gpu ? m.gpu.launcher[-1 - ev]! : ev;
      if (h >= 0) region = rc.regionOf[h]!;
      if (region < 0 && !gpu) {
        const k = rc.byHolder.get(ev);
        if (k !== undefined && g.nodeTsNs[g.edgeSrc[e]!]! >= rc.startNs[k]! && g.nodeTsNs[g.edgeDst[e]!]! <= rc.endNs[k]!) region = k;
      }
    }
    const recomputed = region >= 0;
    if (recomputed && !gpu) name = m.host.name[rc.holder[region]!]!;
    const key = (recomputed ? 2 * size : 0) + (gpu ? size : 0) + name;
    let x: EventsByName;
    const at = nameSlot[key]!;
    if (at > 0) x = acc[at - 1]!;
    else {
      x = { name, key, gpu, recomputed, durNs: 0, count: 0 };
      nameSlot[key] = acc.push(x);
    }
    x.durNs += w;
    let node = gpu ? g.gpuStart(-1 - ev) : recomputed ? g.hostStart(rc.firstOp[region]!) : g.hostStart(ev);
    if (node < 0) node = gpu ? g.gpuStart(-1 - ev) : g.hostStart(ev);
    if (stamp[node] !== mark) {
      stamp[node] = mark;
      x.count++;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// What-if

export type WhatIfTarget =
  | { readonly kind: 'launch' }
  | { readonly kind: 'host' }
  | { readonly kind: 'op'; readonly name: string }
  | { readonly kind: 'kernel'; readonly pattern: string };

export interface WhatIfRule {
  readonly text: string;
  readonly target: WhatIfTarget;
  readonly factor: number;
}

/**
 * `REGEX=F`, `OPNAME=F`, `launch=F` or `host=F` (F ≥ 0). Which target a name is is decided
 * against the trace: `launch` the launches, `host` every host edge (cpu, host-gap, spawn), an
 * exact `cpu_op` or `user_annotation` name an op, anything else a regex over GPU activity
 * names. Throws a plain Error with a sentence on bad text.
 */
export function parseWhatIf(m: TraceModel, text: string): WhatIfRule {
  const at = text.lastIndexOf('=');
  if (at <= 0) throw new Error(`--what-if '${text}' is not TARGET=FACTOR (e.g. 'gemm=0.5', 'aten::mm=0.5', 'launch=0')`);
  const target = text.slice(0, at);
  const factor = Number(text.slice(at + 1));
  if (!Number.isFinite(factor) || factor < 0) throw new Error(`--what-if '${text}': the factor must be a number ≥ 0`);
  if (target === 'launch') return { text, target: { kind: 'launch' }, factor };
  if (target === 'host') return { text, target: { kind: 'host' }, factor };
  const id = m.strings.find(target);
  if (id !== undefined && id >= 0) {
    for (let h = 0; h < m.host.length; h++) if (m.host.name[h] === id && isOpOrAnnotation(m.host.kind[h]!)) return { text, target: { kind: 'op', name: target }, factor };
  }
  try {
    new RegExp(target);
  } catch {
    throw new Error(`--what-if '${text}': '${target}' is neither an op name in the trace nor a valid regular expression`);
  }
  // The pattern runs over kernel names the trace chose: held to the safe subset (core/safe-regex.ts).
  const hazard = regexHazard(target);
  if (hazard) throw new Error(`--what-if '${text}': '${target}' is refused: ${hazard}; kinetoscope runs patterns in a safe subset (see check --help)`);
  return { text, target: { kind: 'kernel', pattern: target }, factor };
}

export interface WhatIfResult {
  readonly rules: readonly { readonly text: string; readonly target: string; readonly factor: number; readonly matchedEvents: number; readonly scaledUs: number }[];
  readonly lengthUs: number;
  readonly deltaUs: number;
  readonly reading: PathReading;
  /** Segments of the new path made of edges that were not on the old one: the chain that became critical. */
  readonly newlyCritical: readonly PathSegment[];
  /** Share of the new path's length on edges the old path did not use. */
  readonly newShare: number;
}

/**
 * The weights with the rules applied: kernels matching a regex (their start → end), an op's host
 * time (the cpu edges of the op and of everything nested in it), or the launches (launch edges,
 * and the host time of kernel/graph launch calls).
 */
export function whatIfWeights(m: TraceModel, g: CriticalPathGraph, rules: readonly WhatIfRule[]): { weights: Float64Array; matched: number[]; scaledNs: number[] } {
  const w = Float64Array.from(g.edgeWeightNs);
  const matched: number[] = [];
  const scaledNs: number[] = [];
  const opUnder = new Map<number, boolean>();
  for (const r of rules) {
    let count = 0;
    let scaled = 0;
    const seen = new Set<number>();
    const scale = (e: number) => {
      scaled += w[e]! * (1 - r.factor);
      w[e] = w[e]! * r.factor;
    };
    if (r.target.kind === 'kernel') {
      const re = new RegExp(r.target.pattern);
      const cache = new Map<number, boolean>();
      for (let e = 0; e < g.edgeCount; e++) {
        if (g.edgeKind[e] !== EK.Gpu) continue;
        const ev = g.nodeEvent[g.edgeSrc[e]!]!;
        const nm = m.gpu.name[ev]!;
        let ok = cache.get(nm);
        if (ok === undefined) cache.set(nm, (ok = re.test(m.strings.get(nm))));
        if (!ok) continue;
        if (!seen.has(ev)) {
          seen.add(ev);
          count++;
        }
        scale(e);
      }
    } else if (r.target.kind === 'op') {
      const id = m.strings.find(r.target.name)!;
      opUnder.clear();
      const under = (h: number): boolean => {
        // iterative walk up to the first answer known
        const chain: number[] = [];
        let p = h;
        let ans = false;
        while (p >= 0) {
          const known = opUnder.get(p);
          if (known !== undefined) {
            ans = known;
            break;
          }
          chain.push(p);
          if (m.host.name[p] === id && isOpOrAnnotation(m.host.kind[p]!)) {
            ans = true;
            break;
          }
          p = m.host.parent[p]!;
        }
        for (const c of chain) opUnder.set(c, ans);
        return ans;
      };
      for (let e = 0; e < g.edgeCount; e++) {
        if (g.edgeKind[e] !== EK.Cpu || g.edgeAttrGpu[e]) continue;
        const h = g.edgeAttr[e]!;
        if (h < 0 || !under(h)) continue;
        let p = h;
        while (p >= 0 && !(m.host.name[p] === id && isOpOrAnnotation(m.host.kind[p]!))) p = m.host.parent[p]!;
        if (p >= 0 && !seen.has(p)) {
          seen.add(p);
          count++;
        }
        scale(e);
      }
    } else if (r.target.kind === 'host') {
      for (let e = 0; e < g.edgeCount; e++) {
        const k = g.edgeKind[e]!;
        if (k === EK.Cpu || k === EK.HostGap || k === EK.Spawn) scale(e);
      }
      count = (g.nodeCount - 1) / 2;
      let gpuEvents = 0;
      for (let n = 1; n < g.nodeCount; n += 2) if (g.nodeGpu[n]) gpuEvents++;
      count -= gpuEvents;
    } else {
      const calls = runtimeCallFlags(m);
      for (let e = 0; e < g.edgeCount; e++) {
        const k = g.edgeKind[e]!;
        if (k === EK.Launch) {
          scale(e);
          continue;
        }
        if (k !== EK.Cpu || g.edgeAttrGpu[e]) continue;
        const h = g.edgeAttr[e]!;
        // a launch API's call (its flags are none unless it is a runtime or driver call)
        if (h < 0 || !(calls[h]! & CallFlag.LaunchApi)) continue;
        if (!seen.has(h)) {
          seen.add(h);
          count++;
        }
        scale(e);
      }
    }
    matched.push(count);
    scaledNs.push(scaled);
  }
  return { weights: w, matched, scaledNs };
}

export function computeWhatIf(m: TraceModel, g: CriticalPathGraph, base: LongestPath, rules: readonly WhatIfRule[], topo = topologicalOrder(g)): WhatIfResult {
  const { weights, matched, scaledNs } = whatIfWeights(m, g, rules);
  const p = longestPath(g, weights, {}, topo);
  const reading = readPath(m, g, p, weights);
  const onOld = new Uint8Array(g.edgeCount);
  for (const e of base.edges) onOld[e] = 1;
  // the new chain's segments: the new path read with the old edges weighing nothing
  const onlyNew = new Float64Array(weights.length);
  let freshNs = 0;
  for (const e of p.edges) {
    if (onOld[e]) continue;
    onlyNew[e] = weights[e]!;
    freshNs += weights[e]!;
  }
  const newly = readPath(m, g, p, onlyNew).segments.filter((s) => s.durUs > 0);
  return {
    rules: rules.map((r, i) => ({
      text: r.text,
      target: r.target.kind === 'launch' ? 'launches' : r.target.kind === 'host' ? 'host events' : r.target.kind === 'op' ? `op ${r.target.name}` : `GPU activities matching /${r.target.pattern}/`,
      factor: r.factor,
      matchedEvents: matched[i]!,
      scaledUs: scaledNs[i]! / 1000,
    })),
    lengthUs: us(p.lengthNs),
    deltaUs: us(p.lengthNs - base.lengthNs),
    reading,
    newlyCritical: newly,
    newShare: p.lengthNs > 0 ? freshNs / p.lengthNs : 0,
  };
}

// ------------------------------------------------------------------------------------------------
// One instance, end to end

export interface CriticalPathResult {
  /** `ProfilerStep#3`, the annotation name, or `trace`. */
  readonly instance: string;
  readonly instanceIndex: number;
  readonly startUs: number;
  /** From the instance's start to its last event (host or GPU). */
  readonly spanUs: number;
  readonly lengthUs: number;
  readonly graph: { readonly nodes: number; readonly edges: number; readonly hostEvents: number; readonly gpuActivities: number; readonly unreachableNodes: number; readonly cycleNodes: number };
  readonly reading: PathReading;
  readonly typicalLaunchUs: Record<string, number>;
  readonly typicalGapUs: Record<string, number>;
  readonly whatIf: WhatIfResult | undefined;
  /** With HTA's weights only: the path edge by edge (HTA's critical path edges, their weights). */
  readonly pathEdges?: readonly PathEdge[];
}

/** One edge of a path: its kind, weight, the times of its ends, and the event its time belongs to. */
export interface PathEdge {
  readonly kind: EdgeKind;
  readonly weightUs: number;
  /** Its source and destination nodes' times, µs from the instance's start. */
  readonly fromUs: number;
  readonly toUs: number;
  /** The event the edge's time is attributed to (eventOf); null for an edge between events (a gap, a join). */
  readonly event: string | null;
  readonly gpu: boolean;
}

/** The path's edges in order (for --hta-compat: HTA lists them, and its weights are the point). */
export function pathEdges(m: TraceModel, g: CriticalPathGraph, p: LongestPath): PathEdge[] {
  const out: PathEdge[] = [];
  for (const e of p.edges) {
    const ev = eventOf(g, e);
    out.push({
      kind: EDGE_KINDS[g.edgeKind[e]!]!,
      weightUs: us(g.edgeWeightNs[e]!),
      fromUs: us(g.nodeTsNs[g.edgeSrc[e]!]! - g.startNs),
      toUs: us(g.nodeTsNs[g.edgeDst[e]!]! - g.startNs),
      event: ev === undefined ? null : ev >= 0 ? m.strings.get(m.host.name[ev]!) : m.strings.get(m.gpu.name[-1 - ev]!),
      gpu: ev !== undefined && ev < 0,
    });
  }
  return out;
}

function isOpOrAnnotation(kind: number): boolean {
  return kind === HostKind.Op || kind === HostKind.Annotation;
}

/**
 * HTA's `nx.dag_longest_path(weight)`: over nodes in topological order, each takes the first
 * heaviest of its in-edges (in insertion order) when that sum is ≥ 0; the path ends at the
 * first node in that order with the largest distance. Used for HTA parity only.
 */
export function htaLongestPath(g: CriticalPathGraph, topo = topologicalOrder(g)): LongestPath {
  const n = g.nodeCount;
  const inStart = new Int32Array(n + 1);
  for (let e = 0; e < g.edgeCount; e++) inStart[g.edgeDst[e]! + 1]++;
  for (let i = 0; i < n; i++) inStart[i + 1] += inStart[i]!;
  const fill = inStart.slice(0, n);
  const inEdges = new Int32Array(g.edgeCount);
  for (let e = 0; e < g.edgeCount; e++) inEdges[fill[g.edgeDst[e]!]!++] = e;
  const dist = new Float64Array(n);
  const via = new Int32Array(n).fill(-1);
  // node 0 (kinetoscope's source) is not part of HTA's graph
  const skip = (e: number) => g.edgeSrc[e] === 0;
  for (let i = 0; i < topo.order.length; i++) {
    const v = topo.order[i]!;
    let best = -Infinity;
    let bestE = -1;
    for (let k = inStart[v]!; k < inStart[v + 1]!; k++) {
      const e = inEdges[k]!;
      if (skip(e)) continue;
      const d = dist[g.edgeSrc[e]!]! + g.edgeWeightNs[e]!;
      if (d > best) {
        best = d;
        bestE = e;
      }
    }
    if (bestE >= 0 && best >= 0) {
      dist[v] = best;
      via[v] = bestE;
    }
  }
  let end = -1;
  for (let i = 0; i < topo.order.length; i++) {
    const v = topo.order[i]!;
    if (v === 0) continue;
    if (end < 0 || dist[v]! > dist[end]!) end = v;
  }
  const { nodes, edges } = walkBack(g.edgeSrc, via, end);
  return { nodes, edges, lengthNs: end >= 0 ? dist[end]! : 0, unreachableNodes: 0, cycleNodes: n - topo.order.length };
}

export interface CriticalPathOptions {
  readonly step?: number;
  readonly annotation?: string;
  /** 0-based instance of the annotation. */
  readonly instance?: number;
  readonly whatIf?: readonly string[];
  readonly segments?: number;
}

/**
 * The instances to read: one step, one occurrence of an annotation (every occurrence counts,
 * nested ones too, in start order: HTA's positional `instance_id`), every step or every
 * outermost occurrence, or the whole trace.
 */
export function selectInstances(m: TraceModel, opts: CriticalPathOptions): ScopeInstance[] {
  if (opts.annotation !== undefined) {
    if (opts.instance === undefined) return computeScopeInstances(m, { per: 'annotation', name: opts.annotation });
    const id = m.strings.find(opts.annotation);
    const roots: number[] = [];
    if (id !== undefined && id >= 0) {
      for (let h = 0; h < m.host.length; h++) if (m.host.name[h] === id && (m.host.kind[h] === HostKind.Annotation || m.host.kind[h] === HostKind.Op)) roots.push(h);
    }
    roots.sort((a, b) => m.host.startNs[a]! - m.host.startNs[b]! || a - b);
    const r = roots[opts.instance];
    return r === undefined ? [] : [instanceOf(m, r, opts.instance)];
  }
  if (m.steps.length > 0) {
    const all = computeScopeInstances(m, { per: 'step' });
    if (opts.step === undefined) return all;
    return all.filter((x) => m.steps.find((s) => s.host === x.root)?.number === opts.step);
  }
  if (opts.step !== undefined) return [];
  return computeScopeInstances(m, { per: 'trace' });
}

/**
 * One occurrence of an annotation as an instance, by scopes.ts's rules (its subtree on its
 * thread, other threads' events that start inside it, the GPU work they launched), even when
 * it is nested inside another occurrence of the same name.
 */
function instanceOf(m: TraceModel, root: number, index: number): ScopeInstance {
  const { host, gpu } = m;
  const inside = new Uint8Array(host.length);
  const stack = [root];
  while (stack.length > 0) {
    const i = stack.pop()!;
    inside[i] = 1;
    for (let c = host.firstChild[i]!; c >= 0; c = host.nextSibling[c]!) stack.push(c);
  }
  const s = host.startNs[root]!;
  const e = s + host.durNs[root]!;
  const hostEvents: number[] = [];
  for (let h = 0; h < host.length; h++) {
    if (h === root) continue;
    if (!inside[h] && host.thread[h] !== host.thread[root] && host.startNs[h]! >= s && host.startNs[h]! < e) inside[h] = 1;
    if (inside[h]) hostEvents.push(h);
  }
  hostEvents.sort((a, b) => host.startNs[a]! - host.startNs[b]! || a - b);
  const g: number[] = [];
  for (let k = 0; k < gpu.length; k++) {
    const l = gpu.launcher[k]!;
    const o = gpu.owner[k]!;
    if ((l >= 0 && inside[l]) || (l < 0 && o >= 0 && inside[o])) g.push(k);
  }
  return { index, name: m.strings.get(host.name[root]!), root, startNs: s, endNs: e, hostEvents, gpu: g };
}

/**
 * One instance read end to end. `hta`: HTA's graph and weights (critical-path-graph.ts) and its
 * longest path (htaLongestPath), to reproduce HTA's figures; no what-if then (it needs the
 * weights that sum to the span).
 */
export function analyzeInstance(m: TraceModel, inst: ScopeInstance, rules: readonly WhatIfRule[], segments = 10, opts: { readonly hta?: boolean } = {}): CriticalPathResult & { readonly diagnostics: readonly Diagnostic[]; readonly graphData: CriticalPathGraph; readonly path: LongestPath } {
  if (opts.hta && rules.length > 0) throw new Error('analyzeInstance: no what-if under HTA weights');
  const g = buildCriticalPathGraph(m, inst, { hta: opts.hta });
  let topo: ReturnType<typeof topologicalOrder> | undefined;
  let p: LongestPath;
  if (opts.hta) {
    topo = topologicalOrder(g);
    p = htaLongestPath(g, topo);
  } else {
    // (the topological order only where the binding edges do not give the path, or for a what-if)
    const fast = bindingPath(g);
    topo = fast && rules.length === 0 ? undefined : topologicalOrder(g);
    p = fast ?? longestPath(g, g.edgeWeightNs, {}, topo);
  }
  const reading = readPath(m, g, p, g.edgeWeightNs, segments);
  const byDev = (x: ReadonlyMap<number, number>) => Object.fromEntries([...x].map(([d, v]) => [String(d), v / 1000]));
  const hostEvents = g.hostEventCount;
  const diagnostics = [...g.diagnostics];
  if (p.unreachableNodes > 0) diagnostics.push({ code: 'CP_UNREACHABLE', severity: 'info', message: `${p.unreachableNodes} nodes cannot be reached from the instance's start (no edge ties them to it): they are not on any path`, count: p.unreachableNodes });
  if (p.cycleNodes > 0) diagnostics.push({ code: 'CP_CYCLE', severity: 'warning', message: `${p.cycleNodes} nodes sit on a cycle of zero-length edges and were left out of the path`, count: p.cycleNodes });
  const spanNs = g.endNs - g.startNs;
  // (HTA's weights leave gaps and waits out: its path is shorter than the span by design)
  if (!opts.hta && Math.abs(p.lengthNs - spanNs) > 0.5) diagnostics.push({ code: 'CP_LENGTH_NOT_SPAN', severity: 'warning', message: `the path's length (${(p.lengthNs / 1000).toFixed(3)} µs) is not the instance's span (${(spanNs / 1000).toFixed(3)} µs): some node's time is not explained by its edges` });
  return {
    instance: inst.name,
    instanceIndex: inst.index,
    startUs: g.startNs / 1000,
    spanUs: spanNs / 1000,
    lengthUs: p.lengthNs / 1000,
    graph: { nodes: g.nodeCount, edges: g.edgeCount, hostEvents, gpuActivities: (g.nodeCount - 1) / 2 - hostEvents, unreachableNodes: p.unreachableNodes, cycleNodes: p.cycleNodes },
    reading,
    typicalLaunchUs: byDev(g.typicalLaunchNs),
    typicalGapUs: byDev(g.typicalGapNs),
    whatIf: rules.length > 0 ? computeWhatIf(m, g, p, rules, topo) : undefined,
    ...(opts.hta ? { pathEdges: pathEdges(m, g, p) } : {}),
    diagnostics,
    graphData: g,
    path: p,
  };
}

/** The path that ends at `end`, read back through each node's best incoming edge (`via`, -1 at the start). */
function walkBack(edgeSrc: Int32Array, via: Int32Array, end: number): { nodes: Int32Array; edges: Int32Array } {
  if (end < 0) return { nodes: new Int32Array(0), edges: new Int32Array(0) };
  // counted first, then written from the end back
  const len = edgesBack(edgeSrc, via, end);
  const nodes = new Int32Array(len + 1);
  const edges = new Int32Array(len);
  let v = end;
  nodes[len] = v;
  for (let i = len - 1; i >= 0; i--) {
    const e = via[v]!;
    edges[i] = e;
    v = edgeSrc[e]!;
    nodes[i] = v;
  }
  return { nodes, edges };
}

/** How many edges the path that ends at `end` has. */
function edgesBack(edgeSrc: Int32Array, via: Int32Array, end: number): number {
  let len = 0;
  for (let e = via[end]!; e >= 0; e = via[edgeSrc[e]!]!) len++;
  return len;
}
