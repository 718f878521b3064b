/**
 * The one kernel matcher behind `diff`, `fusion --vs` and `explain --vs` (docs/readings.md S8–S11):
 * trace A's GPU work against trace B's, per instance of one scope, always read A → B.
 *
 * Each side is the GPU activity sequence (kernels, memsets, copies) of its most common instance,
 * with per-call durations averaged over the instances that share it. Two calls are the same work
 * only when the evidence agrees:
 * - **same**: the same kernel name and, where both owning ops record shapes, the same op family
 *   and the same tensors (`Input Dims` and `Input type`: equal dims under the same op, else equal
 *   element counts, since a view changes dims and not data; one op's list may hold an extra out=
 *   operand). Pairs come from the
 *   longest common subsequence under that equality, so a kernel called for two shapes in A and one
 *   in B is compared per shape; the other shape's call is left to the rules below.
 * - **replaced**: A's calls that B no longer makes (no same-named call of agreeing shape in B: a
 *   kernel still running in B is never "replaced") done by one new call of B, in this order:
 *   1. `op-and-shape`: the same owning op (op families: `cudnn_batch_norm` is `batch_norm`, see
 *      `opFamily`) and agreeing tensors — another library's kernel for the same op and shape;
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
 * - **unmatched**, with the reason the evidence did not decide.
 *
 * Ignores: the order of calls inside a replaced group; GPU work launched outside every instance.
 */
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { isMemoryBound, opBaseName } from './kernel-sites.js';
import { readsOutputOf } from './intermediates.js';
import { decodeKernelName, shortKernelName, type DecodedKernelName } from '../kernels/kernel-name.js';
import { owningOp, type ScopeInstance } from '../host/scopes.js';
import { formatDims, shortDtype, tensorArgs, type TensorArg } from '../facts/tensor-bytes.js';
import { markdownCode, markdownText } from '../../core/inert-text.js';

export type ReplacementRule = 'op-and-shape' | 'fused-ops' | 'position';

/** One GPU activity of a side's representative instance. */
export interface MatchCall {
  /** Index in `model.gpu` (of the representative instance). */
  readonly gpu: number;
  readonly name: string;
  readonly gpuKind: number;
  /** The owning `cpu_op`, when there is one. */
  readonly op?: string;
  /** The owning op's host index in the representative instance, or -1. */
  readonly owner: number;
  readonly decoded: DecodedKernelName;
  /** The owning op and the cpu_ops around it, innermost first (`aten::clamp_min`, `aten::relu`). */
  readonly opPath: readonly string[];
  /** `opFamily` of each op on the path. */
  readonly families: ReadonlySet<string>;
  readonly inputDims?: unknown;
  /** The owning op's tensor arguments of more than one element (none when the owner is a wrapper, not the kernel's op). */
  readonly tensors: readonly TensorArg[];
  /** Inductor's fused op list, every reading of an ambiguous name, as op families. */
  readonly fusedOps?: ReadonlySet<string>;
  /** Mean duration over the instances that share the sequence, ns. */
  readonly durNs: number;
}

export interface MatchSequence {
  readonly calls: readonly MatchCall[];
  /** Instances whose GPU activity sequence is this one. */
  readonly instances: number;
}

/** One replacement in the representative instance: A's calls (indices) done by B's (a kernel and its second stage). */
export interface MatchGroup {
  readonly a: number[];
  readonly b: number[];
  readonly by: ReplacementRule;
}

export interface KernelMatch {
  readonly a: MatchSequence;
  readonly b: MatchSequence;
  /** Same work: index pairs (A, B), in order. */
  readonly pairs: readonly (readonly [number, number])[];
  readonly groups: readonly MatchGroup[];
  /** Calls of A with no same-named call of agreeing shape in B (and of B with none in A). */
  readonly newInA: Uint8Array;
  readonly newInB: Uint8Array;
  /** Why each of A's (B's) new calls that no group holds stayed unmatched. */
  readonly reasonA: ReadonlyMap<number, string>;
  readonly reasonB: ReadonlyMap<number, string>;
}

// ------------------------------------------------------------------------------------------------
// Sequences

/** The GPU activity sequence of the side's most common instance, with per-call durations averaged over the instances that share it. */
export function representativeSequence(m: TraceModel, instances: readonly ScopeInstance[], side: string, notes: string[]): MatchSequence {
  const lists = instances.map((inst) => inst.gpu);
  const keys = lists.map((l) => l.map((g) => m.gpu.name[g]!).join(','));
  const freq = new Map<string, number>();
  for (const k of keys) freq.set(k, (freq.get(k) ?? 0) + 1);
  let best = 0;
  for (let k = 1; k < keys.length; k++) if (freq.get(keys[k]!)! > freq.get(keys[best]!)!) best = k;
  const members = lists.filter((_, k) => keys[k] === keys[best]);
  if (members.length < lists.length) {
    notes.push(
      `${side}: ${lists.length - members.length} of ${lists.length} instances launch a different GPU work sequence (${lists.map((l) => l.length).join(', ')} kernels, memsets and copies); they were aligned on the ${members.length} that agree`,
    );
  }
  const ref = lists[best] ?? [];
  const decodedById = new Map<number, DecodedKernelName>();
  const calls: MatchCall[] = ref.map((g, pos) => {
    let sum = 0;
    for (const l of members) sum += m.gpu.durNs[l[pos]!]!;
    const op = owningOp(m, g);
    const nameId = m.gpu.name[g]!;
    const name = m.strings.get(nameId);
    // The owner's shapes are the kernel's only when the owner is an op of a library (`aten::addmm`)
    // or Inductor's launch op named after the kernel; a wrapper (`CompiledFunction` replaying a
    // CUDA graph, `Torch-Compiled Region`) records its own inputs, which say nothing of one kernel.
    const opName = op >= 0 ? m.strings.get(m.host.name[op]!) : '';
    const args = op >= 0 && (opName.includes('::') || opName === name) ? m.host.args[op] : undefined;
    const dims = args?.['Input Dims'] ?? args?.['Input dims'];
    const opPath: string[] = [];
    for (let p = op; p >= 0 && m.host.kind[p] === HostKind.Op; p = m.host.parent[p]!) opPath.push(m.strings.get(m.host.name[p]!));
    let decoded = decodedById.get(nameId);
    if (!decoded) decodedById.set(nameId, (decoded = decodeKernelName(name)));
    const fused = inductorOps(decoded);
    return {
      gpu: g,
      name,
      gpuKind: m.gpu.kind[g]!,
      ...(op >= 0 ? { op: m.strings.get(m.host.name[op]!) } : {}),
      owner: op,
      decoded,
      opPath,
      families: new Set(opPath.map(opFamily)),
      ...(dims !== undefined ? { inputDims: dims } : {}),
      tensors: tensorArgs(args).filter((t) => t.numel > 1),
      ...(fused ? { fusedOps: fused } : {}),
      durNs: members.length ? sum / members.length : 0,
    };
  });
  return { calls, instances: members.length };
}

const FAMILIES: Record<string, string> = {
  // torch/_refs and aten: the eager ops a batch norm runs under, and the names Inductor writes for it
  batch_norm: 'batch_norm',
  _batch_norm_impl_index: 'batch_norm',
  cudnn_batch_norm: 'batch_norm',
  miopen_batch_norm: 'batch_norm',
  native_batch_norm: 'batch_norm',
  _native_batch_norm_legit: 'batch_norm',
  _native_batch_norm_legit_functional: 'batch_norm',
  _native_batch_norm_legit_no_training: 'batch_norm',
  _batch_norm_with_update: 'batch_norm',
  _batch_norm_with_update_functional: 'batch_norm',
  _batch_norm_no_update: 'batch_norm',
  batch_norm_backward: 'batch_norm_backward',
  _batch_norm_impl_index_backward: 'batch_norm_backward',
  cudnn_batch_norm_backward: 'batch_norm_backward',
  miopen_batch_norm_backward: 'batch_norm_backward',
  native_batch_norm_backward: 'batch_norm_backward',
  conv1d: 'convolution',
  conv2d: 'convolution',
  conv3d: 'convolution',
  _convolution: 'convolution',
  cudnn_convolution: 'convolution',
  cudnn_convolution_relu: 'convolution',
  cudnn_convolution_add_relu: 'convolution',
  convolution_overrideable: 'convolution',
  cudnn_convolution_backward: 'convolution_backward',
  cudnn_convolution_backward_input: 'convolution_backward',
  cudnn_convolution_backward_weight: 'convolution_backward',
  convolution_backward_overrideable: 'convolution_backward',
};

/** An op's name as one family: `aten::cudnn_batch_norm` and Inductor's `_native_batch_norm_legit_functional` are both `batch_norm`. */
export function opFamily(name: string): string {
  const base = opBaseName(name);
  return FAMILIES[base] ?? base;
}

function inductorOps(d: DecodedKernelName): Set<string> | undefined {
  const ind = d.inductor;
  if (!ind?.ops && !ind?.opCandidates) return undefined;
  const ops = new Set<string>();
  for (const o of ind.ops ?? []) ops.add(opFamily(o));
  for (const c of ind.opCandidates ?? []) for (const o of c) ops.add(opFamily(o));
  return ops.size > 0 ? ops : undefined;
}

const isKernel = (c: MatchCall) => c.gpuKind === GpuKind.Kernel;
const isCompute = (c: MatchCall) => c.decoded.kind === 'gemm' || c.decoded.kind === 'conv' || c.decoded.kind === 'attention';
const isTemplate = (c: MatchCall) => c.decoded.inductor?.kind === 'template';

/** `[8192,768] bf16, [768,3072] bf16`: the owning op's tensors, for display. */
export function describeShapes(c: MatchCall): string {
  return c.tensors.map((t) => `${formatDims(t.dims)} ${shortDtype(t.dtype)}`).join(', ');
}

// ------------------------------------------------------------------------------------------------
// Shapes

const tensorKey = (t: TensorArg, exact: boolean) => `${exact ? formatDims(t.dims) : t.numel}:${t.dtype}`;

/** Whether every key of `x` is in `y`, counting repeats. */
function subMultiset(x: readonly string[], y: readonly string[]): boolean {
  const left = new Map<string, number>();
  for (const k of y) left.set(k, (left.get(k) ?? 0) + 1);
  for (const k of x) {
    const n = left.get(k) ?? 0;
    if (n === 0) return false;
    left.set(k, n - 1);
  }
  return true;
}

/**
 * Whether two calls' ops take the same tensors: equal dims under the same op, equal element counts
 * and dtypes otherwise (a view changes dims, not data); one list may hold an extra operand (out=).
 * Calls with no recorded shapes do not contradict anything.
 */
export function tensorsAgree(x: MatchCall, y: MatchCall): boolean {
  if (x.tensors.length === 0 || y.tensors.length === 0) return true;
  // both shapes are an op's own: the same kernel name under another op is other work (a memset
  // under `aten::sum` is not the one under `aten::mm`)
  if (x.op !== undefined && y.op !== undefined && opFamily(x.op) !== opFamily(y.op)) return false;
  const exact = x.op !== undefined && x.op === y.op;
  const kx = keysOf(x, exact);
  const ky = keysOf(y, exact);
  return subMultiset(kx, ky) || subMultiset(ky, kx);
}

const exactKeys = new WeakMap<MatchCall, string[]>();
const numelKeys = new WeakMap<MatchCall, string[]>();
function keysOf(c: MatchCall, exact: boolean): string[] {
  const cache = exact ? exactKeys : numelKeys;
  let k = cache.get(c);
  if (!k) cache.set(c, (k = c.tensors.map((t) => tensorKey(t, exact))));
  return k;
}

/** The same name and shapes, with both sides' shapes known (or neither side's). */
function sameKnown(x: MatchCall, y: MatchCall): boolean {
  return x.name === y.name && (x.tensors.length === 0) === (y.tensors.length === 0) && tensorsAgree(x, y);
}

/**
 * Whether B's op takes at least one tensor of A's op's element count (true when either has no
 * shapes). The dtype may differ: eager autocast runs a GELU's pow and tanh on f32 copies where
 * Inductor's kernel reads and writes the bf16 tensors and upcasts in registers.
 */
function sharesATensor(a: MatchCall, b: MatchCall): boolean {
  if (a.tensors.length === 0 || b.tensors.length === 0) return true;
  return a.tensors.some((t) => b.tensors.some((u) => u.numel === t.numel));
}

/**
 * Whether `second` is a later stage of the split reduction `first` began: an Inductor reduction
 * that takes one of `first`'s fp32 tensors of rank ≥ 2 (the partial buffer, accumulated in fp32)
 * and a tensor of the same leading dims whose last dim is gone or smaller (what it reduces it to).
 */
function isLaterStage(first: MatchCall, second: MatchCall): boolean {
  const red = (c: MatchCall) => c.decoded.inductor?.kind === 'reduction' || c.decoded.inductor?.kind === 'persistent_reduction';
  if (!first.decoded.inductor || !red(second)) return false;
  const dimsOf = (t: TensorArg) => formatDims(t.dims);
  const partials = second.tensors.filter((t) => t.dtype === 'float' && t.dims.length >= 2 && first.tensors.some((u) => u.dtype === t.dtype && dimsOf(u) === dimsOf(t)));
  return partials.some((p) => {
    const lead = p.dims.slice(0, -1);
    const sameLead = (t: TensorArg) => lead.every((d, k) => t.dims[k] === d);
    return second.tensors.some(
      (t) => t !== p && sameLead(t) && (t.dims.length === lead.length || (t.dims.length === p.dims.length && t.dims[lead.length]! < p.dims[lead.length]!)),
    );
  });
}

// ------------------------------------------------------------------------------------------------
// The matcher

export function matchKernels(a: TraceModel, seqA: MatchSequence, b: TraceModel, seqB: MatchSequence): KernelMatch {
  const A = seqA.calls;
  const B = seqB.calls;
  // Aligned under the lenient equality (a side with no shapes contradicts nothing: the alignment
  // then decides which of A's shapes B's call is); outside the alignment, a call still runs in the
  // other trace only on positive evidence: the same name and both sides' shapes recorded and agreeing.
  const same = (x: MatchCall, y: MatchCall) => x.name === y.name && tensorsAgree(x, y);
  const pairs = longestCommonSubsequence(A, B, same);
  const pairedA = new Set(pairs.map(([i]) => i));
  const pairedB = new Set(pairs.map(([, j]) => j));
  // A call made more often in A than in B is not new: its surplus shows in the same-work row's
  // counts, never as work some other kernel of B replaced.
  const newInA = new Uint8Array(A.length).map((_, i) => (pairedA.has(i) || B.some((y) => sameKnown(A[i]!, y)) ? 0 : 1));
  const newInB = new Uint8Array(B.length).map((_, j) => (pairedB.has(j) || A.some((x) => sameKnown(x, B[j]!)) ? 0 : 1));
  // B's split reductions: j → the stage before it, the nearest Inductor kernel launched before it
  // (a GEMM may run between); stages chain (a 1024-wide partial reduced to 8, then to 1).
  const firstStageOf = new Map<number, number>();
  for (let j = 1; j < B.length; j++) {
    if (!newInB[j] || !B[j]!.decoded.inductor) continue;
    let k = j - 1;
    while (k >= 0 && !B[k]!.decoded.inductor) k--;
    if (k >= 0 && newInB[k] && isLaterStage(B[k]!, B[j]!)) firstStageOf.set(j, firstStageOf.get(k) ?? k);
  }
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
  gaps.forEach(([a0, a1], g) => {
    for (let i = a0; i < a1; i++) gapOfA[i] = g;
  });
  const newAIn = (lo: number, hi: number) => range(lo, hi).filter(candA);
  const newBIn = (lo: number, hi: number) => range(lo, hi).filter((j) => candB(j) && !claimedB[j]);

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
      for (let x = 0; x < A.length; x++) if (A[x]!.owner === o && candA(x)) out.add(x);
    }
    return [...out];
  };
  const claim = (as0: readonly number[], j: number, by: ReplacementRule): boolean => {
    const as = withSameOp(as0);
    const existing = groupOfB.get(j);
    if (!oneKernel([...(existing?.a ?? []), ...as])) return false;
    for (const i of as) claimedA[i] = 1;
    if (existing) {
      existing.a.push(...as);
      return true;
    }
    claimedB[j] = 1;
    const g: MatchGroup = { a: [...as], b: [j], by };
    groups.push(g);
    groupOfB.set(j, g);
    return true;
  };
  const fits = (i: number, j: number) => {
    const ci = A[i]!;
    const cj = B[j]!;
    // Memsets and copies go only with a kernel of their op (withSameOp), never on their own.
    if (!isKernel(ci) || !cj.fusedOps || (isCompute(ci) && !isTemplate(cj))) return false;
    if (![...ci.families].some((f) => cj.fusedOps!.has(f))) return false;
    return sharesATensor(ci, cj);
  };

  // 1. Same op and shape.
  for (const [a0, a1, b0, b1] of gaps) {
    for (const j of newBIn(b0, b1)) {
      const cj = B[j]!;
      if (cj.op === undefined) continue;
      const i = newAIn(a0, a1).find((x) => isKernel(A[x]!) && A[x]!.op !== undefined && opFamily(A[x]!.op!) === opFamily(cj.op!) && tensorsAgree(A[x]!, cj));
      if (i !== undefined) claim([i], j, 'op-and-shape');
    }
  }
  // 2. Inductor's fused op list: within the gap first (each call on its own, so that a call that
  //    cannot share a kernel with the others stays out); then the nearest kernel of B.
  for (const [a0, a1, b0, b1] of gaps) {
    for (const j of range(b0, b1).filter((x) => candB(x) && (!claimedB[x] || groupOfB.get(x)?.by === 'fused-ops'))) {
      for (const i of newAIn(a0, a1)) if (candA(i) && fits(i, j)) claim([i], j, 'fused-ops');
    }
  }
  const fusedB = range(0, B.length).filter((j) => candB(j) && B[j]!.fusedOps !== undefined && (!claimedB[j] || groupOfB.get(j)?.by === 'fused-ops'));
  for (const i of range(0, A.length)) {
    if (!candA(i)) continue;
    const [, , b0, b1] = gaps[gapOfA[i]!]!;
    const dist = (j: number) => (j < b0 ? b0 - j : j >= b1 ? j - b1 + 1 : 0);
    const order = fusedB.filter((j) => fits(i, j)).sort((x, y) => dist(x) - dist(y) || y - x);
    for (const j of order) if (canMove(i, j) && claim([i], j, 'fused-ops')) break;
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
  // Second stages join their first stage's group.
  for (const [j, k] of firstStageOf) {
    const g = groupOfB.get(k);
    if (!g) continue;
    g.b.push(j);
    claimedB[j] = 1;
  }
  for (const g of groups) g.b.sort((x, y) => x - y);
  for (const g of groups) g.a.sort((x, y) => x - y);

  // Why the rest stayed unmatched.
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
    if (!isKernel(ci)) reasonA.set(i, `B makes no ${ci.decoded.kind} under ${markdownCode(op)}${ci.tensors.length ? ' of these shapes' : ''}`);
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
    if (!isKernel(cj)) reasonB.set(j, `A makes no ${cj.decoded.kind} under ${markdownCode(cj.op ?? '(no op)')}${cj.tensors.length ? ' of these shapes' : ''}`);
    else if (firstStageOf.has(j)) reasonB.set(j, `a later stage of ${markdownCode(shortKernelName(B[firstStageOf.get(j)!]!.name))}, itself unmatched`);
    else if (cj.fusedOps) reasonB.set(j, `no call of A left under the ops it lists with a tensor of its sizes`);
    else if (cj.op !== undefined && A.some((x, i) => newInA[i] && x.op !== undefined && opFamily(x.op) === opFamily(cj.op!))) {
      const i = A.findIndex((x, k) => newInA[k] && x.op !== undefined && opFamily(x.op) === opFamily(cj.op!));
      reasonB.set(j, `A runs ${markdownCode(cj.op)} with other shapes (${markdownText(describeShapes(A[i]!)) || 'none recorded'})`);
    }
    else if (cj.op !== undefined)
      reasonB.set(j, `A runs no ${markdownCode(cj.op)}${cj.tensors.length ? ' of these shapes' : ''} that B no longer does, and it is not the only new kernel between the same aligned calls`);
    else reasonB.set(j, `no op and no fused op list, and not the only new kernel between the same aligned calls`);
  }
  return { a: seqA, b: seqB, pairs, groups, newInA, newInB, reasonA, reasonB };
}

function range(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let k = lo; k < hi; k++) out.push(k);
  return out;
}

/**
 * Index pairs of a longest common subsequence under `eq`. The common prefix and suffix are taken
 * first; the middle is solved exactly when small enough, otherwise greedily in order (large
 * training steps: the alignment then only decides where replacements are looked for).
 */
export function longestCommonSubsequence<T>(x: readonly T[], y: readonly T[], eq: (p: T, q: T) => boolean = (p, q) => p === q): [number, number][] {
  const head: [number, number][] = [];
  let s = 0;
  while (s < x.length && s < y.length && eq(x[s]!, y[s]!)) {
    head.push([s, s]);
    s++;
  }
  const tail: [number, number][] = [];
  let ex = x.length;
  let ey = y.length;
  while (ex > s && ey > s && eq(x[ex - 1]!, y[ey - 1]!)) {
    ex--;
    ey--;
    tail.unshift([ex, ey]);
  }
  const n = ex - s;
  const m = ey - s;
  const mid: [number, number][] = [];
  if (n > 0 && m > 0) {
    if ((n + 1) * (m + 1) <= 16_000_000) {
      const w = m + 1;
      const dp = new Uint32Array((n + 1) * w);
      const same = new Uint8Array(n * m);
      for (let i = n - 1; i >= 0; i--) {
        for (let j = m - 1; j >= 0; j--) {
          const e = eq(x[s + i]!, y[s + j]!);
          same[i * m + j] = e ? 1 : 0;
          dp[i * w + j] = e ? dp[(i + 1) * w + j + 1]! + 1 : Math.max(dp[(i + 1) * w + j]!, dp[i * w + j + 1]!);
        }
      }
      let i = 0;
      let j = 0;
      while (i < n && j < m) {
        if (same[i * m + j]) {
          mid.push([s + i, s + j]);
          i++;
          j++;
        } else if (dp[(i + 1) * w + j]! >= dp[i * w + j + 1]!) i++;
        else j++;
      }
    } else {
      let j = 0;
      for (let i = 0; i < n && j < m; i++) {
        let k = j;
        while (k < m && !eq(x[s + i]!, y[s + k]!)) k++;
        if (k < m) {
          mid.push([s + i, s + k]);
          j = k + 1;
        }
      }
    }
  }
  return [...head, ...mid, ...tail];
}

// ------------------------------------------------------------------------------------------------
// Summaries shared by the views

export interface KernelCall {
  readonly name: string;
  /** The owning `cpu_op`, when there is one. */
  readonly op?: string;
  readonly inputDims?: unknown;
  /** Mean duration of this call over the instances (and occurrences) it stands for. */
  readonly durUs: number;
}

export interface Replacement {
  /** A's calls whose work B's kernel does. */
  readonly a: readonly KernelCall[];
  readonly b: KernelCall;
  /** The later stages of B's split reduction, counted in bUs. */
  readonly laterStages?: readonly KernelCall[];
  readonly by: ReplacementRule;
  /** How many times per instance. */
  readonly count: number;
  /** Σ of A's calls' durations, and B's kernel's (every stage), per occurrence. */
  readonly aUs: number;
  readonly bUs: number;
  /** The groups it stands for, in the representative instances. */
  readonly occurrences: readonly MatchGroup[];
}

const call = (c: MatchCall, durNs: number): KernelCall => ({
  name: c.name,
  ...(c.op !== undefined ? { op: c.op } : {}),
  ...(c.inputDims !== undefined ? { inputDims: c.inputDims } : {}),
  durUs: durNs / 1000,
});

/** Identical replacements (the same calls, shapes and rule) grouped; each call's time is the mean over the group's occurrences. */
export function summarizeReplacements(k: KernelMatch): Replacement[] {
  const A = k.a.calls;
  const B = k.b.calls;
  const byKey = new Map<string, MatchGroup[]>();
  for (const g of k.groups) {
    const key = [g.by, ...g.b.map((j) => B[j]!.name), ...g.a.map((i) => `${A[i]!.name}\u0001${describeShapes(A[i]!)}`)].join('\u0000');
    const list = byKey.get(key);
    if (list) list.push(g);
    else byKey.set(key, [g]);
  }
  return [...byKey.values()].map((members) => {
    const first = members[0]!;
    const meanNs = (f: (g: MatchGroup) => number) => members.reduce((s, g) => s + f(g), 0) / members.length;
    const a = first.a.map((i, x) => call(A[i]!, meanNs((g) => A[g.a[x]!]!.durNs)));
    const b = call(B[first.b[0]!]!, meanNs((g) => B[g.b[0]!]!.durNs));
    const later = first.b.slice(1).map((j, x) => call(B[j]!, meanNs((g) => B[g.b[x + 1]!]!.durNs)));
    return {
      a,
      b,
      ...(later.length ? { laterStages: later } : {}),
      by: first.by,
      count: members.length,
      aUs: a.reduce((s, x) => s + x.durUs, 0),
      bUs: b.durUs + later.reduce((t, x) => t + x.durUs, 0),
      occurrences: members,
    };
  });
}

export interface SameWork {
  readonly name: string;
  /** The owning op's tensors in A (`[8192,768] bf16, …`), empty when not recorded. */
  readonly shapes: string;
  readonly op?: string;
  /** Calls per instance and mean duration per call, on each side. */
  readonly a: { readonly count: number; readonly meanUs: number };
  readonly b: { readonly count: number; readonly meanUs: number };
}

/**
 * Calls of the same work in both, per (name, A's op and shapes), in A's order: A's calls that are
 * not new, with the B calls aligned to them and B's other calls of known agreeing shapes.
 */
export function summarizeSame(k: KernelMatch): SameWork[] {
  const A = k.a.calls;
  const B = k.b.calls;
  const rows = new Map<string, { rep: MatchCall; as: number[]; bs: number[] }>();
  const rowOfA = new Map<number, { rep: MatchCall; as: number[]; bs: number[] }>();
  A.forEach((c, i) => {
    if (k.newInA[i]) return;
    const key = `${c.name}\u0000${c.op ?? ''}\u0000${describeShapes(c)}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { rep: c, as: [], bs: [] }));
    r.as.push(i);
    rowOfA.set(i, r);
  });
  const paired = new Set<number>();
  for (const [i, j] of k.pairs) {
    rowOfA.get(i)!.bs.push(j);
    paired.add(j);
  }
  B.forEach((c, j) => {
    if (paired.has(j) || k.newInB[j]) return;
    const r = [...rows.values()].find((x) => sameKnown(x.rep, c) && x.rep.op === c.op) ?? [...rows.values()].find((x) => sameKnown(x.rep, c));
    if (r) r.bs.push(j);
  });
  const mean = (xs: number[], s: readonly MatchCall[]) => (xs.length ? xs.reduce((t, x) => t + s[x]!.durNs, 0) / xs.length / 1000 : NaN);
  return [...rows.values()].map((r) => ({
    name: r.rep.name,
    shapes: describeShapes(r.rep),
    ...(r.rep.op !== undefined ? { op: r.rep.op } : {}),
    a: { count: r.as.length, meanUs: mean(r.as, A) },
    b: { count: r.bs.length, meanUs: mean(r.bs, B) },
  }));
}

export interface UnmatchedCall {
  readonly name: string;
  readonly op?: string;
  /** The owning op's tensors, empty when not recorded. */
  readonly shapes: string;
  /** Calls per instance. */
  readonly count: number;
  readonly meanUs: number;
  /** Why the evidence did not decide. */
  readonly reason: string;
}

/** Unmatched calls grouped by (name, op, shapes, reason), in first-seen order: the call, count, summed ns. */
export function groupUnmatched(
  calls: readonly MatchCall[],
  reasons: ReadonlyMap<number, string>,
  keep: (c: MatchCall) => boolean = () => true,
): { c: MatchCall; reason: string; n: number; ns: number }[] {
  const by = new Map<string, { c: MatchCall; reason: string; n: number; ns: number }>();
  for (const [i, reason] of reasons) {
    const c = calls[i]!;
    if (!keep(c)) continue;
    const key = `${c.name}\u0000${c.op ?? ''}\u0000${describeShapes(c)}\u0000${reason}`;
    const e = by.get(key);
    if (e) {
      e.n++;
      e.ns += c.durNs;
    } else by.set(key, { c, reason, n: 1, ns: c.durNs });
  }
  return [...by.values()];
}

/** New calls of one side that no replacement holds, per (name, shapes, reason). */
export function summarizeUnmatched(k: KernelMatch, side: 'a' | 'b'): UnmatchedCall[] {
  const groups = side === 'a' ? groupUnmatched(k.a.calls, k.reasonA) : groupUnmatched(k.b.calls, k.reasonB);
  return groups.map((e) => ({
    name: e.c.name,
    ...(e.c.op !== undefined ? { op: e.c.op } : {}),
    shapes: describeShapes(e.c),
    count: e.n,
    meanUs: e.ns / e.n / 1000,
    reason: e.reason,
  }));
}
