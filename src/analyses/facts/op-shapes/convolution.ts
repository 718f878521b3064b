/**
 * Convolutions (forward, transposed, and convolution_backward's three gradients) and pooling:
 * the spatial sizes from kernel, stride, padding and dilation as torch computes them
 * (aten/src/ATen/native/ConvUtils.h `conv_output_size`, Pool.h `pooling_output_shape`).
 */
import { DEFAULT_INT } from '../dtypes.js';
import type { RecordedCall } from './recorded-call.js';
import { tensorOf, type OpRule } from './shape-math.js';

/** Where a convolution op keeps each parameter (argument indexes). */
interface ConvLayout {
  readonly bias?: number;
  readonly stride: number;
  readonly padding: number;
  readonly dilation: number;
  readonly groups: number;
  /** A `transposed` flag argument, or a fixed value. */
  readonly transposed: number | boolean;
  readonly outputPadding?: number;
}

/** A per-dimension parameter list: one value stands for every spatial dimension. */
function spatial(c: RecordedCall, i: number, n: number): number[] | undefined {
  const v = c.ints(i);
  if (!v) return undefined;
  if (v.length === 1 && n > 1) return new Array<number>(n).fill(v[0]!);
  return v.length === n ? v : undefined;
}

/** The output shape of a convolution of `input` by `weight`; undefined when the parameters are not all recorded. */
function convDims(c: RecordedCall, input: readonly number[], weight: readonly number[], l: ConvLayout): number[] | undefined {
  const n = weight.length - 2;
  if (n < 1) return undefined;
  const batched = input.length === weight.length;
  if (!batched && input.length !== weight.length - 1) return undefined;
  const stride = spatial(c, l.stride, n);
  const padding = spatial(c, l.padding, n);
  const dilation = spatial(c, l.dilation, n);
  const groups = c.int(l.groups);
  const transposed = typeof l.transposed === 'boolean' ? l.transposed : c.bool(l.transposed);
  if (!stride || !padding || !dilation || groups === undefined || groups < 1 || transposed === undefined) return undefined;
  const outputPadding = transposed ? (l.outputPadding !== undefined ? spatial(c, l.outputPadding, n) : new Array<number>(n).fill(0)) : undefined;
  if (transposed && !outputPadding) return undefined;
  const sizes = input.slice(batched ? 2 : 1);
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const kernel = dilation[k]! * (weight[k + 2]! - 1) + 1;
    const size = transposed
      ? (sizes[k]! - 1) * stride[k]! - 2 * padding[k]! + kernel + outputPadding![k]!
      : Math.floor((sizes[k]! + 2 * padding[k]! - kernel) / stride[k]!) + 1;
    if (!(size > 0)) return undefined;
    out.push(size);
  }
  const channels = transposed ? weight[1]! * groups : weight[0]!;
  return batched ? [input[0]!, channels, ...out] : [channels, ...out];
}

function conv(l: ConvLayout): OpRule {
  return (c) => {
    const input = c.tensor(0);
    const weight = c.tensor(1);
    if (!input || !weight) return undefined;
    const dims = convDims(c, input.dims, weight.dims, l);
    // Two dtypes: an autocast call, whose cast the trace does not record here (matmul.ts).
    return dims ? [tensorOf(dims, input.dtype === weight.dtype ? input.dtype : undefined)] : undefined;
  };
}

/** convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups); _convolution adds flags after. */
const CONVOLUTION: ConvLayout = { bias: 2, stride: 3, padding: 4, dilation: 5, transposed: 6, outputPadding: 7, groups: 8 };

/**
 * convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
 * transposed, output_padding, groups, output_mask) → (grad_input, grad_weight, grad_bias), each
 * only where the mask asks for it.
 */
const convolutionBackward: OpRule = (c) => {
  const grad = c.tensor(0);
  const input = c.tensor(1);
  const weight = c.tensor(2);
  const mask = c.bools(10);
  if (!grad || !input || !weight || !mask || mask.length !== 3) return undefined;
  const biasSizes = c.ints(3);
  return [
    mask[0] ? input : null,
    mask[1] ? weight : null,
    mask[2] ? (biasSizes ? tensorOf(biasSizes, grad.dtype) : undefined) : null,
  ];
};

// --------------------------------------------------------------------------------------------
// Pooling

/** torch's pooling_output_shape: floor division, or ceil where the last window still starts inside the input. */
function poolSize(size: number, kernel: number, pad: number, stride: number, dilation: number, ceil: boolean): number {
  let out = Math.floor((size + 2 * pad - dilation * (kernel - 1) - 1 + (ceil ? stride - 1 : 0)) / stride) + 1;
  if (ceil && (out - 1) * stride >= size + pad) out--;
  return out;
}

interface PoolLayout {
  readonly kernel: number;
  readonly stride: number;
  readonly padding: number;
  /** Undefined: no dilation argument (average pooling). */
  readonly dilation?: number;
  readonly ceil: number;
}

function pooledDims(c: RecordedCall, input: readonly number[], n: number, l: PoolLayout): number[] | undefined {
  if (input.length < n + 1) return undefined;
  const kernel = spatial(c, l.kernel, n);
  const strideRaw = c.ints(l.stride);
  const stride = strideRaw && strideRaw.length === 0 ? kernel : spatial(c, l.stride, n);
  const padding = spatial(c, l.padding, n);
  const dilation = l.dilation === undefined ? new Array<number>(n).fill(1) : spatial(c, l.dilation, n);
  const ceil = c.bool(l.ceil);
  if (!kernel || !stride || !padding || !dilation || ceil === undefined) return undefined;
  const lead = input.slice(0, input.length - n);
  const sizes = input.slice(input.length - n);
  const out = sizes.map((s, k) => poolSize(s, kernel[k]!, padding[k]!, stride[k]!, dilation[k]!, ceil));
  return out.every((s) => s > 0) ? [...lead, ...out] : undefined;
}

/** max_pool{n}d_with_indices: (output, indices as int64). */
function maxPoolWithIndices(n: number): OpRule {
  return (c) => {
    const self = c.tensor(0);
    const dims = self ? pooledDims(c, self.dims, n, { kernel: 1, stride: 2, padding: 3, dilation: 4, ceil: 5 }) : undefined;
    return self && dims ? [tensorOf(dims, self.dtype), tensorOf(dims, DEFAULT_INT)] : undefined;
  };
}

function maxPool(n: number): OpRule {
  return (c) => {
    const self = c.tensor(0);
    const dims = self ? pooledDims(c, self.dims, n, { kernel: 1, stride: 2, padding: 3, dilation: 4, ceil: 5 }) : undefined;
    return self && dims ? [tensorOf(dims, self.dtype)] : undefined;
  };
}

/** avg_pool{n}d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override). */
function avgPool(n: number): OpRule {
  return (c) => {
    const self = c.tensor(0);
    const dims = self ? pooledDims(c, self.dims, n, { kernel: 1, stride: 2, padding: 3, ceil: 4 }) : undefined;
    return self && dims ? [tensorOf(dims, self.dtype)] : undefined;
  };
}

/** adaptive pooling: the last dimensions become output_size; the max variant adds int64 indices. */
function adaptivePool(withIndices: boolean): OpRule {
  return (c) => {
    const self = c.tensor(0);
    const size = c.ints(1);
    if (!self || !size || size.length === 0 || self.dims.length < size.length + 1) return undefined;
    const dims = [...self.dims.slice(0, self.dims.length - size.length), ...size];
    return withIndices ? [tensorOf(dims, self.dtype), tensorOf(dims, DEFAULT_INT)] : [tensorOf(dims, self.dtype)];
  };
}

/** A pooling backward: the gradient of its input (the second argument). */
const inputGradient: OpRule = (c) => {
  const self = c.tensor(1);
  return self ? [self] : undefined;
};

export const CONVOLUTION_RULES: Readonly<Record<string, OpRule>> = {
  convolution: conv(CONVOLUTION),
  _convolution: conv(CONVOLUTION),
  conv1d: conv({ bias: 2, stride: 3, padding: 4, dilation: 5, groups: 6, transposed: false }),
  conv2d: conv({ bias: 2, stride: 3, padding: 4, dilation: 5, groups: 6, transposed: false }),
  conv3d: conv({ bias: 2, stride: 3, padding: 4, dilation: 5, groups: 6, transposed: false }),
  conv_transpose1d: conv({ bias: 2, stride: 3, padding: 4, outputPadding: 5, groups: 6, dilation: 7, transposed: true }),
  conv_transpose2d: conv({ bias: 2, stride: 3, padding: 4, outputPadding: 5, groups: 6, dilation: 7, transposed: true }),
  conv_transpose3d: conv({ bias: 2, stride: 3, padding: 4, outputPadding: 5, groups: 6, dilation: 7, transposed: true }),
  cudnn_convolution: conv({ padding: 2, stride: 3, dilation: 4, groups: 5, transposed: false }),
  cudnn_convolution_transpose: conv({ padding: 2, outputPadding: 3, stride: 4, dilation: 5, groups: 6, transposed: true }),
  mkldnn_convolution: conv({ bias: 2, padding: 3, stride: 4, dilation: 5, groups: 6, transposed: false }),
  convolution_backward: convolutionBackward,
  max_pool1d_with_indices: maxPoolWithIndices(1),
  max_pool2d_with_indices: maxPoolWithIndices(2),
  max_pool3d_with_indices: maxPoolWithIndices(3),
  max_pool1d: maxPool(1),
  max_pool2d: maxPool(2),
  max_pool3d: maxPool(3),
  avg_pool1d: avgPool(1),
  avg_pool2d: avgPool(2),
  avg_pool3d: avgPool(3),
  adaptive_avg_pool1d: adaptivePool(false),
  adaptive_avg_pool2d: adaptivePool(false),
  adaptive_avg_pool3d: adaptivePool(false),
  _adaptive_avg_pool2d: adaptivePool(false),
  _adaptive_avg_pool3d: adaptivePool(false),
  adaptive_max_pool2d: adaptivePool(true),
  adaptive_max_pool3d: adaptivePool(true),
  max_pool2d_with_indices_backward: inputGradient,
  max_pool3d_with_indices_backward: inputGradient,
  avg_pool2d_backward: inputGradient,
  avg_pool3d_backward: inputGradient,
  _adaptive_avg_pool2d_backward: inputGradient,
  _adaptive_avg_pool3d_backward: inputGradient,
  adaptive_max_pool2d_backward: inputGradient,
};
