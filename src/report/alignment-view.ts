/** The alignment rule's findings (analyses/gemm/gemm-alignment.ts) as a sentence and as JSON with stable keys. */
import type { AlignmentFinding } from '../analyses/gemm/gemm-alignment.js';
import { formatInt, formatUs, roundUs } from './format.js';
import { inertText } from '../core/inert-text.js';

const round = (x: number | undefined, digits: number) => (x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits);

/** One sentence per alignment finding. */
export function alignmentSentence(f: AlignmentFinding): string {
  const dims = f.dims.map((d) => `${d.dim} = ${formatInt(d.size)} (padded: ${formatInt(d.padded)})`).join(', ');
  const share = f.shareOfKernelTime !== undefined ? `, ${(100 * f.shareOfKernelTime).toFixed(1)}% of the trace's kernel time` : '';
  const got = f.percentOfPeak !== undefined ? ` at ${f.percentOfPeak.toFixed(1)}% of peak` : '';
  const cmp = f.compare
    .map((c) => `${c.where === 'same trace' ? 'the largest aligned ' + inertText(f.dtype) + ' GEMM here' : `the other trace's ${inertText(c.op)}`}, ${c.m}×${c.n}×${c.k}${c.kernel ? ` on ${c.kernel.length > 60 ? inertText(c.kernel.slice(0, 57)) + '…' : inertText(c.kernel)}` : ''}, reaches ${c.percentOfPeak !== undefined ? `${c.percentOfPeak.toFixed(1)}% of peak` : 'an unknown share of peak'}`)
    .join('; ');
  return (
    `${inertText(f.op)} ${f.m}×${f.n}×${f.k} (${inertText(f.dtype)}): ${dims} is not a multiple of ${f.multiple}, and it runs on an align${f.kernelAlignment} kernel${got} ` +
    `(${f.calls} call${f.calls === 1 ? '' : 's'}, ${formatUs(f.totalUs)}${share}); kernels of ${f.multiple}-element (16-byte) alignment need every dim a multiple of ${f.multiple}${cmp ? `; ${cmp}` : ''}.`
  );
}

export function alignmentJson(f: AlignmentFinding) {
  return {
    op: f.op,
    m: f.m,
    n: f.n,
    k: f.k,
    dtype: f.dtype,
    multiple: f.multiple,
    dims: f.dims.map((d) => ({ dim: d.dim, size: d.size, padded: d.padded })),
    kernel: f.kernel,
    kernelAlignment: f.kernelAlignment,
    calls: f.calls,
    totalUs: roundUs(f.totalUs),
    meanUs: f.meanUs !== undefined ? roundUs(f.meanUs) : null,
    percentOfPeak: round(f.percentOfPeak, 2),
    shareOfKernelTime: round(f.shareOfKernelTime, 4),
    compare: f.compare.map((c) => ({ where: c.where, op: c.op, m: c.m, n: c.n, k: c.k, kernel: c.kernel ?? null, meanUs: c.meanUs !== undefined ? roundUs(c.meanUs) : null, percentOfPeak: round(c.percentOfPeak, 2) })),
  };
}

