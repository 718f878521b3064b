/**
 * Reductions: the input's shape less the reduced dimensions (kept as 1s with `keepdim`; no
 * dimension list, or an empty one, reduces them all), in the dtype the op gives: `sum`/`prod`/
 * `cumsum` accumulate integers and bool as int64, `mean`/`var`/`std` keep the floating dtype,
 * `argmax` gives int64, `any`/`all` bool; a `dtype` argument overrides.
 *
 * The output is never the input's shape: `sum` of a [64,128,32,32] gradient over [0,2,3] is [128].
 */
import { DEFAULT_INT, floatingOf, isIntegral, realOf } from '../dtypes.js';
import type { RecordedCall } from './recorded-call.js';
import { reducedDims, tensorOf, wrapDim, type OpRule } from './shape-math.js';

/** The dtype of an accumulating reduction (sum, prod, cumsum): the `dtype` argument, else int64 for integers and bool. */
function accumulated(c: RecordedCall, dtypeAt: number): string | undefined {
  const self = c.tensor(0);
  if (!self) return undefined;
  const d = c.dtypeArg(dtypeAt);
  if (d === undefined) return undefined;
  if (d !== null) return d;
  return isIntegral(self.dtype, true) ? DEFAULT_INT : self.dtype;
}

/** The dtype of a reduction that keeps the input's dtype unless told (`mean`). */
function kept(c: RecordedCall, dtypeAt: number): string | undefined {
  const self = c.tensor(0);
  if (!self) return undefined;
  const d = c.dtypeArg(dtypeAt);
  return d === undefined ? undefined : d ?? self.dtype;
}

/**
 * A reduction whose overloads are (self, dtype?) over everything, or (self, dim, keepdim, dtype?,
 * out?) over a dimension list (`sum`, `mean`, `nansum`).
 */
function dimListReduction(dtypeOf: (c: RecordedCall, dtypeAt: number) => string | undefined): OpRule {
  return (c) => {
    const self = c.tensor(0);
    if (!self) return undefined;
    if (c.n <= 2) return [tensorOf([], dtypeOf(c, 1))];
    const dims = c.isBlank(1) ? undefined : c.ints(1);
    const keepdim = c.bool(2);
    if ((!c.isBlank(1) && dims === undefined) || keepdim === undefined) return undefined;
    const shape = reducedDims(self.dims, dims, keepdim);
    return shape ? [tensorOf(shape, dtypeOf(c, 3))] : undefined;
  };
}

/** amax/amin(self, dim=[], keepdim): the input's dtype. */
const extremum: OpRule = (c) => {
  const self = c.tensor(0);
  const dims = c.ints(1);
  const keepdim = c.bool(2);
  if (!self || !dims || keepdim === undefined) return undefined;
  const shape = reducedDims(self.dims, dims, keepdim);
  return shape ? [tensorOf(shape, self.dtype)] : undefined;
};

/** max/min: of everything (self), of two tensors (self, other: pointwise), or along a dim (values, indices). */
function maxMin(pointwise: OpRule): OpRule {
  return (c) => {
    const self = c.tensor(0);
    if (!self) return undefined;
    if (c.n === 1) return [tensorOf([], self.dtype)];
    if (c.isTensor(1)) return pointwise(c);
    const dim = c.int(1);
    const keepdim = c.bool(2);
    if (dim === undefined || keepdim === undefined) return undefined;
    const shape = reducedDims(self.dims, [dim], keepdim);
    return shape ? [tensorOf(shape, self.dtype), tensorOf(shape, DEFAULT_INT)] : undefined;
  };
}

/** argmax/argmin(self, dim?, keepdim): int64; no dim reduces everything (all 1s with keepdim). */
const argExtremum: OpRule = (c) => {
  const self = c.tensor(0);
  const keepdim = c.bool(2);
  if (!self || keepdim === undefined) return undefined;
  const dim = c.isBlank(1) ? undefined : c.int(1);
  if (!c.isBlank(1) && dim === undefined) return undefined;
  const shape = reducedDims(self.dims, dim === undefined ? undefined : [dim], keepdim);
  return shape ? [tensorOf(shape, DEFAULT_INT)] : undefined;
};

/** var/std: (self, unbiased) over everything, or (self, dim?, unbiased|correction, keepdim); `_mean` variants add the mean. */
function moments(withMean: boolean): OpRule {
  return (c) => {
    const self = c.tensor(0);
    if (!self) return undefined;
    const dtype = floatingOf(realOf(self.dtype!));
    let shape: number[] | undefined;
    if (c.n === 2) shape = [];
    else if (c.n >= 4) {
      const dims = c.isBlank(1) ? undefined : c.ints(1);
      const keepdim = c.bool(3);
      if ((!c.isBlank(1) && dims === undefined) || keepdim === undefined) return undefined;
      shape = reducedDims(self.dims, dims, keepdim);
    }
    if (!shape) return undefined;
    const out = tensorOf(shape, dtype);
    return withMean ? [out, tensorOf(shape, self.dtype)] : [out];
  };
}

/** prod: (self, dtype) over everything, or (self, dim, keepdim, dtype). */
const prod: OpRule = (c) => {
  const self = c.tensor(0);
  if (!self) return undefined;
  if (c.n <= 2) return [tensorOf([], accumulated(c, 1))];
  const dim = c.int(1);
  const keepdim = c.bool(2);
  if (dim === undefined || keepdim === undefined) return undefined;
  const shape = reducedDims(self.dims, [dim], keepdim);
  return shape ? [tensorOf(shape, accumulated(c, 3))] : undefined;
};

/** any/all: (self), (self, dim, keepdim) or (self, dims, keepdim); bool (uint8 stays uint8). */
const anyAll: OpRule = (c) => {
  const self = c.tensor(0);
  if (!self) return undefined;
  const dtype = self.dtype === 'unsigned char' ? self.dtype : 'bool';
  if (c.n === 1) return [tensorOf([], dtype)];
  const dims = c.isBlank(1) ? undefined : c.ints(1);
  const keepdim = c.bool(2);
  if ((!c.isBlank(1) && dims === undefined) || keepdim === undefined) return undefined;
  const shape = reducedDims(self.dims, dims, keepdim);
  return shape ? [tensorOf(shape, dtype)] : undefined;
};

/** logsumexp(self, dim, keepdim): floating. */
const logsumexp: OpRule = (c) => {
  const self = c.tensor(0);
  const dims = c.ints(1);
  const keepdim = c.bool(2);
  if (!self || !dims || keepdim === undefined) return undefined;
  const shape = reducedDims(self.dims, dims, keepdim);
  return shape ? [tensorOf(shape, floatingOf(self.dtype!))] : undefined;
};

/** linalg_vector_norm(self, ord, dim?, keepdim, dtype?): real floating, or the dtype asked. */
const vectorNorm: OpRule = (c) => {
  const self = c.tensor(0);
  if (!self || c.n < 4) return undefined;
  const dims = c.isBlank(2) ? undefined : c.ints(2);
  const keepdim = c.bool(3);
  if ((!c.isBlank(2) && dims === undefined) || keepdim === undefined) return undefined;
  const shape = reducedDims(self.dims, dims, keepdim);
  const d = c.dtypeArg(4);
  if (!shape || d === undefined) return undefined;
  return [tensorOf(shape, d ?? floatingOf(realOf(self.dtype!)))];
};

/** norm: (self, p) over everything, or (self, p, dim, keepdim[, dtype]). */
const norm: OpRule = (c) => {
  const self = c.tensor(0);
  if (!self) return undefined;
  const dtype = floatingOf(realOf(self.dtype!));
  if (c.n === 2) return [tensorOf([], dtype)];
  const dims = c.ints(2);
  const keepdim = c.bool(3);
  if (!dims || keepdim === undefined) return undefined;
  const shape = reducedDims(self.dims, dims, keepdim);
  const d = c.n >= 5 ? c.dtypeArg(4) : null;
  return shape && d !== undefined ? [tensorOf(shape, d ?? dtype)] : undefined;
};

/** cumsum/cumprod(self, dim, dtype?): the input's shape, accumulated dtype. */
const cumulative: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  if (!self || dim === undefined || wrapDim(dim, self.dims.length) === undefined) return undefined;
  return [tensorOf(self.dims, accumulated(c, 2))];
};

/** sort(self, dim, descending) or sort(self, stable, dim, descending): (values, indices) of the input's shape. */
const sort: OpRule = (c) => {
  const self = c.tensor(0);
  return self ? [self, tensorOf(self.dims, DEFAULT_INT)] : undefined;
};

/** topk(self, k, dim, largest, sorted): (values, indices) with dimension `dim` of size k. */
const topk: OpRule = (c) => {
  const self = c.tensor(0);
  const k = c.int(1);
  const dim = c.int(2);
  if (!self || k === undefined || dim === undefined) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined) return undefined;
  const dims = self.dims.length === 0 ? [] : self.dims.map((d, i) => (i === w ? k : d));
  return [tensorOf(dims, self.dtype), tensorOf(dims, DEFAULT_INT)];
};

export const REDUCTION_RULES: Readonly<Record<string, OpRule>> = {
  sum: dimListReduction(accumulated),
  nansum: dimListReduction(accumulated),
  mean: dimListReduction(kept),
  nanmean: dimListReduction(kept),
  amax: extremum,
  amin: extremum,
  argmax: argExtremum,
  argmin: argExtremum,
  var: moments(false),
  std: moments(false),
  var_mean: moments(true),
  std_mean: moments(true),
  prod,
  any: anyAll,
  all: anyAll,
  logsumexp,
  linalg_vector_norm: vectorNorm,
  norm,
  cumsum: cumulative,
  cumprod: cumulative,
  sort,
  topk,
};

/** max and min take the pointwise rule for their two-tensor overload. */
export function maxMinRules(pointwise: OpRule): Readonly<Record<string, OpRule>> {
  return { max: maxMin(pointwise), min: maxMin(pointwise) };
}
