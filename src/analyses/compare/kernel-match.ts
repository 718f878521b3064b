/**
 * The one kernel matcher behind `diff`, `fusion --vs` and `explain --vs` (docs/readings.md S8–S11):
 * trace A's GPU work against trace B's, per instance of one scope, always read A → B.
 *
 * Each side is the GPU activity sequence (kernels, memsets, copies) of its most common instance,
 * with per-call durations averaged over the instances that share it. Two calls are the same work
 * only when the evidence agrees, and every link carries that evidence (helpers/link-evidence.ts):
 * - **same**: the same kernel name and, where both owning ops record shapes, the same tensors
 *   (`Input Dims` and `Input type`: under the same op, the same argument at every position, one
 *   list allowed an extra out= operand at its end — an attention mask one call passes and the
 *   other does not is other work; under another op, equal element counts, since a view changes
 *   dims and not data; a memset or copy only under the same op family) — a fact when op and dims are equal, else likely. Where a
 *   side recorded no shapes (a CUDA-graph replay records no op), the same launch signature
 *   (grid, block, shared memory, registers per thread; a memset's or copy's bytes) — likely, and
 *   never across two signatures. Pairs come from the longest common subsequence under that
 *   equality, so a kernel called for two shapes in A and one in B is compared per shape, and the
 *   replayed calls of one signature are split by their order in the instance (a GEMM's grid
 *   follows M and N, not K: two shapes can launch alike, and their order tells them apart).
 *   Outside the alignment a call still runs in the other trace (its surplus shows as a count,
 *   never as replaced work) only where both sides recorded agreeing shapes.
 * - **replaced**: A's calls that B no longer makes (no same-named call of agreeing shape in B: a
 *   kernel still running in B is never "replaced") done by new calls of B, in this order:
 *   1. `op-and-shape`: the same owning op (op families: `cudnn_batch_norm` is `batch_norm`, every
 *      SDPA backend one attention, see `opFamily`) and agreeing tensors — another library's kernel
 *      for the same op and shape; else the same dims padded to a multiple of 8 (Inductor's
 *      `pad_mm`), else the same dims in another element type (a model run in fp32);
 *   2. `fused-ops`: an Inductor kernel whose op list names an op on A's call's op path
 *      (`aten::relu` → `aten::clamp_min` owns ReLU's kernel) and whose launch op takes at least one
 *      tensor of A's op's element count (the same layer, not one of another width; the dtype
 *      may differ, autocast's f32 copies against Inductor's in-register upcast).
 *      GEMM, convolution and attention kernels go only to a template (`triton_tem_…`). First
 *      between the same two paired calls; then to the nearest such kernel of B (on a tie the
 *      later one): eager code may run its ops in another order than the compiled graph;
 *   3. `position`: the only new kernel of B between two paired calls takes A's calls there —
 *      when it has no op list (a hand-written Triton kernel, a CUDA-graph replay) or its op takes a
 *      tensor of each; A's memory-bound calls left where B runs nothing new move forward to the
 *      next stretch with exactly one new kernel of B that has no op list (`geglu_fwd` after the up
 *      GEMM takes the gelu before it too).
 *   Work never moves across a paired call that needs it in HBM (forward past a reader of its
 *   output, backward past a writer of its input), and one kernel of B never takes two calls of A
 *   with a call between them that reads the first one's output (two ReLUs with a GEMM between are
 *   two kernels' work, not one). When one of an op's calls is taken, the other calls of that op in
 *   A go with it (a GEMM's split-K reduce, a convolution's layout transposes).
 *   Inductor's split reductions are one replacement: a reduction kernel whose tensors are a
 *   partial buffer of the reduction launched just before it and that buffer with its last dim
 *   reduced (torch/_inductor/ir.py `Reduction.create_multilayer`: the first kernel writes
 *   `[…, splits]`, the second reduces it) is the second stage of that kernel.
 *   4. An op Inductor split over several kernels is one replacement: an unclaimed new pointwise or
 *      reduction kernel of B whose op list names an op of a group's calls and takes a tensor of its
 *      size, between the same pairs, joins that group (a batch norm's backward is a reduction and
 *      a pointwise kernel); two such groups of one stretch, one's call fitting the other's kernel,
 *      are one (never two launches doing two alike calls).
 *   5. What is left of a stretch of a CUDA-graph replay: A's new kernels left between two pairs
 *      are done by B's new kernels left there, all together (a replay records no shapes: its
 *      place is all it shows). Where B recorded shapes, sizes that merely coincide are no
 *      evidence, and the rest stays unmatched.
 *   Physics checks every claim (work-bounds.ts): kernels that run for less than the replaced
 *   work needs on B's device are refused, and the call is left for the next candidate. A group
 *   whose only tie is its place (no shapes, no physics) is no replacement. A replacement is a
 *   fact only under rule 1 on equal dims of the same op; likely otherwise.
 * - **unmatched**, with the reason the evidence did not decide.
 *
 * Its parts: the calls it aligns (match-calls.ts), the evidence two calls give of each other
 * (match-evidence.ts), op families (op-families.ts); the views read its result grouped
 * (match-summaries.ts).
 *
 * Ignores: the order of calls inside a replaced group; GPU work launched outside every instance.
 */
import { GpuKind, type TraceModel } from '../../model/trace-model.js';
import { isMemoryBound } from './kernel-sites.js';
import { readsOutputOf } from './intermediates.js';
import { shortKernelName } from '../kernels/kernel-name.js';
import { markdownCode, markdownText } from '../../core/inert-text.js';
import { checkPhysics, devicePeaksOf, workBound, type PhysicsVerdict } from './work-bounds.js';
import type { LinkEvidence, LinkProof } from '../helpers/link-evidence.js';
import { longestCommonSubsequence } from '../helpers/longest-common-subsequence.js';
import { describeShapes, type MatchCall, type MatchSequence } from './match-calls.js';
import {
  isLaterStage,
  pairProof,
  paddedAgree,
  sameDimsOtherDtype,
  sameRecordedShapes,
  sameWork,
  sharesARecordedTensor,
  sharesATensor,
  tensorsAgree,
} from './match-evidence.js';
import { opFamily } from './op-families.js';

export type ReplacementRule = 'op-and-shape' | 'fused-ops' | 'position';

/** One replacement in the representative instance: A's calls (indices) done by B's (a kernel and its second stage). */
export interface MatchGroup {
  readonly a: number[];
  readonly b: number[];
  readonly by: ReplacementRule;
  /** What supports it (filled in once the group is final). */
  proof: LinkProof;
  /** The physics check on the group as it stands. */
  physics: PhysicsVerdict;
}

/** A pairing the evidence contradicts: A's calls that B's kernels cannot have done, and why. */
export interface RefusedPairing {
  readonly a: readonly number[];
  readonly b: readonly number[];
  readonly reason: string;
}

export interface KernelMatch {
  readonly a: MatchSequence;
  readonly b: MatchSequence;
  /** Same work: index pairs (A, B), in order. */
  readonly pairs: readonly (readonly [number, number])[];
  /** Each pair's evidence, in the order of `pairs`. */
  readonly pairProofs: readonly LinkProof[];
  readonly groups: readonly MatchGroup[];
  /** B's later stages of a split reduction → its first stage. */
  readonly firstStageOf: ReadonlyMap<number, number>;
  /** Pairings refused for a call of A that then stayed unmatched (the last candidate tried for it). */
  readonly refused: readonly RefusedPairing[];
  /** Calls of A with no same-named call of agreeing shape in B (and of B with none in A). */
  readonly newInA: Uint8Array;
  readonly newInB: Uint8Array;
  /** Why each of A's (B's) new calls that no group holds stayed unmatched. */
  readonly reasonA: ReadonlyMap<number, string>;
  readonly reasonB: ReadonlyMap<number, string>;
}

const isKernel = (c: MatchCall) => c.gpuKind === GpuKind.Kernel;
const isCompute = (c: MatchCall) => c.decoded.kind === 'gemm' || c.decoded.kind === 'conv' || c.decoded.kind === 'attention';
const isTemplate = (c: MatchCall) => c.decoded.inductor?.kind === 'template';

/** A's calls against B's, by the rules above: same-work pairs, replacements, and why the rest stayed unmatched. */
export function matchKernels(a: TraceModel, seqA: MatchSequence, b: TraceModel, seqB: MatchSequence): KernelMatch {
  const A = seqA.calls;
  const B = seqB.calls;
  // The same work (`sameWork`): the same name on agreeing recorded shapes, else on the same launch
  // signature; outside the alignment too, a call still runs in the other trace only on that evidence.
  const pairs = longestCommonSubsequence(A, B, sameWork);
  const pairProofs = pairs.map(([i, j]) => pairProof(A[i]!, B[j]!));
  const pairedA = new Set(pairs.map(([i]) => i));
  const pairedB = new Set(pairs.map(([, j]) => j));
  // A call made more often in A than in B is not new: its surplus shows in the same-work row's
  // counts, never as work some other kernel of B replaced — where both sides recorded its shapes.
  // A launch signature alone does not say so outside the alignment: a GEMM's grid follows M and
  // N, not K, so two GEMMs of one kernel on other shapes can launch alike.
  const surplus = (x: MatchCall, y: MatchCall) => x.shapesRecorded && y.shapesRecorded && sameWork(x, y);
  const newInA = new Uint8Array(A.length).map((_, i) => (pairedA.has(i) || B.some((y) => surplus(A[i]!, y)) ? 0 : 1));
  const newInB = new Uint8Array(B.length).map((_, j) => (pairedB.has(j) || A.some((x) => surplus(x, B[j]!)) ? 0 : 1));
  // B's split reductions: j → the stage before it, the nearest Inductor kernel launched before it
  // (a GEMM may run between); stages chain (a 1024-wide partial reduced to 8, then to 1).
  const firstStageOf = new Map<number, number>();
  for (let j = 1; j < B.length; j++) {
    if (!newInB[j] || !B[j]!.decoded.inductor) continue;
    let k = j - 1;
    while (k >= 0 && !B[k]!.decoded.inductor) k--;
    if (k >= 0 && newInB[k] && isLaterStage(B[k]!, B[j]!)) firstStageOf.set(j, firstStageOf.get(k) ?? k);
  }
  const stagesOf = new Map<number, number[]>();
  for (const [j, k] of firstStageOf) stagesOf.set(k, [...(stagesOf.get(k) ?? []), j]);
  const claimedA = new Uint8Array(A.length);
  const claimedB = new Uint8Array(B.length);
  const groups: MatchGroup[] = [];
  const groupOfB = new Map<number, MatchGroup>();
  const candA = (i: number) => newInA[i] === 1 && !claimedA[i];
  /** B's new kernels that may take work: not memsets or copies, not a second stage. */
  const candB = (j: number) => newInB[j] === 1 && isKernel(B[j]!) && !firstStageOf.has(j);
  const gaps: [number, number, number, number][] = [];
  {
    let pa = 0;
    let pb = 0;
    for (const [i, j] of [...pairs, [A.length, B.length] as const]) {
      gaps.push([pa, i, pb, j]);
      pa = i + 1;
      pb = j + 1;
    }
  }
  const gapOfA = new Int32Array(A.length).fill(-1);
  const gapOfB = new Int32Array(B.length).fill(-1);
  gaps.forEach(([a0, a1, b0, b1], g) => {
    for (let i = a0; i < a1; i++) gapOfA[i] = g;
    for (let j = b0; j < b1; j++) gapOfB[j] = g;
  });
  const newAIn = (lo: number, hi: number) => range(lo, hi).filter(candA);
  const newBIn = (lo: number, hi: number) => range(lo, hi).filter((j) => candB(j) && !claimedB[j]);

  // Physics (work-bounds.ts): A's calls of an op, for "wholly replaced"; B's kernels with their later stages.
  const callsOfOp = new Map<number, number[]>();
  A.forEach((c, i) => {
    if (c.owner >= 0) callsOfOp.set(c.owner, [...(callsOfOp.get(c.owner) ?? []), i]);
  });
  const peaks = devicePeaksOf(b);
  const physicsOf = (as: readonly number[], bs: readonly number[]): PhysicsVerdict => {
    const members = [...new Set(as)].sort((x, y) => x - y);
    const inGroup = new Set(members);
    const wholly = (op: number) => (callsOfOp.get(op) ?? []).every((x) => inGroup.has(x));
    // Only a kernel's own op's shapes are its work's (a wrapper's are the whole graph's).
    const owners = members.map((i) => (A[i]!.shapesRecorded ? A[i]!.owner : -1));
    let durNs = 0;
    for (const j of new Set(bs.flatMap((x) => [x, ...(stagesOf.get(x) ?? [])]))) durNs += B[j]!.durNs;
    return checkPhysics(workBound(a, owners, wholly), durNs, peaks);
  };
  const refusedOf = new Map<number, RefusedPairing>();

  /**
   * Whether A's call i can be done by B's call j across the pairs between them: none of those,
   * after i and before j, reads i's output; none, before i and after j, writes an input of i.
   */
  const canMove = (i: number, j: number) => {
    const ci = A[i]!;
    for (const [x, y] of pairs) {
      const cx = A[x]!;
      if (x > i && y < j && readsOutputOf(a, cx.owner, ci.owner, ci.decoded.kind)) return false;
      if (x < i && y > j && readsOutputOf(a, ci.owner, cx.owner, cx.decoded.kind)) return false;
    }
    return true;
  };
  /** Whether one kernel can do all of `members`: no call of A outside them, between two of them, reads an earlier one's output. */
  const oneKernel = (members: readonly number[]) => {
    const s = [...new Set(members)].sort((x, y) => x - y);
    const inside = new Set(s);
    for (let x = s[0]! + 1; x < s[s.length - 1]!; x++) {
      if (inside.has(x)) continue;
      const cx = A[x]!;
      for (const p of s) if (p < x && readsOutputOf(a, cx.owner, A[p]!.owner, A[p]!.decoded.kind)) return false;
    }
    return true;
  };
  /** The op's other new calls in A go with a claimed one (split-K reduce, layout transposes). */
  const withSameOp = (as: readonly number[]) => {
    const out = new Set(as);
    for (const i of as) {
      const o = A[i]!.owner;
      if (o < 0) continue;
      for (const x of callsOfOp.get(o) ?? []) if (candA(x)) out.add(x);
    }
    return [...out];
  };
  /** A's calls `as0` (with their op's other new calls) done by B's kernels `bs`, when physics allows; false when refused. */
  const claimAll = (as0: readonly number[], bs: readonly number[], by: ReplacementRule, oneKernelOnly: boolean): boolean => {
    const as = withSameOp(as0);
    const existing = bs.length === 1 ? groupOfB.get(bs[0]!) : undefined;
    const members = [...(existing?.a ?? []), ...as];
    if (oneKernelOnly && !oneKernel(members)) return false;
    const kernels = existing ? existing.b : [...bs];
    const physics = physicsOf(members, kernels);
    if (physics.verdict === 'refused') {
      for (const i of as) refusedOf.set(i, { a: as, b: kernels, reason: physics.reason });
      return false;
    }
    for (const i of as) claimedA[i] = 1;
    if (existing) {
      existing.a.push(...as);
      existing.physics = physics;
      return true;
    }
    const g: MatchGroup = { a: [...as], b: kernels, by, proof: NO_PROOF, physics };
    for (const j of kernels) {
      claimedB[j] = 1;
      groupOfB.set(j, g);
    }
    groups.push(g);
    return true;
  };
  const claim = (as0: readonly number[], j: number, by: ReplacementRule): boolean => claimAll(as0, [j], by, true);
  const fits = (i: number, j: number) => {
    const ci = A[i]!;
    const cj = B[j]!;
    // Memsets and copies go only with a kernel of their op (withSameOp), never on their own.
    if (!isKernel(ci) || !cj.fusedOps || (isCompute(ci) && !isTemplate(cj))) return false;
    if (![...ci.families].some((f) => cj.fusedOps!.has(f))) return false;
    return sharesATensor(ci, cj);
  };
  /**
   * Two calls of A alike from two stretches (between different pairs): the same kernel under the
   * same op on the same shapes, in two repetitions of the work (two layers' `num_batches_tracked
   * += 1`). Alike calls of one stretch (a GELU's three multiplies) may share one fused kernel.
   */
  const twins = (x: number, i: number) => x !== i && gapOfA[x] !== gapOfA[i] && A[x]!.op === A[i]!.op && A[x]!.name === A[i]!.name && describeShapes(A[x]!) === describeShapes(A[i]!);
  /** Whether j's group already holds a call of A like i: a launch does one call's work when B launches the kernel again for the next. */
  const holdsTwin = (i: number, j: number) => groupOfB.get(j)?.a.some((x) => twins(x, i)) ?? false;

  // 1. Same op and shape (or the shape padded to a multiple of 8, as Inductor pads a GEMM).
  for (const [a0, a1, b0, b1] of gaps) {
    for (const j of newBIn(b0, b1)) {
      const cj = B[j]!;
      if (cj.op === undefined) continue;
      const sameOp = newAIn(a0, a1).filter((x) => isKernel(A[x]!) && A[x]!.op !== undefined && opFamily(A[x]!.op!) === opFamily(cj.op!));
      const i = sameOp.find((x) => tensorsAgree(A[x]!, cj)) ?? sameOp.find((x) => paddedAgree(A[x]!, cj)) ?? sameOp.find((x) => sameDimsOtherDtype(A[x]!, cj));
      if (i === undefined) continue;
      // B's other new calls of that op go with it too (its own op's: not a replay's wrapper)
      const bs = cj.shapesRecorded ? range(b0, b1).filter((x) => x === j || (newInB[x] === 1 && !claimedB[x] && !firstStageOf.has(x) && B[x]!.owner === cj.owner)) : [j];
      claimAll([i], bs, 'op-and-shape', true);
    }
  }
  // 2. Inductor's fused op list: within the gap first (each call on its own, so that a call that
  //    cannot share a kernel with the others stays out); then the nearest kernel of B, a launch of
  //    it not yet holding a call like this one first.
  for (const [a0, a1, b0, b1] of gaps) {
    for (const j of range(b0, b1).filter((x) => candB(x) && (!claimedB[x] || groupOfB.get(x)?.by === 'fused-ops'))) {
      for (const i of newAIn(a0, a1)) if (candA(i) && fits(i, j) && !holdsTwin(i, j)) claim([i], j, 'fused-ops');
    }
  }
  const fusedB = range(0, B.length).filter((j) => candB(j) && B[j]!.fusedOps !== undefined && (!claimedB[j] || groupOfB.get(j)?.by === 'fused-ops'));
  for (const i of range(0, A.length)) {
    if (!candA(i)) continue;
    const [, , b0, b1] = gaps[gapOfA[i]!]!;
    const dist = (j: number) => (j < b0 ? b0 - j : j >= b1 ? j - b1 + 1 : 0);
    const order = fusedB.filter((j) => fits(i, j)).sort((x, y) => dist(x) - dist(y) || y - x);
    const free = order.filter((j) => !holdsTwin(i, j));
    for (const j of [...free, ...order.filter((x) => !free.includes(x))]) if (canMove(i, j) && claim([i], j, 'fused-ops')) break;
  }
  // 3. The only new kernel of B between two pairs.
  const positionTakes = (i: number, j: number) => isKernel(A[i]!) && (B[j]!.fusedOps === undefined || B[j]!.decoded.inductor?.ops?.length === 0) && (B[j]!.owner < 0 || sharesATensor(A[i]!, B[j]!));
  for (const [a0, a1, b0, b1] of gaps) {
    const bs = range(b0, b1).filter(candB);
    if (bs.length !== 1 || claimedB[bs[0]!]) continue;
    const j = bs[0]!;
    const as = newAIn(a0, a1).filter((i) => positionTakes(i, j));
    if (as.length > 0) claim(as, j, 'position');
  }
  // 3b. Through pairs: A's memory-bound calls left where B runs nothing new move forward to the
  //     next stretch that runs exactly one new kernel with no op list.
  let carried: number[] = [];
  for (const [a0, a1, b0, b1] of gaps) {
    carried.push(...newAIn(a0, a1).filter((i) => isKernel(A[i]!) && isMemoryBound(A[i]!.decoded)));
    const bs = range(b0, b1).filter(candB);
    if (bs.length === 0) continue;
    const j = bs[0]!;
    const g = groupOfB.get(j);
    if (bs.length === 1 && B[j]!.fusedOps === undefined && (!g || g.by === 'position')) {
      const moved = carried.filter((i) => candA(i) && canMove(i, j) && positionTakes(i, j));
      if (moved.length > 0) claim(moved, j, 'position');
    }
    carried = [];
  }
  // 4. The rest of an op Inductor split over several kernels (a batch norm's backward: a reduction,
  //    then a pointwise kernel): an unclaimed new kernel of B whose op list names an op of a
  //    group's calls and takes a tensor of its size, in the same stretch, joins that group; and two
  //    groups of one stretch, one's call fitting the other's kernel, are one replacement.
  // (pointwise and reduction kernels only: a template is one op's GEMM, not part of another's work)
  for (const j of range(0, B.length)) {
    if (!candB(j) || claimedB[j] || !B[j]!.fusedOps || isTemplate(B[j]!)) continue;
    // (another launch of a kernel the group has is the next call's work, not more of this one)
    const near = groups
      .filter((g) => g.by === 'fused-ops' && gapOfB[g.b[0]!] === gapOfB[j] && g.a.some((i) => fits(i, j)) && !g.b.some((x) => B[x]!.name === B[j]!.name))
      .sort((x, y) => Math.abs(x.b[0]! - j) - Math.abs(y.b[0]! - j));
    const g = near[0];
    if (!g) continue;
    g.b.push(j);
    g.physics = physicsOf(g.a, g.b);
    claimedB[j] = 1;
    groupOfB.set(j, g);
  }
  for (let x = 0; x < groups.length; x++) {
    for (let y = x + 1; y < groups.length; y++) {
      const gx = groups[x]!;
      const gy = groups[y]!;
      if (gx.by !== 'fused-ops' || gy.by !== 'fused-ops' || gapOfB[gx.b[0]!] !== gapOfB[gy.b[0]!]) continue;
      if ([...gx.b, ...gy.b].some((j) => isTemplate(B[j]!))) continue;
      if (!gx.a.some((i) => gy.b.some((j) => fits(i, j))) && !gy.a.some((i) => gx.b.some((j) => fits(i, j)))) continue;
      // two launches doing two alike calls are two replacements, not one
      if (gx.a.some((i) => gy.a.some((x) => twins(x, i))) || gx.b.some((j) => gy.b.some((k) => B[k]!.name === B[j]!.name))) continue;
      const physics = physicsOf([...gx.a, ...gy.a], [...gx.b, ...gy.b]);
      if (physics.verdict === 'refused') continue;
      gx.a.push(...gy.a);
      gx.b.push(...gy.b);
      gx.physics = physics;
      for (const j of gy.b) groupOfB.set(j, gx);
      groups.splice(y, 1);
      y = x;
    }
  }
  // 5. What is left of a stretch of a CUDA-graph replay: A's new kernels left between two pairs
  //    done by B's new kernels left there, all together — B recorded no shapes, so its place is
  //    all a replay shows; likely, and only where physics allows. (Where B recorded shapes, tensor
  //    sizes that merely coincide are no evidence: the rest stays unmatched.)
  for (const [a0, a1, b0, b1] of gaps) {
    const as = newAIn(a0, a1).filter((i) => isKernel(A[i]!));
    const bs = newBIn(b0, b1);
    // (a replay's kernels: under an op that recorded no shapes — not a `_foreach_` op whose long list went unrecorded)
    if (!as.length || !bs.length || !bs.every((j) => !B[j]!.shapesRecorded && B[j]!.owner >= 0 && B[j]!.listKey === undefined)) continue;
    claimAll(as, bs, 'position', false);
  }
  // Later stages join their first stage's group.
  for (const [j, k] of firstStageOf) {
    const g = groupOfB.get(k);
    if (!g) continue;
    g.b.push(j);
    claimedB[j] = 1;
    groupOfB.set(j, g);
  }
  for (const g of groups) g.b.sort((x, y) => x - y);
  for (const g of groups) g.a.sort((x, y) => x - y);

  // The evidence of each group; one with none (its place alone ties it) is no replacement.
  for (let k = groups.length - 1; k >= 0; k--) {
    const g = groups[k]!;
    g.proof = groupProof(A, B, g);
    if (g.proof.evidence.length > 0) continue;
    for (const i of g.a) {
      claimedA[i] = 0;
      refusedOf.set(i, { a: g.a, b: g.b, reason: `only its place in the sequence ties it to ${g.b.map((j) => markdownCode(shortKernelName(B[j]!.name))).join(', ')}: no shapes to compare and no physics to check` });
    }
    for (const j of g.b) {
      claimedB[j] = 0;
      groupOfB.delete(j);
    }
    groups.splice(k, 1);
  }

  // Why the rest stayed unmatched.
  const otherSignatures = (c: MatchCall, other: readonly MatchCall[]) => [...new Set(other.filter((x) => x.name === c.name).map((x) => x.signatureKey ?? 'no launch record'))];
  /**
   * Why a call of a kernel the other side runs too stayed unmatched when shapes cannot decide: the
   * other side launches it only with other signatures, or with this one fewer times (then which
   * of this side's calls it no longer makes cannot be told).
   */
  const signatureReason = (c: MatchCall, mine: readonly MatchCall[], other: readonly MatchCall[], otherSide: string, signatures: readonly string[]) => {
    const key = c.signatureKey ?? 'no launch record';
    if (!signatures.includes(key)) return `${otherSide} runs this kernel only with another launch signature (${signatures.join('; ')}), not this one (${key}), and its shapes are not recorded on both sides`;
    const count = (l: readonly MatchCall[]) => l.filter((x) => x.name === c.name && (x.signatureKey ?? 'no launch record') === key).length;
    return `${otherSide} runs this kernel with this launch signature (${key}) ${count(other)} times per instance, against ${count(mine)} here; its shapes are not recorded on both sides, so which call it no longer makes cannot be told`;
  };
  const reasonA = new Map<number, string>();
  for (let i = 0; i < A.length; i++) {
    if (!newInA[i] || claimedA[i]) continue;
    const ci = A[i]!;
    const op = ci.op ?? '(no op)';
    const listed = (j: number) => [...ci.families].find((f) => B[j]!.fusedOps!.has(f))!;
    const listing = range(0, B.length).filter(
      (j) => candB(j) && B[j]!.fusedOps !== undefined && (!isCompute(ci) || isTemplate(B[j]!)) && [...ci.families].some((f) => B[j]!.fusedOps!.has(f)),
    );
    const sameOpCalls = ci.op !== undefined ? range(0, B.length).filter((j) => B[j]!.op !== undefined && opFamily(B[j]!.op!) === opFamily(ci.op!)) : [];
    // the closest evidence: a call of the op that B makes anew, else any
    const sameOp = sameOpCalls.find((j) => newInB[j]) ?? sameOpCalls[0];
    const sameShapes = sameOpCalls.some((j) => tensorsAgree(ci, B[j]!) && ci.tensors.length > 0 && B[j]!.tensors.length > 0);
    const signatures = otherSignatures(ci, B);
    const refused = refusedOf.get(i);
    if (refused) reasonA.set(i, `refused: ${refused.reason}`);
    else if (signatures.length > 0 && (!ci.shapesRecorded || B.some((y) => y.name === ci.name && !y.shapesRecorded)))
      reasonA.set(i, signatureReason(ci, A, B, 'B', signatures));
    else if (!isKernel(ci)) reasonA.set(i, `B makes no ${ci.decoded.kind} under ${markdownCode(op)}${ci.tensors.length ? ' of these shapes' : ''}`);
    else if (listing.length > 0 && listing.every((j) => !fits(i, j)))
      reasonA.set(i, `B's ${markdownCode(shortKernelName(B[listing[0]!]!.name))} lists ${markdownCode(listed(listing[0]!))} but takes no tensor of its sizes`);
    else if (listing.length > 0) reasonA.set(i, `the kernels of B that list ${markdownCode(listed(listing[0]!))} would run across work that reads its output, or take work that does`);
    else if (sameShapes) reasonA.set(i, `B runs ${markdownCode(op)} on these shapes without this kernel`);
    else if (sameOp !== undefined) reasonA.set(i, `B runs ${markdownCode(op)} with other shapes (${markdownText(describeShapes(B[sameOp]!)) || 'none recorded'})`);
    else reasonA.set(i, `no kernel of B runs ${markdownCode(op)} or lists it among its fused ops`);
  }
  const reasonB = new Map<number, string>();
  for (let j = 0; j < B.length; j++) {
    if (!newInB[j] || claimedB[j]) continue;
    const cj = B[j]!;
    const signatures = otherSignatures(cj, A);
    if (signatures.length > 0 && (!cj.shapesRecorded || A.some((x) => x.name === cj.name && !x.shapesRecorded)))
      reasonB.set(j, signatureReason(cj, B, A, 'A', signatures));
    else if (!isKernel(cj)) reasonB.set(j, `A makes no ${cj.decoded.kind} under ${markdownCode(cj.op ?? '(no op)')}${cj.tensors.length ? ' of these shapes' : ''}`);
    else if (firstStageOf.has(j)) reasonB.set(j, `a later stage of ${markdownCode(shortKernelName(B[firstStageOf.get(j)!]!.name))}, itself unmatched`);
    else if (cj.fusedOps) reasonB.set(j, cj.shapesRecorded ? `no call of A left under the ops it lists with a tensor of its sizes` : `no call of A left under the ops it lists that physics allows it (its shapes are not recorded: a later stage of a split reduction cannot be told)`);
    else if (cj.op !== undefined && A.some((x, i) => newInA[i] && x.op !== undefined && opFamily(x.op) === opFamily(cj.op!))) {
      const i = A.findIndex((x, k) => newInA[k] && x.op !== undefined && opFamily(x.op) === opFamily(cj.op!));
      reasonB.set(j, `A runs ${markdownCode(cj.op)} with other shapes (${markdownText(describeShapes(A[i]!)) || 'none recorded'})`);
    }
    else if (cj.op !== undefined)
      reasonB.set(j, `A runs no ${markdownCode(cj.op)}${cj.tensors.length ? ' of these shapes' : ''} that B no longer does, and it is not the only new kernel between the same aligned calls`);
    else reasonB.set(j, `no op and no fused op list, and not the only new kernel between the same aligned calls`);
  }
  const refused = [...new Set([...refusedOf.entries()].filter(([i]) => !claimedA[i]).map(([, r]) => r))];
  return { a: seqA, b: seqB, pairs, pairProofs, groups, firstStageOf, refused, newInA, newInB, reasonA, reasonB };
}

const NO_PROOF: LinkProof = { evidence: [], strength: 'likely' };

/**
 * A replacement's evidence: `shape-and-order` where A's and B's recorded shapes share a tensor
 * (or the op and shapes are the same), `physics-checked` where the kernels' time covers the
 * work's least bytes and FLOPs. A fact only when the same op on the same recorded shapes runs
 * B's kernel in place of A's (rule 1 on equal shapes); likely otherwise.
 */
function groupProof(A: readonly MatchCall[], B: readonly MatchCall[], g: MatchGroup): LinkProof {
  const evidence: LinkEvidence[] = [];
  if (g.a.some((i) => g.b.some((j) => sharesARecordedTensor(A[i]!, B[j]!)))) evidence.push('shape-and-order');
  if (g.physics.verdict === 'passed') evidence.push('physics-checked');
  const kernelsA = g.a.filter((i) => isKernel(A[i]!));
  const fact = g.by === 'op-and-shape' && g.b.length === 1 && kernelsA.length > 0 && kernelsA.every((i) => sameRecordedShapes(A[i]!, B[g.b[0]!]!));
  return { evidence, strength: fact ? 'fact' : 'likely' };
}

function range(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let k = lo; k < hi; k++) out.push(k);
  return out;
}
