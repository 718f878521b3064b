/**
 * What shortening some GPU activities saves the step, on the step's critical path: the actions of
 * `explain` that make kernels faster (channels_last, another algorithm, bf16) save GPU time, but a
 * step the host bounds — its GPU idle while the host launches — keeps its length unless the
 * kernels sat on the chain of dependent work. cnn_train's channels_last stake is 932 µs of GPU time
 * per step; with the transposes gone and the batch norms at their bandwidth floor, its steps'
 * critical paths shorten by about a fifth of that (the host's launches bound the rest).
 *
 * Per instance of the steps critical-path reads (selectInstances: the profiler steps, else the
 * trace), the graph and its longest path are built once per model; a saving is the longest path
 * again with each named GPU activity's edge scaled by its factor (what-if.ts's what-if, per
 * activity instead of per name). The figure is the mean over the instances of the path's
 * shortening, per step.
 */
import type { TraceModel } from '../../model/trace-model.js';
import { perModel } from '../helpers/per-model.js';
import { buildCriticalPathGraph, EK, type CriticalPathGraph } from './critical-path-graph.js';
import { selectInstances } from './critical-path.js';
import { bindingPath, longestPath, topologicalOrder, type LongestPath } from './longest-path.js';

interface InstanceGraph {
  readonly g: CriticalPathGraph;
  readonly base: LongestPath;
  readonly topo: ReturnType<typeof topologicalOrder>;
}

/** Each step's graph, its longest path and topological order, once per model. */
const stepGraphs = perModel((m: TraceModel): InstanceGraph[] =>
  selectInstances(m, {}).map((inst) => {
    const g = buildCriticalPathGraph(m, inst);
    const topo = topologicalOrder(g);
    return { g, topo, base: bindingPath(g) ?? longestPath(g, g.edgeWeightNs, {}, topo) };
  }),
);

export interface StepSaving {
  /** Mean over the steps of the critical path's shortening, µs. */
  readonly savingUs: number;
  /** Mean over the steps of the GPU time taken off the scaled activities' edges, µs. */
  readonly gpuUs: number;
  readonly steps: number;
}

/**
 * The steps' critical paths with GPU activity `ev`'s time scaled by `factorOf(ev)` (undefined: left
 * as it is; 0: gone); undefined when the trace has no step to read.
 */
export function stepSavingOf(m: TraceModel, factorOf: (ev: number) => number | undefined): StepSaving | undefined {
  const graphs = stepGraphs(m);
  if (!graphs.length) return undefined;
  let saving = 0;
  let gpu = 0;
  for (const { g, base, topo } of graphs) {
    const w = Float64Array.from(g.edgeWeightNs);
    for (let e = 0; e < g.edgeCount; e++) {
      if (g.edgeKind[e] !== EK.Gpu) continue;
      const f = factorOf(g.nodeEvent[g.edgeSrc[e]!]!);
      if (f === undefined) continue;
      gpu += w[e]! * (1 - f);
      w[e] = w[e]! * f;
    }
    saving += base.lengthNs - longestPath(g, w, {}, topo).lengthNs;
  }
  return { savingUs: saving / graphs.length / 1000, gpuUs: gpu / graphs.length / 1000, steps: graphs.length };
}
