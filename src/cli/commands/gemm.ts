/** `kinetoscope gemm TRACE`: every matrix product, its shape, work, time and place on the roofline (docs/readings.md S7). */
import { parsePeaksJson, type UserPeaks } from '../../analyses/gemm/device-peaks.js';
import { computeGemmTable, type GemmRow } from '../../analyses/gemm/gemm.js';
import { readInputText } from '../input-files.js';
import { KinetoscopeError } from '../../core/errors.js';
import { gemmJson, peaksTableJson, renderGemm, renderPeaksTable } from '../../report/gemm-view.js';
import { defineCommand } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';
import { compareText } from '../../core/compare-text.js';
import { computeRoofline } from '../../analyses/gemm/roofline.js';
import { computePrecisionReading, precisionOfKinds } from '../../analyses/gemm/precision.js';
import { precisionJson, precisionLine } from '../../report/precision-view.js';
import { findMoeExpertLoops } from '../../analyses/gemm/moe-experts.js';
import { moeJson, moeLines } from '../../report/moe-view.js';

const DEFINITIONS = `
One row per GEMM op, Input Dims, Input types and kernel. A call is one launch of a matrix
product, described by the innermost GEMM op (aten::linear -> aten::matmul -> aten::mm counts once,
as aten::mm); compiled graphs' extern_kernels.mm/addmm/bmm are the same cpu_ops under
"## Call CompiledFxGraph ##". Triton template GEMMs (max-autotune's triton_tem_fused_*mm*) are
calls of the kernel's own cpu_op: its Input Dims are the kernel's arguments, the output last
(M = its leading dims folded, N = its last), A and B the first pair whose sizes agree on one K;
two readings, or no op (a CUDA-graph replay), leave the row without a shape.
Convolutions and attention: kinetoscope roofline.
  M, N, K, Batch  from Input Dims in the op's operand order: mm(A[M,K], B[K,N]),
                  addmm(bias, A, B), bmm/baddbmm([B,M,K], [B,K,N]), linear(input[...,K],
                  weight[N,K], bias) with the input's leading dims folded into M, matmul
                  with torch's broadcasting
  FLOPs           2*Batch*M*N*K (the bias add is not counted)
  Bytes           each tensor operand read once (A, B, bias, scales) + the output written
                  once, at the element sizes of Input type: the least traffic possible
  FLOP/B          arithmetic intensity = FLOPs / Bytes
  Mean            the GPU kernels the op owns (itself or through ops inside it), per call;
                  memsets/copies under it (cuBLAS workspace clears) are not counted
  TFLOP/s         FLOPs / Mean
  % peak          TFLOP/s / the device's dense peak for the math done (fp32 on a kernel
                  that names TF32 or runs on tensor cores is held against the TF32 peak)
  Bound           memory when FLOP/B is below the ridge point (peak FLOP/s / bandwidth),
                  else compute; latency when TFLOP/s is under 10% of what that roof allows
                  at this FLOP/B (min(peak, FLOP/B × bandwidth)) — far below both roofs — on
                  a kernel with fewer thread blocks than SMs (Kineto's "blocks per SM" < 1,
                  or no grid recorded): latency/occupancy-bound, too little parallel work
  Tile            the CTA tile the kernel name states (decodeKernelName), e.g. 256x128x64
Peaks: dense (no 2:4 sparsity) datasheet figures per device, matched from deviceProperties
(name, memory, SM count; a partition such as an MI250X GCD gets its share). --list-peaks shows
the table with its sources. --peaks FILE takes measured peaks instead, as JSON:
  { "name": "H200 measured", "bf16TFlops": 720, "fp16TFlops": 720, "tf32TFlops": 370,
    "fp32TFlops": 60, "fp64TFlops": 55, "fp8TFlops": 1400, "int8Tops": 1400,
    "memoryBandwidthGBs": 4100 }
(any subset; keys not given keep the datasheet's values; "denseTflops": {"bf16": 720} also works).
Alignment: a bf16/fp16 GEMM dim not a multiple of 8 (fp8: 16) that runs on a kernel whose name
states align1/align2 (too small for 16-byte loads) is named after the table with the padded size,
its share of the trace's kernel time and the largest aligned GEMM of the same dtype.
MoE expert loop (a mixture of experts run expert by expert, as Mixtral's reference code does):
after a router's aten::topk over [T tokens, E experts] (k from Concrete Inputs) and its projection
(the GEMM just before, M = T, N = E, K = the hidden size D), each expert's down projection
([n, F]·[F, D]) gives n, its tokens; the line is printed only when they add up to T·k. Tokens are
listed in the loop's order (which expert is which is not in the trace); max/mean is the largest
expert's tokens over T·k/E; the experts' GEMMs: their kernel time (gate, up, down). A grouped GEMM
(_grouped_mm) keeps the group sizes in its offsets tensor's values, which the trace does not hold.`;

const SORTERS: Record<'time' | 'flops' | 'calls' | 'percent', (a: GemmRow, b: GemmRow) => number> = {
  time: (a, b) => b.totalUs - a.totalUs,
  flops: (a, b) => (b.shape?.flops ?? 0) * b.calls - (a.shape?.flops ?? 0) * a.calls,
  calls: (a, b) => b.calls - a.calls,
  percent: (a, b) => (a.percentOfPeak ?? Infinity) - (b.percentOfPeak ?? Infinity),
};

export function readPeaks(path: string): UserPeaks {
  let text: string;
  try {
    text = readInputText(path);
  } catch (e) {
    if (e instanceof KinetoscopeError) throw new KinetoscopeError(e.code, `--peaks file: ${e.message}`);
    throw e;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new KinetoscopeError('BAD_ARGUMENT', `--peaks file ${path} is not JSON: ${(e as Error).message}`);
  }
  const { peaks, problems } = parsePeaksJson(value, path);
  if (!peaks) throw new KinetoscopeError('BAD_ARGUMENT', `--peaks file ${path}: ${problems.join('; ')}`);
  return peaks;
}

export const spec = defineCommand({
  name: 'gemm',
  summary: 'every matrix product: shape, FLOPs, TFLOP/s, % of peak, bound',
  description: 'every matrix product: M, N, K, FLOPs, bytes, kernel time, TFLOP/s, % of the device peak, roofline bound, kernel tile',
  arguments: { trace: { description: 'trace file (.json or .json.gz), or - for standard input', optional: true, path: true } },
  options: {
    peaks: { flags: '--peaks <file>', description: 'measured peaks as JSON (see below), over the datasheet figures', path: true },
    device: { flags: '--device <name>', description: 'use this entry of the peaks table (e.g. "H100 SXM", nvidia-a100-sxm4-80gb) instead of matching deviceProperties' },
    listPeaks: { flags: '--list-peaks', description: 'print the device-peaks table with its sources and exit' },
    sort: { flags: '--sort <key>', description: 'sort rows by total kernel time, total FLOPs, calls, or % of peak (lowest first)', choices: ['time', 'flops', 'calls', 'percent'], default: 'time' },
    limit: { flags: '--limit <n>', description: 'show the first n rows', tool: false },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/gemm.js')).gemmDocument,
  tool: { rows: ['/gemms', '/precision/rows', '/moe'] },
  library: [
    { from: 'analyses/gemm/gemm', names: ['computeGemmTable', 'findGemmCalls'] },
    { from: 'analyses/gemm/gemm-alignment', names: ['findAlignmentIssues'] },
    { from: 'analyses/gemm/device-peaks', names: ['DEVICE_PEAKS', 'resolvePeaks'] },
  ],
  async run({ trace }, opts) {
    if (opts.listPeaks) {
      return { json: () => ({ devicePeaks: peaksTableJson() }), text: (c) => renderPeaksTable({ wide: opts.wide, width: outputWidth(), headerStyle: c.bold }) };
    }
    if (!trace) throw new KinetoscopeError('BAD_ARGUMENT', 'missing trace: kinetoscope gemm TRACE (or --list-peaks)');
    const peaks = opts.peaks ? readPeaks(opts.peaks) : undefined;
    const model = await openTrace(trace);
    const gemmOpts = { ...(peaks ? { peaks } : {}), ...(opts.device ? { deviceName: opts.device } : {}) };
    const report = computeGemmTable(model, gemmOpts);
    let rows = [...report.rows].sort((a, b) => SORTERS[opts.sort](a, b) || compareText(a.op, b.op));
    if (opts.limit !== undefined) rows = rows.slice(0, Math.max(0, Number(opts.limit) || 0));
    const precision = precisionOfKinds(computePrecisionReading(computeRoofline(model, gemmOpts, report)), ['gemm']);
    const moe = findMoeExpertLoops(model);
    return {
      json: () => ({ ...gemmJson(report, rows), precision: precisionJson(precision), moe: moeJson(moe), diagnostics: diagnosticsForJson(model) }),
      text: (c) => {
        const line = precisionLine(precision, report.device?.peaks?.name);
        const moeText = moeLines(moe);
        return `${renderGemm(report, rows, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold })}${line ? `\n${line}` : ''}${moeText ? `\n${moeText}` : ''}`;
      },
      diagnostics: [model],
    };
  },
});
