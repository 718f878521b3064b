/**
 * The alignment rule: a GEMM dimension that is not a multiple of 8 elements (bf16/fp16) or 16
 * (fp8) — 16 bytes, the width of the vector loads and of the TMA/tensor-core paths — keeps cuBLAS
 * from the aligned kernels: it falls back to one whose name says `align1`/`align2` (CUTLASS,
 * `cutlass_75_tensorop_bf16_s1688gemm_…_align1`: element-wise loads, an sm75 kernel on any
 * newer GPU). NVIDIA's "Matrix Multiplication Background" user guide (Tensor Core requirements)
 * and the CUTLASS naming (`alignN` = N-element access) are the sources.
 *
 * A finding names the GEMM, the dims not aligned and their padded sizes, the kernel's alignment,
 * its % of peak and share of the trace's kernel time, and what the trace shows against it: the
 * largest aligned GEMM of the same dtype in the same trace, and — given another trace (the
 * compiled one) — the row there of the same or the padded shape.
 * Fires only when the kernel name states an alignment below the need: a kernel that does not
 * say (nvjet) is not accused.
 */
import type { GemmReport, GemmRow } from './gemm.js';

export interface AlignmentDim {
  readonly dim: 'M' | 'N' | 'K';
  readonly size: number;
  readonly padded: number;
}

export interface AlignmentCompare {
  readonly where: 'same trace' | 'other trace';
  readonly op: string;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly kernel?: string;
  readonly meanUs?: number;
  readonly percentOfPeak?: number;
}

export interface AlignmentFinding {
  readonly op: string;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly dtype: string;
  /** Elements the dtype needs per 16-byte access. */
  readonly multiple: number;
  readonly dims: readonly AlignmentDim[];
  readonly kernel: string;
  /** The alignment (elements) the kernel name states. */
  readonly kernelAlignment: number;
  readonly calls: number;
  readonly totalUs: number;
  readonly meanUs?: number;
  readonly percentOfPeak?: number;
  /** totalUs ÷ all kernel time of the trace (0–1); undefined when that is zero. */
  readonly shareOfKernelTime?: number;
  readonly compare: readonly AlignmentCompare[];
}

/** Elements per 16-byte access for the dtypes the rule covers. */
function requiredMultiple(dtype: string): number | undefined {
  if (dtype === 'bf16' || dtype === 'fp16') return 8;
  if (dtype.startsWith('fp8')) return 16;
  return undefined;
}

/** `alignN` in the kernel name (CUTLASS `_align1`, xmma `aligna4`): the smallest stated. */
export function kernelAlignmentOf(name: string, decoded?: number): number | undefined {
  const found = [...name.matchAll(/align[abc]?(\d+)/g)].map((x) => Number(x[1]));
  if (decoded !== undefined) found.push(decoded);
  return found.length ? Math.min(...found) : undefined;
}

const roundUp = (x: number, k: number) => Math.ceil(x / k) * k;

function toCompare(where: AlignmentCompare['where'], r: GemmRow): AlignmentCompare {
  return {
    where,
    op: r.op,
    m: r.shape!.m,
    n: r.shape!.n,
    k: r.shape!.k,
    ...(r.kernel ? { kernel: r.kernel.name } : {}),
    ...(r.meanUs !== undefined ? { meanUs: r.meanUs } : {}),
    ...(r.percentOfPeak !== undefined ? { percentOfPeak: r.percentOfPeak } : {}),
  };
}

function isAligned(r: GemmRow, multiple: number): boolean {
  const s = r.shape!;
  return s.m % multiple === 0 && s.n % multiple === 0 && s.k % multiple === 0;
}

/**
 * The GEMMs of `report` the rule names. `kernelUs`: all kernel time of the trace, for the share;
 * `other`: another trace's GEMM table (the compiled run) to compare the same shapes against.
 */
export function findAlignmentIssues(report: GemmReport, kernelUs: number, other?: GemmReport): AlignmentFinding[] {
  const out: AlignmentFinding[] = [];
  for (const r of report.rows) {
    const s = r.shape;
    if (!s || !r.kernel) continue;
    const multiple = requiredMultiple(s.dtype);
    if (!multiple) continue;
    const dims: AlignmentDim[] = [];
    for (const [dim, size] of [['M', s.m], ['N', s.n], ['K', s.k]] as const) if (size % multiple !== 0) dims.push({ dim, size, padded: roundUp(size, multiple) });
    if (!dims.length) continue;
    const align = kernelAlignmentOf(r.kernel.name, r.kernel.decoded.alignment);
    if (align === undefined || align >= multiple) continue;
    const compare: AlignmentCompare[] = [];
    // The largest aligned GEMM of this dtype in the same trace.
    let best: GemmRow | undefined;
    for (const x of report.rows) {
      if (!x.shape || x.shape.dtype !== s.dtype || x.percentOfPeak === undefined || !isAligned(x, multiple)) continue;
      if (!best || x.shape.flops > best.shape!.flops) best = x;
    }
    if (best) compare.push(toCompare('same trace', best));
    if (other) {
      const same = (x: GemmRow) => {
        const t = x.shape!;
        const mm = (a: number, b: number) => a === b || a === roundUp(b, multiple);
        return t.dtype === s.dtype && t.batch === s.batch && mm(t.m, s.m) && mm(t.n, s.n) && mm(t.k, s.k);
      };
      for (const x of other.rows) if (x.shape && same(x)) compare.push(toCompare('other trace', x));
    }
    out.push({
      op: r.op,
      m: s.m,
      n: s.n,
      k: s.k,
      dtype: s.dtype,
      multiple,
      dims,
      kernel: r.kernel.name,
      kernelAlignment: align,
      calls: r.calls,
      totalUs: r.totalUs,
      ...(r.meanUs !== undefined ? { meanUs: r.meanUs } : {}),
      ...(r.percentOfPeak !== undefined ? { percentOfPeak: r.percentOfPeak } : {}),
      ...(kernelUs > 0 ? { shareOfKernelTime: r.totalUs / kernelUs } : {}),
      compare,
    });
  }
  return out;
}
