/**
 * What-if answers on the critical path: rescale some edges of the graph — the kernels whose
 * names match a regex, an op's host time, every host edge, or the launches — and take the
 * longest path again through the same graph; how much shorter it is, and the chain of edges
 * that became critical.
 */
import { regexHazard } from '../../core/safe-regex.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';
import { EK, type CriticalPathGraph } from './critical-path-graph.js';
import { longestPath, topologicalOrder, type LongestPath } from './longest-path.js';
import { readPath, type PathReading, type PathSegment } from './path-reading.js';

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
    lengthUs: p.lengthNs / 1000,
    deltaUs: (p.lengthNs - base.lengthNs) / 1000,
    reading,
    newlyCritical: newly,
    newShare: p.lengthNs > 0 ? freshNs / p.lengthNs : 0,
  };
}

function isOpOrAnnotation(kind: number): boolean {
  return kind === HostKind.Op || kind === HostKind.Annotation;
}

