/**
 * What bounds a step, end to end: the instances to read (a step, an annotation's occurrence, or
 * the whole trace), and for each its dependency graph (critical-path-graph.ts), its longest path
 * (longest-path.ts), that path read as what bounds it (path-reading.ts), and the what-if answers
 * asked for (what-if.ts).
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { computeScopeInstances, type ScopeInstance } from '../host/scopes.js';
import { buildCriticalPathGraph, type CriticalPathGraph } from './critical-path-graph.js';
import { bindingPath, htaLongestPath, longestPath, topologicalOrder, type LongestPath } from './longest-path.js';
import { pathEdges, readPath, type PathEdge, type PathReading } from './path-reading.js';
import { computeWhatIf, type WhatIfResult, type WhatIfRule } from './what-if.js';

// What the command, its views and the library read, from the files that define it: this file is
// the analysis's one entry outside analyses/.
export { BOUND_KEYS, BOUND_LABELS, type Bounds, type PathSegment } from './path-reading.js';
export { parseWhatIf, type WhatIfResult, type WhatIfRule } from './what-if.js';
export type { LongestPath } from './longest-path.js';

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
