import { z } from 'zod';
import { obj } from './kit.js';

export const dim = obj({
  dim: z.string().describe("which dim: 'M', 'N' or 'K'"),
  size: z.number().describe('its size, elements'),
  padded: z.number().describe('its size rounded up to the next multiple of `multiple`, elements'),
});

/**
 * One diagnostic, whoever found it (the trace reader, an analysis, the ET reader, reading the
 * ranks together): core/diagnostics.ts's Diagnostic as a DiagnosticSink lists it, its repeats
 * folded into a count. Every document declares its diagnostics with this shape; what found them
 * is said where the list stands.
 */
export const diagnostic = obj({
  code: z.string().describe('stable identifier of the diagnostic (upper snake case), for scripts to match on'),
  severity: z.string(),
  message: z.string(),
  count: z.number().describe('how many times it was found (events, records, nodes or activities, by context), count'),
  byteOffset: z.int().optional().describe("where the first occurrence is, byte offset into the (decompressed) input's JSON text; absent when the reader does not know or it has no place in the file"),
});

/** The trace reader's diagnostics, as most documents carry them under `diagnostics`. */
export const readerDiagnostics = z.array(diagnostic).describe('what the trace reader repaired or found odd in the trace, one entry per kind (empty when nothing)');

export const compareItem = obj({
  where: z.string().describe("'same trace' or 'other trace' (the --vs trace)"),
  op: z.string().describe('the GEMM op of the compared row'),
  m: z.number().describe('its M, elements'),
  n: z.number().describe('its N, elements'),
  k: z.number().describe('its K, elements'),
  kernel: z.string().nullable().describe('its GEMM kernel name; null when it ran none'),
  meanUs: z.number().nullable().describe('its kernel time per call, µs; null when unknown'),
  percentOfPeak: z.number().nullable().describe('its achieved TFLOP/s as a percentage (0–100) of the dense peak; null when unknown'),
});

export const alignmentItem = obj({
  op: z.string().describe('the innermost GEMM op of the finding (aten::mm, aten::addmm, …)'),
  m: z.number().describe('GEMM M (rows of the output), elements'),
  n: z.number().describe('GEMM N (columns of the output), elements'),
  k: z.number().describe('GEMM K (reduction dimension), elements'),
  dtype: z.string().describe("the GEMM's input dtype, normalised (bf16, fp16, fp8 e4m3, …)"),
  multiple: z.number().describe('elements per 16-byte access for the dtype (8 for bf16/fp16, 16 for fp8): every dim should be a multiple of it'),
  dims: z.array(dim).describe('the dims (M, N, K) that are not a multiple of `multiple`'),
  kernel: z.string().describe("the GEMM kernel's full name"),
  kernelAlignment: z.number().describe('the alignment the kernel name states (the smallest alignN), elements'),
  calls: z.number().describe('calls of the GEMM row (op, shape, kernels), count'),
  totalUs: z.number().describe("the row's kernel time summed over calls, µs"),
  meanUs: z.number().nullable().describe('kernel time per call (over the calls that launched a kernel), µs; null when none did'),
  percentOfPeak: z.number().nullable().describe("achieved TFLOP/s as a percentage (0–100) of the device's dense peak for the math done; null when unknown"),
  shareOfKernelTime: z.number().nullable().describe('totalUs as a share (0–1) of all kernel time in the trace; null when the trace has no kernel time'),
  compare: z.array(compareItem).describe("what the trace(s) show against it: the largest aligned GEMM of the same dtype in this trace ('same trace') and, with --vs, the rows of the other trace of the same or the padded shape ('other trace')"),
});

/**
 * A row of calls' kernel time per call, over the calls that ran a kernel (`kernelCalls` counts
 * them): gemm's rows and roofline's, whose GEMM rows are gemm's (analyses/gemm/roofline.ts).
 */
export const kernelTimePerCall = {
  meanUs: z.number().nullable().describe('kernel time per call over kernelCalls, µs; null when no call ran a kernel'),
  minUs: z.number().nullable().describe("the shortest call's kernel time, µs; null when no call ran a kernel"),
  maxUs: z.number().nullable().describe("the longest call's kernel time, µs; null when no call ran a kernel"),
};

/**
 * Where a row of calls sits on the roofline, from its flops and bytes per call, its kernel time
 * per call and the device's peaks: gemm's rows and roofline's, both placed by
 * analyses/gemm/roofline-point.ts's placeOnRoofline.
 */
export const rooflinePlacement = {
  tflops: z.number().nullable().describe('achieved TFLOP/s: flops ÷ meanUs; null when either is unknown'),
  peakTflops: z.number().nullable().describe("the device's dense peak for peakDtype, TFLOP/s (int8: TOPS); null when unknown"),
  percentOfPeak: z.number().nullable().describe('tflops as a percentage (0–100, can exceed 100 when the peak used is too low) of peakTflops; null when either is unknown'),
  ridgePoint: z.number().nullable().describe('the intensity where the roofline bends, FLOP per byte: peak FLOP/s ÷ memory bandwidth; null when either is unknown'),
  roof: z.string().nullable().describe("'memory' when arithmeticIntensity is below ridgePoint, else 'compute': the roof the op sits under; null when either is unknown"),
  bound: z.string().nullable(),
  attainableTflops: z.number().nullable().describe('what the roofline allows at this intensity, TFLOP/s: min(peak, intensity × bandwidth); null when unknown'),
  percentOfRoofline: z.number().nullable().describe('tflops as a percentage (0–100) of attainableTflops; null when either is unknown'),
};

/**
 * An op's Input Dims as the trace records them (record_shapes): a list per input — its dims, []
 * for a non-tensor, a list of lists for a TensorList.
 */
export const recordedInputDims = z.array(z.array(z.union([z.array(z.number()), z.number()])));
export type RecordedInputDims = z.infer<typeof recordedInputDims>;

/** What links two sides of a comparison (analyses/helpers/link-evidence.ts's LinkProof): its evidence and strength, the strength's meaning said where it is used. */
export function linkProof(strength: string, description = 'what links the two sides, as analyses/helpers/link-evidence.ts defines it: its evidence and strength') {
  return obj({
    evidence: z
      .array(z.string())
      .describe(
        "what supports the link, from 'tensor-identity' (torch's execution trace: the same tensor ids), 'shape-and-order' (shapes recorded on both sides that agree, in an order that allows it), 'launch-geometry' (the same grid, block, shared memory and registers per thread, or a copy's bytes: all a CUDA-graph replay records), 'physics-checked' (the kernels' time covers the work's least bytes at the device's HBM bandwidth and its FLOPs at its dense peak), 'name-and-order' (the same kernel name at the same place of both sequences, where neither side recorded shapes or a launch: always likely); never empty",
      ),
    strength: z.string().describe(strength),
  }).describe(description);
}

/** Whose call a host synchronization was (launches' syncs, steps' hostSyncs: host/sync-costs.ts). */
export const syncCaller = obj({
  name: z.string().describe('the caller: a part of torch that makes syncs of its own (torch.amp.GradScaler, torch.optim), a package (transformers), or a module file of the program (train.py)'),
  evidence: z.string().describe("python-frames: the frame is recorded; op-sequence: told by the ops around the sync (GradScaler's .item() after aten::_amp_foreach_non_finite_check_and_unscale_)"),
  strength: z.string().describe('fact (a recorded frame) or likely (told by the ops)'),
  frame: z.string().optional().describe('the python frame that names the caller (torch/amp/grad_scaler.py(455): _maybe_opt_step); absent when the ops told it'),
}).describe('whose call it was, when the python frames or the ops around it say (host/sync-costs.ts)');

/** Each execution trace given with --et (fusion, explain, diff: cli/execution-trace.ts), and how it was joined. */
export const executionTraces = z.array(obj({
  file: z.string().describe('the execution trace file as given'),
  trace: z.string().describe('the trace it was joined to (by Record function id)'),
  nodes: z.number().describe('ET nodes read, count'),
  recordedOps: z.number().describe("the trace's ops and annotations with a nonzero Record function id, count"),
  matchedOps: z.number().describe('of those, the ones an ET node of the same rf_id and name matched, count (at least 90% or the ET is refused)'),
  truncated: z.boolean().describe('the ET file ends before its JSON closes (the nodes before the cut are read)'),
  // count optional: cli/execution-trace.ts hands the ET reader's list over as core's Diagnostic, whose count is.
  diagnostics: z.array(diagnostic.partial({ count: true })).describe('what the ET reader repaired or found odd (ET_TRUNCATED, ET_BAD_NODE), one entry per kind'),
})).describe('each execution trace given with --et: the file, the trace it was joined to and how well; absent without --et');

/** What fp32 and TF32 matrix math puts at stake against TF32 and bf16 (gemm and roofline's precision; report/precision-view.ts): `what` the rows are. */
export function precisionReading(what: string) {
  return obj({
    per: z.string().describe("what the figures are per: 'step' (profiler steps) or 'trace'"),
    fp32UsPerStep: z.number().describe("kernel time of the rows held against the fp32 peak (fp32 math on CUDA cores), per step, µs"),
    tf32UsPerStep: z.number().describe("kernel time of the rows held against the TF32 peak, per step, µs"),
    peaks: obj({
      fp32: z.number().nullable().describe("the fp32 dense peak, TFLOP/s; null where the table has none"),
      tf32: z.number().nullable().describe("the tf32 dense peak, TFLOP/s; null where the table has none"),
      bf16: z.number().describe("the bf16 dense peak, TFLOP/s"),
    }).describe("the device's dense peaks the ratios come from, TFLOP/s (fp32 and tf32 null where the table has none)"),
    tf32AtStakeUs: z.number().nullable().describe("per step, µs: the fp32 rows' time less their FLOPs at the TF32 peak or their bytes at the HBM bandwidth (the longer), an upper bound on what allowing TF32 saves; null without fp32 rows or a TF32 peak"),
    bf16AtStakeUs: z.number().describe("per step, µs: the rows' time less their FLOPs at the bf16 peak or their bytes halved at the HBM bandwidth (the longer), an upper bound on what bf16 saves"),
    rows: z.array(obj({
      kind: z.string().describe("the roofline row's kind"),
      op: z.string().describe("the op (or kernel, for rows without an op)"),
      shape: z.string().describe("the shape in words"),
      peakDtype: z.string().nullable().describe("'fp32' or 'tf32': the peak the roofline holds the row against"),
      percentOfPeak: z.number().nullable().describe("the row's % of that peak"),
      usPerStep: z.number().describe("the row's kernel time per step, µs"),
      tf32FloorUsPerStep: z.number().nullable().describe("the least time of the row's work in TF32 per step, µs; null for TF32 rows or without a TF32 peak"),
      bf16FloorUsPerStep: z.number().describe("the least time of the row's work in bf16 per step, µs (bytes halved)"),
    })).describe("the rows, most time first"),
  }).nullable().describe(`matrix math (${what}) in fp32 on CUDA cores or in TF32, held against the device's own TF32 and bf16 peaks (the peaks table), with what each precision puts at stake; null when none ran, or the device has no bf16 peak or bandwidth`);
}
