/**
 * The longest path through an instance's dependency graph (critical-path-graph.ts), from its
 * start (node 0) or, for HTA's semantics, from anywhere; in a topological order found by Kahn's
 * algorithm (iterative; ties at equal times are common, so time order alone is not one).
 * With the graph's own weights its length is the instance's span: every node's earliest time is
 * the time the trace shows (critical-path-graph.ts says why), so that path is read off the
 * binding edges instead, once checked (bindingPath), and the order is found only for a what-if
 * or where the check fails. HTA's own longest path (htaLongestPath) is here too, for parity.
 *
 * Ignores: nodes the start cannot reach (counted in `unreachableNodes`).
 */
import type { CriticalPathGraph } from './critical-path-graph.js';

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
