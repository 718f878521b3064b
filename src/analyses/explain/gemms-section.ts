/** `explain`, gemms (docs/readings.md S7): the GEMM table with FLOPs, % of peak and the tile, the alignment rule's findings. */
import { formatGemmShape } from '../gemm/gemm.js';
import { findAlignmentIssues } from '../gemm/gemm-alignment.js';
import type { TraceContext } from './context.js';
import { say, kernelLabel, LIST_MAX } from './sentence.js';
import type { ExplainSection, ExplainSentence, ExplainTable } from './types.js';

// S7: the GEMM table

/** How many GEMM shapes the table shows (most kernel time first). */
const GEMM_TABLE_MAX = 16;

/** An alignment finding gets a sentence from this share of the trace's kernel time. */
export const ALIGNMENT_MIN_SHARE = 0.01;

/** `other`: the trace of `--vs`, whose same or padded shapes the alignment sentences cite. */
export function gemmSection(c: TraceContext, other?: TraceContext): ExplainSection | undefined {
  const r = c.lazy.gemm();
  if (!r.rows.length) return undefined;
  const sentences: ExplainSentence[] = [];
  // The section reads the GPU's GEMMs: a GEMM op under which no kernel ran (on CPU tensors, or
  // with its kernels outside the capture) has no time, rate or bound to state, only a count.
  const gemms = r.rows.filter((x) => x.meanUs !== undefined);
  const noKernel = r.rows.filter((x) => x.meanUs === undefined);
  if (noKernel.length) {
    sentences.push(
      say('gemms.no-kernel', '{calls|GEMM op call} ({ops}) launched no kernel (on CPU tensors, or with the kernel outside the trace): not in the table, which reads the GPU\'s GEMMs.', {
        calls: noKernel.reduce((n, x) => n + x.calls, 0),
        ops: [...new Set(noKernel.map((x) => x.op))].join(', '),
      }),
    );
  }
  if (!gemms.length) return { id: 'gemms', title: 'The GEMMs: FLOPs, rate and % of peak', readings: ['S7'], sentences, tables: [], more: 'kinetoscope gemm TRACE' };
  const dev = r.device;
  if (dev?.peaks) {
    sentences.push(
      say('gemms.device', 'Peaks for {device}: {peakName}, from its datasheet unless `--peaks` says otherwise.', { device: dev.name ?? `device ${dev.id}`, peakName: dev.peaks.name }),
    );
  }
  const rows = gemms.slice(0, GEMM_TABLE_MAX).map((x) => ({
    op: x.op,
    shape: x.shape ? formatGemmShape(x.shape, false) : x.inputDims,
    mnk: x.shape ? `${x.shape.m}×${x.shape.n}×${x.shape.k}` : '',
    dtype: x.shape?.dtype ?? '',
    flops: x.shape?.flops ?? null,
    bytes: x.shape?.bytes ?? null,
    flopPerByte: x.arithmeticIntensity ?? null,
    callsPerStep: x.callsPerStep ?? x.calls,
    meanUs: x.meanUs ?? null,
    tflops: x.tflops ?? null,
    peakPct: x.percentOfPeak ?? null,
    bound: x.bound ?? '',
    tile: x.kernel?.decoded.tile ?? '',
    kernel: x.kernel ? kernelLabel(x.kernel.name) : '',
  }));
  if (gemms.length > GEMM_TABLE_MAX) {
    sentences.push(say('gemms.table-more', 'The table shows the {shown} GEMM shapes with the most kernel time of {shapes}.', { shown: GEMM_TABLE_MAX, shapes: gemms.length }));
  }
  for (const [i, x] of gemms.entries()) {
    if (i >= LIST_MAX) {
      sentences.push(say('gemms.more', 'And {more|more GEMM shape}.', { more: gemms.length - LIST_MAX }));
      break;
    }
    if (!x.shape || x.meanUs === undefined) continue;
    const row = rows[i]!; // i < LIST_MAX ≤ GEMM_TABLE_MAX
    const numbers = {
      ...row,
      m: x.shape.m,
      n: x.shape.n,
      k: x.shape.k,
      batch: x.shape.batch,
      calls: x.calls,
      ...(x.peakTflops !== undefined ? { peakTflops: x.peakTflops, peakDtype: x.peakDtype ?? '' } : {}),
      ...(x.ridgePoint !== undefined ? { ridgeFlopPerByte: x.ridgePoint } : {}),
      ...(x.percentOfRoofline !== undefined ? { rooflinePct: x.percentOfRoofline } : {}),
    };
    const batch = x.shape.batch > 1 ? '{batch}·' : '';
    const peak = x.percentOfPeak !== undefined ? ', {peakPct} of the {peakDtype} dense peak ({peakTflops} TFLOP/s)' : '';
    const bound = !x.bound
      ? ''
      : x.bound === 'latency'
        ? `; {flopPerByte} FLOP per byte against a ridge point of {ridgeFlopPerByte} puts it under the ${x.roof} roof, but it reaches {rooflinePct} of that roof: far below both roofs, latency/occupancy-bound`
        : `; {flopPerByte} FLOP per byte against a ridge point of {ridgeFlopPerByte}: ${x.bound}-bound`;
    sentences.push(
      say(
        'gemms.row',
        `\`{op}\` {shape} ({dtype}): M·N·K = {m}·{n}·{k}, so 2·${batch}M·N·K = {flops} FLOPs; {calls|call}, {meanUs} each, {tflops} TFLOP/s${peak}${bound}; kernel \`{kernel}\`${x.kernel?.decoded.tile ? ', tile {tile}' : ''}.`,
        numbers,
      ),
    );
  }
  // The tile picked per shape (the article's "why does down_proj pick another tile?").
  const byOp = new Map<string, typeof r.rows>();
  for (const x of gemms) if (x.shape && x.kernel?.decoded.tile) byOp.set(x.op, [...(byOp.get(x.op) ?? []), x]);
  for (const [op, xs] of byOp) {
    const tiles = new Set(xs.map((x) => x.kernel!.decoded.tile));
    if (tiles.size < 2) continue;
    const shapes = xs.slice(0, LIST_MAX).map((x) => ({ shape: formatGemmShape(x.shape!, false), tile: x.kernel!.decoded.tile!, kernel: kernelLabel(x.kernel!.name), grid: x.kernel!.grid ? x.kernel!.grid.join('×') : '' }));
    sentences.push(
      say(
        'gemms.tile-per-shape',
        `\`{op}\` runs a different kernel per shape: ${shapes.map((s, i) => `{shapes.${i}.shape} → tile {shapes.${i}.tile}${s.grid ? ` (grid {shapes.${i}.grid})` : ''}`).join('; ')}${xs.length > shapes.length ? '; and {moreShapes|more shape}' : ''}. The library picks the kernel for each M, N, K; the names say which.`,
        { op, shapes, moreShapes: xs.length - shapes.length },
      ),
    );
  }
  // The alignment rule (gemm-alignment.ts), for GEMMs with a share of the kernel time worth a sentence.
  for (const f of other ? findAlignmentIssues(r, r.traceKernelUs, other.lazy.gemm()) : r.alignment) {
    if ((f.shareOfKernelTime ?? 0) < ALIGNMENT_MIN_SHARE) continue;
    const best = f.compare.find((x) => x.where === 'same trace');
    const there = f.compare.find((x) => x.where === 'other trace' && x.percentOfPeak !== undefined);
    sentences.push(
      say(
        'gemms.alignment',
        `\`{op}\` {m}×{n}×{k} ({dtype}): {dimsText} — not a multiple of {multiple} — runs on an align{kernelAlignment} kernel (\`{kernel}\`)${f.percentOfPeak !== undefined ? ' at {peakPct} of peak' : ''}, {kernelTimeShare} of the trace's kernel time; kernels with {multiple}-element (16-byte) alignment need every dim a multiple of {multiple}${best ? '; the largest aligned {dtype} GEMM here reaches {comparePeakPct}' : ''}${there ? (there.m === f.m && there.n === f.n && there.k === f.k ? '; in `{otherTrace}` the same shape reaches {otherPeakPct}' : '; in `{otherTrace}` the product padded to {otherM}×{otherN}×{otherK} reaches {otherPeakPct}') : ''}.`,
        {
          op: f.op,
          m: f.m,
          n: f.n,
          k: f.k,
          dtype: f.dtype,
          dimsText: f.dims.map((d) => `${d.dim} = ${d.size} (padded: ${d.padded})`).join(', '),
          multiple: f.multiple,
          kernelAlignment: f.kernelAlignment,
          kernel: kernelLabel(f.kernel),
          ...(f.percentOfPeak !== undefined ? { peakPct: f.percentOfPeak } : {}),
          kernelTimeShare: f.shareOfKernelTime ?? 0,
          ...(best?.percentOfPeak !== undefined ? { comparePeakPct: best.percentOfPeak } : {}),
          ...(there && other ? { otherTrace: other.label, otherM: String(there.m), otherN: String(there.n), otherK: String(there.k), otherPeakPct: there.percentOfPeak! } : {}),
        },
      ),
    );
  }
  const table: ExplainTable = {
    id: 'gemms',
    columns: [
      { key: 'op', header: 'Op', cut: true },
      { key: 'shape', header: 'A × B' },
      { key: 'mnk', header: 'M×N×K' },
      { key: 'flops', header: 'FLOPs' },
      { key: 'callsPerStep', header: r.stepCount ? 'Calls/step' : 'Calls' },
      { key: 'meanUs', header: 'Mean' },
      { key: 'tflops', header: 'TFLOP/s' },
      { key: 'peakPct', header: '% peak' },
      { key: 'bound', header: 'Bound' },
      { key: 'tile', header: 'Tile' },
      { key: 'kernel', header: 'Kernel', cut: true },
    ],
    rows,
  };
  return { id: 'gemms', title: 'The GEMMs: FLOPs, rate and % of peak', readings: ['S7'], sentences, tables: [table], more: 'kinetoscope gemm TRACE' };
}
