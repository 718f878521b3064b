/**
 * Normalizations (layer, batch, group, RMS; forward and backward) and softmax/log_softmax
 * (forward and backward). The normalized output has its input's shape and dtype; the statistics
 * a forward saves are per row (layer norm: the leading dims with 1s after) or per channel (batch
 * norm), in float for half and bfloat16 inputs (torch accumulates in float); a backward's
 * gradients have the shapes of what they differentiate, each only where its output mask asks.
 */
import { DEFAULT_FLOAT, floatingOf, resultType } from '../dtypes.js';
import type { RecordedCall, DerivedTensor } from './recorded-call.js';
import { tensorOf, type OpRule } from './shape-math.js';

/** The dtype torch accumulates statistics in: float for the 16-bit floats. */
function accumulationOf(dtype: string | undefined): string | undefined {
  return dtype === 'c10::Half' || dtype === 'c10::BFloat16' ? DEFAULT_FLOAT : dtype;
}

/** The input (argument 0), unchanged: layer_norm, batch_norm, group_norm. */
const normalized: OpRule = (c) => {
  const x = c.tensor(0);
  return x ? [x] : undefined;
};

/** native_layer_norm(input, normalized_shape, weight, bias, eps) → (output, mean, rstd): statistics over the normalized dims. */
const nativeLayerNorm: OpRule = (c) => {
  const x = c.tensor(0);
  const shape = c.ints(1);
  if (!x || !shape || shape.length > x.dims.length) return undefined;
  const axis = x.dims.length - shape.length;
  const stats = tensorOf([...x.dims.slice(0, axis), ...new Array<number>(shape.length).fill(1)], accumulationOf(x.dtype));
  return [x, stats, stats];
};

/**
 * native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight?, bias?,
 * output_mask) → (grad_input, grad_weight, grad_bias).
 */
const nativeLayerNormBackward: OpRule = (c) => {
  const x = c.tensor(1);
  const mask = c.bools(7);
  if (!x || !mask || mask.length !== 3) return undefined;
  return [mask[0] ? x : null, gradOf(c, 5, mask[1]!), gradOf(c, 6, mask[2]!)];
};

/** The gradient of an optional parameter at `i`: its shape when asked for and present, none otherwise. */
function gradOf(c: RecordedCall, i: number, asked: boolean): DerivedTensor | null | undefined {
  if (!asked) return null;
  if (c.isBlank(i)) return null;
  return c.tensor(i);
}

/** Per-channel statistics of a batch norm over `x`: [C], in `dtype`. */
function channelStats(x: DerivedTensor, dtype: string | undefined): DerivedTensor | undefined {
  return x.dims.length >= 2 ? tensorOf([x.dims[1]!], dtype) : undefined;
}

/**
 * native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps) →
 * (output, save_mean, save_invstd): per-channel statistics while training, empty in eval.
 */
const nativeBatchNorm: OpRule = (c) => {
  const x = c.tensor(0);
  // _native_batch_norm_legit.no_stats has no running statistics: training comes third
  const training = c.bool(c.n === 6 ? 3 : 5);
  if (!x || training === undefined) return undefined;
  const dtype = accumulationOf(x.dtype);
  return [x, training ? channelStats(x, dtype) : tensorOf([0], dtype), training ? channelStats(x, dtype) : tensorOf([0], dtype)];
};

/** cudnn_batch_norm(input, weight, bias, running_mean, running_var, training, factor, eps) → (output, save_mean, save_var, reserve). */
const cudnnBatchNorm: OpRule = (c) => {
  const x = c.tensor(0);
  const w = c.tensor(1);
  if (!x) return undefined;
  const stats = channelStats(x, w?.dtype);
  return [x, stats, stats, undefined];
};

/**
 * cudnn_batch_norm_backward(input, grad_output, weight, running_mean, running_var, save_mean,
 * save_var, epsilon, reserve) → (grad_input, grad_weight, grad_bias).
 */
const cudnnBatchNormBackward: OpRule = (c) => {
  const x = c.tensor(0);
  const w = c.tensor(2);
  return x && w ? [x, w, w] : undefined;
};

/**
 * native_batch_norm_backward(grad_out, input, weight?, running_mean, running_var, save_mean,
 * save_invstd, train, eps, output_mask) → (grad_input, grad_weight, grad_bias).
 */
const nativeBatchNormBackward: OpRule = (c) => {
  const x = c.tensor(1);
  const mask = c.bools(9);
  if (!x || !mask || mask.length !== 3) return undefined;
  const w = c.tensor(2);
  const param = w ?? channelStats(x, x.dtype);
  return [mask[0] ? x : null, mask[1] ? param : null, mask[2] ? param : null];
};

/** _batch_norm_impl_index(…) → (output, save_mean, save_var, reserve, impl index): the output alone is derived. */
const batchNormImplIndex: OpRule = (c) => {
  const x = c.tensor(0);
  return x ? [x, undefined, undefined, undefined, undefined] : undefined;
};

/** native_group_norm(input, weight, bias, N, C, HxW, group, eps) → (output, mean [N, group], rstd [N, group]). */
const nativeGroupNorm: OpRule = (c) => {
  const x = c.tensor(0);
  const n = c.int(3);
  const group = c.int(6);
  if (!x || n === undefined || group === undefined) return undefined;
  const stats = tensorOf([n, group], x.dtype);
  return [x, stats, stats];
};

/**
 * native_group_norm_backward(grad_out, input, mean, rstd, weight?, N, C, HxW, group, output_mask)
 * → (grad_input, grad_weight [C], grad_bias [C]).
 */
const nativeGroupNormBackward: OpRule = (c) => {
  const x = c.tensor(1);
  const channels = c.int(6);
  const mask = c.bools(9);
  if (!x || channels === undefined || !mask || mask.length !== 3) return undefined;
  const param = tensorOf([channels], c.tensor(4)?.dtype ?? x.dtype);
  return [mask[0] ? x : null, mask[1] ? param : null, mask[2] ? param : null];
};

/** rms_norm(input, normalized_shape, weight?, eps): the input's shape, promoted with the weight's dtype. */
const rmsNorm: OpRule = (c) => {
  const x = c.tensor(0);
  if (!x) return undefined;
  const w = c.tensor(2);
  const dtype = w ? resultType([{ dtype: x.dtype!, kind: 'dim' }, { dtype: w.dtype!, kind: w.dims.length ? 'dim' : 'zero-dim' }]) : x.dtype;
  return [tensorOf(x.dims, dtype)];
};

// --------------------------------------------------------------------------------------------
// Softmax

/** _softmax/_log_softmax(self, dim, half_to_float): the input's shape; float when half_to_float. */
const internalSoftmax: OpRule = (c) => {
  const x = c.tensor(0);
  const toFloat = c.bool(2);
  if (!x || toFloat === undefined) return undefined;
  return [tensorOf(x.dims, toFloat ? DEFAULT_FLOAT : x.dtype)];
};

/** softmax/log_softmax(self, dim, dtype?): the input's shape, in the dtype asked or its own. */
const softmax: OpRule = (c) => {
  const x = c.tensor(0);
  if (!x) return undefined;
  const d = c.dtypeArg(2);
  return d === undefined ? undefined : [tensorOf(x.dims, d ?? floatingOf(x.dtype!))];
};

/** _softmax_backward_data/_log_softmax_backward_data(grad_output, output, dim, input_dtype): the gradient in the forward input's dtype. */
const softmaxBackward: OpRule = (c) => {
  const g = c.tensor(0);
  if (!g) return undefined;
  const d = c.dtypeArg(3);
  return d === undefined ? undefined : [tensorOf(g.dims, d ?? g.dtype)];
};

export const NORMALIZATION_RULES: Readonly<Record<string, OpRule>> = {
  layer_norm: normalized,
  batch_norm: normalized,
  group_norm: normalized,
  instance_norm: normalized,
  native_layer_norm: nativeLayerNorm,
  native_layer_norm_backward: nativeLayerNormBackward,
  native_batch_norm: nativeBatchNorm,
  _native_batch_norm_legit: nativeBatchNorm,
  cudnn_batch_norm: cudnnBatchNorm,
  cudnn_batch_norm_backward: cudnnBatchNormBackward,
  native_batch_norm_backward: nativeBatchNormBackward,
  _batch_norm_impl_index: batchNormImplIndex,
  native_group_norm: nativeGroupNorm,
  native_group_norm_backward: nativeGroupNormBackward,
  rms_norm: rmsNorm,
  _softmax: internalSoftmax,
  _log_softmax: internalSoftmax,
  softmax,
  log_softmax: softmax,
  _safe_softmax: softmax,
  _softmax_backward_data: softmaxBackward,
  _log_softmax_backward_data: softmaxBackward,
};
