/**
 * Pointwise ops: the output is the broadcast of the tensor operands, in the dtype torch's type
 * promotion gives them (comparisons and logical ops: bool; floating-point functions of integers:
 * the default float), and backward pointwise ops alike. In-place variants are ops of their own
 * (op-shapes.ts: an in-place op returns its self argument).
 */
import { floatingOf, realOf, resultType, type PromotionOperand } from '../dtypes.js';
import type { RecordedCall } from './recorded-call.js';
import { broadcast, tensorOf, type OpRule } from './shape-math.js';

/** Ops whose result keeps the input's dtype (integers stay integers). */
const UNARY_SAME = [
  'abs', 'neg', 'negative', 'positive', 'sign', 'sgn', 'floor', 'ceil', 'round', 'trunc', 'fix', 'frac', 'relu', 'relu6',
  'hardtanh', 'leaky_relu', 'elu', 'celu', 'selu', 'gelu', 'silu', 'mish', 'hardswish', 'hardsigmoid', 'softplus',
  'softshrink', 'hardshrink', 'threshold', 'square', 'bitwise_not', 'clone', 'contiguous', 'clamp_min', 'clamp_max',
  'nan_to_num', 'tril', 'triu', 'flip', 'roll', 'dropout', 'feature_dropout', 'alpha_dropout', 'bernoulli', 'rrelu',
  'glu_jvp', 'conj_physical', 'resolve_conj', 'resolve_neg', '_conj', 'fill', 'zero', 'deg2rad', 'rad2deg',
];

/** Floating-point functions: an integer or bool input gives the default float. */
const UNARY_FLOATING = [
  'sqrt', 'rsqrt', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan',
  'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'arcsin', 'arccos', 'arctan', 'sigmoid', 'logit', 'erf', 'erfc', 'erfinv',
  'reciprocal', 'lgamma', 'digamma', 'i0', 'sinc', 'log_sigmoid',
];

/** Predicates of one tensor: bool of its shape. */
const UNARY_BOOL = ['logical_not', 'isnan', 'isinf', 'isfinite', 'isposinf', 'isneginf', 'signbit', 'isreal'];

/** Binary ops whose result is the promoted dtype of their two first operands. */
const BINARY_PROMOTED = [
  'add', 'sub', 'subtract', 'rsub', 'mul', 'multiply', 'maximum', 'minimum', 'fmax', 'fmin', 'remainder', 'fmod',
  'bitwise_and', 'bitwise_or', 'bitwise_xor', '__and__', '__or__', '__xor__', '__lshift__', '__rshift__',
  'bitwise_left_shift', 'bitwise_right_shift', 'copysign', 'heaviside', 'floor_divide', 'gcd', 'lcm',
];

/** Binary ops that compute in floating point (`atan2` of two integers is a float). */
const BINARY_FLOATING = ['atan2', 'hypot', 'xlogy', 'logaddexp', 'logaddexp2', 'nextafter'];

/** Comparisons and logical binary ops: bool of the broadcast shape. */
const BINARY_BOOL = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'greater', 'less', 'greater_equal', 'less_equal', 'not_equal', 'logical_and', 'logical_or', 'logical_xor', 'isclose'];

/**
 * Backward pointwise ops: (grad_output, input or output, …) → a gradient of their broadcast shape
 * in the promoted dtype of the two tensors (TensorIterator binary ops).
 */
const BACKWARD_BINARY = [
  'threshold_backward', 'gelu_backward', 'tanh_backward', 'sigmoid_backward', 'silu_backward', 'hardtanh_backward',
  'leaky_relu_backward', 'elu_backward', 'softplus_backward', 'hardswish_backward', 'hardsigmoid_backward', 'mish_backward',
  'logit_backward', 'softshrink_backward', 'hardshrink_backward',
];

/** The broadcast shape of the tensor arguments at `at` (a Scalar there is a number: no dimensions). */
function broadcastAt(c: RecordedCall, at: readonly number[]): number[] | undefined {
  const shapes: (readonly number[])[] = [];
  for (const i of at) {
    const t = c.tensor(i);
    if (t) shapes.push(t.dims);
    else if (c.type(i) !== 'Scalar') return undefined;
  }
  return shapes.length ? broadcast(...shapes) : undefined;
}

function operandsAt(c: RecordedCall, at: readonly number[]): PromotionOperand[] | undefined {
  const out: PromotionOperand[] = [];
  for (const i of at) {
    const o = c.operand(i);
    if (!o) return undefined;
    out.push(o);
  }
  return out;
}

/** The op's arguments at `at` broadcast, in `dtypeOf(promoted)`; the first must be recorded as a tensor or Scalar. */
function elementwise(at: readonly number[], dtypeOf: (promoted: string | undefined) => string | undefined): OpRule {
  return (c) => {
    const dims = broadcastAt(c, at);
    if (!dims) return undefined;
    const ops = operandsAt(c, at);
    return [tensorOf(dims, ops ? dtypeOf(resultType(ops)) : undefined)];
  };
}

const same = (d: string | undefined) => d;
const floating = (d: string | undefined) => (d === undefined ? undefined : floatingOf(d));
const bool = () => 'bool';

/**
 * True division: integers give the default float. With a rounding mode (a third argument, a
 * string the trace does not record) the dtype stays the promoted one, which the trace cannot tell
 * apart for integers.
 */
const div: OpRule = (c) => {
  const dims = broadcastAt(c, [0, 1]);
  if (!dims) return undefined;
  const ops = operandsAt(c, [0, 1]);
  const promoted = ops ? resultType(ops) : undefined;
  if (c.n >= 3) return [tensorOf(dims, promoted !== undefined && floatingOf(promoted) === promoted ? promoted : undefined)];
  return [tensorOf(dims, floating(promoted))];
};

/** pow: Tensor^Tensor, Tensor^Scalar and Scalar^Tensor alike: promoted operands, broadcast. */
const pow = elementwise([0, 1], same);

/** clamp(self, min?, max?): the result type of self with the bounds given (Scalars or tensors). */
const clamp: OpRule = (c) => {
  const t = c.tensor(0);
  if (!t) return undefined;
  const at = [0, 1, 2].filter((i) => i < c.n && !c.isBlank(i));
  const dims = broadcastAt(c, at);
  const ops = operandsAt(c, at);
  return dims ? [tensorOf(dims, ops ? resultType(ops) : undefined)] : undefined;
};

/** where(condition, self, other): the three broadcast, in the promoted dtype of self and other. */
const where: OpRule = (c) => {
  if (c.n < 3) return undefined; // where(condition) is nonzero's: data-dependent
  const dims = broadcastAt(c, [0, 1, 2]);
  const ops = operandsAt(c, [1, 2]);
  return dims ? [tensorOf(dims, ops ? resultType(ops) : undefined)] : undefined;
};

/** masked_fill(self, mask, value): self and mask broadcast, self's dtype. */
const maskedFill: OpRule = (c) => {
  const self = c.tensor(0);
  const mask = c.tensor(1);
  if (!self || !mask) return undefined;
  const dims = broadcast(self.dims, mask.dims);
  return dims ? [tensorOf(dims, self.dtype)] : undefined;
};

/** addcmul/addcdiv(self, tensor1, tensor2, value): the three broadcast and promoted. */
const addcOp = elementwise([0, 1, 2], same);

/** lerp(self, end, weight): self and end (and a tensor weight) broadcast and promoted. */
const lerp: OpRule = (c) => {
  const at = c.isTensor(2) ? [0, 1, 2] : [0, 1];
  const dims = broadcastAt(c, at);
  const ops = operandsAt(c, [0, 1]);
  return dims ? [tensorOf(dims, ops ? resultType(ops) : undefined)] : undefined;
};

/** native_dropout(input, p, train): (output, mask) of the input's shape; the mask is bool. */
const nativeDropout: OpRule = (c) => {
  const t = c.tensor(0);
  return t ? [t, tensorOf(t.dims, 'bool')] : undefined;
};

/** native_dropout_backward(grad_output, mask, scale): the gradient's shape and dtype. */
const nativeDropoutBackward: OpRule = (c) => {
  const g = c.tensor(0);
  const m = c.tensor(1);
  const dims = g && m ? broadcast(g.dims, m.dims) : undefined;
  return g && dims ? [tensorOf(dims, g.dtype)] : undefined;
};

/** A unary rule: the first argument's shape, in `dtypeOf(its dtype)`. */
function unary(dtypeOf: (d: string) => string | undefined): OpRule {
  return (c) => {
    const t = c.tensor(0);
    return t ? [tensorOf(t.dims, dtypeOf(t.dtype!))] : undefined;
  };
}

/** abs of a complex tensor is real. */
const abs = unary(realOf);

export const POINTWISE_RULES: Readonly<Record<string, OpRule>> = {
  ...Object.fromEntries(UNARY_SAME.map((n) => [n, unary((d) => d)])),
  ...Object.fromEntries(UNARY_FLOATING.map((n) => [n, unary((d) => floatingOf(d))])),
  ...Object.fromEntries(UNARY_BOOL.map((n) => [n, unary(() => 'bool')])),
  ...Object.fromEntries(BINARY_PROMOTED.map((n) => [n, elementwise([0, 1], same)])),
  ...Object.fromEntries(BINARY_FLOATING.map((n) => [n, elementwise([0, 1], floating)])),
  ...Object.fromEntries(BINARY_BOOL.map((n) => [n, elementwise([0, 1], bool)])),
  ...Object.fromEntries(BACKWARD_BINARY.map((n) => [n, elementwise([0, 1], same)])),
  abs,
  absolute: abs,
  div,
  divide: div,
  true_divide: elementwise([0, 1], floating),
  pow,
  float_power: elementwise([0, 1], () => 'double'),
  clamp,
  clip: clamp,
  where,
  masked_fill: maskedFill,
  addcmul: addcOp,
  addcdiv: addcOp,
  lerp,
  native_dropout: nativeDropout,
  native_dropout_backward: nativeDropoutBackward,
};
