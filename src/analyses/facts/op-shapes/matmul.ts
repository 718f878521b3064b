/**
 * Matrix products: mm, addmm, bmm, baddbmm, matmul (with its vector and batch-broadcast cases),
 * linear, mv/addmv, dot, outer, _scaled_mm. The output takes the operands' dtype (torch requires
 * them to agree; `_scaled_mm` writes the `out_dtype` it is given). Operands of two dtypes are
 * recorded only where autocast called the op, and autocast casts them to a dtype the trace does
 * not record there: the output's dtype is then unknown.
 */
import type { DerivedTensor } from './recorded-call.js';
import { broadcast, tensorOf, type OpRule } from './shape-math.js';

/** The operands' common dtype, or undefined when they differ (an autocast call: see above). */
const common = (...ts: DerivedTensor[]): string | undefined => (ts.every((t) => t.dtype === ts[0]!.dtype) ? ts[0]!.dtype : undefined);

/** [n,k] × [k,m] → [n,m]; undefined unless both are matrices that agree on k. */
function mmDims(a: readonly number[], b: readonly number[]): number[] | undefined {
  if (a.length !== 2 || b.length !== 2 || a[1] !== b[0]) return undefined;
  return [a[0]!, b[1]!];
}

/** mm(self, mat2) (and mm(self, mat2, out_dtype)). */
const mm: OpRule = (c) => {
  const a = c.tensor(0);
  const b = c.tensor(1);
  const dims = a && b ? mmDims(a.dims, b.dims) : undefined;
  if (!a || !dims) return undefined;
  const d = c.n >= 3 && c.type(2) === 'Scalar' ? c.dtypeArg(2) : null;
  return d === undefined ? undefined : [tensorOf(dims, d ?? common(a, b!))];
};

/** The output's dims of a product of two operands' dims, or undefined when they do not agree. */
type ProductDims = (a: readonly number[], b: readonly number[]) => number[] | undefined;

/** A product op (self, other) by its shape rule: the output takes the operands' common dtype. */
function productRule(dims: ProductDims): OpRule {
  return (c) => {
    const a = c.tensor(0);
    const b = c.tensor(1);
    const d = a && b ? dims(a.dims, b.dims) : undefined;
    return a && d ? [tensorOf(d, common(a, b!))] : undefined;
  };
}

/** A product added to a tensor (self, mat1, mat2, beta, alpha): the product's shape, which self broadcasts to. */
function addProductRule(dims: ProductDims): OpRule {
  return (c) => {
    const bias = c.tensor(0);
    const a = c.tensor(1);
    const b = c.tensor(2);
    const d = a && b ? dims(a.dims, b.dims) : undefined;
    if (!bias || !a || !d || !broadcastsTo(bias.dims, d)) return undefined;
    return [tensorOf(d, common(bias, a, b!))];
  };
}

/** addmm(self, mat1, mat2, beta, alpha). */
const addmm = addProductRule(mmDims);

/** bmm(self, mat2): [b,n,k] × [b,k,m] → [b,n,m]. */
const bmm = productRule(bmmDims);

/** baddbmm(self, batch1, batch2, beta, alpha). */
const baddbmm = addProductRule(bmmDims);

function bmmDims(a: readonly number[], b: readonly number[]): number[] | undefined {
  if (a.length !== 3 || b.length !== 3 || a[0] !== b[0] || a[2] !== b[1]) return undefined;
  return [a[0]!, a[1]!, b[2]!];
}

function broadcastsTo(from: readonly number[], to: readonly number[]): boolean {
  const b = broadcast(from, to);
  return b !== undefined && b.length === to.length && b.every((d, k) => d === to[k]);
}

/** torch.matmul's shape rules (aten/src/ATen/native/LinearAlgebra.cpp `_matmul_impl`). */
export function matmulDims(a: readonly number[], b: readonly number[]): number[] | undefined {
  const ra = a.length;
  const rb = b.length;
  if (ra === 0 || rb === 0) return undefined;
  if (ra === 1 && rb === 1) return a[0] === b[0] ? [] : undefined;
  if (ra === 2 && rb === 1) return a[1] === b[0] ? [a[0]!] : undefined;
  if (ra === 1 && rb === 2) return a[0] === b[0] ? [b[1]!] : undefined;
  if (ra === 2 && rb === 2) return mmDims(a, b);
  // Batched: a vector side gets a dimension, removed again after.
  const x = ra === 1 ? [1, a[0]!] : a;
  const y = rb === 1 ? [b[0]!, 1] : b;
  const n = x[x.length - 2]!;
  const k = x[x.length - 1]!;
  if (y[y.length - 2] !== k) return undefined;
  const m = y[y.length - 1]!;
  const batch = broadcast(x.slice(0, -2), y.slice(0, -2));
  if (!batch) return undefined;
  const out = [...batch];
  if (ra > 1) out.push(n);
  if (rb > 1) out.push(m);
  return out;
}

const matmul = productRule(matmulDims);

/** linear(input, weight, bias?): input[..., in] × weight[out, in]ᵀ → [..., out] (a 1-D weight drops the dimension). */
const linear: OpRule = (c) => {
  const x = c.tensor(0);
  const w = c.tensor(1);
  if (!x || !w || x.dims.length === 0) return undefined;
  const inner = x.dims[x.dims.length - 1];
  let dims: number[];
  if (w.dims.length === 2 && w.dims[1] === inner) dims = [...x.dims.slice(0, -1), w.dims[0]!];
  else if (w.dims.length === 1 && w.dims[0] === inner) dims = x.dims.slice(0, -1);
  else return undefined;
  const bias = c.tensor(2);
  return [tensorOf(dims, bias ? common(x, w, bias) : common(x, w))];
};

/** mv(self, vec) and addmv(self, mat, vec): [n,k] × [k] → [n]. */
function mvRule(mat: number, vec: number): OpRule {
  return (c) => {
    const a = c.tensor(mat);
    const v = c.tensor(vec);
    if (!a || !v || a.dims.length !== 2 || v.dims.length !== 1 || a.dims[1] !== v.dims[0]) return undefined;
    return [tensorOf([a.dims[0]!], common(a, v))];
  };
}

/** dot/vdot(self, other): two vectors of one length → a 0-dim tensor. */
const dot: OpRule = (c) => {
  const a = c.tensor(0);
  const b = c.tensor(1);
  if (!a || !b || a.dims.length !== 1 || b.dims.length !== 1 || a.dims[0] !== b.dims[0]) return undefined;
  return [tensorOf([], a.dtype)];
};

/** outer/ger(self, vec2): [n] ⊗ [m] → [n,m]. */
const outer: OpRule = (c) => {
  const a = c.tensor(0);
  const b = c.tensor(1);
  if (!a || !b || a.dims.length !== 1 || b.dims.length !== 1) return undefined;
  return [tensorOf([a.dims[0]!, b.dims[0]!], a.dtype)];
};

/**
 * _scaled_mm(self, mat2, scale_a, scale_b, bias?, scale_result?, out_dtype?, use_fast_accum):
 * [n,k] fp8 × [k,m] fp8 → [n,m] in out_dtype (the first operand's dtype when none).
 */
const scaledMm: OpRule = (c) => {
  const a = c.tensor(0);
  const b = c.tensor(1);
  const dims = a && b ? mmDims(a.dims, b.dims) : undefined;
  if (!a || !dims) return undefined;
  const d = c.dtypeArg(6);
  return d === undefined ? undefined : [tensorOf(dims, d ?? a.dtype)];
};

export const MATMUL_RULES: Readonly<Record<string, OpRule>> = {
  mm,
  addmm,
  _addmm_activation: addmm,
  bmm,
  baddbmm,
  matmul,
  linear,
  mv: mvRule(0, 1),
  addmv: mvRule(1, 2),
  dot,
  vdot: dot,
  outer,
  ger: outer,
  _scaled_mm: scaledMm,
};
