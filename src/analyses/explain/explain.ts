/**
 * `explain`: the trace read the way the seed article reads it (docs/readings.md S1–S12), as data —
 * a list of sections, each a list of sentences whose numbers come from the other analyses.
 *
 * A sentence is a template and the numbers that fill it: `{gpuBusyUs}` in the template is
 * `numbers.gpuBusyUs`; a path (`{views.0.name}`) reaches into lists. The unit is in the key's
 * name (`…Us` µs, `…Bytes`, `…Share` a fraction, `…Pct` 0–100, `…Flops`, `…Tflops`,
 * `…Ratio`), so a renderer formats each number without knowing the sentence (report/explain-markdown.ts).
 * Every sentence is made by a rule that first checks its condition on this trace: there is no
 * fixed text.
 *
 * The answer comes first: one verdict (the verdict section's), the actions of `explain/actions/`
 * ranked by the time each puts at stake per step (actions/index.ts `rankActions`: advice from 1%
 * of the step, the rest minor), and the few facts behind them (first-screen.ts). `explain` prints
 * these alone by default — one screen — and every section with `--full`. Rules and their conditions:
 * - steps (S1): the profiler steps and each top-level annotation with its CPU extent (the
 *   instance's span on the host) and GPU extent (first start to last end of the GPU work it
 *   launched), GPU time, kernels and launches per instance — a launch is a call that launched
 *   kernels, memsets and copies are named beside (`facts/runtime-calls.ts` isLaunchCall; `scopes.ts`,
 *   `diff.ts` scopeStats) — and a caveat when with_stack / profile_memory / with_flops were on
 *   (`profiler-options.ts`);
 * - dispatch (S2): the first instance of the scope the trace is read in (`choosePrimaryScope`),
 *   each top-level op's chain of cpu_ops down to the launch calls and what they launched;
 * - views (S3): view ops that launched nothing and their self CPU time (`ops.ts`);
 * - bias (S4): where each GEMM's bias went (`epilogues.ts`): the epilogue, a separate add, or
 *   no bias at all; a separate add only after a forward GEMM, in compiled graphs only a pointwise
 *   Inductor add (compile-side wording; one fused with other pointwise ops claims no round trip);
 * - launches (S5): launch APIs, each op's runtime/driver calls, memsets, occupancy queries and
 *   host synchronisations (`launches.ts`);
 * - kernels (S6): each kernel by time with what its name says (`kernel-catalog.ts`, `kernel-name.ts`);
 * - gemms (S7): the GEMM table with FLOPs, % of peak and the tile, and the tile picked per shape (`gemm.ts`);
 * - comparison (S8, S10, S11), against a baseline (the first --vs trace, the before; this trace the
 *   after): the bottom line (time per instance, changes of implementation class), kernels the same, replaced
 *   (fused, hand-written) or only on one side, CPU ops removed and added, per-instance numbers
 *   (`diff.ts`), HBM bytes a fusion saved (`fusion-match.ts`), a hand-written kernel against
 *   Inductor's;
 * - fusion (S9): fused kernels decoded — the ops that launch a kernel when run eagerly, views and
 *   Inductor prims named apart, a template read as the GEMM it computes, one op no fusion — and
 *   chains that could fuse (`fusion.ts`);
 * - compile (S10): compile pre-ops per instance, the compiled graph's own host code (the self CPU
 *   of `## Call CompiledFxGraph … ##`) named apart from guards and cache lookups, and the compile
 *   analysis's findings (`compile-overhead.ts`);
 * - verdict (S12): one verdict across the steps (the median step's, with the spread of the GPU
 *   busy share: `step-verdict.ts` overallVerdict), a split around the 50% line said once, and
 *   per step only the steps that differ (at most LIST_MAX);
 * - next: the actions, most time at stake first, each with its time per step and share of the
 *   step (the rules in `actions/`, one file each, each with the evidence that fired it);
 * - conclusions (S8–S11): one row per trace (this one and the `vs` traces): kernels, GEMM
 *   kernels, other kernels, GPU and CPU time per instance.
 *
 * Layout: one file per section (`steps-section.ts` … `conclusions-section.ts`, named after the ids
 * of EXPLAIN_SECTIONS); `context.ts` holds what the sections share about one trace, `sentence.ts`
 * the sentence helpers, `types.ts` the result types. This file puts the sections in order.
 *
 * Ignores: memory records, python frames and multi-rank traces (no reading of the seed needs them).
 */
import { computeTraceDiffWithMatch } from '../compare/diff.js';
import { biasSection } from './bias-section.js';
import { comparisonSection } from './comparison-section.js';
import { compileSection } from './compile-section.js';
import { conclusionsSection } from './conclusions-section.js';
import { context, traceInfo } from './context.js';
import { dispatchSection } from './dispatch-section.js';
import { fusionSection } from './fusion-section.js';
import { gemmSection } from './gemms-section.js';
import { kernelsSection } from './kernels-section.js';
import { launchesSection } from './launches-section.js';
import { nextSection } from './next-section.js';
import { rankActions } from './actions/index.js';
import { firstScreenFacts } from './first-screen.js';
import { stepsSection } from './steps-section.js';
import type { ExplainInput, ExplainOptions, Explanation, ExplainSectionId, ExplainSection, ExplainVerdict } from './types.js';
import type { TraceContext } from './context.js';
import { say } from './sentence.js';
import { verdictSection } from './verdict-section.js';
import { viewsSection } from './views-section.js';
export {
  type ExplainValue,
  type ExplainSentence,
  type ExplainTableColumn,
  type ExplainTable,
  EXPLAIN_SECTIONS,
  type ExplainSectionId,
  type ExplainSection,
  type ExplainTraceInfo,
  type Explanation,
  type ExplainVerdict,
  type ExplainFact,
  type ExplainInput,
  type ExplainOptions,
} from './types.js';
export type { Action } from './actions/types.js';
export type { RankedActions } from './actions/index.js';
export { nameSays } from './kernels-section.js';
export type { ConclusionRow } from './conclusions-section.js';

export function computeExplanation(input: ExplainInput, opts: ExplainOptions = {}): Explanation {
  const c = context(input);
  const others = (opts.vs ?? []).map(context);
  const want = (id: ExplainSectionId) => !opts.only || opts.only.has(id);
  const sections: ExplainSection[] = [];
  const push = (s: ExplainSection | undefined) => {
    if (s && (s.sentences.length || s.tables.length)) sections.push(s);
  };
  const first = others[0];
  // `TRACE --vs BASELINE` reads BASELINE → TRACE (the baseline is the before), as `diff BASELINE TRACE`.
  const compared = first && want('comparison') ? computeTraceDiffWithMatch(first.m, c.m) : undefined;
  const verdict = verdictSection(c);
  const actions = rankActions(c);
  // The answer first (EXPLAIN_SECTIONS' order), then the readings, question by question.
  if (want('verdict')) push(verdict);
  if (want('next')) push(nextSection(actions));
  if (want('steps')) push(stepsSection(c));
  if (want('dispatch')) push(dispatchSection(c));
  if (want('views')) push(viewsSection(c));
  if (want('bias')) push(biasSection(c));
  if (want('launches')) push(launchesSection(c));
  if (want('kernels')) push(kernelsSection(c, opts.kernelLimit ?? 8));
  if (want('gemms')) push(gemmSection(c, first));
  if (want('comparison') && first && compared) push(comparisonSection(c, first, compared.diff, compared.match, compared.instances.b));
  if (want('fusion')) push(fusionSection(c));
  if (want('compile')) push(compileSection(c));
  if (want('conclusions') && others.length) push(conclusionsSection([c, ...others]));
  return { trace: traceInfo(c), vs: others.map(traceInfo), ...(verdict ? { verdict: firstScreenVerdict(c, verdict) } : {}), actions, facts: firstScreenFacts(c), sections };
}

/** The verdict as the first screen opens with it: the section's sentences, the steps that differ counted rather than listed. */
function firstScreenVerdict(c: TraceContext, section: ExplainSection): ExplainVerdict {
  const o = c.lazy.steps().stats.overall!;
  const differ = section.sentences.filter((x) => x.id === 'verdict.step').length;
  const more = section.sentences.find((x) => x.id === 'verdict.more')?.numbers['more'];
  const sentences = section.sentences.filter((x) => x.id !== 'verdict.step' && x.id !== 'verdict.more');
  if (differ) sentences.push(say('verdict.differ', "{steps|step} with another verdict: `explain --full` lists them, `steps` shows every step.", { steps: differ + (typeof more === 'number' ? more : 0) }));
  const text = o.verdict === 'unknown' ? 'unknown (truncated)' : `${o.verdict}${o.borderline ? ' (borderline)' : ''}`;
  return { verdict: o.verdict, borderline: o.borderline, text, sentences };
}
