/** PyTorch ATen's CUDA kernels: TensorIterator elementwise/reduce, foreach, cat, softmax, norms …, with the functor and element type they run. */

import { cxxType } from './element-types.js';
import { type Signature, ANON, splitTopLevel, identName, typeArgs } from './signature.js';
import type { KernelKind, DecodedKernelName } from './types.js';

// ---- ATen ---------------------------------------------------------------------------------------
// Kernels of PyTorch's ATen (namespaces at::native / at::cuda / at::), plus ATen kernels that live in
// an anonymous namespace outside at:: — softmax_warp_forward/backward
// (aten/src/ATen/native/cuda/PersistentSoftmax.cuh), elementwise_kernel_with_index
// (RangeFactories.cu) and the indexing_backward_kernel family (Indexing.cu, the file-scope
// `namespace {` before `namespace at::native`; launched by index_put_with_sort_kernel: in the H100
// captures moe_train and moe_train_grouped, torch 2.11, by aten::_index_put_impl_ under IndexBackward0,
// as ATen's other Indexing.cu kernels — indexSelect*, indexFunc* — role `other`). The identifying functor of the generic TensorIterator templates
// (aten/src/ATen/native/cuda/CUDALoops.cuh: vectorized_elementwise_kernel<vec_size, func_t, array_t>,
// unrolled_elementwise_kernel<func_t, …>, elementwise_kernel<nt, vt, func_t> wrapping
// gpu_kernel_impl[_nocast]<func_t>; Reduce.cuh reduce_kernel<nt, output_vec_size, R = ReduceOp<…, ops_t, …>>;
// ForeachFunctors.cuh / MultiTensorApply.cuh multi_tensor_apply_kernel<T, U (functor), ArgTypes… (op)>)
// is reported as functor/op, as written.
export const GENERIC_ATEN_TEMPLATES = new Set([
  'vectorized_elementwise_kernel', 'unrolled_elementwise_kernel', 'elementwise_kernel', 'reduce_kernel',
  'index_elementwise_kernel', 'multi_tensor_apply_kernel', '_scatter_gather_elementwise_kernel',
  'elementwise_kernel_with_index', 'distribution_elementwise_grid_stride_kernel',
]);
// Wrappers whose last template argument is the real operation (BinaryOps.cuh / Loops.cuh).
const WRAPPER_FUNCTORS = new Set(['BinaryFunctor', 'AUnaryFunctor', 'BUnaryFunctor', 'gpu_kernel_impl', 'gpu_kernel_impl_nocast', 'func_wrapper_t', 'gpu_index_kernel']);
const ATEN_OUTSIDE_AT = new Set([
  'softmax_warp_forward', 'softmax_warp_backward', 'elementwise_kernel_with_index',
  'indexing_backward_kernel', 'indexing_backward_kernel_stride_1', 'indexing_backward_kernel_small_stride',
  'indexing_backward_kernel_many_indices', 'indexing_backward_kernel_quantized',
]);

export function decodeAten(sig: Signature): DecodedKernelName | undefined {
  const ns = sig.namespaces.filter((n) => n !== ANON);
  const inAt = ns[0] === 'at' || ns[0] === 'at_cuda_detail';
  const apexLike = ns.length === 0 && sig.base === 'multi_tensor_apply_kernel';
  if (!inAt && !ATEN_OUTSIDE_AT.has(sig.base) && !apexLike) return undefined;
  const template = sig.base;
  const aten: NonNullable<DecodedKernelName['aten']> = { template };
  // apex's multi_tensor_apply_kernel shares ATen's name but lives in no namespace: library unstated.
  const d: DecodedKernelName = { kind: 'other', aten };
  if (!apexLike) d.library = 'ATen';
  const targs = sig.templateArgs ?? [];
  const fn = functorOf(template, targs);
  if (fn.functor) aten.functor = fn.functor;
  if (fn.op) aten.op = fn.op;
  d.kind = atenKind(template, aten);
  // Index/scatter kernels' lambdas take the element index, not an element: no type from them.
  const el = fn.expr && !/^(index_elementwise_kernel|_scatter_gather_elementwise_kernel|elementwise_kernel_with_index)$/.test(template)
    ? elementType(fn.expr)
    : atenDtype(template, targs);
  if (el) d.dtype = el;
  return d;
}

// Functors whose first template argument is the element type they run on: BinaryOps.cuh
// BinaryFunctor<arg1_t, arg2_t, return_t, func_t> and A/BUnaryFunctor, CUDAFunctor_add<T> and its
// OnSelf/OnOther variants, FillFunctor<T>, AbsFunctor<T>, Reduce.cuh ReduceOp<scalar_t, …>,
// ForeachFunctors.cuh <T, depth, …>, FusedAdamMathFunctor<scalar_type, …>, LpNormFunctor<T, …>,
// DistributionTemplates.h {normal,uniform}_and_transform<scalar_t, accscalar_t, …>.
const FIRST_ARG_IS_ELEMENT = /^(BinaryFunctor|AUnaryFunctor|BUnaryFunctor|CUDAFunctor(OnSelf|OnOther)?_add|FillFunctor|AbsFunctor|ReduceOp|\w+Op(Scalar|List|ScalarList|ScalarTensor|ListAlpha)?Functor|FusedAdamMathFunctor|FusedAdamWMathFunctor|LpNormFunctor|normal_and_transform|uniform_and_transform)$/;

/**
 * The element type an ATen functor expression runs on: the first template argument of the functors
 * above, else — for the lambdas of `*_kernel_cuda` functions — the parameter type of the innermost
 * lambda when all its parameters share one type (`…::{lambda(c10::BFloat16)#1}`, `{lambda(float, float)#1}`).
 */
function elementType(expr: string): string | undefined {
  if (FIRST_ARG_IS_ELEMENT.test(identName(expr))) {
    const first = typeArgs(expr)[0];
    return first !== undefined ? cxxType(first) : undefined;
  }
  const lam = expr.lastIndexOf('{lambda(');
  if (lam < 0) return undefined;
  const close = expr.indexOf(')', lam);
  const params = splitTopLevel(expr.slice(lam + '{lambda('.length, close)).map((p) => cxxType(p));
  const first = params[0];
  return first !== undefined && params.every((p) => p === first) ? first : undefined;
}

interface FunctorInfo {
  functor?: string;
  op?: string;
  /** The expression the element type is read from. */
  expr?: string;
}

function functorOf(template: string, targs: string[]): FunctorInfo {
  const pick = (expr: string | undefined): FunctorInfo => {
    if (!expr) return {};
    const name = identName(expr);
    if (WRAPPER_FUNCTORS.has(name)) {
      const inner = typeArgs(expr);
      const last = inner[inner.length - 1];
      if (name === 'gpu_kernel_impl' || name === 'gpu_kernel_impl_nocast' || name === 'func_wrapper_t' || name === 'gpu_index_kernel') return pick(last);
      return { functor: name, op: last ? identName(last) : undefined, expr };
    }
    return { op: name, expr };
  };
  switch (template) {
    case 'vectorized_elementwise_kernel':
    case 'elementwise_kernel':
    case 'index_elementwise_kernel':
    case '_scatter_gather_elementwise_kernel':
    case 'distribution_elementwise_grid_stride_kernel':
      return pick(targs.find((a, k) => k > 0 && !/^\(?-?\d/.test(a) && !/^(float|double|int|long|unsigned int|bool)$/.test(a)));
    case 'unrolled_elementwise_kernel':
      return pick(targs[0]);
    case 'elementwise_kernel_with_index':
      return pick(targs[1]);
    case 'reduce_kernel': {
      const r = targs.find((a) => /ReduceOp</.test(a));
      if (!r) return {};
      const reduceOp = r.slice(r.indexOf('ReduceOp<'));
      return { ...pick(typeArgs(reduceOp)[1]), expr: reduceOp };
    }
    case 'multi_tensor_apply_kernel': {
      const functor = targs[1] ? identName(targs[1]) : undefined;
      // at::native ADAM_MODE { ORIGINAL = 0, ADAMW = 1 } (aten/src/ATen/native/cuda/fused_adam_utils.cuh)
      const expr = targs[1]?.split(ANON).join('');
      const mode = /ADAM_MODE\)(\d)/.exec(targs[1] ?? '');
      if (mode) return { functor, op: mode[1] === '1' ? 'AdamW' : 'Adam', expr };
      const op = targs.slice(2).find((a) => /[A-Za-z_]/.test(a) && !/\*$/.test(a) && !/^(float|double|int|long|bool|c10::\w+|adamMode_t)$/.test(a));
      return { functor, op: op ? op.replace(/[<(].*$/, '').replace(/^at::native::/, '') : undefined, expr };
    }
    default: {
      // Named kernels: the epilogue/ops argument identifies the variant (cunn_SoftMaxForward<…, LogSoftMaxForwardEpilogue>).
      const epi = targs.find((a) => /Epilogue$/.test(identName(a)));
      return epi ? { op: identName(epi) } : {};
    }
  }
}

const COPY_OPS = /(^|_)copy_kernel|^direct_copy|CatArray|^index_copy|^Copy$/;

function atenKind(template: string, aten: NonNullable<DecodedKernelName['aten']>): KernelKind {
  const op = aten.op ?? '';
  if (template === 'reduce_kernel' || /^(lpnorm_cleanup|tensor_kernel_scan|reduce_|.*Reduce.*Kernel)/.test(template)) return 'reduction';
  if (template === 'multi_tensor_apply_kernel') return /LpNorm/.test(aten.functor ?? '') ? 'reduction' : 'elementwise';
  if (/^CatArrayBatchedCopy|^(transpose|permute|vectorized_gather)/.test(template) || COPY_OPS.test(op)) return 'copy';
  if (/softmax|SoftMax/.test(template)) return 'softmax';
  if (/layer_norm|LayerNorm|GammaBeta|RowwiseMoments|batch_norm|BatchNorm|GroupNorm|ComputeFusedParams|ComputeBackwardFusedParams|ComputeInternalGradients|rms_norm|RmsNorm/.test(template)) return 'normalization';
  if (GENERIC_ATEN_TEMPLATES.has(template)) {
    if (/GroupNorm/.test(op)) return 'normalization';
    return 'elementwise';
  }
  return 'other';
}

/** The element type the kernel was instantiated for, where the template's first type argument is it. */
function atenDtype(template: string, targs: string[]): string | undefined {
  // indexing_backward_kernel*<scalar_t, …>: scalar_t is grad_output's and grad_weight's type (Indexing.cu);
  // not the _quantized one, whose grad_output is float and scalar_t the quantized weight's type.
  if (/^(vectorized_layer_norm_kernel|layer_norm_grad_input_kernel|softmax_warp_(forward|backward)|cunn_SoftMax(Forward|Backward)|fused_dropout_kernel_vec|GammaBetaBackwardCUDAKernel|indexing_backward_kernel(_stride_1|_small_stride|_many_indices)?$)/.test(template)) {
    const t = targs.find((a) => cxxType(a));
    return t ? cxxType(t) : undefined;
  }
  return undefined;
}
