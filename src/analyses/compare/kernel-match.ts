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
 * Ignores: the order of calls inside a replaced group; GPU work launched outside every instance.
 */
import type { JsonObject } from '../../core/json.js';
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { isMemoryBound, opBaseName } from './kernel-sites.js';
import { readsOutputOf } from './intermediates.js';
import { decodeKernelName, shortKernelName, type DecodedKernelName } from '../kernels/kernel-name.js';
import { owningOp, type ScopeInstance } from '../host/scopes.js';
import { formatDims, shortDtype, tensorArgs, type TensorArg } from '../facts/tensor-bytes.js';
import { markdownCode, markdownText } from '../../core/inert-text.js';
import { describeSignature, launchSignatureOf, type LaunchSignature } from './launch-signature.js';
import { checkPhysics, devicePeaksOf, workBound, type PhysicsVerdict } from './work-bounds.js';
import type { LinkEvidence, LinkProof } from '../helpers/link-evidence.js';

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
  /**
   * Whether the kernel's own op recorded its shapes (`Input Dims`): false with no op, under a
   * wrapper (a CUDA-graph replay's `CompiledFunction`) or without record_shapes. Only then do
   * `tensors` say anything: an empty list of a recorded op means every argument is a scalar.
   */
  readonly shapesRecorded: boolean;
  /** The owning op's tensor arguments of more than one element (none when the owner is a wrapper, not the kernel's op). */
  readonly tensors: readonly TensorArg[];
  /** The shapes of the op's TensorList arguments (`_foreach_*`: no element type recorded), as one text; absent without any. */
  readonly listKey?: string;
  /** What the launch record says: grid, block, shared memory, registers (a memset's or copy's bytes). */
  readonly signature?: LaunchSignature;
  /** `describeSignature(signature)`: equal for equal signatures. */
  readonly signatureKey?: string;
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
    const signature = launchSignatureOf(m, g);
    const listKey = tensorListKey(args);
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
      // a TensorList recorded as `[]` (the profiler leaves long lists out: GPT-2's optimizer
      // step) says nothing of its tensors — a kernel over an empty list would not launch
      shapesRecorded: Array.isArray(dims) && !unrecordedList(args),
      tensors: tensorArgs(args).filter((t) => t.numel > 1),
      ...(listKey !== undefined ? { listKey } : {}),
      ...(signature ? { signature, signatureKey: describeSignature(signature) } : {}),
      ...(fused ? { fusedOps: fused } : {}),
      durNs: members.length ? sum / members.length : 0,
    };
  });
  return { calls, instances: members.length };
}

/** The dims of an op's TensorList arguments (`Input type` `TensorList`), as one text; undefined when it has none. */
function tensorListKey(args: JsonObject | undefined): string | undefined {
  const dims = args?.['Input Dims'] ?? args?.['Input dims'];
  const types = args?.['Input type'];
  if (!Array.isArray(dims) || !Array.isArray(types)) return undefined;
  const lists = types.flatMap((t, i) => (t === 'TensorList' ? [JSON.stringify(dims[i] ?? null)] : []));
  return lists.length ? lists.join(';') : undefined;
}

/** Whether an op's TensorList argument was recorded without its members (`Input Dims` `[]`). */
function unrecordedList(args: JsonObject | undefined): boolean {
  const dims = args?.['Input Dims'] ?? args?.['Input dims'];
  const types = args?.['Input type'];
  if (!Array.isArray(dims) || !Array.isArray(types)) return false;
  return types.some((t, i) => t === 'TensorList' && Array.isArray(dims[i]) && (dims[i] as unknown[]).length === 0);
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
  // one attention, whichever backend SDPA picked (or Inductor's math decomposition)
  scaled_dot_product_attention: 'scaled_dot_product_attention',
  _scaled_dot_product_cudnn_attention: 'scaled_dot_product_attention',
  _scaled_dot_product_flash_attention: 'scaled_dot_product_attention',
  _scaled_dot_product_efficient_attention: 'scaled_dot_product_attention',
  _scaled_dot_product_attention_math: 'scaled_dot_product_attention',
  _scaled_dot_product_fused_attention_overrideable: 'scaled_dot_product_attention',
  _flash_attention_forward: 'scaled_dot_product_attention',
  _efficient_attention_forward: 'scaled_dot_product_attention',
  _cudnn_attention_forward: 'scaled_dot_product_attention',
  _scaled_dot_product_cudnn_attention_backward: 'scaled_dot_product_attention_backward',
  _scaled_dot_product_flash_attention_backward: 'scaled_dot_product_attention_backward',
  _scaled_dot_product_efficient_attention_backward: 'scaled_dot_product_attention_backward',
  _scaled_dot_product_fused_attention_overrideable_backward: 'scaled_dot_product_attention_backward',
  _flash_attention_backward: 'scaled_dot_product_attention_backward',
  _efficient_attention_backward: 'scaled_dot_product_attention_backward',
  _cudnn_attention_backward: 'scaled_dot_product_attention_backward',
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
  const lists =
    c.listKey !== undefined
      ? c.listKey.split(';').map((l) => {
          const n = (JSON.parse(l) as unknown[] | null)?.length ?? 0;
          return n > 0 ? `a list of ${n} tensors` : 'a list of tensors (not recorded)';
        })
      : [];
  return [...c.tensors.map((t) => `${formatDims(t.dims)} ${shortDtype(t.dtype)}`), ...lists].join(', ');
}

// ------------------------------------------------------------------------------------------------
// Shapes

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
 * A call whose op recorded no shapes contradicts nothing (the replacement rules read it so; the
 * same-work rule asks for its launch signature instead); an op whose arguments are all scalars
 * agrees only with another such op.
 */
export function tensorsAgree(x: MatchCall, y: MatchCall): boolean {
  if (!x.shapesRecorded || !y.shapesRecorded) return true;
  if (x.listKey !== y.listKey) return false;
  if (numelsOf(x).length === 0 || numelsOf(y).length === 0) return numelsOf(x).length === numelsOf(y).length;
  // both shapes are an op's own: a memset or copy under another op is other work (the memset
  // under `aten::sum` is not the one under `aten::mm`); one kernel under two ops on tensors of
  // the same sizes is likely the same work (Inductor calls `mm` where eager called `bmm` on a batch of 1)
  if (x.op !== undefined && y.op !== undefined && opFamily(x.op) !== opFamily(y.op) && (x.gpuKind !== GpuKind.Kernel || y.gpuKind !== GpuKind.Kernel)) return false;
  if (x.op !== undefined && x.op === y.op) return samePositions(x, y);
  const kx = keysOf(x);
  const ky = keysOf(y);
  return subMultiset(kx, ky) || subMultiset(ky, kx);
}

/**
 * Two calls of one op: the same argument at every position both recorded (dims, and the element
 * type of each tensor), the longer list's extra arguments at its end (the out= tensor a compiled
 * graph passes). An optional tensor given on one side and not the other (an attention mask where
 * the other call had none) is other work.
 */
function samePositions(x: MatchCall, y: MatchCall): boolean {
  const dx = x.inputDims as unknown[];
  const dy = y.inputDims as unknown[];
  const n = Math.min(dx.length, dy.length);
  for (let i = 0; i < n; i++) if (JSON.stringify(dx[i]) !== JSON.stringify(dy[i])) return false;
  const typeAt = (c: MatchCall, i: number) => c.tensors.find((t) => t.index === i)?.dtype;
  for (let i = 0; i < n; i++) if (typeAt(x, i) !== typeAt(y, i)) return false;
  return true;
}

/** Whether both recorded their shapes under the same op, argument by argument (one list may hold an extra out= operand): the same work as a fact. */
function sameRecordedShapes(x: MatchCall, y: MatchCall): boolean {
  if (!x.shapesRecorded || !y.shapesRecorded || x.op !== y.op || x.listKey !== y.listKey) return false;
  return samePositions(x, y);
}

const numelKeys = new WeakMap<MatchCall, string[]>();
/** `numel:dtype` of each tensor of more than one element. */
function keysOf(c: MatchCall): string[] {
  let k = numelKeys.get(c);
  if (!k) numelKeys.set(c, (k = c.tensors.map((t) => `${t.numel}:${t.dtype}`)));
  return k;
}

/**
 * The same work in both: the same kernel name, and where both ops recorded shapes, agreeing
 * shapes; where either did not (a CUDA-graph replay records none), the same launch signature —
 * grid, block, shared memory and registers (a memset's or copy's bytes). Calls of one kernel
 * with different signatures are never paired: a replayed GEMM on one shape is not the eager
 * GEMM on another.
 */
export function sameWork(x: MatchCall, y: MatchCall): boolean {
  if (x.name !== y.name) return false;
  if (x.shapesRecorded && y.shapesRecorded) return tensorsAgree(x, y);
  return x.signatureKey !== undefined && x.signatureKey === y.signatureKey;
}

/** The evidence of one same-work pair (`sameWork`): recorded shapes make it a fact, a launch signature alone likely. */
export function pairProof(x: MatchCall, y: MatchCall): LinkProof {
  const geometry = x.signatureKey !== undefined && x.signatureKey === y.signatureKey;
  if (x.shapesRecorded && y.shapesRecorded) {
    return { evidence: geometry ? ['shape-and-order', 'launch-geometry'] : ['shape-and-order'], strength: sameRecordedShapes(x, y) ? 'fact' : 'likely' };
  }
  return { evidence: ['launch-geometry'], strength: 'likely' };
}

/**
 * Whether B's op takes at least one tensor of A's op's element count (true when either recorded
 * no shapes: that contradicts nothing). The dtype may differ: eager autocast runs a GELU's pow
 * and tanh on f32 copies where Inductor's kernel reads and writes the bf16 tensors and upcasts in
 * registers. An op of scalars only shares a tensor only with another (a scalar `add_` kernel
 * does not take a [10] copy).
 */
function sharesATensor(a: MatchCall, b: MatchCall): boolean {
  if (!a.shapesRecorded || !b.shapesRecorded) return true;
  const na = numelsOf(a);
  const nb = numelsOf(b);
  if (na.length === 0 || nb.length === 0) return na.length === nb.length;
  return na.some((n) => nb.includes(n));
}

const numelCache = new WeakMap<MatchCall, number[]>();
/** The element counts of a call's tensors of more than one element, a TensorList's members included. */
function numelsOf(c: MatchCall): number[] {
  let out = numelCache.get(c);
  if (out) return out;
  out = c.tensors.map((t) => t.numel);
  for (const l of c.listKey?.split(';') ?? []) {
    const members = JSON.parse(l) as unknown;
    if (!Array.isArray(members)) continue;
    for (const d of members) if (Array.isArray(d) && d.every((x) => typeof x === 'number')) out.push((d as number[]).reduce((p, x) => p * x, 1));
  }
  out = out.filter((n) => n > 1);
  numelCache.set(c, out);
  return out;
}

/** sharesATensor on shapes both sides recorded: positive evidence, not the absence of a contradiction. */
function sharesARecordedTensor(a: MatchCall, b: MatchCall): boolean {
  return a.shapesRecorded && b.shapesRecorded && sharesATensor(a, b);
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

/** The same op on tensors of the same dims in another element type (a model run in fp32 instead of bf16). */
function sameDimsOtherDtype(x: MatchCall, y: MatchCall): boolean {
  if (!x.shapesRecorded || !y.shapesRecorded || x.tensors.length === 0 || y.tensors.length < x.tensors.length || y.tensors.length > x.tensors.length + 1) return false;
  return x.tensors.every((t, k) => t.index === y.tensors[k]!.index && formatDims(t.dims) === formatDims(y.tensors[k]!.dims)) && x.tensors.some((t, k) => t.dtype !== y.tensors[k]!.dtype);
}

/**
 * The same op with the shapes of B a padded copy of A's: each tensor's dims equal but where B's is
 * A's rounded up to a multiple of 8 (Inductor pads a GEMM's unaligned dim: `pad_mm`); B may hold
 * one more tensor (out=).
 */
function paddedAgree(x: MatchCall, y: MatchCall): boolean {
  if (!x.shapesRecorded || !y.shapesRecorded || x.tensors.length === 0 || y.tensors.length < x.tensors.length || y.tensors.length > x.tensors.length + 1) return false;
  let padded = false;
  for (let k = 0; k < x.tensors.length; k++) {
    const p = x.tensors[k]!;
    const q = y.tensors[k]!;
    if (p.dtype !== q.dtype || p.dims.length !== q.dims.length) return false;
    for (let d = 0; d < p.dims.length; d++) {
      const u = p.dims[d]!;
      const v = q.dims[d]!;
      if (u === v) continue;
      if (v > u && v % 8 === 0 && v - u < 8) padded = true;
      else return false;
    }
  }
  return padded;
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
  /** A's calls whose work B's kernels do. */
  readonly a: readonly KernelCall[];
  /** B's first kernel. */
  readonly b: KernelCall;
  /** The later stages of `b`'s split reduction, counted in bUs. */
  readonly laterStages?: readonly KernelCall[];
  /** B's other kernels in the replacement (another kernel Inductor split the op into, with its stages), counted in bUs. */
  readonly withKernels?: readonly KernelCall[];
  readonly by: ReplacementRule;
  /** How many times per instance. */
  readonly count: number;
  /** Σ of A's calls' durations, and of B's kernels' (every stage), per occurrence. */
  readonly aUs: number;
  readonly bUs: number;
  /** What supports it, over every occurrence. */
  readonly proof: LinkProof;
  /** The physics check of its first occurrence: passed (with the least time the work needs) or not checked, and why. */
  readonly physics: { readonly verdict: 'passed' | 'unchecked'; readonly minUs?: number; readonly reason?: string };
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
    const bs = first.b.map((j, x) => ({ j, c: call(B[j]!, meanNs((g) => B[g.b[x]!]!.durNs)) }));
    const b = bs[0]!.c;
    const later = bs.slice(1).filter((x) => k.firstStageOf.get(x.j) === first.b[0]).map((x) => x.c);
    const others = bs.slice(1).filter((x) => k.firstStageOf.get(x.j) !== first.b[0]).map((x) => x.c);
    const ph = first.physics;
    return {
      a,
      b,
      ...(later.length ? { laterStages: later } : {}),
      ...(others.length ? { withKernels: others } : {}),
      by: first.by,
      count: members.length,
      aUs: a.reduce((s, x) => s + x.durUs, 0),
      bUs: bs.reduce((t, x) => t + x.c.durUs, 0),
      proof: mergeProofs(members.map((g) => g.proof)),
      physics: ph.verdict === 'passed' ? { verdict: 'passed', minUs: ph.minNs / 1000 } : { verdict: 'unchecked', reason: ph.verdict === 'unchecked' ? ph.reason : '' },
      occurrences: members,
    };
  });
}

export interface SameWork {
  readonly name: string;
  /** The owning op's tensors in A (`[8192,768] bf16, …`), empty when not recorded. */
  readonly shapes: string;
  readonly op?: string;
  /** Whether each side's op recorded the calls' shapes (a CUDA-graph replay's do not). */
  readonly shapesRecorded: { readonly a: boolean; readonly b: boolean };
  /** A's launch signature (grid, block, shared memory, registers), when recorded: what pairs calls without shapes. */
  readonly signature?: string;
  /** Calls per instance and mean duration per call, on each side. */
  readonly a: { readonly count: number; readonly meanUs: number };
  readonly b: { readonly count: number; readonly meanUs: number };
  /** What makes them the same work: a fact only where both sides recorded equal shapes for every call. */
  readonly proof: LinkProof;
}

/**
 * Calls of the same work in both, per (name, A's op and shapes; and A's launch signature where A
 * recorded no shapes), in A's order: A's calls that are not new, with the B calls aligned to them
 * and B's other calls of the same work. Replayed calls of one kernel with two signatures stay two rows.
 */
export function summarizeSame(k: KernelMatch): SameWork[] {
  const A = k.a.calls;
  const B = k.b.calls;
  interface Row {
    rep: MatchCall;
    as: number[];
    bs: number[];
    proofs: LinkProof[];
  }
  const rows = new Map<string, Row>();
  const rowOfA = new Map<number, Row>();
  A.forEach((c, i) => {
    if (k.newInA[i]) return;
    const key = `${c.name}\u0000${c.op ?? ''}\u0000${describeShapes(c)}\u0000${c.shapesRecorded ? '' : (c.signatureKey ?? '')}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { rep: c, as: [], bs: [], proofs: [] }));
    r.as.push(i);
    rowOfA.set(i, r);
  });
  const paired = new Set<number>();
  k.pairs.forEach(([i, j], x) => {
    const r = rowOfA.get(i)!;
    r.bs.push(j);
    r.proofs.push(k.pairProofs[x]!);
    paired.add(j);
  });
  B.forEach((c, j) => {
    if (paired.has(j) || k.newInB[j]) return;
    const all = [...rows.values()];
    const r = all.find((x) => sameWork(x.rep, c) && x.rep.op === c.op) ?? all.find((x) => sameWork(x.rep, c));
    if (!r) return;
    r.bs.push(j);
    r.proofs.push(pairProof(r.rep, c));
  });
  const mean = (xs: number[], s: readonly MatchCall[]) => (xs.length ? xs.reduce((t, x) => t + s[x]!.durNs, 0) / xs.length / 1000 : NaN);
  return [...rows.values()].map((r) => ({
    name: r.rep.name,
    shapes: describeShapes(r.rep),
    ...(r.rep.op !== undefined ? { op: r.rep.op } : {}),
    shapesRecorded: { a: r.as.every((i) => A[i]!.shapesRecorded), b: r.bs.length > 0 && r.bs.every((j) => B[j]!.shapesRecorded) },
    ...(r.rep.signatureKey !== undefined ? { signature: r.rep.signatureKey } : {}),
    a: { count: r.as.length, meanUs: mean(r.as, A) },
    b: { count: r.bs.length, meanUs: mean(r.bs, B) },
    proof: mergeProofs(r.proofs),
  }));
}

const EVIDENCE_ORDER: readonly LinkEvidence[] = ['tensor-identity', 'shape-and-order', 'launch-geometry', 'physics-checked'];

/** Several links read as one: a fact only when each is; evidence every one of them has, else what any has. */
export function mergeProofs(proofs: readonly LinkProof[]): LinkProof {
  if (proofs.length === 0) return { evidence: [], strength: 'likely' };
  const all = EVIDENCE_ORDER.filter((e) => proofs.every((p) => p.evidence.includes(e)));
  const any = EVIDENCE_ORDER.filter((e) => proofs.some((p) => p.evidence.includes(e)));
  return { evidence: all.length ? all : any, strength: proofs.every((p) => p.strength === 'fact') ? 'fact' : 'likely' };
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
