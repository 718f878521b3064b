/** `kinetoscope roofline TRACE`: every compute op (GEMMs, convolutions per pass, fused attention) on the roofline. */
import { computeRoofline, COMPUTE_KINDS, type RooflineRow } from '../../analyses/gemm/roofline.js';
import { computeGemmTable } from '../../analyses/gemm/gemm.js';
import { KinetoscopeError } from '../../core/errors.js';
import { renderRoofline, rooflineJson } from '../../report/roofline-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';
import { compareText } from '../../core/compare-text.js';
import { readPeaks } from './gemm.js';
import { computePrecisionReading } from '../../analyses/gemm/precision.js';
import { precisionJson, precisionLine } from '../../report/precision-view.js';

const DEFINITIONS = `
One table for every compute op, one row per (kind, op, Input Dims, types, arguments, kernels).
  Kind        gemm: a matrix product, as \`kinetoscope gemm\` (ATen GEMM ops, _scaled_mm, and
              Triton template GEMMs triton_tem_fused_*mm*, shapes from the kernel op's Input
              Dims); conv-fprop / conv-dgrad / conv-wgrad: a convolution's forward, input-grad,
              weight-grad pass (conv-bwd: both grads when the kernel names do not say which ran
              which); attention-fwd / attention-bwd: a fused SDPA op (flash, efficient, cuDNN)
              or a compiled flex_attention's Triton template (triton_tem_*, known by the
              buffers its launch op records: Q, K, V, LSE, then the block mask's counts and
              indices, or the backward's DELTA, dO, dQ)
  FLOPs       per call. gemm: 2*Batch*M*N*K. conv: 2*N*K*Ho*Wo*(C/groups)*R*S per pass, from
              aten::convolution / cudnn_convolution / convolution_backward Input Dims and the
              stride, padding, dilation, groups and output_mask in Concrete Inputs. attention
              (FlashAttention's convention): forward 4*B*H*Sq*Sk*D (H = query heads, so GQA
              counts per query head), halved when causal; backward 2.5x the forward. With a
              mask tensor the fused kernels compute every score: the dense count — exact for
              an additive (float) mask; for a boolean one (made additive before the kernel)
              an upper bound on the useful work, printed with "≤" (flopsBound in --json), as
              for a masked backward whose forward is not in the trace. Flex attention: the
              dense count over every block, an upper bound ("≤"): the blocks its block mask
              skips are in the mask's values, not in the trace (Shape says the block grid,
              query blocks x key blocks). Variable-length
              batches and causal with Sq != Sk are declined with the reason
  Bytes       the least traffic: each operand read once, each result written once
  FLOP/B      FLOPs / Bytes
  Mean        the kernels of the row's work per call: for a conv, the kernels the conv op and
              the conv ops under it launched (layout changes and split-K reductions included;
              a bias add or bias-gradient sum is not); for attention, every kernel under the op
  TFLOP/s     FLOPs / Mean; % peak: of the device's dense peak for the input dtype (fp32 convs
              with cuDNN's allow_tf32 on: the TF32 peak)
  Bound       memory when FLOP/B is below the ridge point (peak / bandwidth), else compute;
              latency when TFLOP/s is under 10% of what that roof allows at this FLOP/B
              (min(peak, FLOP/B x bandwidth)) — far below both roofs — on a kernel with fewer
              thread blocks than SMs ("blocks per SM" < 1, or no grid recorded):
              latency/occupancy-bound. A row with layout kernels is judged on its compute
              kernels alone
  Stake/step  per profiler step (Stake: over the trace, when it has no steps): the time the
              row's calls spend above their roofline floor, max(FLOPs / peak, Bytes /
              bandwidth) per call: at most what a faster kernel for this work could save.
              Rows are ranked by it (--sort stake, the default)
Layout: a conv row whose kernels include cuDNN's NCHW<->NHWC transposes (nchwToNhwcKernel,
nhwcToNchwKernel: cuDNN's NHWC-only kernels given NCHW tensors) gets a line with the transposes'
time per call and the compute kernels' own time, TFLOP/s and % of peak (--json:
layoutKernelUs, computeOnly). A backward that computes both grads gives an NCHW->NHWC transpose
to the pass after it and an NHWC->NCHW transpose of a result to the pass before it.
Alignment: a bf16/fp16 GEMM dim not a multiple of 8 (fp8: 16) on an align1/align2 kernel is
named with the padded size and the largest aligned GEMM of the trace (--vs OTHER: the rows there
of the same or the padded shape, e.g. Inductor's padded vocabulary GEMM). Peaks as in \`kinetoscope gemm --help\` (--peaks FILE, --device NAME).
Inductor's estimates: where a row's kernels (or Inductor's launch op named after a kernel) carry
Inductor's kernel_flop / kernel_num_gb / roofline_bound, each call's longest such kernel gives
Inductor's FLOPs and bytes per call (--json: rows[].inductor, with the ratios to FLOPs and
Bytes); a note names every disagreement — FLOPs or bytes more than 1% apart, or another side of the ridge —
with both numbers and the ratio (Inductor / kinetoscope).`;

const SORTERS: Record<'stake' | 'time' | 'flops' | 'percent', (a: RooflineRow, b: RooflineRow) => number> = {
  stake: (a, b) => (b.atStakeUs ?? -1) - (a.atStakeUs ?? -1) || b.totalUs - a.totalUs,
  time: (a, b) => b.totalUs - a.totalUs,
  flops: (a, b) => (b.flops ?? 0) * b.calls - (a.flops ?? 0) * a.calls,
  percent: (a, b) => (a.percentOfPeak ?? Infinity) - (b.percentOfPeak ?? Infinity),
};

export const spec = defineCommand({
  name: 'roofline',
  summary: 'every compute op (GEMM, conv pass, attention) on the roofline',
  description: 'every compute op — GEMMs, convolutions per pass, fused attention — with FLOPs, bytes, TFLOP/s, % of the dense peak and roofline bound',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    peaks: { flags: '--peaks <file>', description: 'measured peaks as JSON (see kinetoscope gemm --help), over the datasheet figures', path: true },
    device: { flags: '--device <name>', description: 'use this entry of the peaks table instead of matching deviceProperties' },
    vs: { flags: '--vs <other>', description: 'another trace of the workload (the compiled run): the alignment findings say what it achieved on the same or the padded shape', path: true },
    kind: { flags: '--kind <kinds>', description: `only these kinds, comma-separated (${COMPUTE_KINDS.join(', ')}; conv and attention select their passes)` },
    sort: { flags: '--sort <key>', description: 'sort rows by time at stake per step, total kernel time, total FLOPs, or % of peak (lowest first)', choices: ['stake', 'time', 'flops', 'percent'], default: 'stake' },
    limit: { flags: '--limit <n>', description: 'show the first n rows', tool: false },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/roofline.js')).rooflineDocument,
  tool: { rows: ['/rows', '/precision/rows'] },
  library: [{ from: 'analyses/gemm/roofline', names: ['computeRoofline'] }],
  async run({ trace }, opts) {
    const peaks = opts.peaks ? readPeaks(opts.peaks) : undefined;
    let kinds: string[] | undefined;
    if (opts.kind !== undefined) {
      kinds = opts.kind.split(',').map((s) => s.trim()).filter(Boolean);
      for (const k of kinds) if (!COMPUTE_KINDS.some((x) => x === k || x.startsWith(`${k}-`))) throw new KinetoscopeError('BAD_ARGUMENT', `--kind ${k}: not one of ${COMPUTE_KINDS.join(', ')}, conv, attention`);
    }
    const model = await openTrace(trace);
    const gemmOpts = { ...(peaks ? { peaks } : {}), ...(opts.device ? { deviceName: opts.device } : {}) };
    const vs = opts.vs ? computeGemmTable(await openTrace(opts.vs), gemmOpts) : undefined;
    const report = computeRoofline(model, { ...gemmOpts, ...(vs ? { vs } : {}) });
    let rows = report.rows.filter((r) => !kinds || kinds.some((k) => r.kind === k || r.kind.startsWith(`${k}-`)));
    rows = rows.sort((a, b) => SORTERS[opts.sort](a, b) || compareText(a.op, b.op));
    if (opts.limit !== undefined) rows = rows.slice(0, Math.max(0, Number(opts.limit) || 0));
    const precision = computePrecisionReading(report);
    return {
      json: () => ({ ...rooflineJson(report, rows), precision: precisionJson(precision), diagnostics: diagnosticsForJson(model) }),
      text: (c) => {
        const line = precisionLine(precision, report.device?.peaks?.name);
        return `${renderRoofline(report, rows, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold })}${line ? `\n${line}` : ''}`;
      },
      diagnostics: [model],
    };
  },
});
