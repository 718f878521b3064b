/**
 * A model as plain data, for comparing two models built from the same trace in different ways
 * (chunk sizes, object vs columnar path, serial vs parallel read): every table with its names
 * resolved and its args serialised, and every small set.
 */
import type { TraceModel } from '../src/model/trace-model.js';

export function modelFingerprint(m: TraceModel) {
  const names = (a: Int32Array) => Array.from(a, (id) => m.strings.get(id));
  return {
    host: { ...m.host, name: names(m.host.name), args: m.host.args.map((a) => JSON.stringify(a)) },
    gpu: { ...m.gpu, name: names(m.gpu.name), args: m.gpu.args.map((a) => JSON.stringify(a)) },
    python: { ...m.python, name: names(m.python.name) },
    memory: m.memory,
    steps: m.steps,
    threads: m.threads,
    processes: m.processes,
    gpuAnnotations: m.gpuAnnotations,
    syncs: m.syncs.map((s) => ({ ...s, args: JSON.stringify(s.args) })),
    counters: m.counters,
    backwardSequences: m.backwardSequences,
    recordFunctionIds: { rows: Array.from(m.recordFunctionIds.rows), ids: Array.from(m.recordFunctionIds.ids) },
    sequencedOps: Array.from(m.sequencedOps),
    diagnostics: m.diagnostics,
    traceStartNs: m.traceStartNs,
    traceEndNs: m.traceEndNs,
    timeOriginUs: m.timeOriginUs,
    counts: m.counts,
    source: m.source,
    header: m.header,
    ownerRule: m.ownerRule,
    torchIdCollisions: m.torchIdCollisions,
  };
}
