/** The JSON document of `kinetoscope gemm --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { alignmentItem, kernelTimePerCall, precisionReading, readerDiagnostics, recordedInputDims, rooflinePlacement } from './shared.js';

const source = obj({
  title: z.string().describe("the source's title"),
  url: z.string().describe('where the figures were read'),
  seenAt: z.array(z.string()).describe('the dates (YYYY-MM-DD) the source was read'),
});

const peaks = obj({
  id: z.string().describe("the peaks table entry's id (e.g. nvidia-h200-sxm)"),
  name: z.string().describe("the peaks entry's device name (or the name in the --peaks file)"),
  origin: z.string().describe("where the peaks come from: 'datasheet', 'file' (--peaks only) or datasheet overridden by --peaks"),
  denseTflops: z.record(z.string(), z.number().nullable().describe('the dense peak for this dtype, TFLOP/s (int8: TOPS); null when not confirmed')).describe('dense (no 2:4 sparsity) peak per math dtype: TFLOP/s (int8: TOPS); null for a dtype without a confirmed figure'),
  memoryBandwidthGBs: z.number().nullable().describe('memory bandwidth, GB/s (10^9 bytes per second); null when unknown'),
  partitionScale: z.number().nullable().describe("fraction (0–1) of the product this device is (a MIG slice, an MI250X GCD: SMs/CUs seen ÷ the product's), applied to the peaks; null when the whole product"),
  sources: z.array(source),
  notes: z.array(z.string()).describe('sentences that qualify the figures (derivations, sparsity halved, partition share)'),
}).nullable();

const device = obj({
  id: z.number().describe("the GPU's index (deviceProperties id; 0 assumed when the trace has none)"),
  name: z.string().nullable().describe("the GPU's name as deviceProperties gives it; null when the trace does not say"),
  numSms: z.number().nullable().describe('streaming multiprocessors, count (deviceProperties); null when not stated'),
  totalGlobalMem: z.number().nullable().describe('device memory, bytes (deviceProperties); null when not stated'),
  peaks: peaks.describe('the peak figures the percentages are taken against (datasheet table entry matched from deviceProperties, --device, or --peaks); null when the device is not in the table and no --peaks was given'),
}).nullable();

const gemmTable = obj({
  schemaVersion: z.number(),
  device: device.describe('the device that ran most of the GEMM kernel time (or the first), whose peaks the text cites; null when the trace has no device'),
  devices: z.array(device).describe('every device of the trace (from deviceProperties; device 0 assumed when there are none), with its peaks'),
  gemms: z.array(obj({
    op: z.string().describe("the innermost GEMM op of the calls (aten::mm, aten::addmm, aten::bmm, aten::_scaled_mm, …), or a Triton template kernel's cpu_op (triton_tem_fused_*mm*)"),
    via: z.array(z.string()).describe("the distinct chains of GEMM-family ops around the calls, outermost first, joined by ' → ' (aten::linear → aten::matmul); empty when called directly"),
    inputDims: recordedInputDims.nullable().describe("the op's Input Dims (record_shapes) as the trace writes them, one entry per argument; null when not recorded"),
    inputTypes: z.array(z.string()).nullable().describe("the op's Input type list (record_shapes), one entry per argument; null when not recorded"),
    shape: z.string().nullable().describe("the operands as the op received them, as text: '[A dims]×[B dims]', with ' + bias[dims]' when a bias is read; null when Input Dims do not give a matrix product"),
    m: z.number().nullable().describe('M: rows of the output (leading dims folded), elements; null when the shape is unknown'),
    n: z.number().nullable().describe('N: columns of the output, elements; null when the shape is unknown'),
    k: z.number().nullable().describe('K: the reduction dimension, elements; null when the shape is unknown'),
    batch: z.number().nullable().describe('batch count (bmm/baddbmm/matmul broadcast; 1 for a plain GEMM); null when the shape is unknown'),
    dtype: z.string().nullable().describe("A's element type, normalised (bf16, fp16, fp32, fp8 e4m3, …); null when the shape is unknown"),
    outDtype: z.string().nullable().describe("the output's element type, normalised; null when the shape is unknown"),
    peakDtype: z.string().nullable().describe('the math the peak is taken for: bf16, fp16, tf32 (fp32 operands on a kernel that names TF32 or tensor cores), fp32, fp8, int8, fp64; null when unknown'),
    bias: z.array(z.number()).nullable().describe("the bias operand's dims (addmm, linear with bias, baddbmm), elements; null when the GEMM reads no bias (or beta=0) or the shape is unknown"),
    activation: z.string().nullable().describe("the activation fused by aten::_addmm_activation ('relu' or 'gelu'); null otherwise"),
    flops: z.number().nullable().describe('floating-point operations of ONE call: 2·batch·M·N·K (the bias add not counted); null when the shape is unknown'),
    bytes: z.number().nullable().describe('least bytes ONE call moves: each operand (A, B, bias, scales) read once and the output written once, at the element sizes of Input type; null when an element size or the shape is unknown'),
    arithmeticIntensity: z.number().nullable().describe('flops ÷ bytes, FLOP per byte; null when either is unknown'),
    calls: z.number().describe('calls (innermost GEMM op events) in the row, count'),
    callsPerStep: z.number().nullable().describe('calls starting inside ProfilerStep#N spans ÷ the number of steps; null when the trace has no steps'),
    kernelCalls: z.number().describe('calls that launched at least one kernel (the mean, min and max are over these), count'),
    totalUs: z.number().describe('GPU kernel time of the calls summed (kernels the op owns, itself or through non-GEMM ops inside it; memsets and copies not counted), µs'),
    ...kernelTimePerCall,
    ...rooflinePlacement,
    kernel: z.string().nullable().describe('the GEMM kernel of a call, full name (the first kernel whose name decodes as a GEMM, else the first kernel); null when the calls launched none'),
    kernelShort: z.string().nullable().describe("that kernel's name cut to what tells kernels apart; null when none"),
    tile: z.string().nullable().describe("the CTA (thread-block) tile the kernel's name states, 'MxN' or 'MxNxK'; null when the name does not say or there is no kernel"),
    kernelDecoded: obj({
      library: z.string().nullable().describe('the library: cuBLAS, cuBLASLt, CUTLASS, cuDNN, Inductor (Triton), Triton, …'),
      generator: z.string().nullable().describe('the kernel family within the library: nvjet, xmma, cutlass 2.x, cutlass 3.x, inductor, …'),
      arch: z.string().nullable().describe('the architecture the name states (sm80, sm90, ampere, …)'),
      tile: z.string().nullable().describe("the CTA (thread-block) tile, 'MxN' or 'MxNxK'"),
      stages: z.string().nullable().describe('software pipeline stages, as written'),
      cluster: z.string().nullable().describe("thread-block cluster shape, as written ('1x2', '2x1x1')"),
      warps: z.string().nullable().describe("warps (or warp groups) per CTA, as written ('2x2x1')"),
      layout: z.string().nullable().describe("operand layout as written ('tn', 'nt', 'TNT', …)"),
      instructionShape: z.string().nullable().describe("tensor-core instruction shape as written ('s16816', 'wgmma', …)"),
      epilogue: z.array(z.string()).describe("epilogue operations the name states ('bias', 'relu', …); empty when none stated"),
      splitK: z.boolean().nullable().describe('true when the name states a split-K kernel; null when it does not say'),
    }).nullable().describe("what the GEMM kernel's name states; null when there is no kernel. Each field is null (epilogue: empty) when the name does not say"),
    grid: z.array(z.number()).nullable().describe("the kernel's launch grid (x, y, z) of its first launch, as Kineto recorded it; null when unknown"),
    block: z.array(z.number()).nullable().describe("the kernel's launch block (x, y, z) of its first launch, threads, as Kineto recorded it; null when unknown"),
    kernels: z.array(z.string()).describe('the names of all kernels of one call, in launch order (empty when it launched none)'),
    device: z.number().nullable().describe("index of the GPU the row's kernels ran on (device 0 / the first device when it launched none)"),
    compiled: z.boolean().describe('true when the op lies inside a compiled graph (## Call CompiledFxGraph, CompiledFunction, Torch-Compiled Region)'),
    template: z.boolean().describe("true for a Triton template GEMM (max-autotune's triton_tem_fused_*mm*), shape from its kernel op's arguments"),
  })).describe('one row per GEMM op, Input Dims, Input types and the kernels of a call, sorted by --sort (default: total kernel time), cut by --limit'),
  totals: obj({
    calls: z.number().describe('GEMM calls in the trace, count'),
    flops: z.number().describe('floating-point operations of all calls (flops per call × calls, rows with a shape), FLOP'),
    kernelUs: z.number().describe('GEMM kernel time of all calls summed, µs'),
    unshapedCalls: z.number().describe('GEMM calls whose shape the trace does not state (no record_shapes, layout not known): no FLOPs, count'),
  }).describe('sums over every GEMM row of the trace (not cut by --limit)'),
  stepCount: z.number().describe('profiler steps (ProfilerStep#N) in the trace, count (0 when none)'),
  notes: z.array(z.string()).describe('sentences that qualify the table (peaks not found, record_shapes off, rows over 100% of peak, no GEMMs)'),
  alignment: z.array(alignmentItem).describe('GEMMs on a kernel whose name states an alignment (alignN) too small for their dims: a bf16/fp16 dim not a multiple of 8 elements (fp8: 16) on an align1/align2 kernel; empty when none'),
  precision: precisionReading('GEMMs'),
  moe: z.array(obj({
    step: z.string().nullable().describe('the ProfilerStep the router call ran in; null without steps'),
    tokens: z.int().describe("T: the router's rows, tokens"),
    experts: z.int().describe("E: the router's columns, experts"),
    topK: z.int().describe("k: experts per token (topk's k in Concrete Inputs)"),
    hidden: z.int().describe("D: the hidden size, the router projection's K"),
    tokensPerExpert: z.array(z.int()).describe("each expert's tokens (its down projection's M) in the order the loop ran; experts the loop skipped (no token) are not listed"),
    gemmUsPerExpert: z.array(z.number()).describe("each expert's GEMM kernel time (gate, up, down), µs, same order"),
    imbalance: z.number().describe('max tokens per expert / mean (T·k/E); 1 is even'),
  })).describe("MoE expert loops read from the recorded shapes (gemm/moe-experts.ts): one per router call (aten::topk over [tokens, experts]) whose experts' down-projection GEMMs account for every routed token (their M add up to tokens·topK); empty when none"),
  diagnostics: readerDiagnostics,
});

/** `gemm --list-peaks --json`: the peaks table itself. */
const peaksTable = obj({
  schemaVersion: z.number(),
  devicePeaks: z
    .array(
      obj({
        id: z.string().describe("the peaks table entry's id (e.g. nvidia-h200-sxm)"),
        name: z.string().describe("the device's name in the table"),
        vendor: z.string().describe('NVIDIA or AMD'),
        denseTflops: z.record(z.string(), z.number().nullable()).describe('dense (no 2:4 sparsity) peak per math dtype: TFLOP/s (int8: TOPS); null for a dtype without a confirmed figure'),
        memoryBandwidthGBs: z.number().describe('memory bandwidth, GB/s (10^9 bytes per second)'),
        smCount: z.number().nullable().describe('streaming multiprocessors (compute units on AMD) of the whole product; null when not stated'),
        sources: z.array(source),
        notes: z.string().nullable().describe('what qualifies the figures (derivations, sparsity halved); null when nothing does'),
      }),
    )
    .describe('gemm --list-peaks: every entry of the datasheet peaks table, with its sources'),
});

export const gemmDocument = jsonDocument(
  'kinetoscope gemm --json',
  "kinetoscope gemm --json: every matrix product in the trace, one row per (innermost GEMM op, Input Dims, Input types, kernels of a call): its M, N, K, FLOPs, bytes, kernel time, achieved TFLOP/s, % of the device's dense peak and roofline bound, with the device peaks used and the alignment findings",
  z.union([gemmTable, peaksTable]),
);

export type GemmDocument = z.infer<typeof gemmDocument>;
