/**
 * Kernel-name decoding. Expectations are written from the naming conventions cited in
 * kernel-name.ts (CUTLASS's generator, cuBLAS's letter code, NCCL's generate.py, Inductor's
 * define_kernel, Kineto's memcpy strings …), one reading per name — never from the decoder's output.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { decodeKernelName, shortKernelName, type DecodedKernelName } from '../../src/analyses/kernels/kernel-name.js';
import { demangleItanium } from '../../src/analyses/kernels/itanium-demangle.js';
import { H200_DIR, HAS_HTA, HTA_DIR } from '../fixtures.js';
import { TEST_DIR } from '../helpers/paths.js';

const TRACES = H200_DIR;
const NAMES = path.join(TEST_DIR, 'fixtures/kernel-names');

const GPU_CATS = new Set(['kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset']);

/** Distinct kernel/memcpy/memset names of every Chrome-trace JSON(.gz) under `dir`. */
const namesByDir = new Map<string, Set<string>>();
/** Every GPU activity name in the traces under `dir` (read once per directory: several tests walk the same ones). */
function gpuNames(dir: string): Set<string> {
  const known = namesByDir.get(dir);
  if (known) return known;
  const out = new Set<string>();
  namesByDir.set(dir, out);
  const walk = (p: string): void => {
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const f of fs.readdirSync(p)) walk(path.join(p, f));
      return;
    }
    if (!/\.json(\.gz)?$/.test(p) || /oracle/.test(p)) return;
    let buf: Buffer = fs.readFileSync(p);
    if (buf[0] === 0x1f && buf[1] === 0x8b) {
      try {
        buf = zlib.gunzipSync(buf);
      } catch {
        return;
      }
    }
    let json: unknown;
    try {
      json = JSON.parse(buf.toString('utf8'));
    } catch {
      return;
    }
    const events = Array.isArray(json) ? json : (json as { traceEvents?: unknown }).traceEvents;
    if (!Array.isArray(events)) return;
    for (const e of events as Array<{ cat?: unknown; name?: unknown }>) {
      if (e && typeof e.name === 'string' && typeof e.cat === 'string' && GPU_CATS.has(e.cat)) out.add(e.name);
    }
  };
  walk(dir);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Expectation builders (shorthand only: every field is still written out per name below)

const BF16_TST = { a: 'bf16', b: 'bf16', compute: 'f32', d: 'bf16' };

function nvjetTst(tile: string, stages: string, cluster: string, layout: string, unparsed: string[], epilogue?: string[]): DecodedKernelName {
  const d: DecodedKernelName = {
    kind: 'gemm', library: 'cuBLAS', generator: 'nvjet', arch: 'sm90', dtype: 'bf16', types: BF16_TST,
    tensorCores: true, tile, stages, cluster, layout, unparsed,
  };
  if (epilogue) d.epilogue = epilogue;
  return d;
}

function aten(template: string, kind: DecodedKernelName['kind'], extra: { functor?: string; op?: string; dtype?: string } = {}): DecodedKernelName {
  const a: NonNullable<DecodedKernelName['aten']> = { template };
  if (extra.functor) a.functor = extra.functor;
  if (extra.op) a.op = extra.op;
  const d: DecodedKernelName = { kind, library: 'ATen', aten: a };
  if (extra.dtype) d.dtype = extra.dtype;
  return d;
}

const cub = (kernel: string, kind: DecodedKernelName['kind'] = 'other'): DecodedKernelName => ({
  kind, library: 'CUB', generator: 'cub (ATen)', ...(kind === 'other' ? { unparsed: [kernel] } : {}),
});

/**
 * Every distinct GPU-activity name of our H200 fixtures, keyed by a prefix that matches exactly one
 * of them (the ATen names run to kilobytes).
 */
const FIXTURE_EXPECTATIONS: Array<[string, DecodedKernelName]> = [
  ['Memcpy DtoH (Device -> Pinned)', { kind: 'memcpy', library: 'CUDA', memcpy: { direction: 'DtoH', src: 'Device', dst: 'Pinned' } }],
  ['Memcpy HtoD (Pinned -> Device)', { kind: 'memcpy', library: 'CUDA', memcpy: { direction: 'HtoD', src: 'Pinned', dst: 'Device' } }],
  ['Memset (Device)', { kind: 'memset', library: 'CUDA', memset: { dst: 'Device' } }],
  ['at::cuda::philox::unpack_cudnn(', aten('unpack_cudnn', 'other')],
  ['cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_cga1x1x1_kernel0_0', {
    kind: 'attention', library: 'cuDNN', generator: 'cudnn runtime fusion', arch: 'sm90', direction: 'bwd', dtype: 'f16/bf16',
    instructionShape: 'wgmma', tensorCores: true, tile: '64x64x64', cluster: '1x1x1', unparsed: ['knob_26', '1x4x1', 'kernel0_0'],
  }],
  ['cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0', {
    kind: 'attention', library: 'cuDNN', generator: 'cudnn runtime fusion', arch: 'sm90', direction: 'fwd', dtype: 'f16/bf16',
    instructionShape: 'wgmma', tensorCores: true, tile: '64x128x64', cluster: '1x1x1', unparsed: ['knob_7', '4x1x1', 'kernel0_0'],
  }],
  // The hand-written Triton GeGLU kernel: its bare name does not say Triton, nor anything else.
  ['geglu_fwd', { kind: 'unknown', unparsed: ['geglu_fwd'] }],
  ['nvjet_sm90_tst_128x128_64x6_4x2_h_bz_NTT', nvjetTst('128x128x64', '6', '4x2', 'NTT', ['h', 'bz'])],
  ['nvjet_sm90_tst_128x160_64x5_2x4_h_bz_NTT', nvjetTst('128x160x64', '5', '2x4', 'NTT', ['h', 'bz'])],
  ['nvjet_sm90_tst_128x160_64x5_4x1_v_bz_NTT', nvjetTst('128x160x64', '5', '4x1', 'NTT', ['v', 'bz'])],
  ['nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_TNT', nvjetTst('192x128x64', '5', '1x2', 'TNT', ['h', 'bz', 'coopB'])],
  ['nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_bias_NNT', nvjetTst('192x128x64', '5', '1x2', 'NNT', ['h', 'bz', 'coopB'], ['bias'])],
  ['nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_bias_TNT', nvjetTst('192x128x64', '5', '1x2', 'TNT', ['h', 'bz', 'coopB'], ['bias'])],
  ['nvjet_sm90_tst_192x192_64x3_2x1_v_bz_coopB_bias_NNN', nvjetTst('192x192x64', '3', '2x1', 'NNN', ['v', 'bz', 'coopB'], ['bias'])],
  ['nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT', nvjetTst('256x128x64', '4', '1x2', 'NNT', ['h', 'bz', 'coopA'])],
  ['nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT', nvjetTst('256x128x64', '4', '1x2', 'TNT', ['h', 'bz', 'coopA'])],
  ['nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_NNT', nvjetTst('256x128x64', '4', '1x2', 'NNT', ['h', 'bz', 'coopA'], ['bias'])],
  ['nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT', nvjetTst('256x128x64', '4', '1x2', 'TNT', ['h', 'bz', 'coopA'], ['bias'])],
  ['nvjet_sm90_tst_64x8_64x16_1x2_h_bz_NNT', nvjetTst('64x8x64', '16', '1x2', 'NNT', ['h', 'bz'])],
  ['nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_NNT', nvjetTst('64x8x64', '16', '1x2', 'NNT', ['h', 'bz'], ['bias'])],
  ['nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT', nvjetTst('64x8x64', '16', '1x2', 'TNT', ['h', 'bz'], ['bias'])],
  ['nvjet_sm90_tst_96x64_64x8_2x4_h_bz_NTN', nvjetTst('96x64x64', '8', '2x4', 'NTN', ['h', 'bz'])],
  ['sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas', {
    kind: 'gemm', library: 'cuBLAS', generator: 'xmma', arch: 'sm90', dtype: 'f32', types: { a: 'f32', b: 'f32', compute: 'tf32', accumulator: 'f32' }, tensorCores: true,
    layout: 'nn', tile: '128x256x32', warps: '2x1x1 warpgroups', unparsed: ['n', 'segment_k_off'],
  }],
  ['triton_poi_fused__unsafe_view_gelu_mul_0', {
    kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor',
    inductor: { kind: 'pointwise', prefix: 'poi', ops: ['_unsafe_view', 'gelu', 'mul'], index: 0 },
  }],
  ['triton_poi_fused_add_mul_0', {
    kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor',
    inductor: { kind: 'pointwise', prefix: 'poi', ops: ['add', 'mul'], index: 0 },
  }],
  ['triton_poi_fused_relu_threshold_backward_view_0', {
    kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor',
    inductor: { kind: 'pointwise', prefix: 'poi', ops: ['relu', 'threshold_backward', 'view'], index: 0 },
  }],
  ['void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out(', aten('elementwise_kernel_with_index', 'elementwise', { op: 'arange_cuda_out' })],
  ['void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>', aten('CatArrayBatchedCopy', 'copy')],
  ['void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<at::native::(anonymous namespace)::OpaqueType<2u>', aten('CatArrayBatchedCopy_vectorized', 'copy')],
  ['void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<float,', aten('GammaBetaBackwardCUDAKernelTemplate', 'normalization', { dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::compute_grad_weight<', aten('compute_grad_weight', 'other')],
  ['void at::native::(anonymous namespace)::compute_num_of_partial_segments<', aten('compute_num_of_partial_segments', 'other')],
  ['void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float', aten('cunn_SoftMaxBackward', 'softmax', { op: 'LogSoftMaxBackwardEpilogue', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float', aten('cunn_SoftMaxForward', 'softmax', { op: 'LogSoftMaxForwardEpilogue', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::embedding_backward_feature_kernel<', aten('embedding_backward_feature_kernel', 'other')],
  ['void at::native::(anonymous namespace)::fused_dropout_kernel_vec<c10::BFloat16', aten('fused_dropout_kernel_vec', 'other', { dtype: 'bf16' })],
  ['void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float', aten('fused_dropout_kernel_vec', 'other', { dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::krn_partial_segment_offset<', aten('krn_partial_segment_offset', 'other')],
  ['void at::native::(anonymous namespace)::krn_partials_per_segment<', aten('krn_partials_per_segment', 'other')],
  ['void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<float', aten('layer_norm_grad_input_kernel_vectorized', 'normalization', { dtype: 'f32' })],
  // foreach (torch._foreach_* / AdamW(foreach=True)): ForeachFunctors.cuh functor + the math op
  ['void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies',
    aten('multi_tensor_apply_kernel', 'elementwise', { functor: 'BinaryOpScalarFunctor', op: 'std::multiplies', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, std::plus',
    aten('multi_tensor_apply_kernel', 'elementwise', { functor: 'BinaryOpScalarFunctor', op: 'std::plus', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::TernaryOpScalarFunctor',
    aten('multi_tensor_apply_kernel', 'elementwise', { functor: 'TernaryOpScalarFunctor', op: 'LerpFunctor', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, at::native::Copy',
    aten('multi_tensor_apply_kernel', 'elementwise', { functor: 'UnaryOpFunctor', op: 'Copy', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, at::native::Sqrt',
    aten('multi_tensor_apply_kernel', 'elementwise', { functor: 'UnaryOpFunctor', op: 'Sqrt', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<3>',
    aten('multi_tensor_apply_kernel', 'elementwise', { functor: 'PointwiseOpScalarFunctor', op: 'std::multiplies', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListScalarListMetadata<float, 1>',
    aten('multi_tensor_apply_kernel', 'elementwise', { functor: 'BinaryOpScalarListFunctor', op: 'std::divides', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListScalarListMetadata<float, 3>',
    aten('multi_tensor_apply_kernel', 'elementwise', { functor: 'PointwiseOpScalarListFunctor', op: 'std::divides', dtype: 'f32' })],
  ['void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<', aten('nll_loss_backward_reduce_cuda_kernel_2d', 'other')],
  ['void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<', aten('nll_loss_forward_reduce_cuda_kernel_2d', 'other')],
  ['void at::native::(anonymous namespace)::sum_and_scatter<', aten('sum_and_scatter', 'other')],
  ['void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float', aten('vectorized_layer_norm_kernel', 'normalization', { dtype: 'f32' })],
  ['void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<float>', aten('elementwise_kernel', 'elementwise', { op: 'CUDAFunctor_add', dtype: 'f32' })],
  ['void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#4}', aten('elementwise_kernel', 'copy', { op: 'direct_copy_kernel_cuda', dtype: 'int64' })],
  ['void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<c10::BFloat16>', aten('elementwise_kernel', 'elementwise', { op: 'CUDAFunctor_add', dtype: 'bf16' })],
  ['void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}', aten('elementwise_kernel', 'copy', { op: 'direct_copy_kernel_cuda', dtype: 'bf16' })],
  ['void at::native::reduce_kernel<128, 4, at::native::ReduceOp<c10::BFloat16', aten('reduce_kernel', 'reduction', { op: 'sum_functor', dtype: 'bf16' })],
  ['void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float', aten('reduce_kernel', 'reduction', { op: 'sum_functor', dtype: 'f32' })],
  ['void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor', aten('reduce_kernel', 'reduction', { op: 'sum_functor', dtype: 'f32' })],
  ['void at::native::unrolled_elementwise_kernel<at::native::BinaryFunctor<float', aten('unrolled_elementwise_kernel', 'elementwise', { functor: 'BinaryFunctor', op: 'MulFunctor', dtype: 'f32' })],
  ['void at::native::unrolled_elementwise_kernel<at::native::CUDAFunctor_add<float>', aten('unrolled_elementwise_kernel', 'elementwise', { op: 'CUDAFunctor_add', dtype: 'f32' })],
  ['void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}', aten('unrolled_elementwise_kernel', 'copy', { op: 'direct_copy_kernel_cuda', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<2, at::native::CUDAFunctorOnSelf_add<long>', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'CUDAFunctorOnSelf_add', dtype: 'int64' })],
  ['void at::native::vectorized_elementwise_kernel<2, at::native::FillFunctor<long>', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'FillFunctor', dtype: 'int64' })],
  // masked_scale_kernel<mask_t, scalar_t, …>'s lambda takes (float, bool): no single element type.
  ['void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::masked_scale_kernel', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'masked_scale_kernel' })],
  ['void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#1}', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'pow_tensor_scalar_kernel_impl', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#2}', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'pow_tensor_scalar_kernel_impl', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float', aten('vectorized_elementwise_kernel', 'elementwise', { functor: 'AUnaryFunctor', op: 'MulFunctor', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float', aten('vectorized_elementwise_kernel', 'elementwise', { functor: 'BinaryFunctor', op: 'MulFunctor', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'CUDAFunctorOnSelf_add', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'CUDAFunctor_add', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'FillFunctor', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<4, at::native::tanh_backward_kernel_cuda', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'tanh_backward_kernel_cuda', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<4, at::native::tanh_kernel_cuda', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'tanh_kernel_cuda', dtype: 'f32' })],
  ['void at::native::vectorized_elementwise_kernel<8, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#9}', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'launch_clamp_scalar', dtype: 'bf16' })],
  ['void at::native::vectorized_elementwise_kernel<8, at::native::(anonymous namespace)::masked_scale_kernel', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'masked_scale_kernel' })],
  ['void at::native::vectorized_elementwise_kernel<8, at::native::AUnaryFunctor<c10::BFloat16', aten('vectorized_elementwise_kernel', 'elementwise', { functor: 'AUnaryFunctor', op: 'MulFunctor', dtype: 'bf16' })],
  ['void at::native::vectorized_elementwise_kernel<8, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor', aten('vectorized_elementwise_kernel', 'elementwise', { functor: 'BinaryFunctor', op: 'MulFunctor', dtype: 'bf16' })],
  ['void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'CUDAFunctor_add', dtype: 'bf16' })],
  // The seed's eager GeGLU: F.gelu on bf16 runs ATen's GeluCUDAKernelImpl lambda.
  ['void at::native::vectorized_elementwise_kernel<8, at::native::GeluCUDAKernelImpl', aten('vectorized_elementwise_kernel', 'elementwise', { op: 'GeluCUDAKernelImpl', dtype: 'bf16' })],
  // bfloat16_copy_kernel_cuda's lambda takes the float source.
  ['void at::native::vectorized_elementwise_kernel<8, at::native::bfloat16_copy_kernel_cuda', aten('vectorized_elementwise_kernel', 'copy', { op: 'bfloat16_copy_kernel_cuda', dtype: 'f32' })],
  ['void at::native::vectorized_gather_kernel<16, long>', aten('vectorized_gather_kernel', 'copy')],
  ['void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortExclusiveSumKernel<', cub('DeviceRadixSortExclusiveSumKernel')],
  ['void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortHistogramKernel<', cub('DeviceRadixSortHistogramKernel')],
  ['void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<', cub('DeviceRadixSortOnesweepKernel')],
  ['void at_cuda_detail::cub::detail::scan::DeviceCompactInitKernel<', cub('DeviceCompactInitKernel')],
  ['void at_cuda_detail::cub::detail::scan::DeviceScanInitKernel<', cub('DeviceScanInitKernel')],
  ['void at_cuda_detail::cub::detail::scan::DeviceScanKernel<at_cuda_detail::cub::detail::scan::policy_hub<long, long, long, unsigned int, at::cuda::cub::(anonymous namespace)::SumOp', cub('DeviceScanKernel')],
  ['void at_cuda_detail::cub::detail::unique_by_key::DeviceUniqueByKeySweepKernel<', cub('DeviceUniqueByKeySweepKernel')],
  ['void cudnn::fusion::compute_dot_do_o_specialized<', { kind: 'attention', library: 'cuDNN', direction: 'bwd' }],
  ['void cudnn::fusion::convert_dq_to_16bits<', { kind: 'attention', library: 'cuDNN', direction: 'bwd' }],
  // cuBLAS's CUTLASS 2.x kernels on Turing's s1688 (gpt2_train's fp32 master-weight GEMMs under bf16 autocast):
  // element_c bf16, accumulate f32 (s), mma 16x8x8, element_a bf16; a 2-dim threadblock name (no K×stages).
  ['void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>', {
    kind: 'gemm', library: 'cuBLAS', generator: 'cutlass 2.x', arch: 'sm75', tensorCores: true, instructionShape: 's1688',
    tile: '128x128', layout: 'tn', alignment: 1, types: { accumulator: 'f32', c: 'bf16', a: 'bf16' }, dtype: 'bf16',
  }],
  ['void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x256_nt_align1>', {
    kind: 'gemm', library: 'cuBLAS', generator: 'cutlass 2.x', arch: 'sm75', tensorCores: true, instructionShape: 's1688',
    tile: '128x256', layout: 'nt', alignment: 1, types: { accumulator: 'f32', c: 'bf16', a: 'bf16' }, dtype: 'bf16',
  }],
  ['void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_nn_align1>', {
    kind: 'gemm', library: 'cuBLAS', generator: 'cutlass 2.x', arch: 'sm75', tensorCores: true, instructionShape: 's1688',
    tile: '256x128', layout: 'nn', alignment: 1, types: { accumulator: 'f32', c: 'bf16', a: 'bf16' }, dtype: 'bf16',
  }],
];

/**
 * Names of issue 16's captures (cnn_train[_compile], attention*, scaled_mm, relu_mlp_compile_ma_nograd:
 * test/fixtures/traces/h200-torch2.11/README.md; torch 2.11.0+cu130, CUDA 13.0, cuDNN 9.19, one H200),
 * each field written from the convention cited beside it and in kernel-name.ts.
 */
// xmma's type block read as kernel-name.ts reads it (from the launching ops' input types): f16 A and B, f16 math, f32 accumulator.
const CUDNN_XMMA = {
  library: 'cuDNN', generator: 'xmma', kind: 'conv' as const, tensorCores: true, layout: 'nhwckrsc_nhwc', dtype: 'f16',
  types: { a: 'f16', b: 'f16', compute: 'f16', accumulator: 'f32' },
};
const CAPTURE_EXPECTATIONS: Array<[string, DecodedKernelName]> = [
  // cuDNN's CUTLASS wgrad, mangled in the trace. Read from its demangled type (llvm-cxxfilt):
  // ImplicitGemmConvolution<ImplicitGemmMultistage<GemmShape<64,64,64>, Conv2dWgrad…Iterator<…, half_t, …,
  // AlignedArray<half_t, 8, 16>>, …, MmaPolicy<MmaTensorOp<GemmShape<32,32,64>, half_t, …, half_t, …, float,
  // …, MmaTensorOpPolicy<arch::Mma<GemmShape<16,8,16>, …>>>>, 5>, Epilogue<…, LinearCombination<float, 4,
  // float, float>>, …, (conv::Operator)2, Conv2dProblemSize> — conv::Operator 2 = kWgrad (conv/convolution.h).
  ['_ZN17cutlass__5x_cudnn6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemmMultistageINS_4gemm9GemmShapeILi64ELi64ELi64EEE', {
    kind: 'conv', library: 'cuDNN', generator: 'cutlass 2.x', convPass: 'wgrad', tile: '64x64x64', stages: '5', warpTile: '32x32x64',
    instructionShape: '16x8x16', tensorCores: true, alignment: 8, types: { a: 'f16', b: 'f16', c: 'f32', accumulator: 'f32' }, dtype: 'f16',
  }],
  // CUTLASS's split-K reduction (cutlass::reduction::kernel::ReduceSplitK) inside cuDNN, after the wgrad above.
  ['void cutlass__5x_cudnn::Kernel<cutlass__5x_cudnn::reduction::kernel::ReduceSplitK<', { kind: 'reduction', library: 'cuDNN', splitK: true }],
  // xmma convolutions: pass word, tilesize, warpgroupsize, segment_k/split_k, library suffix.
  ['sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x128x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn', {
    ...CUDNN_XMMA, arch: 'sm90', convPass: 'fprop', tile: '64x128x64', warps: '1x1x1 warpgroups', unparsed: ['g1', 'segment_k_off'],
  }],
  ['sm90_xmma_dgrad_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize256x64x64_warpgroupsize1x1x1_g1_strided_execute_kernel__5x_cudnn', {
    ...CUDNN_XMMA, arch: 'sm90', convPass: 'dgrad', tile: '256x64x64', warps: '1x1x1 warpgroups', unparsed: ['g1', 'strided'],
  }],
  ['sm90_xmma_wgrad_indexed_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x64x64_warpgroupsize1x1x1_g1_execute_split_k_kernel__5x_cudnn', {
    ...CUDNN_XMMA, arch: 'sm90', convPass: 'wgrad', tile: '128x64x64', warps: '1x1x1 warpgroups', splitK: true, unparsed: ['g1'],
  }],
  ['sm80_xmma_fprop_implicit_gemm_indexed_wo_smem_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x32x16_stage1_warpsize4x1x1_g1_tensor16x8x16_aligna2_alignc8_execute_kernel__5x_cudnn', {
    ...CUDNN_XMMA, arch: 'sm80', convPass: 'fprop', tile: '128x32x16', stages: '1', warps: '4x1x1', instructionShape: '16x8x16', alignment: 2,
    unparsed: ['wo_smem', 'g1', 'alignc8'],
  }],
  // The workspace set-up helper of the wgrad above: its params type names the implicit GEMM it serves.
  ['void cask_plugin__5x_cudnn::xmma__5x_cudnn::init_device_workspace_kernel<xmma__5x_cudnn::implicit_gemm::wgrad_indexed', {
    kind: 'other', library: 'cuDNN', convPass: 'wgrad', unparsed: ['init_device_workspace_kernel'],
  }],
  // cuDNN's precompiled implicit GEMM, under aten::cudnn_convolution; first template argument = input type.
  ['void implicit_convolve_sgemm<__half, __half, 1024', { kind: 'conv', library: 'cuDNN', convPass: 'fprop', dtype: 'f16' }],
  // cuDNN's layout helpers around NCHW convolutions and channel padding for channels-last.
  ['void cudnn::engines_precompiled::nchwToNhwcKernel<__half', { kind: 'copy', library: 'cuDNN', layout: 'nchw→nhwc' }],
  ['void cudnn::engines_precompiled::nhwcToNchwKernel<__half', { kind: 'copy', library: 'cuDNN', layout: 'nhwc→nchw' }],
  ['void nhwcAddPaddingKernel<__half', { kind: 'copy', library: 'cuDNN', layout: 'nhwc' }],
  // cuDNN batch norm: bn_fw_tr = forward (training), bn_bw = backward.
  ['void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half', { kind: 'normalization', library: 'cuDNN', direction: 'fwd' }],
  ['void cudnn::bn_fw_tr_1C11_singleread_spec<__half2', { kind: 'normalization', library: 'cuDNN', direction: 'fwd' }],
  ['void cudnn::bn_bw_1C11_kernel_new<__half, float, float2, 128', { kind: 'normalization', library: 'cuDNN', direction: 'bwd' }],
  // cuBLAS's CUTLASS 2.x GEMMs in fp16 (the CNN's linear layer).
  ['void cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x2_tn_align2>', {
    kind: 'gemm', library: 'cuBLAS', generator: 'cutlass 2.x', arch: 'sm80', tensorCores: true, instructionShape: 's161616',
    tile: '32x32x128', stages: '2', layout: 'tn', alignment: 2, types: { accumulator: 'f32', c: 'f16', a: 'f16' }, dtype: 'f16',
  }],
  // Inductor: an op list that ends in the in-place copy_ (the BN running-stat update), and templates.
  ['triton_poi_fused_add_copy__17', {
    kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor', inductor: { kind: 'pointwise', prefix: 'poi', ops: ['add', 'copy_'], index: 17 },
  }],
  ['triton_per_fused__native_batch_norm_legit_functional_copy__4', {
    kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor',
    inductor: { kind: 'persistent_reduction', prefix: 'per', ops: ['_native_batch_norm_legit_functional', 'copy_'], index: 4 },
  }],
  ['triton_tem_fused_addmm_t_view_0', {
    kind: 'gemm', library: 'Inductor (Triton)', generator: 'inductor', inductor: { kind: 'template', prefix: 'tem', ops: ['addmm', 't', 'view'], index: 0 },
  }],
  ['triton_tem_fused_addmm_relu_t_view_2', {
    kind: 'gemm', library: 'Inductor (Triton)', generator: 'inductor', inductor: { kind: 'template', prefix: 'tem', ops: ['addmm', 'relu', 't', 'view'], index: 2 },
  }],
  // fp8 cuBLAS GEMM (torch._scaled_mm, e4m3 × e4m3 → bf16): qq = e4m3 inputs, then t·s·t.
  ['nvjet_sm90_qqtst_128x160_128x5_2x1_v_bz_coopA_algo2_TNT', {
    kind: 'gemm', library: 'cuBLAS', generator: 'nvjet', arch: 'sm90', dtype: 'fp8 e4m3', tensorCores: true,
    types: { a: 'fp8 e4m3', b: 'fp8 e4m3', compute: 'f32', d: 'bf16' }, tile: '128x160x128', stages: '5', cluster: '2x1', layout: 'TNT',
    unparsed: ['v', 'bz', 'coopA', 'algo2'],
  }],
  ['sm90_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn', {
    ...CUDNN_XMMA, arch: 'sm90', convPass: 'dgrad', tile: '128x128x64', warps: '1x1x1 warpgroups', unparsed: ['g1', 'segment_k_off'],
  }],
  ['sm90_xmma_wgrad_indexed_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x64x64_warpgroupsize1x1x1_g1_execute_segment_k_on_kernel__5x_cudnn', {
    ...CUDNN_XMMA, arch: 'sm90', convPass: 'wgrad', tile: '128x64x64', warps: '1x1x1 warpgroups', unparsed: ['g1', 'segment_k_on'],
  }],
  ['sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize256x128x32_warpgroupsize2x1x1_g1_execute_segment_k_on_kernel__5x_cudnn', {
    ...CUDNN_XMMA, arch: 'sm90', convPass: 'fprop', tile: '256x128x32', warps: '2x1x1 warpgroups', unparsed: ['g1', 'segment_k_on'],
  }],
  ['void cask_plugin__5x_cudnn::xmma__5x_cudnn::init_device_workspace_kernel<xmma__5x_cudnn::implicit_gemm::fprop', {
    kind: 'other', library: 'cuDNN', convPass: 'fprop', unparsed: ['init_device_workspace_kernel'],
  }],
  ['void cudnn::bn_bw_1C11_kernel_new<__half, float, float2, 512', { kind: 'normalization', library: 'cuDNN', direction: 'bwd' }],
  ['void cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_64x1_nn_align2>', {
    kind: 'gemm', library: 'cuBLAS', generator: 'cutlass 2.x', arch: 'sm80', tensorCores: true, instructionShape: 's161616',
    tile: '32x32x64', stages: '1', layout: 'nn', alignment: 2, types: { accumulator: 'f32', c: 'f16', a: 'f16' }, dtype: 'f16',
  }],
  ['void cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_32x1_nt_align2>', {
    kind: 'gemm', library: 'cuBLAS', generator: 'cutlass 2.x', arch: 'sm80', tensorCores: true, instructionShape: 's161616',
    tile: '32x32x32', stages: '1', layout: 'nt', alignment: 2, types: { accumulator: 'f32', c: 'f16', a: 'f16' }, dtype: 'f16',
  }],
  // cuBLAS nvjet bf16 GEMMs of the new captures (tst = bf16 in, f32 compute, bf16 out).
  ['nvjet_sm90_tst_192x192_64x4_1x2_h_bz_coopB_bias_TNN', nvjetTst('192x192x64', '4', '1x2', 'TNN', ['h', 'bz', 'coopB'], ['bias'])],
  ['nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_NNT', nvjetTst('192x128x64', '5', '1x2', 'NNT', ['h', 'bz', 'coopB'])],
  ['nvjet_sm90_tst_128x128_64x6_2x4_h_bz_NTT', nvjetTst('128x128x64', '6', '2x4', 'NTT', ['h', 'bz'])],
  ['nvjet_sm90_tst_64x128_64x8_4x2_h_bz_NTN', nvjetTst('64x128x64', '8', '4x2', 'NTN', ['h', 'bz'])],
  ['nvjet_sm90_tst_128x160_64x5_2x1_v_bz_coopA_bias_TNT', nvjetTst('128x160x64', '5', '2x1', 'TNT', ['v', 'bz', 'coopA'], ['bias'])],
  ['nvjet_sm90_tst_160x256_64x4_2x1_v_bz_coopA_TNN', nvjetTst('160x256x64', '4', '2x1', 'TNN', ['v', 'bz', 'coopA'])],
  ['nvjet_sm90_tst_192x192_64x3_2x1_v_bz_coopB_NTN', nvjetTst('192x192x64', '3', '2x1', 'NTN', ['v', 'bz', 'coopB'])],
  ['nvjet_sm90_tst_192x192_64x3_1x2_h_bz_coopB_NTN', nvjetTst('192x192x64', '3', '1x2', 'NTN', ['h', 'bz', 'coopB'])],
  ['Memcpy DtoD (Device -> Device)', { kind: 'memcpy', library: 'CUDA', memcpy: { direction: 'DtoD', src: 'Device', dst: 'Device' } }],
  ['Memset (Unknown)', { kind: 'memset', library: 'CUDA', memset: { dst: 'Unknown' } }],
  ['void (anonymous namespace)::softmax_warp_forward<c10::Half', { kind: 'softmax', library: 'ATen', aten: { template: 'softmax_warp_forward' }, dtype: 'f16' }],
  ['void (anonymous namespace)::softmax_warp_backward<c10::Half', { kind: 'softmax', library: 'ATen', aten: { template: 'softmax_warp_backward' }, dtype: 'f16' }],
  ['at::native::amp_update_scale_cuda_kernel(', aten('amp_update_scale_cuda_kernel', 'other')],
  // SDPA backends: memory-efficient (generate_kernels.py names) and PyTorch's FlashAttention 2 (kernel traits).
  ['fmha_cutlassF_bf16_aligned_64x64_rf_sm80', {
    kind: 'attention', library: 'ATen', generator: 'mem-efficient attention (fmha cutlass)', direction: 'fwd', dtype: 'bf16', arch: 'sm80', tile: '64x64',
  }],
  ['fmha_cutlassB_bf16_aligned_64x64_k64_seqaligned_sm80', {
    kind: 'attention', library: 'ATen', generator: 'mem-efficient attention (fmha cutlass)', direction: 'bwd', dtype: 'bf16', arch: 'sm80', tile: '64x64', headDim: 64,
  }],
  // FlashAttention 2's backward pre- and post-processing kernels carry the same traits (kernel_traits.h).
  ['void pytorch_flash::flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<64, 128, 128, 8', {
    kind: 'attention', library: 'FlashAttention (PyTorch)', generator: 'flash-attention 2', direction: 'bwd', headDim: 64, tile: '128x128', warps: '8', dtype: 'bf16', tensorCores: true,
  }],
  ['void pytorch_flash::flash_bwd_convert_dq_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8', {
    kind: 'attention', library: 'FlashAttention (PyTorch)', generator: 'flash-attention 2', direction: 'bwd', headDim: 64, tile: '128x128', warps: '8', dtype: 'bf16', tensorCores: true,
  }],
  ['void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4', {
    kind: 'attention', library: 'FlashAttention (PyTorch)', generator: 'flash-attention 2', direction: 'fwd', headDim: 64, tile: '128x128', warps: '4', dtype: 'bf16', tensorCores: true,
  }],
  ['void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8', {
    kind: 'attention', library: 'FlashAttention (PyTorch)', generator: 'flash-attention 2', direction: 'bwd', headDim: 64, tile: '128x128', warps: '8', dtype: 'bf16', tensorCores: true,
  }],
  // lstm_train's cuDNN RNN cell kernels (the third set, README.md): cuDNN's by their cudnnRNN*
  // template arguments / parameter types; `_bp1` / `_bp2` = backward, elemWiseRNNcell the
  // forward's (it ran under aten::_cudnn_rnn only); first template argument __half = f16.
  // The cell: cudnnRNNMode_t 2 is CUDNN_LSTM (cudnn_adv.h), LSTM_ says so itself; bp2 states none.
  ['void elemWiseRNNcell<__half, __half, float, (cudnnRNNMode_t)2', { kind: 'elementwise', library: 'cuDNN', direction: 'fwd', dtype: 'f16', rnn: { cell: 'LSTM' } }],
  ['void LSTM_elementWise_bp1<__half, __half, float>', { kind: 'elementwise', library: 'cuDNN', direction: 'bwd', dtype: 'f16', rnn: { cell: 'LSTM' } }],
  ['void GENERIC_elementWise_bp2<__half, __half, float, 4, (cudnnRNNBiasMode_t)2>', { kind: 'elementwise', library: 'cuDNN', direction: 'bwd', dtype: 'f16', rnn: {} }],
];

describe('decodeKernelName on the names of our H200 fixtures', () => {
  const names = [...gpuNames(TRACES)].sort();

  it('each expectation names exactly one fixture name', () => {
    for (const [prefix] of [...FIXTURE_EXPECTATIONS, ...CAPTURE_EXPECTATIONS]) {
      expect(names.filter((n) => n.startsWith(prefix)), prefix).toHaveLength(1);
    }
  });

  for (const [prefix, expected] of [...FIXTURE_EXPECTATIONS, ...CAPTURE_EXPECTATIONS]) {
    it(prefix.slice(0, 110), () => {
      const name = names.find((n) => n.startsWith(prefix));
      expect(name).toBeDefined();
      expect(decodeKernelName(name as string)).toEqual(expected);
    });
  }
});

// ---------------------------------------------------------------------------------------------

describe('decodeKernelName on names from the sources and the seed', () => {
  const cases: Array<[string, string, DecodedKernelName]> = [
    ['the seed\'s Linear kernel (cuBLAS CUTLASS 2.x wmma)', 'cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_tn_align8', {
      kind: 'gemm', library: 'cuBLAS', generator: 'cutlass 2.x', arch: 'sm80', tensorCores: true, instructionShape: 's161616',
      tile: '32x32x32', stages: '1', layout: 'tn', alignment: 8, types: { accumulator: 'f32', c: 'bf16', a: 'bf16' }, dtype: 'bf16',
    }],
    ['a cuBLASLt ReLU epilogue in cuBLAS\'s CUTLASS name', 'void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8::Params)', {
      kind: 'gemm', library: 'cuBLAS', generator: 'cutlass 2.x', arch: 'sm80', tensorCores: true, instructionShape: 's16816',
      tile: '64x64x32', stages: '6', layout: 'tn', alignment: 8, epilogue: ['relu'], types: { accumulator: 'f32', c: 'bf16', a: 'bf16' }, dtype: 'bf16',
    }],
    ['CUTLASS 2.x SIMT (no tensor cores)', 'void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nt_align1>(cutlass_80_simt_sgemm_128x32_8x5_nt_align1::Params)', {
      kind: 'gemm', library: 'cuBLAS', generator: 'cutlass 2.x', arch: 'sm80', tensorCores: false,
      tile: '128x32x8', stages: '5', layout: 'nt', alignment: 1, types: { accumulator: 'f32', a: 'f32', c: 'f32' }, dtype: 'f32',
    }],
    ['CUTLASS 2.x library name (no SM tag: CUTLASS itself)', 'cutlass_tensorop_h16816gemm_256x128_32x3_nt_align8', {
      kind: 'gemm', library: 'CUTLASS', generator: 'cutlass 2.x', tensorCores: true, instructionShape: 'h16816',
      tile: '256x128x32', stages: '3', layout: 'nt', alignment: 8, types: { accumulator: 'f16', a: 'f16', c: 'f16' }, dtype: 'f16',
    }],
    ['CUTLASS 2.x conv inside cuDNN', 'void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_128x128_16x4_nhwc_align4>(cutlass_tensorop_s1688fprop_optimized_tf32_128x128_16x4_nhwc_align4::Params)', {
      kind: 'conv', library: 'cuDNN', generator: 'cutlass 2.x', convPass: 'fprop', tensorCores: true, instructionShape: 's1688',
      tile: '128x128x16', stages: '4', layout: 'nhwc', alignment: 4, types: { accumulator: 'f32', a: 'tf32', c: 'f32' }, dtype: 'tf32',
    }],
    ['CUTLASS 3.x (current generator: no MMA shape in the name)', 'cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x2x1_0_tnn_align8_warpspecialized_cooperative_epi_tma', {
      kind: 'gemm', library: 'CUTLASS', generator: 'cutlass 3.x', arch: 'sm90', tensorCores: true, dtype: 'bf16',
      types: { a: 'bf16', b: 'bf16', accumulator: 'f32', c: 'bf16', d: 'bf16' }, tile: '128x256x64', cluster: '1x2x1',
      layout: 'tnn', alignment: 8, unparsed: ['warpspecialized_cooperative_epi_tma'],
    }],
    ['CUTLASS 3.x (older generator: wgmma shape before gemm; void C; stream-K)', 'void cutlass::device_kernel<cutlass3x_sm90_tensorop_s64x128x16gemm_f16_f16_f32_void_f16_128x128x64_2x1x1_4_ntn_align8_stream_k_warpspecialized_cooperative>(cutlass3x_sm90_tensorop_s64x128x16gemm_f16_f16_f32_void_f16_128x128x64_2x1x1_4_ntn_align8_stream_k_warpspecialized_cooperative::Params)', {
      kind: 'gemm', library: 'CUTLASS', generator: 'cutlass 3.x', arch: 'sm90', tensorCores: true, instructionShape: 's64x128x16', dtype: 'f16',
      types: { a: 'f16', b: 'f16', accumulator: 'f32', c: 'void', d: 'f16' }, tile: '128x128x64', cluster: '2x1x1', stages: '4',
      layout: 'ntn', alignment: 8, splitK: true, unparsed: ['stream_k_warpspecialized_cooperative'],
    }],
    ['cuBLAS legacy Ampere tensor-op GEMM (the seed\'s stages_32x5)', 'ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn', {
      kind: 'gemm', library: 'cuBLAS', generator: 'cublas legacy', arch: 'ampere', instructionShape: 's16816', tensorCores: true,
      tile: '128x128x32', stages: '5', layout: 'tn', types: { c: 'bf16', accumulator: 'f32', a: 'bf16' }, dtype: 'bf16', unparsed: ['ldg8', 'f2f'],
    }],
    ['cuBLAS legacy SGEMM', 'ampere_sgemm_128x64_nn', {
      kind: 'gemm', library: 'cuBLAS', generator: 'cublas legacy', arch: 'ampere', tile: '128x64', layout: 'nn',
      types: { accumulator: 'f32', a: 'f32' }, dtype: 'f32',
    }],
    ['cuBLAS legacy Volta SGEMM with an undocumented segment', 'volta_sgemm_32x32_sliced1x4_tn', {
      kind: 'gemm', library: 'cuBLAS', generator: 'cublas legacy', arch: 'volta', tile: '32x32', layout: 'tn',
      types: { accumulator: 'f32', a: 'f32' }, dtype: 'f32', unparsed: ['sliced1x4'],
    }],
    ['sm80 xmma bf16 GEMM with an mma shape', 'sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_execute_kernel__5x_cublas', {
      kind: 'gemm', library: 'cuBLAS', generator: 'xmma', arch: 'sm80', dtype: 'bf16', types: { a: 'bf16', b: 'bf16', compute: 'bf16', accumulator: 'f32' }, layout: 'tn',
      tile: '128x128x32', stages: '4', warps: '2x2x1', instructionShape: '16x8x16', tensorCores: true, unparsed: ['n'],
    }],
    ['sm80 xmma FP32 GEMM on CUDA cores (ffma)', 'sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x64x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas', {
      kind: 'gemm', library: 'cuBLAS', generator: 'xmma', arch: 'sm80', dtype: 'f32', types: { a: 'f32', b: 'f32', compute: 'f32', accumulator: 'f32' }, layout: 'nn',
      tile: '128x64x8', stages: '3', warps: '2x2x1', tensorCores: false, alignment: 4, unparsed: ['n', 'alignc4'],
    }],
    ['cuDNN xmma implicit-GEMM convolution', 'sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage4_warpsize2x2x1_g1_tensor16x8x16_t1r3s3_execute_kernel__5x_cudnn', {
      kind: 'conv', library: 'cuDNN', generator: 'xmma', arch: 'sm80', convPass: 'fprop', dtype: 'bf16', types: { a: 'bf16', b: 'bf16', compute: 'bf16', accumulator: 'f32' },
      layout: 'nhwckrsc_nhwc', tile: '64x64x64', stages: '4', warps: '2x2x1', instructionShape: '16x8x16', tensorCores: true, unparsed: ['g1', 't1r3s3'],
    }],
    ['nvjet fp16 with split-K', 'nvjet_sm90_hsh_128x8_64x12_4x1_v_bz_splitK_NNT', {
      kind: 'gemm', library: 'cuBLAS', generator: 'nvjet', arch: 'sm90', dtype: 'f16', types: { a: 'f16', b: 'f16', compute: 'f32', d: 'f16' },
      tensorCores: true, tile: '128x8x64', stages: '12', cluster: '4x1', splitK: true, layout: 'NNT', unparsed: ['v', 'bz'],
    }],
    ['nvjet with the cuBLASLt GELU_BIAS epilogue (torch._addmm_activation)', 'nvjet_sm90_tst_96x64_64x8_1x2_h_bz_gelubias_NNN', {
      kind: 'gemm', library: 'cuBLAS', generator: 'nvjet', arch: 'sm90', dtype: 'bf16', types: BF16_TST, tensorCores: true,
      tile: '96x64x64', stages: '8', cluster: '1x2', epilogue: ['gelu', 'bias'], layout: 'NNN', unparsed: ['h', 'bz'],
    }],
    // fp8 letters from our wave-2 capture (kernel-names/h200-torch2.11-wave2.json): torch's mat1 e5m2 × mat2 e4m3
    // launched `qr…`; cuBLAS's A is torch's mat2 (the product is handed over transposed), so q = e4m3, r = e5m2.
    ['nvjet fp8, e4m3 × e5m2 in cuBLAS\'s operand order, f32 out (sss)', 'nvjet_sm90_qrsss_96x64_128x10_1x2_h_bz_algo2_TNN', {
      kind: 'gemm', library: 'cuBLAS', generator: 'nvjet', arch: 'sm90', dtype: 'fp8', types: { a: 'fp8 e4m3', b: 'fp8 e5m2', compute: 'f32', d: 'f32' },
      tensorCores: true, tile: '96x64x128', stages: '10', cluster: '1x2', layout: 'TNN', unparsed: ['h', 'bz', 'algo2'],
    }],
    ['nvjet with letters outside any code seen stays undecoded', 'nvjet_sm90_zzxyz_96x64_128x10_1x2_h_bz_TNN', {
      kind: 'gemm', library: 'cuBLAS', generator: 'nvjet', arch: 'sm90', tile: '96x64x128', stages: '10', cluster: '1x2', layout: 'TNN', unparsed: ['zzxyz', 'h', 'bz'],
    }],
    ['CUTLASS 3.x fp8 GEMM (library name with e4m3 operands)', 'cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_bf16_bf16_128x128x128_1x1x1_0_tnn_align16_warpspecialized_pingpong_fp8_fastaccum_epi_tma', {
      kind: 'gemm', library: 'CUTLASS', generator: 'cutlass 3.x', arch: 'sm90', tensorCores: true, dtype: 'fp8 e4m3',
      types: { a: 'fp8 e4m3', b: 'fp8 e4m3', accumulator: 'f32', c: 'bf16', d: 'bf16' }, tile: '128x128x128', cluster: '1x1x1',
      layout: 'tnn', alignment: 16, unparsed: ['warpspecialized_pingpong_fp8_fastaccum_epi_tma'],
    }],
    ['FlashAttention 2 upstream', 'void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, false, false, false, true, true, false>(Flash_fwd_params)', {
      kind: 'attention', library: 'FlashAttention', generator: 'flash-attention 2', direction: 'fwd', headDim: 128, tile: '128x64', warps: '4', dtype: 'bf16', tensorCores: true,
    }],
    ['PyTorch\'s vendored FlashAttention 2', 'void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)', {
      kind: 'attention', library: 'FlashAttention (PyTorch)', generator: 'flash-attention 2', direction: 'fwd', headDim: 64, tile: '128x128', warps: '4', dtype: 'bf16', tensorCores: true,
    }],
    ['FlashAttention 3', 'void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<128>, cute::C<128>, cute::C<128> >, 128, cutlass::bfloat16_t, float> > > >(flash::FlashAttnFwdSm90::Params)', {
      kind: 'attention', library: 'FlashAttention', generator: 'flash-attention 3', direction: 'fwd', arch: 'sm90', tensorCores: true,
    }],
    ['PyTorch memory-efficient attention forward', 'fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)', {
      kind: 'attention', library: 'ATen', generator: 'mem-efficient attention (fmha cutlass)', direction: 'fwd', dtype: 'bf16', arch: 'sm80', tile: '64x64',
    }],
    ['PyTorch memory-efficient attention backward', 'fmha_cutlassB_f16_aligned_128x64_k128_dropout_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch::Sm80, cutlass::half_t, true, true, true, 128, 64, 128>::Params)', {
      kind: 'attention', library: 'ATen', generator: 'mem-efficient attention (fmha cutlass)', direction: 'bwd', dtype: 'f16', arch: 'sm80', tile: '128x64', headDim: 128,
    }],
    ['CUTLASS FMHA', 'void cutlass::device_kernel<cutlass::fmha::kernel::Sm100FmhaFwdKernelTmaWarpspecialized<cute::tuple<int, int, int>, cutlass::fmha::collective::Sm100FmhaFwdMainloopTmaWarpspecialized<cutlass::bfloat16_t, float> > >(cutlass::fmha::kernel::Sm100FmhaFwdKernelTmaWarpspecialized::Params)', {
      kind: 'attention', library: 'CUTLASS', generator: 'cutlass fmha', direction: 'fwd', arch: 'sm100',
    }],
    ['NCCL ≤2.18: algorithm ran; LL and Sum are the kernel\'s specialisation', 'ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)', {
      kind: 'communication', library: 'NCCL', dtype: 'f32',
      nccl: { collective: 'AllReduce', algorithm: 'RING', dtype: 'f32', kernelSpecialization: { protocol: 'LL', reduceOp: 'Sum' } },
    }],
    ['NCCL ≤2.18 non-reduction: int8_t is a placeholder type', 'ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)', {
      kind: 'communication', library: 'NCCL', nccl: { collective: 'Broadcast', algorithm: 'RING', kernelSpecialization: { protocol: 'LL', reduceOp: 'Sum', dtype: 'int8_t' } },
    }],
    ['NCCL ≥2.19 AllGather: RING_LL is the one kernel every AllGather runs through', 'ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)', {
      kind: 'communication', library: 'NCCL', nccl: { collective: 'AllGather', kernelSpecialization: { algorithm: 'RING', protocol: 'LL' } },
    }],
    ['NCCL ≥2.19 AllReduce: RING stands for any non-TREE algorithm', 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)', {
      kind: 'communication', library: 'NCCL', dtype: 'bf16',
      nccl: { collective: 'AllReduce', dtype: 'bf16', kernelSpecialization: { reduceOp: 'Sum', dtype: 'bf16', algorithm: 'RING', protocol: 'LL' } },
    }],
    ['NCCL ≥2.19 TREE kernel', 'ncclDevKernel_ReduceScatter_Sum_f32_TREE_LL', {
      kind: 'communication', library: 'NCCL', dtype: 'f32',
      nccl: { collective: 'ReduceScatter', algorithm: 'TREE', dtype: 'f32', kernelSpecialization: { reduceOp: 'Sum', dtype: 'f32', algorithm: 'TREE', protocol: 'LL' } },
    }],
    ['NCCL SendRecv', 'ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)', { kind: 'communication', library: 'NCCL', nccl: { collective: 'SendRecv' } }],
    ['RCCL\'s generic kernel (unroll suffix)', 'ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)', { kind: 'communication', library: 'RCCL', nccl: {} }],
    ['Tensile (rocBLAS/hipBLASLt)', 'Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x128x64_MI16x16x1_SN_GRVWA8_ISA942_WG32_8_1', {
      kind: 'gemm', library: 'rocBLAS/hipBLASLt', generator: 'Tensile', layout: 'tn', tile: '256x128x64', instructionShape: 'MI16x16x1',
      tensorCores: true, arch: 'gfx942', unparsed: ['BBS', 'BH', 'Bias', 'HA', 'S', 'SAV', 'UserArgs', 'SN', 'GRVWA8', 'WG32', '8', '1'],
    }],
    ['Composable Kernel', 'void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::tensor_layout::gemm::RowMajor>, true, 1>(ck::GridwiseGemm_xdl_cshuffle_v3::Argument)', {
      kind: 'gemm', library: 'Composable Kernel',
    }],
    ['MIOpen implicit-GEMM convolution', 'igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt256x64x8_wt64x16x4_ws1x1_wr2x2_ta1x1x8x1_1x8x1x32_tb1x1x2x1_1x8x1x32_me', {
      kind: 'conv', library: 'MIOpen', generator: 'igemm', convPass: 'fprop', layout: 'nhwc', dtype: 'bf16', tile: '256x64x8',
      unparsed: ['gtcx3', 'bx0', 'ex1', 'wt64x16x4', 'ws1x1', 'wr2x2', 'ta1x1x8x1', '1x8x1x32', 'tb1x1x2x1', '1x8x1x32', 'me'],
    }],
    ['Inductor reduction whose ops include a prims op', 'triton_red_fused__softmax_exp_prepare_softmax_online_sub_0', {
      kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor',
      inductor: { kind: 'reduction', prefix: 'red', ops: ['_softmax', 'exp', 'prepare_softmax_online', 'sub'], index: 0 },
    }],
    ['Inductor persistent reduction (backward of layer norm + gelu)', 'triton_per_fused_gelu_gelu_backward_native_layer_norm_native_layer_norm_backward_1', {
      kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor',
      inductor: { kind: 'persistent_reduction', prefix: 'per', ops: ['gelu', 'gelu_backward', 'native_layer_norm', 'native_layer_norm_backward'], index: 1 },
    }],
    // A template's kind is its template's computation (Inductor kernel/mm.py: the mm template), relu its epilogue.
    ['Inductor template (max-autotune mm with a fused relu)', 'triton_tem_fused_mm_relu_0', {
      kind: 'gemm', library: 'Inductor (Triton)', generator: 'inductor', inductor: { kind: 'template', prefix: 'tem', ops: ['mm', 'relu'], index: 0 },
    }],
    // Flex attention's templates (torch/_inductor/kernel/flex/) named after the higher-order op.
    ['Inductor flex attention forward template', 'triton_tem_fused_flex_attention_0', {
      kind: 'attention', direction: 'fwd', library: 'Inductor (Triton)', generator: 'inductor', inductor: { kind: 'template', prefix: 'tem', ops: ['flex_attention'], index: 0 },
    }],
    ['Inductor flex attention backward template', 'triton_tem_fused_flex_attention_backward_1', {
      kind: 'attention', direction: 'bwd', library: 'Inductor (Triton)', generator: 'inductor', inductor: { kind: 'template', prefix: 'tem', ops: ['flex_attention_backward'], index: 1 },
    }],
    ['Inductor foreach (compiled optimizer step): no ops in the name', 'triton_for_fused_1', {
      kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor', inductor: { kind: 'foreach', prefix: 'for', ops: [], index: 1 },
    }],
    ['Inductor op part that splits two ways: candidates, no guess', 'triton_poi_fused_clamp_max_0', {
      kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor',
      inductor: { kind: 'pointwise', prefix: 'poi', opCandidates: [['clamp', 'max'], ['clamp_max']], index: 0 }, unparsed: ['clamp_max'],
    }],
    ['Inductor op part with an operator not in torch 2.11', 'triton_poi_fused_mylib_frobnicate_0', {
      kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor', inductor: { kind: 'pointwise', prefix: 'poi', index: 0 }, unparsed: ['mylib_frobnicate'],
    }],
    ['Inductor without descriptive names', 'triton_poi__3', {
      kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor', inductor: { kind: 'pointwise', prefix: 'poi', index: 3 },
    }],
    ['Triton ≤3.0 argument-specialisation suffix on Inductor\'s non-unique name', 'triton__0d1d23d', {
      kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor', triton: { suffix: '0d1d23d', args: 4, divisibleBy16: [0, 1, 3], equalTo1: [] },
    }],
    ['ATen fused AdamW (ADAM_MODE 1)', 'void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, double, bool, float*, float*)', {
      kind: 'elementwise', library: 'ATen', aten: { template: 'multi_tensor_apply_kernel', functor: 'FusedAdamMathFunctor', op: 'AdamW' }, dtype: 'f32',
    }],
    ['apex\'s multi_tensor_apply (no namespace: library unstated)', 'void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, float, adamMode_t, float, int, int>(int, int volatile*, TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, float, adamMode_t, float, int, int)', {
      kind: 'elementwise', aten: { template: 'multi_tensor_apply_kernel', functor: 'AdamFunctor' },
    }],
    ['ATen index kernel', 'void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&, bool)::{lambda(int)#1}>(long, at::native::gpu_index_kernel<at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&, bool)::{lambda(int)#1})', {
      kind: 'elementwise', library: 'ATen', aten: { template: 'index_elementwise_kernel', op: 'index_kernel_impl' },
    }],
    // Indexing.cu declares it in the file-scope anonymous namespace; the H100 captures moe_train and
    // moe_train_grouped ran it under aten::_index_put_impl_ (IndexBackward0). scalar_t = float.
    ['ATen index_put backward (outside namespace at)', 'void (anonymous namespace)::indexing_backward_kernel<float, 4>(long const*, long const*, float const*, float*, long, long, long, long, bool)', {
      kind: 'other', library: 'ATen', aten: { template: 'indexing_backward_kernel' }, dtype: 'f32',
    }],
    ['ATen index_put backward, stride 1', 'void (anonymous namespace)::indexing_backward_kernel_stride_1<float>(long const*, long const*, float const*, float*, long, long, long, long, bool)', {
      kind: 'other', library: 'ATen', aten: { template: 'indexing_backward_kernel_stride_1' }, dtype: 'f32',
    }],
    // The quantized variant's scalar_t is the quantized weight's type, not the gradient's: no dtype.
    ['ATen quantized index_put backward', 'void (anonymous namespace)::indexing_backward_kernel_quantized<signed char, 4>(long const*, long const*, float const*, signed char*, long, long, long, long, float, int, long, long)', {
      kind: 'other', library: 'ATen', aten: { template: 'indexing_backward_kernel_quantized' },
    }],
    // A CUTLASS 3.x kernel named by its type (demangled): CollectiveMma<MainloopSm90…<Stages 4,
    // ClusterShape 2x1x1, …>, TileShape 128x256x64, ElementA bf16, StrideA, ElementB bf16, StrideB,
    // TiledMMA<MMA_Atom<SM90::GMMA::MMA_64x256x16_F32BF16BF16_SS<…>>, …>, …> (collective_mma_decl.hpp,
    // dispatch_policy.hpp, mma_sm90_gmma.hpp: F32 = the accumulator D).
    ['CUTLASS 3.x grouped GEMM by its type', 'void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<int, int, int> >, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecialized<4, cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative>, cute::tuple<cute::C<128>, cute::C<256>, cute::C<64> >, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, cute::C<0> >*, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, cute::C<0> >*, cute::TiledMMA<cute::MMA_Atom<cute::SM90::GMMA::MMA_64x256x16_F32BF16BF16_SS<(cute::SM90::GMMA::Major)0, (cute::SM90::GMMA::Major)0, (cute::SM90::GMMA::ScaleIn)1, (cute::SM90::GMMA::ScaleIn)1> >, cute::Layout<cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<1>, cute::C<0>, cute::C<0> > >, cute::tuple<cute::Underscore, cute::Underscore, cute::Underscore> >, cute::SM90_TMA_LOAD, void, void, cute::identity, cute::SM90_TMA_LOAD_MULTICAST, void, void, cute::identity>, void, void, void> >(cutlass::gemm::kernel::GemmUniversal<void>::Params)', {
      kind: 'gemm', library: 'CUTLASS', generator: 'cutlass 3.x', arch: 'sm90', stages: '4', cluster: '2x1x1', tile: '128x256x64',
      tensorCores: true, instructionShape: '64x256x16', types: { a: 'bf16', b: 'bf16', accumulator: 'f32' }, dtype: 'bf16',
    }],
    // CUTLASS 2.x's GemmUniversal takes an Mma, not a CollectiveMma: not read as 3.x.
    ['CUTLASS 2.x GemmUniversal by its type (not read)', 'void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::threadblock::MmaMultistage<int>, cutlass::epilogue::threadblock::Epilogue<int>, int> >(int)', {
      kind: 'unknown', unparsed: ['Kernel'],
    }],
    ['ATen persistent softmax (outside namespace at)', 'void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float, 10, false, false>(c10::BFloat16*, c10::BFloat16 const*, int, int, int, bool const*, int, bool)', {
      kind: 'softmax', library: 'ATen', aten: { template: 'softmax_warp_forward' }, dtype: 'bf16',
    }],
    ['cuBLASLt split-K reduction', 'void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, false, float, __nv_bfloat16, __nv_bfloat16, true, false, false, false>(cublasLt::cublasSplitKParams<float>, float const*, __nv_bfloat16 const*, float*, __nv_bfloat16*, float const*, float const*, __nv_bfloat16 const*, float const*, __nv_bfloat16*, void*, long, float*, int*, float*, float*, float const*, float const*, float const*, float const*, float const*)', {
      kind: 'reduction', library: 'cuBLASLt', splitK: true,
    }],
    ['cuBLAS GEMV (library from its parameter types)', 'void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>, float const*, float const*)', {
      kind: 'gemm', library: 'cuBLAS',
    }],
    ['cuDNN batch norm', 'void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<float>)', { kind: 'normalization', library: 'cuDNN', direction: 'fwd' }],
    // apache/systemds#856's nvprof (an older cuDNN): no cuDNN type in the signature, so nothing says who ships it.
    ['an RNN cell kernel without cuDNN\'s types', 'void LSTM_elementWise_bp1<double, double, double>(int, int, double*, double*, double*, double*, double*, double*, double*, double*, double*, int, int)', {
      kind: 'unknown', unparsed: ['LSTM_elementWise_bp1'],
    }],
    ['cuDNN precompiled convolution', 'cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1', {
      kind: 'conv', library: 'cuDNN', arch: 'volta', generator: 'winograd', tile: '128x128', layout: 'nt', unparsed: ['ldg1', 'ldg4', 'relu', 'tile148t', 'v1'],
    }],
    ['ROCm memcpy', 'Memcpy HtoD (Host -> Device)', { kind: 'memcpy', library: 'CUDA', memcpy: { direction: 'HtoD', src: 'Host', dst: 'Device' } }],
    ['peer-to-peer memcpy', 'Memcpy PtoP (Device -> Device)', { kind: 'memcpy', library: 'CUDA', memcpy: { direction: 'PtoP', src: 'Device', dst: 'Device' } }],
    ['a bare name says nothing', 'my_custom_kernel', { kind: 'unknown', unparsed: ['my_custom_kernel'] }],
    ['an empty name', '', { kind: 'unknown', unparsed: [''] }],
  ];
  for (const [label, name, expected] of cases) {
    it(label, () => expect(decodeKernelName(name)).toEqual(expected));
  }
});

// ---------------------------------------------------------------------------------------------

describe('our H200 capture of more workloads (test/fixtures/kernel-names)', () => {
  const capture = JSON.parse(fs.readFileSync(path.join(NAMES, 'h200-torch2.11-capture.json'), 'utf8')) as { names: Record<string, string[]> };
  const all = [...new Set(Object.values(capture.names).flat())].sort();

  it('decodes every captured name to a family (none stays unknown)', () => {
    expect(all.length).toBeGreaterThan(150);
    expect(all.filter((n) => decodeKernelName(n).kind === 'unknown')).toEqual([]);
  });

  it('names the cuBLASLt epilogue that torch._addmm_activation asked for', () => {
    const gemms = capture.names.gemms as string[];
    expect(gemms.filter((n) => n.includes('relubias')).map((n) => decodeKernelName(n).epilogue)).toEqual([['relu', 'bias']]);
    expect(gemms.filter((n) => n.includes('gelubias')).map((n) => decodeKernelName(n).epilogue)).toEqual([['gelu', 'bias']]);
  });

  it('tells fp16 (hsh) from bf16 (tst) cuBLAS GEMMs, as the workload asked for', () => {
    const nvjet = (capture.names.gemms as string[]).filter((n) => n.startsWith('nvjet_'));
    const byType = new Set(nvjet.map((n) => `${n.split('_')[2]}:${decodeKernelName(n).dtype}`));
    expect([...byType].sort()).toEqual(['hsh:f16', 'tst:bf16']);
  });

  it('marks the FP32 SIMT xmma GEMMs as not tensor-core work and the TF32 one as tensor-core work', () => {
    const xmma = [...capture.names.gemms as string[], ...capture.names.gemms_tf32 as string[]].filter((n) => n.includes('_xmma_'));
    for (const n of xmma) expect(decodeKernelName(n).tensorCores, n).toBe(!n.includes('ffma'));
  });

  it('decodes each SDPA backend to attention, in both directions', () => {
    for (const backend of ['sdpa_flash', 'sdpa_efficient', 'sdpa_cudnn']) {
      const attn = (capture.names[backend] as string[]).map(decodeKernelName).filter((d) => d.kind === 'attention');
      expect(new Set(attn.map((d) => d.direction)), backend).toEqual(new Set(['fwd', 'bwd']));
    }
  });

  it('finds fused AdamW among the optimizer kernels', () => {
    const ops = (capture.names.optimizers as string[]).map((n) => decodeKernelName(n).aten?.op);
    expect(ops).toContain('AdamW');
  });
});

// ---------------------------------------------------------------------------------------------

describe('every name of every H200 capture has a library and a role', () => {
  // The project's captures (test/fixtures/traces/*), the shared ones (../shared/traces/h200-torch2.11:
  // vit_train, vit_train_compile …, read in place) and the name-only captures of test/fixtures/kernel-names.
  const SHARED_H200 = path.join(TEST_DIR, '../../shared/traces/h200-torch2.11');
  const captureNames = (file: string) => Object.values((JSON.parse(fs.readFileSync(path.join(NAMES, file), 'utf8')) as { names: Record<string, string[]> }).names).flat();
  const all = new Set<string>([
    ...gpuNames(path.join(TEST_DIR, 'fixtures/traces')),
    ...(fs.existsSync(SHARED_H200) ? gpuNames(SHARED_H200) : []),
    ...captureNames('h200-torch2.11-capture.json'),
    ...captureNames('h200-torch2.11-wave2.json'),
  ]);
  // Names whose text says neither library nor role, each with the reason.
  const UNDECODABLE: Record<string, string> = {
    geglu_fwd: 'a hand-written Triton kernel (geglu_mlp_hand): a bare name with no namespace, prefix or parameter types',
  };
  // Names whose role is decoded but whose library the text does not state.
  const NO_LIBRARY: Array<[RegExp, string]> = [
    [/^void sgemm_largek_lds64</, 'a BLAS-named GEMM (sgemm) with no namespace and only builtin parameter types: which library ships it is not written'],
    [/^void precomputed_convolve_sgemm</, 'a convolution named with no namespace and a bare `kernel_conv_params` parameter: the H100 captures resnet18_train and resnet18_train_cl ran it under aten::cudnn_convolution, but the name does not say cuDNN'],
  ];

  it('covers the captures it should', () => {
    expect(all.size).toBeGreaterThan(400);
  });

  it('no name decodes to an unknown library or role unless listed with a reason', () => {
    const bad: string[] = [];
    for (const n of all) {
      const d = decodeKernelName(n);
      if (UNDECODABLE[n] !== undefined) {
        expect(d.kind, n).toBe('unknown');
        continue;
      }
      if (d.kind === 'unknown') bad.push(`role: ${n.slice(0, 160)}`);
      if (!d.library && !NO_LIBRARY.some(([re]) => re.test(n))) bad.push(`library: ${n.slice(0, 160)}`);
    }
    expect(bad).toEqual([]);
  });

  it('every convolution kernel names its pass, every attention kernel its direction', () => {
    const missing: string[] = [];
    for (const n of all) {
      const d = decodeKernelName(n);
      if (d.kind === 'conv' && !d.convPass && d.inductor === undefined) missing.push(`pass: ${n.slice(0, 160)}`);
      if (d.kind === 'attention' && !d.direction) missing.push(`direction: ${n.slice(0, 160)}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('the wave-2 capture: what the launching op says about the name', () => {
  // Each workload asked for one thing (capture_wave2.py); the op that launched the kernel and its input
  // types are in the capture beside the name.
  const w2 = JSON.parse(fs.readFileSync(path.join(NAMES, 'h200-torch2.11-wave2.json'), 'utf8')) as {
    names: Record<string, string[]>;
    launchedBy: Record<string, Record<string, string | null>>;
    inputTypes: Record<string, Record<string, string[] | null>>;
  };
  const byOp = (workload: string, op: string) => Object.entries(w2.launchedBy[workload] ?? {}).filter(([, o]) => o === op).map(([n]) => n);

  it('cuDNN SDPA launches the same `_f16_` kernels for fp16 and bf16 inputs, so the token is the 16-bit family', () => {
    const f16 = byOp('sdpa_cudnn_f16', 'aten::_cudnn_attention_forward').filter((n) => n.startsWith('cudnn_generated'));
    const bf16 = byOp('sdpa_cudnn_bf16', 'aten::_cudnn_attention_forward').filter((n) => n.startsWith('cudnn_generated'));
    expect(f16).toHaveLength(1);
    expect(bf16).toEqual(f16);
    expect(w2.inputTypes.sdpa_cudnn_f16?.[f16[0] as string]?.[0]).toBe('c10::Half');
    expect(w2.inputTypes.sdpa_cudnn_bf16?.[f16[0] as string]?.[0]).toBe('c10::BFloat16');
    expect(decodeKernelName(f16[0] as string).dtype).toBe('f16/bf16');
  });

  it('decodes each fp8 GEMM to the input formats the op was called with (cuBLAS A = torch mat2)', () => {
    const fmt: Record<string, string> = { 'c10::Float8_e4m3fn': 'fp8 e4m3', 'c10::Float8_e5m2': 'fp8 e5m2' };
    let n = 0;
    for (const workload of Object.keys(w2.names).filter((w) => w.startsWith('fp8'))) {
      for (const name of byOp(workload, 'aten::_scaled_mm').filter((x) => x.startsWith('nvjet'))) {
        const [mat1, mat2] = w2.inputTypes[workload]?.[name] ?? [];
        const d = decodeKernelName(name);
        expect(d.types?.a, name).toBe(fmt[mat2 as string]);
        expect(d.types?.b, name).toBe(fmt[mat1 as string]);
        n++;
      }
    }
    expect(n).toBe(4);
  });

  it("reads xmma's type block as the launching convolution's input type", () => {
    const torchType: Record<string, string> = { 'c10::Half': 'f16', 'c10::BFloat16': 'bf16' };
    let n = 0;
    for (const [workload, owners] of Object.entries(w2.inputTypes)) {
      for (const [name, types] of Object.entries(owners)) {
        if (!name.includes('_xmma_') || !types) continue;
        const d = decodeKernelName(name);
        expect(d.types?.a, name).toBe(torchType[types[0] as string]);
        expect(d.types?.b, name).toBe(torchType[types[1] as string]);
        expect(d.types?.accumulator, `${workload} ${name}`).toBe('f32');
        n++;
      }
    }
    expect(n).toBeGreaterThan(5);
  });

  it('names a pass for every convolution kernel that aten::cudnn_convolution or convolution_backward launched', () => {
    const passes = new Set<string>();
    for (const workload of Object.keys(w2.names).filter((w) => w.startsWith('cnn'))) {
      for (const name of byOp(workload, 'aten::cudnn_convolution')) {
        const d = decodeKernelName(name);
        if (d.convPass) passes.add(d.convPass);
        if (d.kind === 'conv') expect(d.convPass, name).toBe('fprop');
        else expect(['copy', 'memset'], name).toContain(d.kind); // layout transforms around the NCHW convolution, workspace memsets
      }
      for (const name of byOp(workload, 'aten::convolution_backward')) {
        const d = decodeKernelName(name);
        if (d.convPass) passes.add(d.convPass);
        if (d.kind === 'conv') expect(['dgrad', 'wgrad'], name).toContain(d.convPass);
        else expect(['reduction', 'copy', 'other', 'memset'], name).toContain(d.kind);
      }
      for (const name of [...byOp(workload, 'aten::cudnn_batch_norm'), ...byOp(workload, 'aten::cudnn_batch_norm_backward')].filter((x) => !x.startsWith('Memset'))) {
        expect(decodeKernelName(name).kind, name).toBe('normalization');
        expect(decodeKernelName(name).direction, name).toBe(w2.launchedBy[workload]?.[name]?.endsWith('_backward') ? 'bwd' : 'fwd');
      }
    }
    expect([...passes].sort()).toEqual(['dgrad', 'fprop', 'wgrad']);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the H100 captures: what the launching op says about the name', () => {
  // The raw trace links each kernel to the op that launched it by External id; the op's recorded
  // input types are the oracle for the element type the name is decoded to.
  const H100 = path.join(TEST_DIR, 'fixtures/traces/h100-torch2.11');
  const torchType: Record<string, string> = { float: 'f32', 'c10::Half': 'f16', 'c10::BFloat16': 'bf16' };
  type Ev = { name: string; cat?: string; args?: Record<string, unknown> };
  const launches = (workload: string, match: (name: string) => boolean): Array<{ kernel: string; op: string; types: string[] }> => {
    const events = (JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(H100, `${workload}.pt.trace.json.gz`))).toString()) as { traceEvents: Ev[] }).traceEvents;
    const ops = new Map<unknown, Ev>();
    for (const e of events) if (e.cat === 'cpu_op' && e.args?.['External id'] !== undefined) ops.set(e.args['External id'], e);
    return events.filter((e) => e.cat === 'kernel' && match(e.name)).map((e) => {
      const op = ops.get(e.args?.['External id']);
      return { kernel: e.name, op: op?.name ?? '', types: (op?.args?.['Input type'] as string[] | undefined) ?? [] };
    });
  };

  it('decodes torch._grouped_mm\'s mangled CUTLASS 3.x kernels to a bf16 GEMM, as aten::_grouped_mm\'s inputs are', () => {
    const got = launches('moe_train_grouped', (n) => n.startsWith('_ZN7cutlass13device_kernel'));
    expect(new Set(got.map((g) => g.kernel)).size).toBe(3);
    for (const { kernel, op, types } of got) {
      expect(op, kernel.slice(0, 80)).toBe('aten::_grouped_mm');
      const d = decodeKernelName(kernel);
      expect([d.kind, d.library, d.generator, d.tensorCores]).toEqual(['gemm', 'CUTLASS', 'cutlass 3.x', true]);
      expect(d.types?.a).toBe(torchType[types[0] as string]);
      expect(d.types?.b).toBe(torchType[types[1] as string]);
    }
  });

  it('decodes ATen\'s indexing_backward kernels to the type aten::_index_put_impl_ was called with', () => {
    const got = [...launches('moe_train', (n) => n.includes('indexing_backward_kernel')), ...launches('moe_train_grouped', (n) => n.includes('indexing_backward_kernel'))];
    expect(new Set(got.map((g) => g.kernel.slice(0, g.kernel.indexOf('<')))).size).toBe(2);
    for (const { kernel, op, types } of got) {
      expect(op, kernel).toBe('aten::_index_put_impl_');
      const d = decodeKernelName(kernel);
      expect([d.kind, d.library]).toEqual(['other', 'ATen']);
      expect(d.dtype).toBe(torchType[types[0] as string]);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('demangleItanium', () => {
  // Hand-worked from the Itanium C++ ABI's mangling rules (itanium-cxx-abi.github.io/cxx-abi/abi.html).
  const cases: Array<[string, string | undefined]> = [
    ['_Z1fv', 'f()'],
    ['_Z1fi', 'f(int)'],
    ['_ZN1N1fEPKc', 'N::f(char const*)'],
    // a function template: its encoding starts with the return type; T_ is its first template argument
    ['_Z1fIiEvT_', 'void f<int>(int)'],
    // S_ = the first substitution candidate (N), S0_ = the second (N::A)
    ['_ZN1N1A1gENS_1BENS0_1CE', 'N::A::g(N::B, N::A::C)'],
    // literals: int, bool, unsigned, an enum value; `> >` as llvm-cxxfilt spells it
    ['_ZN7cutlass6KernelINS_1XILi256ELb1ELj4ELNS_2Op4KindE2EEEEEvv', 'void cutlass::Kernel<cutlass::X<256, true, 4u, (cutlass::Op::Kind)2> >()'],
    ['_ZNSt6vectorIiSaIiEE4sizeEv', 'std::vector<int, std::allocator<int> >::size()'],
    // an empty pack (J E) prints nothing and takes no comma, as an argument or through T_ as a parameter
    ['_Z1fIiJEfEvv', 'void f<int, float>()'],
    ['_Z1fIJEiEvT_i', 'void f<int>(int)'],
    ['_Z1fIiJifEEvv', 'void f<int, int, float>()'],
    // unsupported grammar: no partial answer
    ['_ZZ1fvE1x', undefined], // local name
    ['_Z1fIXplT_Li1EEEvv', undefined], // expression argument
    ['not mangled', undefined],
    ['_ZN1N', undefined], // truncated
  ];
  for (const [mangled, want] of cases) it(mangled, () => expect(demangleItanium(mangled)).toBe(want));

  // llvm-cxxfilt, where installed, is the independent oracle for the real names.
  const cxxfilt = (() => {
    try {
      execFileSync('llvm-cxxfilt', ['_Z1fv']);
      return true;
    } catch {
      return false;
    }
  })();
  it.skipIf(!cxxfilt)('demangles every mangled kernel name of our captures and HTA\'s as llvm-cxxfilt does', () => {
    const dirs = [path.join(TEST_DIR, 'fixtures/traces'), ...(HAS_HTA ? [HTA_DIR] : [])];
    const mangled = [...new Set(dirs.flatMap((d) => [...gpuNames(d)]))].filter((n) => n.startsWith('_Z'));
    expect(mangled.length).toBeGreaterThanOrEqual(1);
    const ref = execFileSync('llvm-cxxfilt', { input: mangled.join('\n') }).toString().split('\n');
    mangled.forEach((n, i) => expect(demangleItanium(n), n.slice(0, 80)).toBe(ref[i]));
  });
});

// ---------------------------------------------------------------------------------------------

describe('robustness', () => {
  const check = (names: Iterable<string>): number => {
    let n = 0;
    for (const name of names) {
      const d = decodeKernelName(name);
      expect(typeof d.kind).toBe('string');
      expect(JSON.parse(JSON.stringify(d))).toEqual(d);
      const short = shortKernelName(name);
      expect(typeof short).toBe('string');
      if (name.trim() !== '') expect(short.length).toBeGreaterThan(0);
      n++;
    }
    return n;
  };

  it('never throws on any name of our fixtures or capture', () => {
    const capture = JSON.parse(fs.readFileSync(path.join(NAMES, 'h200-torch2.11-capture.json'), 'utf8')) as { names: Record<string, string[]> };
    expect(check([...gpuNames(TRACES), ...Object.values(capture.names).flat()])).toBeGreaterThan(250);
  });

  it('never throws on truncated or mangled variants', () => {
    const variants: string[] = [];
    for (const name of gpuNames(TRACES)) {
      for (const cut of [1, 7, 20, 55, 120]) variants.push(name.slice(0, cut), name.slice(cut));
      variants.push(name.replace(/</g, '('), name.replace(/>/g, ''), `${name})`, `void ${name}<`);
    }
    variants.push('(', ')', '<', '>', '::', 'void ', '_Z', '_ZN', 'triton_poi_fused__0', 'triton__', 'nvjet_', 'cutlass_', 'Memcpy', 'Memset (');
    expect(check(variants)).toBe(variants.length);
  });

  describe.skipIf(!HAS_HTA)('on HTA\'s test traces (another project\'s data, read in place)', () => {
    it('never throws on any of their kernel/memcpy/memset names', () => {
      expect(check(gpuNames(HTA_DIR))).toBeGreaterThan(300);
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('the embedded Inductor op-name list', () => {
  it('is exactly test/fixtures/kernel-names/inductor-op-names.txt', async () => {
    const listed = fs.readFileSync(path.join(NAMES, 'inductor-op-names.txt'), 'utf8').split('\n').filter(Boolean);
    const src = fs.readFileSync(path.join(TEST_DIR, '../src/analyses/kernels/names/inductor-op-names.ts'), 'utf8');
    const block = /const INDUCTOR_OP_NAMES[^`]*`([^`]*)`/.exec(src)?.[1] ?? '';
    expect(block.split(/\s+/).filter(Boolean)).toEqual(listed);
  });
});

// ---------------------------------------------------------------------------------------------

describe('shortKernelName', () => {
  const cases: Array<[string, string]> = [
    ['nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT', 'nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT'],
    ['Memcpy HtoD (Pinned -> Device)', 'Memcpy HtoD (Pinned -> Device)'],
    ['void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>(cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1::Params)', 'cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1'],
    ['void at::native::vectorized_elementwise_kernel<8, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)', 'vectorized_elementwise_kernel<GeluCUDAKernelImpl>'],
    ['void at::native::vectorized_elementwise_kernel<8, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul>)', 'vectorized_elementwise_kernel<BinaryFunctor, MulFunctor>'],
    ['void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)', 'reduce_kernel<sum_functor>'],
    ['void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)', 'cunn_SoftMaxForward<LogSoftMaxForwardEpilogue>'],
    ['void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>(int, float, float const*, float const*, float const*, float*, float*, float*)', 'vectorized_layer_norm_kernel'],
    ['void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)', 'flash_fwd_kernel'],
    ['ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)', 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL'],
    ['std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, false, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)', 'gemvx::kernel'],
    ['at::cuda::(anonymous namespace)::spin_kernel(long)', 'spin_kernel'],
    ['triton_poi_fused__unsafe_view_gelu_mul_0', 'triton_poi_fused__unsafe_view_gelu_mul_0'],
    ['geglu_fwd', 'geglu_fwd'],
  ];
  for (const [name, short] of cases) {
    it(short, () => expect(shortKernelName(name)).toBe(short));
  }
});
