/**
 * View ops (docs/readings.md S3): ATen ops that only build new tensor metadata (sizes, strides,
 * offset) over the same storage and so launch no GPU work — `aten::t` → `transpose` → `as_strided`
 * in the seed's dispatch chain of `nn.Linear`.
 *
 * The list follows torch's view ops ("Tensor Views" in the PyTorch docs and
 * `native_functions.yaml` entries tagged as views / returning aliases); `reshape` and
 * `flatten` are views when the layout allows, which the trace confirms by the absence of
 * GPU work under them (`launchedNothing`).
 */
import type { TraceModel } from '../../model/trace-model.js';
import { perModel } from '../helpers/per-model.js';

const VIEW_OPS = new Set([
  'aten::t',
  'aten::transpose',
  'aten::permute',
  'aten::view',
  'aten::_unsafe_view',
  'aten::reshape',
  'aten::_reshape_alias',
  'aten::as_strided',
  'aten::expand',
  'aten::expand_as',
  'aten::squeeze',
  'aten::unsqueeze',
  'aten::narrow',
  'aten::select',
  'aten::slice',
  'aten::split',
  'aten::split_with_sizes',
  'aten::chunk',
  'aten::unbind',
  'aten::flatten',
  'aten::unflatten',
  'aten::view_as',
  'aten::alias',
  'aten::detach',
  'aten::detach_',
  'aten::numpy_T',
  'aten::mT',
  'aten::mH',
  'aten::adjoint',
  'aten::diagonal',
  'aten::movedim',
  'aten::swapaxes',
  'aten::unfold',
  'aten::lift_fresh',
  'aten::_unsafe_split',
  'aten::real',
  'aten::imag',
  'aten::view_as_real',
  'aten::view_as_complex',
  // PyTorch docs "Tensor Views" (docs.pytorch.org/docs/stable/tensor_view.html) also lists
  // hsplit, vsplit, tensor_split and swapdims (alias of transpose).
  'aten::hsplit',
  'aten::vsplit',
  'aten::dsplit',
  'aten::tensor_split',
  'aten::swapdims',
  // The `unsafe_` split variants return views without view tracking (native_functions.yaml).
  'aten::unsafe_split',
  'aten::unsafe_split_with_sizes',
  'aten::unsafe_chunk',
  // In-place view ops (tagged `inplace_view` in native_functions.yaml): they rewrite the
  // tensor's own sizes/strides, launching nothing.
  'aten::squeeze_',
  'aten::unsqueeze_',
  'aten::transpose_',
  'aten::t_',
  'aten::as_strided_',
  'aten::swapdims_',
  'aten::swapaxes_',
]);

/** True when the op name is one of torch's view (metadata-only) ops. */
export function isViewOpName(name: string): boolean {
  return VIEW_OPS.has(name);
}

/**
 * For every host event, whether its subtree launched any GPU work (kernels, copies,
 * memsets it or its descendants own or launched). Index by host index.
 */
export function computeLaunchedGpuWork(m: TraceModel): Uint8Array {
  const { host, gpu } = m;
  const launched = new Uint8Array(host.length);
  const mark = (i: number) => {
    for (let p = i; p >= 0 && !launched[p]; p = host.parent[p]!) launched[p] = 1;
  };
  for (let g = 0; g < gpu.length; g++) {
    if (gpu.owner[g]! >= 0) mark(gpu.owner[g]!);
    if (gpu.launcher[g]! >= 0) mark(gpu.launcher[g]!);
  }
  return launched;
}

/** computeLaunchedGpuWork, made once per model (per-model.ts): `explain` reads it for its ops and its dispatch tree. Shared, so read-only. */
export const launchedGpuWorkOf = perModel(computeLaunchedGpuWork);
