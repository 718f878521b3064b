/**
 * A longest path read as what bounds it: its time per bound — CPU ops, kernel compute, launch
 * overhead, kernel-to-kernel gaps, synchronization — and per edge kind, its heaviest segments
 * (runs of edges with one bound on one thread or stream) with their heaviest events, and its
 * edges one by one (for HTA's listing).
 */
import { compareText } from '../../core/compare-text.js';
import type { TraceModel } from '../../model/trace-model.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';
import { computeRecompute, recomputeRegionOfHost } from '../host/recompute.js';
import { EK, EDGE_KINDS, type CriticalPathGraph, type EdgeKind } from './critical-path-graph.js';
import type { LongestPath } from './longest-path.js';

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
 * (counted in the loop: nothing after it, see longest-path.ts above topologicalOrder).
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

