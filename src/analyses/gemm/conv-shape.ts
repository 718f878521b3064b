/**
 * The work of one convolution op, from its `Input Dims`, `Input type` and `Concrete Inputs`
 * (torch ≥ 2.x records the int-list arguments there as text: `"[16, 16]"`).
 *
 * Operand orders (native_functions.yaml, pytorch/pytorch aten/src/ATen/native):
 * - `convolution` / `_convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups, …)`
 * - `cudnn_convolution(self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)`
 * - `cudnn_convolution_transpose(self, weight, padding, output_padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)`
 * - `convolution_backward(grad_output, input, weight, bias_sizes?, stride, padding, dilation, transposed, output_padding, groups, output_mask)`
 *
 * FLOPs of one pass (forward, input-grad or weight-grad: the same products in another order):
 *   2 · N · K · Ho · Wo · (C / groups) · R · S
 * for input [N, C, H, W], weight [K, C/groups, R, S], output [N, K, Ho, Wo] with
 * Ho = ⌊(H + 2·pad − dil·(R − 1) − 1) / stride⌋ + 1 (any number of spatial dims: 1-D, 2-D, 3-D),
 * i.e. 2 · N · (output spatial size) · numel(weight). A transposed convolution is the input-grad
 * of the convolution it transposes: 2 · N · (input spatial size) · numel(weight).
 * The bias add is not counted (as for GEMMs).
 * Bytes: the least traffic of the pass — forward reads input and weight and writes the output;
 * input-grad reads grad_output and weight and writes grad_input; weight-grad reads grad_output
 * and input and writes grad_weight.
 *
 * Ignores: conv ops with other argument orders (mkldnn, miopen, slow_conv*: no shape), Triton
 * convolution templates.
 */
import type { JsonObject } from '../../core/json.js';
import { elementBytes, isDims, isTensorType, normalizeDtype } from './gemm.js';
import { decodeKernelName } from '../kernels/kernel-name.js';

export type ConvPass = 'fprop' | 'dgrad' | 'wgrad';

interface ConvLayout {
  readonly input: number;
  readonly weight: number;
  readonly stride: number;
  readonly padding: number;
  readonly dilation: number;
  readonly groups: number;
  readonly transposed?: number;
  /** Always transposed (`cudnn_convolution_transpose`). */
  readonly isTransposed?: boolean;
  /** `convolution_backward`: grad_output's position and output_mask's. */
  readonly gradOutput?: number;
  readonly outputMask?: number;
  /** `cudnn_convolution`'s allow_tf32. */
  readonly allowTf32?: number;
  /** output_padding (transposed convolutions' output size). */
  readonly outputPadding?: number;
}

const CONV_LAYOUTS: Readonly<Record<string, ConvLayout>> = {
  'aten::convolution': { input: 0, weight: 1, stride: 3, padding: 4, dilation: 5, transposed: 6, outputPadding: 7, groups: 8 },
  'aten::_convolution': { input: 0, weight: 1, stride: 3, padding: 4, dilation: 5, transposed: 6, outputPadding: 7, groups: 8 },
  'aten::cudnn_convolution': { input: 0, weight: 1, padding: 2, stride: 3, dilation: 4, groups: 5, allowTf32: 8 },
  'aten::cudnn_convolution_transpose': { input: 0, weight: 1, padding: 2, outputPadding: 3, stride: 4, dilation: 5, groups: 6, isTransposed: true, allowTf32: 9 },
  'aten::convolution_backward': { gradOutput: 0, input: 1, weight: 2, stride: 4, padding: 5, dilation: 6, transposed: 7, groups: 9, outputMask: 10 },
};

export const CONV_OP_NAMES: ReadonlySet<string> = new Set(Object.keys(CONV_LAYOUTS));
export const CONV_BACKWARD_OP = 'aten::convolution_backward';

export interface ConvShape {
  readonly input: readonly number[];
  readonly weight: readonly number[];
  readonly output: readonly number[];
  readonly stride: readonly number[];
  readonly padding: readonly number[];
  readonly dilation: readonly number[];
  readonly groups: number;
  readonly transposed: boolean;
  /** Input's element type, normalised (`bf16`), and as written (`c10::BFloat16`). */
  readonly dtype: string;
  readonly inputType: string;
  /** cuDNN's allow_tf32 when the op states it. */
  readonly allowTf32?: boolean;
  /** The passes this op computes: forward ops ['fprop']; convolution_backward per output_mask. */
  readonly passes: readonly ConvPass[];
  /** convolution_backward's output_mask[2]: the bias gradient (a reduction, not counted). */
  readonly biasGrad: boolean;
  /** FLOPs of one pass. */
  readonly flopsPerPass: number;
  /** Least bytes of each pass; undefined when an element size is unknown. */
  readonly bytes?: Readonly<Record<ConvPass, number>>;
}

export type ConvShapeResult = { readonly shape: ConvShape } | { readonly declined: string };

const prod = (xs: readonly number[]) => xs.reduce((p, x) => p * x, 1);

/** `"[16, 16]"` → [16, 16]; `"1"` → [1]; undefined when not an int list. */
function parseIntList(v: unknown): number[] | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  const body = t.startsWith('[') && t.endsWith(']') ? t.slice(1, -1) : t;
  if (body.trim() === '') return [];
  const xs = body.split(',').map((x) => Number(x.trim()));
  return xs.every((x) => Number.isInteger(x)) ? xs : undefined;
}

function parseBool(v: unknown): boolean | undefined {
  if (v === 'True' || v === 'true' || v === '1') return true;
  if (v === 'False' || v === 'false' || v === '0') return false;
  return undefined;
}

function parseBoolList(v: unknown): boolean[] | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim().replace(/^\[/, '').replace(/\]$/, '');
  const xs = t.split(',').map((x) => parseBool(x.trim()));
  return xs.every((x) => x !== undefined) ? (xs as boolean[]) : undefined;
}

/** One value per spatial dim: torch expands a single value to every dim. */
function perDim(xs: number[] | undefined, dims: number): number[] | undefined {
  if (!xs) return undefined;
  if (xs.length === dims) return xs;
  if (xs.length === 1) return Array.from({ length: dims }, () => xs[0]!);
  return undefined;
}

/** The work of one conv op; `declined` says why when the trace does not give it. */
export function convShapeOf(op: string, args: JsonObject | undefined): ConvShapeResult {
  const layout = CONV_LAYOUTS[op];
  if (!layout) return { declined: `${op} is not a convolution op with a known argument order` };
  const dims = args?.['Input Dims'] ?? args?.['Input dims'];
  const types = args?.['Input type'] ?? args?.['Input types'];
  const concrete = args?.['Concrete Inputs'];
  if (!Array.isArray(dims) || !Array.isArray(types)) return { declined: 'no Input Dims (recorded without record_shapes=True)' };
  if (!Array.isArray(concrete)) return { declined: 'no Concrete Inputs: stride, padding, dilation and groups unknown' };
  const input = dims[layout.input];
  const weight = dims[layout.weight];
  const inputType = types[layout.input];
  if (!isDims(input) || !isDims(weight) || !isTensorType(inputType)) return { declined: 'input or weight dims missing' };
  const spatial = weight.length - 2;
  if (spatial < 1 || input.length !== weight.length) return { declined: `input ${JSON.stringify(input)} and weight ${JSON.stringify(weight)} are not a batched N-d convolution` };
  const stride = perDim(parseIntList(concrete[layout.stride]), spatial);
  const padding = perDim(parseIntList(concrete[layout.padding]), spatial);
  const dilation = perDim(parseIntList(concrete[layout.dilation]), spatial);
  const groupsList = parseIntList(concrete[layout.groups]);
  const groups = groupsList?.length === 1 ? groupsList[0]! : undefined;
  if (!stride || !padding || !dilation || !groups) return { declined: 'stride, padding, dilation or groups not stated as integers in Concrete Inputs' };
  const transposed = layout.isTransposed ?? (layout.transposed !== undefined ? parseBool(concrete[layout.transposed]) : false);
  if (transposed === undefined) return { declined: '`transposed` not stated in Concrete Inputs' };

  const n = input[0]!;
  let output: number[];
  if (layout.gradOutput !== undefined) {
    const go = dims[layout.gradOutput];
    if (!isDims(go) || go.length !== input.length) return { declined: 'grad_output dims missing' };
    output = go;
  } else if (!transposed) {
    // [N, K, Ho, Wo]
    const sp: number[] = [];
    for (let d = 0; d < spatial; d++) {
      const size = Math.floor((input[2 + d]! + 2 * padding[d]! - dilation[d]! * (weight[2 + d]! - 1) - 1) / stride[d]!) + 1;
      if (!(size > 0)) return { declined: 'the output size these arguments give is not positive' };
      sp.push(size);
    }
    output = [n, weight[0]!, ...sp];
  } else {
    // Transposed: weight [C_in, C_out/groups, R, S]; Ho = (H − 1)·stride − 2·pad + dil·(R − 1) + output_padding + 1
    // (NaN, and no bytes, when output_padding is not stated; the FLOPs do not need it).
    const op = layout.outputPadding !== undefined ? perDim(parseIntList(concrete[layout.outputPadding]), spatial) : undefined;
    output = [n, weight[1]! * groups, ...Array.from({ length: spatial }, (_, d) => (op ? (input[2 + d]! - 1) * stride[d]! - 2 * padding[d]! + dilation[d]! * (weight[2 + d]! - 1) + op[d]! + 1 : NaN))];
  }
  // Channels agree with groups?
  const cIn = transposed ? weight[0]! : weight[1]! * groups;
  if (input[1] !== cIn) return { declined: `input channels ${input[1]} do not match weight ${JSON.stringify(weight)} with groups=${groups}` };

  // The conv-as-GEMM runs over the non-transposed side's spatial positions.
  const positions = transposed ? prod(input.slice(2)) : prod(output.slice(2));
  const flopsPerPass = 2 * n * positions * prod(weight);

  let passes: ConvPass[] = ['fprop'];
  let biasGrad = false;
  if (layout.outputMask !== undefined) {
    const mask = parseBoolList(concrete[layout.outputMask]);
    if (!mask || mask.length !== 3) return { declined: 'output_mask not stated in Concrete Inputs' };
    passes = [...(mask[0] ? (['dgrad'] as const) : []), ...(mask[1] ? (['wgrad'] as const) : [])];
    biasGrad = mask[2]!;
  }
  const size = elementBytes(inputType);
  const outputKnown = output.every((x) => Number.isFinite(x));
  const inB = size !== undefined ? prod(input) * size : undefined;
  const wB = size !== undefined ? prod(weight) * size : undefined;
  const oB = size !== undefined && outputKnown ? prod(output) * size : undefined;
  const bytes = inB !== undefined && wB !== undefined && oB !== undefined ? { fprop: inB + wB + oB, dgrad: oB + wB + inB, wgrad: oB + inB + wB } : undefined;
  const allowTf32 = layout.allowTf32 !== undefined ? parseBool(concrete[layout.allowTf32]) : undefined;
  return {
    shape: {
      input,
      weight,
      output,
      stride,
      padding,
      dilation,
      groups,
      transposed,
      dtype: normalizeDtype(inputType),
      inputType,
      ...(allowTf32 !== undefined ? { allowTf32 } : {}),
      passes,
      biasGrad,
      flopsPerPass,
      ...(bytes ? { bytes } : {}),
    },
  };
}

/**
 * The pass a convolution kernel's name states: cuDNN xmma (`sm90_xmma_fprop_implicit_gemm…`,
 * `…_dgrad_…`, `…_wgrad_…`), CUTLASS (`Conv2dFprop`, `Conv2dDgrad`, `Conv2dWgrad`, mangled or not),
 * cuDNN's older engines (`dgrad_engine`, `wgrad_alg0_engine`, `dgrad2d_…`).
 */
export function convPassOfKernelName(name: string): ConvPass | undefined {
  const decoded = decodeKernelName(name).convPass;
  if (decoded === 'fprop' || decoded === 'dgrad' || decoded === 'wgrad') return decoded;
  // Names the decoder leaves without a pass: the word in the name, when it names one pass only.
  const fprop = /fprop/i.test(name);
  const dgrad = /dgrad/i.test(name);
  const wgrad = /wgrad/i.test(name);
  if (fprop && !dgrad && !wgrad) return 'fprop';
  if (dgrad && !fprop && !wgrad) return 'dgrad';
  if (wgrad && !fprop && !dgrad) return 'wgrad';
  return undefined;
}

/**
 * Helper kernels a convolution library runs around its implicit GEMM: layout changes (cuDNN's
 * `nchwToNhwcKernel`, `nhwcToNchwKernel`, `nhwcAddPaddingKernel`) and the split-K reduction
 * (CUTLASS `ReduceSplitK`, cuDNN `splitKreduce_kernel`).
 */
export function convHelperKind(name: string): 'layout' | 'split-k reduce' | undefined {
  const d = decodeKernelName(name);
  if (d.library === 'cuDNN' && d.kind === 'copy' && d.layout) return 'layout';
  if (d.kind === 'reduction' && d.splitK) return 'split-k reduce';
  if (/nchwToNhwc|nhwcToNchw|nhwcAddPadding|TransformTensor|transpose_readWrite/i.test(name)) return 'layout';
  if (/ReduceSplitK|splitKreduce|split_k_reduce/i.test(name)) return 'split-k reduce';
  return undefined;
}
