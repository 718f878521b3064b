/**
 * Action `pad-gemm`: GEMMs whose M, N or K is not a multiple of the 16-byte access their dtype
 * needs run on align1/align2 kernels (gemm/gemm-alignment.ts). One action per size to pad (a
 * vocabulary is N in the forward, K and M in the backward: one padding fixes all three).
 *
 * At stake, an upper bound per step: those kernels' time above what their FLOPs take at the
 * device's dense peak (time × (1 − % of peak)) — padding cannot make them faster than the peak;
 * their whole time where the % of peak is not known.
 */
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { perStepUs, withStepShare } from './step-share.js';
import type { Action } from './types.js';

export function padGemmActions(c: TraceContext): Action[] {
  const bySize = new Map<string, { sizes: string; dims: Set<string>; multiple: number; share: number; calls: number; peaks: number[]; aboveUs: number }>();
  for (const f of c.lazy.gemm().alignment) {
    const sizes = [...new Set(f.dims.map((d) => `${d.size} → ${d.padded}`))].join(', ');
    const e = bySize.get(sizes) ?? { sizes, dims: new Set<string>(), multiple: f.multiple, share: 0, calls: 0, peaks: [], aboveUs: 0 };
    for (const d of f.dims) e.dims.add(d.dim);
    e.share += f.shareOfKernelTime ?? 0;
    e.calls += f.calls;
    if (f.percentOfPeak !== undefined) e.peaks.push(f.percentOfPeak);
    e.aboveUs += f.percentOfPeak !== undefined ? f.totalUs * Math.max(0, 1 - f.percentOfPeak / 100) : f.totalUs;
    bySize.set(sizes, e);
  }
  return [...bySize.values()].map((e) => {
    const lo = Math.min(...e.peaks);
    const hi = Math.max(...e.peaks);
    const peak = !e.peaks.length ? '' : lo === hi ? ', at {minPeakPct} of peak' : ', at {minPeakPct} to {maxPeakPct} of peak';
    const atStakeUs = perStepUs(c, e.aboveUs);
    return withStepShare(c, {
      id: 'pad-gemm',
      sentence: say(
        'action.pad-gemm',
        `Pad {sizes} (a multiple of {multiple}): as {dims} of {calls|GEMM call} it puts {kernelTimeShare} of the kernel time on align1/align2 kernels${peak}; padding the tensor (a vocabulary or hidden size rounded up, the extra rows or columns ignored) lets the library pick kernels that assume 16-byte alignment. The bound is their time above the dense peak.`,
        {
          sizes: e.sizes,
          multiple: e.multiple,
          dims: [...e.dims].sort().join('/'),
          calls: e.calls,
          kernelTimeShare: e.share,
          ...(e.peaks.length ? { minPeakPct: lo, maxPeakPct: hi } : {}),
          atStakeUs,
        },
      ),
      atStakeUs,
      bound: 'upper-bound', saves: 'gpu-time',
      toolchain: 'the model code',
    });
  });
}
