/** `kinetoscope diff A B`: two traces aligned per annotation (or step): kernels same, replaced, only on one side; CPU ops removed and added; per-instance numbers with their spread. */
import { basename } from 'node:path';
import { computeTraceDiff } from '../../analyses/compare/diff.js';
import { diffJson, renderDiff } from '../../report/diff-view.js';
import { defineCommand } from '../command-spec.js';
import type { TraceModel } from '../../model/trace-model.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';
import { attachExecutionTraces, ET_OPTION, etDiagnosticLines } from '../execution-trace.js';

const DEFINITIONS = `
How the traces are aligned:
  --per NAME   each instance of the annotation (record_function) NAME in both traces
  --per step   each ProfilerStep#N;  --per trace: the whole traces
  default      the annotation both traces share when it is A's one top-level annotation
               holding most of its GPU work (linear_fwd, mlp_fwd); else steps, else the
               whole traces. The per-instance table lists steps and every shared annotation
Every count is per instance (mean over the instances).

A is the before (the baseline), B the after; the first line says which file is which.

Bottom line (first): GPU and host time per instance A -> B, then the changes of implementation
class, the largest first, each with its time per instance on each side:
  attention backend   cuDNN, FlashAttention, memory-efficient (fmha), math (aten's
                      _scaled_dot_product_attention_math), flex or another Triton template
  attention mask      what the fused attention op masks by: a mask tensor (attn_mask), the
                      causal flag (is_causal) or neither, where both sides' ops record it
  math units          tensor cores, or CUDA cores (SIMT/FFMA kernels, cuBLAS sgemm) for GEMM,
                      convolution and attention kernels
  precision           the element type those kernels compute in (bf16, fp16, fp32, tf32, fp8)
  GEMM implementation a Triton template, a library kernel, a fallback (a kernel two
                      architectures older than the device, or alignment 1), CUDA-core GEMMs
  A class changes when it holds time (at least 1% of that side's GPU time) on one side only;
  for a class gone, the replacements name the kernels of B that likely do its work now.

Kernels (and memsets and copies), read A -> B by the one matcher that fusion --vs and
explain --vs use too. Every link carries its evidence (--json: link.evidence, link.strength):
shapes (recorded on both sides), launch geometry (grid, block, shared memory, registers per
thread; a memset's or copy's bytes), physics (below); "fact" only where stated, else "likely".
  same         the same name, byte for byte, and where both sides recorded the owning op's shapes
               (Input Dims and Input type; equal element counts across a view), those shapes —
               a fact when the op and dims are equal; where a side recorded none (a CUDA-graph
               replay), the same launch geometry instead — likely, one row per geometry, never
               paired across two geometries (the replayed calls of one kernel on two shapes stay
               two rows)
  replaced     kernels of B doing the work of A's calls that B no longer makes (a call still
               made in B is never replaced), matched by
               op-and-shape (same owning op and Input Dims, or the dims padded to a multiple of
               8: another library's kernel; a fact on equal dims), else
               fused-ops (an Inductor kernel whose fused op list names an op over A's call,
               and whose launch op takes a tensor of that op's size: the same layer;
               GEMM/conv/attention kernels only to a template; the other kernels the op was
               split into in the same stretch join it: a batch norm's backward reduction and
               pointwise kernels), else
               position (the only new kernel of B between the same two aligned calls: a
               hand-written geglu_fwd; or all of B's new kernels left there, for A's left
               there, where B recorded no shapes or each takes a tensor of A's). The other calls
               of an op go with it (a GEMM's split-K reduce, a convolution's layout
               transposes); work never moves past a call that reads its output (by the
               tensors' sizes and dtypes, or with --et by the storage it wrote); Inductor's
               split reductions are one replacement (the later stages, which reduce the
               first's fp32 partial buffer). Always likely, except op-and-shape on equal dims
  physics      a replacement is refused when B's kernels run for less than the work needs on
               B's device: the bytes of the tensors its first op takes (each over the elements
               its strides reach; not for gather/index/embedding-like ops, nor an op only part
               of whose kernels were replaced) at the device's HBM bandwidth, or the FLOPs of
               its GEMMs, convolutions and attention at the dtype's dense peak (TF32 for fp32)
  refused      pairings physics contradicted, with the numbers (the calls stay unmatched)
  only in A/B  the rest, each with why the evidence did not decide (unmatched)
CPU ops: cpu_op and user_annotation names removed, added, or called a different number of
times per instance; runtime and driver calls likewise.
Per instance: CPU = the step/annotation's duration on the host; GPU = sum of the durations
of the kernels, copies and memsets it launched (with GPU work of a launch outside any op,
which torch's device total leaves out); launches = runtime/driver calls that launched
kernels (memsets and copies are counted beside, not as launches); the spread is min-max (and the standard deviation in --json) over the instances.`;

export const spec = defineCommand({
  name: 'diff',
  summary: 'two traces compared: kernels same, replaced, added, removed; per-instance time',
  description: 'compare two traces, BEFORE AFTER: the bottom line (time per instance, changes of implementation class), kernels matched with their evidence, CPU ops removed/added, per-annotation CPU/GPU time, kernels and launches',
  arguments: {
    a: { description: 'trace A, the before: the baseline (.json or .json.gz)', path: true },
    b: { description: 'trace B, the after: the change', path: true },
  },
  options: {
    per: { flags: '--per <scope>', description: 'align per this annotation name, "step" or "trace"' },
    et: ET_OPTION,
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/diff.js')).diffDocument,
  tool: {
    rows: [
      '/kernels/same',
      '/kernels/onlyA',
      '/kernels/onlyB',
      '/kernels/replaced',
      '/kernels/replaced/*/a',
      '/kernels/replaced/*/laterStages',
      '/kernels/replaced/*/withKernels',
      '/kernels/refused',
      '/changes',
      '/ops/removed',
      '/ops/added',
      '/ops/changed',
      '/apiCalls/removed',
      '/apiCalls/added',
      '/apiCalls/changed',
      '/perAnnotation',
    ],
  },
  library: [{ from: 'analyses/compare/diff', names: ['computeTraceDiff'] }],
  async run({ a: pathA, b: pathB }, opts) {
    const opened = await Promise.all([openTrace(pathA), openTrace(pathB)]);
    // (tried against B first: an ET is usually of the change)
    const { models, attached } = await attachExecutionTraces(
      [
        { label: basename(pathB), model: opened[1]! },
        { label: basename(pathA), model: opened[0]! },
      ],
      opts.et,
    );
    const [b, a] = models as [TraceModel, TraceModel];
    const diff = computeTraceDiff(a, b, { per: opts.per });
    return {
      json: () => ({ a: pathA, b: pathB, ...diffJson(diff), ...(attached.length ? { executionTraces: attached } : {}), diagnostics: { a: diagnosticsForJson(a), b: diagnosticsForJson(b) } }),
      text: (c) => renderDiff(diff, { nameA: basename(pathA), nameB: basename(pathB), wide: opts.wide, width: outputWidth(), headerStyle: c.bold, dim: c.dim, added: c.green, removed: c.red }),
      diagnostics: [a, b],
      afterDiagnostics: etDiagnosticLines(attached),
    };
  },
});
