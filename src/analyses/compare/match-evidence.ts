/**
 * What two calls' records say about each other, the evidence the kernel matcher (kernel-match.ts)
 * decides on: whether their ops' recorded tensors agree; whether they are the same work
 * (`sameWork`) and what that pairing stands on (`pairProof`); whether a kernel may do another's
 * work (a tensor of its size, the shapes padded to a multiple of 8 or in another element type);
 * whether a kernel is the later stage of a split reduction.
 *
 * Kineto records input shapes only, and a CUDA-graph replay records none: a call whose op recorded
 * no shapes contradicts nothing here, and where a rule needs more, its launch signature speaks.
 */
import { GpuKind } from '../../model/trace-model.js';
import { formatDims, type TensorArg } from '../facts/tensor-bytes.js';
import type { LinkProof } from '../helpers/link-evidence.js';
import type { MatchCall } from './match-calls.js';
import { opFamily } from './op-families.js';

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
export function sameRecordedShapes(x: MatchCall, y: MatchCall): boolean {
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
 * GEMM on another. Where neither side recorded shapes nor a launch (an older trace, a device
 * without CUDA launches: nothing tells two calls of the kernel apart), the name in the same
 * place of the sequence is all there is: likely.
 */
export function sameWork(x: MatchCall, y: MatchCall): boolean {
  if (x.name !== y.name) return false;
  if (x.shapesRecorded && y.shapesRecorded) return tensorsAgree(x, y);
  if (nothingToCompare(x, y)) return true;
  return x.signatureKey !== undefined && x.signatureKey === y.signatureKey;
}

function nothingToCompare(x: MatchCall, y: MatchCall): boolean {
  return !x.shapesRecorded && !y.shapesRecorded && x.signatureKey === undefined && y.signatureKey === undefined;
}

/** The evidence of one same-work pair (`sameWork`): recorded shapes make it a fact, a launch signature alone likely. */
export function pairProof(x: MatchCall, y: MatchCall): LinkProof {
  const geometry = x.signatureKey !== undefined && x.signatureKey === y.signatureKey;
  if (x.shapesRecorded && y.shapesRecorded) {
    return { evidence: geometry ? ['shape-and-order', 'launch-geometry'] : ['shape-and-order'], strength: sameRecordedShapes(x, y) ? 'fact' : 'likely' };
  }
  if (nothingToCompare(x, y)) return { evidence: ['name-and-order'], strength: 'likely' };
  return { evidence: ['launch-geometry'], strength: 'likely' };
}

/**
 * Whether B's op takes at least one tensor of A's op's element count (true when either recorded
 * no shapes: that contradicts nothing). The dtype may differ: eager autocast runs a GELU's pow
 * and tanh on f32 copies where Inductor's kernel reads and writes the bf16 tensors and upcasts in
 * registers. An op of scalars only shares a tensor only with another (a scalar `add_` kernel
 * does not take a [10] copy).
 */
export function sharesATensor(a: MatchCall, b: MatchCall): boolean {
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
export function sharesARecordedTensor(a: MatchCall, b: MatchCall): boolean {
  return a.shapesRecorded && b.shapesRecorded && sharesATensor(a, b);
}

/**
 * Whether `second` is a later stage of the split reduction `first` began: an Inductor reduction
 * that takes one of `first`'s fp32 tensors of rank ≥ 2 (the partial buffer, accumulated in fp32)
 * and a tensor of the same leading dims whose last dim is gone or smaller (what it reduces it to).
 */
export function isLaterStage(first: MatchCall, second: MatchCall): boolean {
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

/** The same op on tensors of the same dims in another element type (a model run in fp32 instead of bf16). */
export function sameDimsOtherDtype(x: MatchCall, y: MatchCall): boolean {
  if (!x.shapesRecorded || !y.shapesRecorded || x.tensors.length === 0 || y.tensors.length < x.tensors.length || y.tensors.length > x.tensors.length + 1) return false;
  return x.tensors.every((t, k) => t.index === y.tensors[k]!.index && formatDims(t.dims) === formatDims(y.tensors[k]!.dims)) && x.tensors.some((t, k) => t.dtype !== y.tensors[k]!.dtype);
}

/**
 * The same op with the shapes of B a padded copy of A's: each tensor's dims equal but where B's is
 * A's rounded up to a multiple of 8 (Inductor pads a GEMM's unaligned dim: `pad_mm`); B may hold
 * one more tensor (out=).
 */
export function paddedAgree(x: MatchCall, y: MatchCall): boolean {
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
