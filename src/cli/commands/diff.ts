/** `kinetoscope diff A B`: two traces aligned per annotation (or step): kernels same, replaced, only on one side; CPU ops removed and added; per-instance numbers with their spread. */
import { basename } from 'node:path';
import { Command } from 'commander';
import { computeTraceDiff } from '../../analyses/compare/diff.js';
import { diffJson, renderDiff } from '../../report/diff-view.js';
import { action, colorsFor, diagnosticsForJson, openTrace, outputWidth, printJson, printText, reportDiagnostics, strictStatus, withCommonOptions, writeErr, type CommonOptions } from '../common.js';
import { attachExecutionTraces, etDiagnosticLines, etOption } from '../execution-trace.js';
import type { TraceModel } from '../../model/trace-model.js';

const DEFINITIONS = `
How the traces are aligned:
  --per NAME   each instance of the annotation (record_function) NAME in both traces
  --per step   each ProfilerStep#N;  --per trace: the whole traces
  default      the annotation both traces share when it is A's one top-level annotation
               holding most of its GPU work (linear_fwd, mlp_fwd); else steps, else the
               whole traces. The per-instance table lists steps and every shared annotation
Every count is per instance (mean over the instances).

Kernels (and memsets and copies), read A -> B by the one matcher that fusion --vs and
explain --vs use too:
  same         the same name, byte for byte, and the same shapes (the owning op's Input Dims
               and Input type; equal element counts across a view): the same GPU work, one
               row per shape (a kernel called for two shapes is compared per shape)
  replaced     one kernel of B doing the work of one or more of A's calls that B no longer
               makes (a call still made in B is never replaced), matched by
               op-and-shape (same owning op and Input Dims: another GPU's GEMM), else
               fused-ops (an Inductor kernel whose fused op list names an op over A's call,
               and whose launch op takes a tensor of that op's size and dtype: the same
               layer; GEMM/conv/attention kernels only to a template), else
               position (the only new kernel of B between the same two aligned calls: a
               hand-written geglu_fwd). The other calls of an op go with it (a GEMM's
               split-K reduce, a convolution's layout transposes); work never moves past a
               call that reads its output; Inductor's split reductions are one replacement
               (the later stages, which reduce the first's fp32 partial buffer)
  only in A/B  the rest, each with why the evidence did not decide (unmatched)
CPU ops: cpu_op and user_annotation names removed, added, or called a different number of
times per instance; runtime and driver calls likewise.
Per instance: CPU = the step/annotation's duration on the host; GPU = sum of the durations
of the kernels, copies and memsets it launched (with GPU work of a launch outside any op,
which torch's device total leaves out); launches = runtime/driver calls that launched
kernels (memsets and copies are counted beside, not as launches); the spread is min-max (and the standard deviation in --json) over the instances.`;

interface DiffOptions extends CommonOptions {
  per?: string;
  et?: string[];
}

export function diffCommand(): Command {
  const cmd = new Command('diff')
    .description('compare two traces: kernels matched by name or by role, CPU ops removed/added, per-annotation CPU/GPU time, kernels and launches')
    .argument('<a>', 'trace A, the baseline (.json or .json.gz)')
    .argument('<b>', 'trace B, the change')
    .option('--per <scope>', 'align per this annotation name, "step" or "trace"')
    .addOption(etOption())
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (pathA: string, pathB: string, opts: DiffOptions) => {
      const opened = await Promise.all([openTrace(pathA), openTrace(pathB)]);
      const { models, attached } = await attachExecutionTraces(
        [
          { label: basename(pathB), model: opened[1]! },
          { label: basename(pathA), model: opened[0]! },
        ],
        opts.et ?? [],
      );
      const [b, a] = models as [TraceModel, TraceModel];
      const diff = computeTraceDiff(a, b, { per: opts.per });
      if (opts.json) {
        printJson({ a: pathA, b: pathB, ...diffJson(diff), ...(attached.length ? { executionTraces: attached } : {}), diagnostics: { a: diagnosticsForJson(a), b: diagnosticsForJson(b) } });
      } else {
        const c = colorsFor(opts);
        printText(renderDiff(diff, { nameA: basename(pathA), nameB: basename(pathB), wide: opts.wide, width: outputWidth(), headerStyle: c.bold, dim: c.dim, added: c.green, removed: c.red }));
        reportDiagnostics(a, opts);
        reportDiagnostics(b, opts);
        for (const line of etDiagnosticLines(attached)) writeErr(`${line}\n`);
      }
      return Math.max(strictStatus(a, opts), strictStatus(b, opts));
    }),
  );
}
