/**
 * bindingPath (longest-path.ts): the longest path read off the binding edges, without a
 * topological order, must be longestPath's exactly, and must decline (undefined) wherever its
 * checks do not prove that: a cycle of same-time edges, an edge that gives more than the
 * binding one, a node without a binding edge.
 */
import { describe, expect, it } from 'vitest';
import { selectInstances } from '../../../src/analyses/critical-path/critical-path.js';
import { bindingPath, longestPath, type LongestPath } from '../../../src/analyses/critical-path/longest-path.js';
import { buildCriticalPathGraph, type CriticalPathGraph } from '../../../src/analyses/critical-path/critical-path-graph.js';
import { H200_NAMES, h200Trace, loadModel } from '../../fixtures.js';

/** A hand-made graph: node times, and edges as [src, dst, weight, binding]. */
function graphOf(ts: number[], edges: [number, number, number, 0 | 1][]): CriticalPathGraph {
  return {
    nodeCount: ts.length,
    nodeTsNs: Float64Array.from(ts),
    edgeCount: edges.length,
    edgeSrc: Int32Array.from(edges, (e) => e[0]),
    edgeDst: Int32Array.from(edges, (e) => e[1]),
    edgeWeightNs: Float64Array.from(edges, (e) => e[2]),
    edgeBinding: Uint8Array.from(edges, (e) => e[3]),
  } as unknown as CriticalPathGraph;
}

const plain = (p: LongestPath) => ({ nodes: [...p.nodes], edges: [...p.edges], lengthNs: p.lengthNs, unreachableNodes: p.unreachableNodes, cycleNodes: p.cycleNodes });

describe('the path read off the binding edges', () => {
  it('is longestPath when a non-binding edge ties with the binding one (the binding edge wins the tie)', () => {
    // 0 → 1 → 2 binding; 0 → 2 reaches 2 at the same 20, listed first
    const g = graphOf([0, 10, 20], [[0, 2, 20, 0], [0, 1, 10, 1], [1, 2, 10, 1]]);
    const p = bindingPath(g)!;
    expect(p).toBeDefined();
    expect(plain(p)).toEqual(plain(longestPath(g)));
    expect([...p.edges]).toEqual([1, 2]);
  });

  it('declines when an edge gives more than the binding one', () => {
    const g = graphOf([0, 10, 20], [[0, 1, 10, 1], [1, 2, 10, 1], [0, 2, 30, 0]]);
    expect(bindingPath(g)).toBeUndefined();
    expect(longestPath(g).lengthNs).toBe(30);
  });

  it('declines on a cycle of edges between nodes at one time (longestPath leaves its nodes out)', () => {
    const g = graphOf([0, 5, 5], [[0, 1, 5, 1], [1, 2, 0, 1], [2, 1, 0, 0]]);
    expect(bindingPath(g)).toBeUndefined();
    expect(longestPath(g).cycleNodes).toBe(2);
  });

  it('declines when a node has no binding edge, or an edge runs back in time', () => {
    expect(bindingPath(graphOf([0, 10, 20], [[0, 1, 10, 1], [1, 2, 10, 0]]))).toBeUndefined();
    expect(bindingPath(graphOf([0, 10, 5], [[0, 1, 10, 1], [1, 2, 0, 1]]))).toBeUndefined();
  });

  it('reads a lone start node as longestPath does', () => {
    const g = graphOf([7], []);
    expect(plain(bindingPath(g)!)).toEqual(plain(longestPath(g)));
  });

  for (const name of H200_NAMES) {
    it(`${name}: is longestPath on every step`, async () => {
      const m = await loadModel(h200Trace(name));
      for (const inst of selectInstances(m, {})) {
        const g = buildCriticalPathGraph(m, inst);
        const p = bindingPath(g);
        expect(p).toBeDefined();
        expect(plain(p!)).toEqual(plain(longestPath(g)));
      }
    });
  }
});
