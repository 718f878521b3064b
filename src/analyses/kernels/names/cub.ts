/** CUB's kernels (ATen's namespaced copy at_cuda_detail::cub included). */

import type { Signature } from './signature.js';
import type { KernelKind, DecodedKernelName } from './types.js';

// ---- CUB (incl. ATen's namespaced copy at_cuda_detail::cub) -----------------------------------
export function decodeCub(sig: Signature): DecodedKernelName | undefined {
  const ns = sig.namespaces;
  if (!(ns[0] === 'cub' || (ns[0] === 'at_cuda_detail' && ns[1] === 'cub'))) return undefined;
  const b = sig.base;
  const kind: KernelKind = /Reduce/.test(b) ? 'reduction' : 'other';
  const d: DecodedKernelName = { kind, library: 'CUB' };
  if (ns[0] === 'at_cuda_detail') d.generator = 'cub (ATen)'; // ATen's namespaced copy of CUB
  if (kind === 'other') d.unparsed = [b];
  return d;
}
