/**
 * Op families: the names under which torch runs one operation. The eager op a library's kernel
 * runs under and the name Inductor writes in a fused kernel's op list differ for one batch norm
 * (`aten::cudnn_batch_norm`, `_native_batch_norm_legit_functional`), and SDPA runs one attention
 * through whichever backend it picked; the kernel matcher (kernel-match.ts) compares ops by family
 * so that each of these is one op.
 *
 * Ignores: every other op, which is a family of its own (its name without the namespace).
 */
import { opBaseName } from './kernel-sites.js';

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
