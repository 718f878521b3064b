/**
 * Who can fuse an op's kernel with its neighbours' (docs/readings.md S9, issue 40 item 5):
 *
 * - torch.compile (Inductor) lowers ATen's pointwise ops, reductions, normalizations (BatchNorm's
 *   cuDNN ops included: torch._decomp decomposes `cudnn_batch_norm` and its backward into
 *   `native_batch_norm*`, which Inductor generates Triton code for), softmax, indexing and the
 *   foreach ops into Triton kernels it fuses;
 * - it leaves some ops to their eager kernels (fallbacks: sort, topk, the AMP scaler's ops …): a
 *   fusion across one needs a hand-written kernel;
 * - and calls vendor libraries for the rest (extern kernels: convolutions through cuDNN, matrix
 *   products through cuBLAS, attention through its flash / memory-efficient / cuDNN backends,
 *   cuDNN's RNNs): nobody fuses a neighbour into those (a GEMM's epilogue is the gemm analysis's
 *   question), so no fusion is proposed across them.
 *
 * An op outside ATen (a custom op, a Triton kernel's launch) is opaque to Inductor: hand-written.
 */

export type Fuser = 'torch.compile (Inductor)' | 'a hand-written kernel';

export const INDUCTOR: Fuser = 'torch.compile (Inductor)';
export const HAND_WRITTEN: Fuser = 'a hand-written kernel';

/** ATen ops Inductor runs as vendor-library (extern) kernels, with the library. */
const EXTERN: readonly [RegExp, string][] = [
  [/^aten::(convolution|_convolution|conv\d?d|conv_transpose\dd|cudnn_convolution\w*|convolution_backward\w*|mkldnn_convolution|miopen_convolution\w*|_convolution_mode|conv_tbc)$/, 'cuDNN convolution'],
  [/^aten::(_?cudnn_rnn\w*|lstm|gru|rnn_tanh|rnn_relu|_thnn_fused_\w+)$/, 'cuDNN RNN'],
  [/^aten::(mm|addmm|_addmm_activation|bmm|baddbmm|matmul|linear|addmv|mv|addbmm|dot|vdot|outer|_scaled_mm|_int_mm|_grouped_mm|_scaled_grouped_mm|_weight_int\w+mm\w*)$/, 'cuBLAS GEMM'],
  [/^aten::(\w*scaled_dot_product\w*|_flash_attention\w*|_efficient_attention\w*|_cudnn_attention\w*)$/, 'an attention backend'],
  [/^aten::(_fft_\w+|linalg_(?!vector_norm)\w+|cholesky\w*|_linalg_\w+|triangular_solve|lu_\w+)$/, 'cuSOLVER / cuFFT'],
];

/** ATen ops Inductor falls back to eager for (no lowering): fusing across them takes a hand-written kernel. */
const FALLBACK = /^aten::(sort|topk|kthvalue|median|nanmedian|mode|searchsorted|bucketize|_embedding_bag\w*|embedding_bag|_amp_foreach_non_finite_check_and_unscale_|_amp_update_scale_|nonzero|masked_select|_unique\w*|unique\w*|multinomial|_local_scalar_dense|item)$/;

/** The vendor library an op's work runs in when Inductor keeps it extern, or undefined. */
export function externLibraryOf(op: string): string | undefined {
  for (const [re, library] of EXTERN) if (re.test(op)) return library;
  return undefined;
}

/** Who could fuse this op with a neighbour: Inductor, a hand-written kernel, or nobody (an extern library call: undefined). */
export function fuserOf(op: string): Fuser | undefined {
  if (externLibraryOf(op)) return undefined;
  if (!op.startsWith('aten::') || FALLBACK.test(op)) return HAND_WRITTEN;
  return INDUCTOR;
}

/** Who could fuse all of these ops together: Inductor if it can each; a hand-written kernel if any is a fallback or outside ATen; nobody if any is extern. */
export function fuserOfAll(ops: readonly string[]): Fuser | undefined {
  let out: Fuser = INDUCTOR;
  for (const op of ops) {
    const f = fuserOf(op);
    if (f === undefined) return undefined;
    if (f === HAND_WRITTEN) out = HAND_WRITTEN;
  }
  return out;
}
