/**
 * kinetoscope as a library: read a trace into the model, then run any analysis on it.
 *
 *   import { loadTrace, computeProfilerTable } from 'kinetoscope';
 *   const model = await loadTrace('trace.pt.trace.json.gz');
 *   const table = computeProfilerTable(model);
 *
 * Everything under `analyses` is a pure function of the model (no Node APIs), so it can run
 * in a worker or a browser on a model built there. A process that reads one trace and exits may
 * call `tuneCompilerForOneTrace()` first, as the CLI does (compiler-flags.ts: ~7% faster on a
 * 169 MB trace; it changes V8's compiler for the whole process).
 */
export { loadTrace } from './load-trace.js';
export type { LoadOptions } from './load-trace.js';
export { tuneCompilerForOneTrace } from './compiler-flags.js';
export { readTrace, readTraceEvents, createTraceTokenizer } from './ingest/index.js';
export type { RawEvent, ReadResult, ReadOptions, TraceInput, JsonObject, JsonValue } from './ingest/index.js';
export { createModelBuilder } from './model/build-model.js';
export { checkModelIntegrity } from './model/integrity.js';
export * from './model/trace-model.js';
export { DiagnosticSink } from './core/diagnostics.js';
export type { Diagnostic, Severity } from './core/diagnostics.js';
export { KinetoscopeError, isKinetoscopeError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';

export { computeProfilerTable } from './analyses/torch-table/profiler-table.js';
export type { ProfilerTable, ProfilerTableRow } from './analyses/torch-table/profiler-table.js';
export { computeDispatchTree } from './analyses/host/dispatch-tree.js';
export type { DispatchTree, DispatchNode } from './analyses/host/dispatch-tree.js';
export { computeKernelCatalog } from './analyses/kernels/kernel-catalog.js';
export type { KernelCatalog, KernelCatalogEntry } from './analyses/kernels/kernel-catalog.js';
export { decodeKernelName, shortKernelName } from './analyses/kernels/kernel-name.js';
export type { DecodedKernelName } from './analyses/kernels/kernel-name.js';
export { isViewOpName, computeLaunchedGpuWork } from './analyses/facts/view-ops.js';
export { computeStepBreakdown } from './analyses/steps/step-breakdown.js';
export { computeLaunches } from './analyses/host/launches.js';
export { computeBreakdown, computeTemporalBreakdown } from './analyses/breakdown/temporal-breakdown.js';
export { computeKernelTypeBreakdown } from './analyses/breakdown/kernel-type-breakdown.js';
export { computeIdleTime } from './analyses/breakdown/idle-time.js';
export { computeDoctor } from './analyses/trace/doctor.js';
export { computeGemmTable, findGemmCalls } from './analyses/gemm/gemm.js';
export { computeRoofline } from './analyses/gemm/roofline.js';
export { findAlignmentIssues } from './analyses/gemm/gemm-alignment.js';
export { DEVICE_PEAKS, resolvePeaks } from './analyses/gemm/device-peaks.js';
export { computeOps } from './analyses/host/ops.js';
export { computeEpilogues } from './analyses/gemm/epilogues.js';
export { computeFusion } from './analyses/compare/fusion.js';
export { computeFusionMatch } from './analyses/compare/fusion-match.js';
export { computeCompileOverhead } from './analyses/host/compile-overhead.js';
export { computeTraceDiff } from './analyses/compare/diff.js';
export { checkExpectations, deriveExpectations } from './analyses/compare/expectations.js';
