/** `kinetoscope explain TRACE [--vs OTHER]…`: the trace read in plain words, as Markdown, every sentence with its numbers. */
import { basename } from 'node:path';
import { computeExplanation, EXPLAIN_SECTIONS, type ExplainSectionId } from '../../analyses/explain/explain.js';
import { KinetoscopeError } from '../../core/errors.js';
import { explainJson, renderExplainMarkdown } from '../../report/explain-markdown.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';
import { attachExecutionTraces, ET_OPTION, etDiagnosticLines } from '../execution-trace.js';

const DEFINITIONS = `
The answer first: by default explain prints one screen — the verdict (overhead-bound, GPU-bound,
no GPU work, or unknown for a truncated file), at most three actions, the few facts behind
them, and where the rest is. An action is a rule that fired on this trace; each states the time
it puts at stake per step (µs, the trace's total spread over its steps) and its share of the
mean step, "about" (the rule's estimate) or "at most" (an upper bound), and who can carry it
out. Actions are ordered by that time; below 1% of the step they are not advice (--full lists
them). --full prints every section instead; --only some of them. --json carries everything —
the verdict, every action (advice and minor), the facts and every section — whatever --full
says: it is data, not cut to a screen.

Sections, in --full's order (each appears only when the trace gives it something true to say),
with the readings S1–S16 of docs/readings.md each makes (the JSON's "readings"):
  verdict      S12  overhead-bound or GPU-bound over the steps, per step where they differ, and
                    what each bound leaves to gain
  next              every action, most time at stake first; those below 1% of the step apart
  steps        S1   profiler steps; each top-level annotation with its CPU extent (its span on the
                    host), GPU extent (first start to last end of the GPU work it launched), GPU
                    time, kernels and launches per instance (a launch is a runtime/driver call
                    that launched kernels; memsets and copies are named beside), on every thread
  dispatch     S2   the first instance's top-level ops, each as its chain of cpu_ops down to the
                    launch calls and the kernels they launched (views as "(→ …)"); the other
                    threads' work inside its window (autograd's backward) with its GPU time
  views        S3   view ops that launched no GPU work, and their self CPU time
  bias         S4   per GEMM: bias in the epilogue (op and kernel name), a separate add, or no bias
  launches     S5   launch APIs (driver/runtime), each op's calls, GEMM memsets, occupancy queries, syncs
  kernels      S6   kernels by time and what their names say
  gemms        S7   the GEMM table: M·N·K from Input Dims, 2·M·N·K FLOPs, TFLOP/s, % of peak, tile
  comparison   S8, S10, S11 (with --vs BASELINE) first the bottom line: time per instance before -> after
                    and the changes of implementation class (attention backend, tensor or CUDA
                    cores, precision, GEMM implementation); then kernels the same (name and
                    shapes, or launch geometry where shapes were not recorded), replaced (fused,
                    hand-written; "likely" unless proven), refused by physics, or on one side
                    only; CPU ops removed/added; compile pre-ops over every thread
  fusion       S9   fused kernels decoded; back-to-back memory-bound kernels that could fuse
  compile      S10  compile pre-ops per instance and the compile analysis's findings
  conclusions  S8–S11 (with --vs) one row per trace: kernels, GEMM kernels, other kernels, GPU and
                    CPU time and launches per instance of its annotation (or step)
The reading is per instance of the trace's one top-level annotation holding most of the GPU
work (linear_fwd, mlp_fwd), else per step. Numbers are those of the commands named under
"More:"; their definitions are in those commands' --help. Text fits the terminal's width
(else $COLUMNS, else 100): lines wrapped, table names cut in the middle; --wide neither.
With --vs, the first --vs trace is the baseline, the before (A), and TRACE the after (B), read
BASELINE -> TRACE as kinetoscope diff BASELINE TRACE does (see its --help); each further --vs
adds a conclusions row.`;

/** `geglu_mlp.pt.trace.json.gz` → `geglu_mlp`. */
export function traceLabel(path: string): string {
  if (path === '-') return 'stdin';
  return basename(path).replace(/\.gz$/, '').replace(/\.json$/, '').replace(/\.pt\.trace$/, '');
}

export const spec = defineCommand({
  name: 'explain',
  summary: 'the whole reading in plain words (Markdown): start here',
  description:
    'the trace read in plain words (Markdown), the answer first: the verdict, at most three actions ranked by the time at stake per step, the facts behind them; --full for every section (steps, dispatch chain, views, bias, launches, kernels, GEMMs, fusion, compile; with --vs, the comparison and a conclusions table)',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    vs: { flags: '--vs <baseline>', description: 'the baseline, the before: another trace of the same workload (explain COMPILED --vs EAGER); repeat for more conclusions rows', repeat: true, path: true },
    full: { flags: '--full', description: 'every section, not the first screen (text only: --json always carries everything)' },
    only: { flags: '--only <sections>', description: `comma-separated sections to show (implies --full): ${EXPLAIN_SECTIONS.join(', ')}` },
    limit: { flags: '--limit <n>', description: 'name at most n kernels in the kernels section (default 8)', tool: false },
    et: ET_OPTION,
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/explain.js')).explainDocument,
  tool: { rows: [], answer: 'markdown' },
  library: [
    { from: 'analyses/explain/explain', names: ['computeExplanation'] },
    { from: 'analyses/explain/types', names: ['EXPLAIN_SECTIONS'], types: ['Explanation'] },
  ],
  async run({ trace }, opts) {
    let only: Set<ExplainSectionId> | undefined;
    if (opts.only !== undefined) {
      const names = opts.only.split(',').map((x) => x.trim()).filter(Boolean);
      const bad = names.filter((x) => !(EXPLAIN_SECTIONS as readonly string[]).includes(x));
      if (bad.length || !names.length) throw new KinetoscopeError('BAD_ARGUMENT', `--only expects sections among ${EXPLAIN_SECTIONS.join(', ')}; got "${opts.only}"`);
      only = new Set(names as ExplainSectionId[]);
    }
    let kernelLimit: number | undefined;
    if (opts.limit !== undefined) {
      kernelLimit = Number(opts.limit);
      if (!Number.isInteger(kernelLimit) || kernelLimit < 0) throw new KinetoscopeError('BAD_ARGUMENT', `--limit expects a non-negative integer, got "${opts.limit}"`);
    }
    // the python frames name each host sync's caller (host/sync-costs.ts)
    const opened = await Promise.all([openTrace(trace, { keep: ['python'] }), ...opts.vs.map((p) => openTrace(p))]);
    const { models, attached } = await attachExecutionTraces(
      opened.map((m, i) => ({ label: i === 0 ? traceLabel(trace) : traceLabel(opts.vs[i - 1]!), model: m })),
      opts.et,
    );
    const [model, ...others] = models;
    const e = computeExplanation(
      { label: traceLabel(trace), model: model! },
      { vs: others.map((m, i) => ({ label: traceLabel(opts.vs[i]!), model: m })), ...(only ? { only } : {}), ...(kernelLimit !== undefined ? { kernelLimit } : {}) },
    );
    return {
      json: () => ({
        ...explainJson(e),
        ...(attached.length ? { executionTraces: attached } : {}),
        diagnostics: diagnosticsForJson(model!),
        ...(others.length ? { vsDiagnostics: others.map(diagnosticsForJson) } : {}),
      }),
      text: () => renderExplainMarkdown(e, { tracePath: trace, vsPaths: opts.vs, full: opts.full === true || only !== undefined, wide: opts.wide, width: outputWidth() }),
      diagnostics: [model!, ...others],
      afterDiagnostics: etDiagnosticLines(attached),
    };
  },
});
