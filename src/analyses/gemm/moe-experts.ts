/**
 * A mixture-of-experts layer run as a loop over its experts (the reference loop of Mixtral-style
 * models: transformers' `MixtralSparseMoeBlock`, hand-written `for e in range(E)`), read from the
 * recorded shapes: tokens per expert and their imbalance, per router call.
 *
 * The evidence, all of it in Input Dims and Concrete Inputs:
 * - the router's `aten::topk` over [T, E] with k in Concrete Inputs (`topk(self, k, dim, largest,
 *   sorted)`): T tokens, E experts, k experts per token; the GEMM just before it on the same
 *   thread with M = T and N = E is the router's projection, its K the hidden size D;
 * - then, on that thread, each expert's down projection — a GEMM [n, F]·[F, D] with N = D and
 *   K = F ≠ D — in the order the loop runs them, n being the tokens routed to that expert; its
 *   gate/up projections ([n, D]·[D, F]) run before it. The loop ends at the first GEMM over all T
 *   tokens again (the next layer's projection, the LM head), the next router call, or the step's end.
 * - the check that makes it a reading and not a guess: the experts' tokens add up to T·k, every
 *   routed slot accounted for. Where they do not (an expert-parallel layout, another loop, a
 *   capacity factor dropping tokens), nothing is said. Fewer loops than E with the sum right: the
 *   missing experts got no token (the loop skips them; transformers iterates over the experts hit).
 *
 * Which expert is which is not in the trace (no tensor identity): experts are listed in the order
 * the loop ran them. `_grouped_mm` (one kernel for every expert) keeps its group sizes in an
 * offsets tensor whose values the trace does not hold: no token counts there (gemm.ts).
 * Imbalance is max/mean tokens: 1 is even; in a loop each expert's GEMMs run one after another,
 * so it costs little time here, but it is the load an expert-parallel or grouped layout waits on.
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { findGemmCalls, type GemmCall } from './gemm.js';
import { perModel } from '../helpers/per-model.js';

export interface MoeExpertLoop {
  /** The router's `aten::topk` (host index). */
  readonly router: number;
  /** Its step (`ProfilerStep#N`), when the trace has steps. */
  readonly step?: string;
  readonly tokens: number;
  readonly experts: number;
  readonly topK: number;
  readonly hidden: number;
  /** Each expert's tokens in the order the loop ran (zero-token experts the loop skipped are not listed). */
  readonly tokensPerExpert: readonly number[];
  /** GPU time of each expert's GEMMs (gate, up, down), ns, in the same order. */
  readonly gemmNsPerExpert: readonly number[];
  /** max / mean tokens per expert, the mean being T·k / E. */
  readonly imbalance: number;
}

/** Every router call whose expert loop the shapes account for (tokens add up to T·k). Once per model. */
export const findMoeExpertLoops = perModel((m: TraceModel): MoeExpertLoop[] => {
  const gemms = findGemmCalls(m).filter((c) => c.shape !== undefined && c.shape.batch === 1);
  if (!gemms.length) return [];
  const byThread = new Map<number, GemmCall[]>();
  for (const c of gemms) {
    const t = m.host.thread[c.host]!;
    const list = byThread.get(t) ?? [];
    list.push(c);
    byThread.set(t, list);
  }
  for (const list of byThread.values()) list.sort((a, b) => m.host.startNs[a.host]! - m.host.startNs[b.host]!);
  const topk = m.strings.find('aten::topk');
  const routers = new Map<number, number[]>();
  for (let i = 0; topk >= 0 && i < m.host.length; i++) {
    if (m.host.name[i] !== topk || m.host.kind[i] !== HostKind.Op) continue;
    const list = routers.get(m.host.thread[i]!) ?? [];
    list.push(i);
    routers.set(m.host.thread[i]!, list);
  }
  const out: MoeExpertLoop[] = [];
  for (const [thread, list] of routers) {
    list.sort((a, b) => m.host.startNs[a]! - m.host.startNs[b]!);
    for (let j = 0; j < list.length; j++) {
      const next = list[j + 1];
      const loop = expertLoop(m, list[j]!, next !== undefined ? m.host.startNs[next]! : Infinity, byThread.get(thread) ?? []);
      if (loop) out.push(loop);
    }
  }
  out.sort((a, b) => m.host.startNs[a.router]! - m.host.startNs[b.router]!);
  return out;
});

function expertLoop(m: TraceModel, r: number, nextRouterNs: number, gemms: readonly GemmCall[]): MoeExpertLoop | undefined {
  const args = m.host.args[r];
  const dims = args?.['Input Dims'];
  const concrete = args?.['Concrete Inputs'];
  if (!Array.isArray(dims) || !Array.isArray(concrete)) return undefined;
  const scores = dims[0];
  if (!Array.isArray(scores) || scores.length !== 2) return undefined;
  const [tokens, experts] = scores as [number, number];
  const topK = Number(concrete[1]);
  if (!Number.isInteger(topK) || topK < 1 || !(experts > topK) || !(tokens > 0)) return undefined;
  const at = m.host.startNs[r]!;
  const step = m.steps.find((s) => at >= s.startNs && at < s.endNs);
  const end = Math.min(step?.endNs ?? Infinity, nextRouterNs);
  // The first GEMM after topk (binary search: a decode trace has a topk per token).
  let lo = 0;
  let hi = gemms.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (m.host.startNs[gemms[mid]!.host]! <= at) lo = mid + 1;
    else hi = mid;
  }
  // The router's projection: the GEMM just before topk, M = T and N = E, in the same step.
  const projection = lo > 0 ? gemms[lo - 1]! : undefined;
  if (!projection || projection.shape!.m !== tokens || projection.shape!.n !== experts) return undefined;
  if (step && m.host.startNs[projection.host]! < step.startNs) return undefined;
  const hidden = projection.shape!.k;
  const perExpert: number[] = [];
  const gemmNs: number[] = [];
  let pendingNs = 0;
  for (let j = lo; j < gemms.length; j++) {
    const c = gemms[j]!;
    if (m.host.startNs[c.host]! >= end) break;
    const s = c.shape!;
    if (s.m === tokens) break; // every token again: the loop is over
    pendingNs += c.kernels.reduce((sum, g) => sum + m.gpu.durNs[g]!, 0);
    if (s.n === hidden && s.k !== hidden) {
      perExpert.push(s.m);
      gemmNs.push(pendingNs);
      pendingNs = 0;
    }
  }
  const routed = perExpert.reduce((a, b) => a + b, 0);
  if (!perExpert.length || perExpert.length > experts || routed !== tokens * topK) return undefined;
  const mean = (tokens * topK) / experts;
  return {
    router: r,
    ...(step ? { step: step.name } : {}),
    tokens,
    experts,
    topK,
    hidden,
    tokensPerExpert: perExpert,
    gemmNsPerExpert: gemmNs,
    imbalance: Math.max(...perExpert) / mean,
  };
}
