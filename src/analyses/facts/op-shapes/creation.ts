/**
 * Ops that make a tensor of a given size (empty, zeros, full, arange, the `*_like` and `new_*`
 * ops), casts (`to`, `_to_copy`, `type_as`), the foreach ops, and the losses. A factory's dtype
 * is its `dtype` argument, else torch's default for its fill value (float for a float or no
 * value, int64 for an integer, bool for a bool); a `*_like` or `new_*` op keeps its input's.
 */
import { DEFAULT_FLOAT, DEFAULT_INT, resultType } from '../dtypes.js';
import type { RecordedCall } from './recorded-call.js';
import { broadcast, tensorOf, type OpRule } from './shape-math.js';

/** The dtype of a factory call: the dtype argument at `at`, else the default for the fill value at `fill` (or float). */
function factoryDtype(c: RecordedCall, at: number, fill?: number): string | undefined {
  const d = c.dtypeArg(at);
  if (d === undefined) return undefined;
  if (d !== null) return d;
  if (fill === undefined) return DEFAULT_FLOAT;
  const v = c.operand(fill);
  if (!v) return undefined;
  return v.dtype === 'bool' ? 'bool' : v.dtype === 'long int' ? DEFAULT_INT : DEFAULT_FLOAT;
}

/** A factory of (size, …, dtype at `dtypeAt`, …). */
function sized(dtypeAt: number, fill?: number): OpRule {
  return (c) => {
    const size = c.ints(0);
    return size && size.every((d) => d >= 0) ? [tensorOf(size, factoryDtype(c, dtypeAt, fill))] : undefined;
  };
}

/** A `*_like` op: self's shape, the dtype argument or self's. */
function like(dtypeAt: number): OpRule {
  return (c) => {
    const self = c.tensor(0);
    const d = c.dtypeArg(dtypeAt);
    return self && d !== undefined ? [tensorOf(self.dims, d ?? self.dtype)] : undefined;
  };
}

/** A `new_*` op: (self, size, …, dtype at `dtypeAt`): the size given, the dtype argument or self's. */
function newSized(dtypeAt: number): OpRule {
  return (c) => {
    const self = c.tensor(0);
    const size = c.ints(1);
    const d = c.dtypeArg(dtypeAt);
    return self && size && d !== undefined && size.every((x) => x >= 0) ? [tensorOf(size, d ?? self.dtype)] : undefined;
  };
}

/** arange(end, …), arange(start, end, …), arange(start, end, step, …): ceil((end − start) / step) values. */
const arange: OpRule = (c) => {
  // arange.start_out(start, end, step, out): the out tensor's dtype
  if (c.n === 4 && c.isTensor(3)) {
    const [start, end, step] = [c.number(0), c.number(1), c.number(2)];
    if (start === undefined || end === undefined || !step) return undefined;
    const n = Math.ceil((end - start) / step);
    return n >= 0 ? [tensorOf([n], c.tensor(3)!.dtype)] : undefined;
  }
  const bounds = c.n === 5 ? [1] : c.n === 6 ? [2] : c.n === 7 ? [3] : undefined;
  if (!bounds) return undefined;
  const scalars = c.n === 5 ? [0] : c.n === 6 ? [0, 1] : [0, 1, 2];
  const values = scalars.map((i) => c.number(i));
  if (values.some((v) => v === undefined)) return undefined;
  const [start, end, step] = c.n === 5 ? [0, values[0]!, 1] : c.n === 6 ? [values[0]!, values[1]!, 1] : (values as number[]);
  if (step === 0) return undefined;
  const length = Math.ceil((end! - start!) / step!);
  if (!(length >= 0)) return undefined;
  const d = c.dtypeArg(bounds[0]!);
  if (d === undefined) return undefined;
  const integral = scalars.every((i) => c.operand(i)?.dtype === 'long int');
  return [tensorOf([length], d ?? (integral ? DEFAULT_INT : DEFAULT_FLOAT))];
};

/** to(self, dtype, …), to(self, other, …), to(self, device, dtype, …): the shape kept, the dtype asked or self's. */
const to: OpRule = (c) => {
  const self = c.tensor(0);
  if (!self) return undefined;
  if (c.n === 5 && c.isTensor(1)) return [tensorOf(self.dims, c.tensor(1)!.dtype)];
  const at = c.n === 5 || c.n === 8 ? 1 : c.n === 6 ? 2 : -1;
  if (at < 0) return undefined;
  const d = c.dtypeArg(at);
  return d === undefined ? undefined : [tensorOf(self.dims, d ?? self.dtype)];
};

/** _to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format). */
const toCopy = like(1);

/** type_as(self, other): self's shape in other's dtype. */
const typeAs: OpRule = (c) => {
  const self = c.tensor(0);
  const other = c.tensor(1);
  return self && other ? [tensorOf(self.dims, other.dtype)] : undefined;
};

/** An out-of-place foreach op: one tensor per input of the list, of its shape (list element dtypes are not recorded). */
const foreach: OpRule = (c) => {
  const shapes = c.tensorList(0);
  return shapes ? [{ list: shapes.map((s) => tensorOf(s, undefined)) }] : undefined;
};

/** _foreach_norm(tensors, ord, dtype?): a 0-dim tensor per input. */
const foreachNorm: OpRule = (c) => {
  const shapes = c.tensorList(0);
  return shapes ? [{ list: shapes.map(() => tensorOf([], undefined)) }] : undefined;
};

// --------------------------------------------------------------------------------------------
// Losses: a reduction (mean 1, sum 2) gives a 0-dim tensor; none (0) the elementwise shape.

/** nll_loss_forward(self, target, weight, reduction, ignore_index) → (output, total_weight). */
const nllLossForward: OpRule = (c) => {
  const self = c.tensor(0);
  const reduction = c.int(3);
  if (!self || reduction === undefined || self.dims.length < 1 || self.dims.length > 2) return undefined;
  const out = reduction === 0 && self.dims.length === 2 ? [self.dims[0]!] : [];
  return [tensorOf(out, self.dtype), tensorOf([], self.dtype)];
};

/** nll_loss/nll_loss_nd(self, target, weight, reduction, ignore_index): the output alone. */
const nllLoss: OpRule = (c) => {
  const self = c.tensor(0);
  const target = c.tensor(1);
  const reduction = c.int(3);
  if (!self || !target || reduction === undefined) return undefined;
  return [tensorOf(reduction === 0 ? target.dims : [], self.dtype)];
};

/** A pointwise loss (self, target, …, reduction at `at`): the broadcast shape, or 0-dim when reduced. */
function pointwiseLoss(at: number): OpRule {
  return (c) => {
    const self = c.tensor(0);
    const target = c.tensor(1);
    const reduction = c.int(at);
    if (!self || !target || reduction === undefined) return undefined;
    const dims = broadcast(self.dims, target.dims);
    const dtype = resultType([
      { dtype: self.dtype!, kind: self.dims.length ? 'dim' : 'zero-dim' },
      { dtype: target.dtype!, kind: target.dims.length ? 'dim' : 'zero-dim' },
    ]);
    return dims ? [tensorOf(reduction === 0 ? dims : [], dtype)] : undefined;
  };
}

/** cross_entropy_loss(self, target, weight, reduction, ignore_index, label_smoothing): 0-dim when reduced. */
const crossEntropy: OpRule = (c) => {
  const self = c.tensor(0);
  const reduction = c.int(3);
  if (!self || reduction === undefined || reduction === 0) return undefined;
  return [tensorOf([], self.dtype)];
};

/** A loss backward (grad_output, self, …): the gradient of self. */
const lossBackward: OpRule = (c) => {
  const self = c.tensor(1);
  return self ? [self] : undefined;
};

/** randint(high, size, …) and randint(low, high, size, …): int64 unless told. */
const randint: OpRule = (c) => {
  const at = c.n === 6 ? 1 : c.n === 7 ? 2 : -1;
  if (at < 0) return undefined;
  const size = c.ints(at);
  const d = c.dtypeArg(at + 1);
  return size && d !== undefined && size.every((x) => x >= 0) ? [tensorOf(size, d ?? DEFAULT_INT)] : undefined;
};

/** rand/randn(size, dtype, …), or (size, generator, dtype, …): float unless told. */
const random: OpRule = (c) => {
  const size = c.ints(0);
  const d = c.dtypeArg(c.n === 6 ? 2 : 1);
  return size && d !== undefined && size.every((x) => x >= 0) ? [tensorOf(size, d ?? DEFAULT_FLOAT)] : undefined;
};

export const CREATION_RULES: Readonly<Record<string, OpRule>> = {
  randint,
  rand: random,
  randn: random,
  empty: sized(1),
  zeros: sized(1),
  ones: sized(1),
  full: sized(2, 1),
  empty_strided: sized(2),
  empty_like: like(1),
  zeros_like: like(1),
  ones_like: like(1),
  rand_like: like(1),
  randn_like: like(1),
  full_like: like(2),
  new_empty: newSized(2),
  new_zeros: newSized(2),
  new_ones: newSized(2),
  new_full: newSized(3),
  new_empty_strided: newSized(3),
  arange,
  scalar_tensor: (c) => {
    const d = factoryDtype(c, 1);
    return d === undefined ? undefined : [tensorOf([], d)];
  },
  to,
  _to_copy: toCopy,
  type_as: typeAs,
  _foreach_norm: foreachNorm,
  nll_loss_forward: nllLossForward,
  nll_loss2d_forward: nllLossForward,
  nll_loss: nllLoss,
  nll_loss_nd: nllLoss,
  mse_loss: pointwiseLoss(2),
  l1_loss: pointwiseLoss(2),
  smooth_l1_loss: pointwiseLoss(2),
  huber_loss: pointwiseLoss(2),
  cross_entropy_loss: crossEntropy,
  nll_loss_backward: lossBackward,
  nll_loss2d_backward: lossBackward,
  mse_loss_backward: lossBackward,
  l1_loss_backward: lossBackward,
  smooth_l1_loss_backward: lossBackward,
  huber_loss_backward: lossBackward,
};

/** Out-of-place foreach ops have one rule: see `foreach`. */
export const FOREACH_RULE = foreach;
