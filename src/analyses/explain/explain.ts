/**
 * `explain`: the trace read the way the seed article reads it (S1–S12), as data — a list of
 * sections, each a list of sentences whose numbers come from the other analyses.
 *
 * A sentence is a template and the numbers that fill it: `{gpuBusyUs}` in the template is
 * `numbers.gpuBusyUs`; a path (`{views.0.name}`) reaches into lists. The unit is in the key's
 * name (`…Us` µs, `…Bytes`, `…Share` a fraction, `…Pct` 0–100, `…Flops`, `…Tflops`,
 * `…Ratio`), so a renderer formats each number without knowing the sentence (report/explain-markdown.ts).
 * Every sentence is made by a rule that first checks its condition on this trace: there is no
 * fixed text. Rules and their conditions:
 * - steps (S1): the profiler steps and each top-level annotation with its CPU extent (the
 *   instance's span on the host) and GPU extent (first start to last end of the GPU work it
 *   launched), GPU time, kernels and launches per instance — a launch is a call that launched
 *   kernels, memsets and copies are named beside (`launches.ts` isLaunchCall; `scopes.ts`,
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
 * - comparison (S8, S10, S11), with another trace: kernels the same byte for byte, replaced
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
 *   busy share: `step-breakdown.ts` overallVerdict), a split around the 50% line said once, and
 *   per step only the steps that differ (at most LIST_MAX);
 * - next: what to try, each rule with the evidence that fired it;
 * - conclusions (S8–S11): one row per trace (this one and the `vs` traces): kernels, GEMM
 *   kernels, other kernels, GPU and CPU time per instance.
 *
 * Ignores: memory records, python frames and multi-rank traces (no reading of the seed needs them).
 */
import { GpuKind, HostKind, hostName, type TraceModel } from '../../model/trace-model.js';
import { computeCompileOverhead, compilePreOpRole, type CompileOverhead } from '../host/compile-overhead.js';
import { computeTraceDiffWithMatch, scopeStats, type ScopeStats, type TraceDiff } from '../compare/diff.js';
import { computeDispatchTree, type DispatchNode } from '../host/dispatch-tree.js';
import { computeFusion, type FusionResult } from '../compare/fusion.js';
import { fusionFromMatch } from '../compare/fusion-match.js';
import type { KernelMatch } from '../compare/kernel-match.js';
import { computeGemmTable, findGemmCalls, formatGemmShape, isTemplateGemmName, type GemmReport } from '../gemm/gemm.js';
import { computeRoofline, type RooflineReport } from '../gemm/roofline.js';
import { findAlignmentIssues } from '../gemm/gemm-alignment.js';
import { computeKernelCatalog } from '../kernels/kernel-catalog.js';
import { decodeKernelName, shortKernelName, type DecodedKernelName } from '../kernels/kernel-name.js';
import { computeLaunches } from '../host/launches.js';
import { computeOps, type OpsReport } from '../host/ops.js';
import { choosePrimaryScope, computeScopeInstances, instanceKernels, listAnnotations, scopeLabel, type ScopeInstance, type ScopeSpec } from '../host/scopes.js';
import { computeStepBreakdown, type StepAnalysis } from '../steps/step-breakdown.js';
import { shortDtype } from '../gemm/tensor-bytes.js';
import { describeInflatingOptions, findInflatingOptions } from '../host/profiler-options.js';
import { isViewOpName } from '../host/views.js';

// ------------------------------------------------------------------------------------------------
// Result types

/** A number, a name, or a list/record of them: what a template can show. */
export type ExplainValue = number | string | boolean | null | readonly ExplainValue[] | { readonly [key: string]: ExplainValue };

export interface ExplainSentence {
  /** The rule that made it (`bias.epilogue`, `verdict.step`): stable, for scripts and tests. */
  readonly id: string;
  /** Text with `{key}` / `{list.0.key}` placeholders for the numbers. */
  readonly template: string;
  readonly numbers: { readonly [key: string]: ExplainValue };
}

export interface ExplainTableColumn {
  readonly key: string;
  readonly header: string;
}

export interface ExplainTable {
  readonly id: string;
  readonly columns: readonly ExplainTableColumn[];
  /** Cells by column key; the unit rule of templates applies to the keys. */
  readonly rows: readonly { readonly [key: string]: ExplainValue }[];
}

export const EXPLAIN_SECTIONS = ['steps', 'dispatch', 'views', 'bias', 'launches', 'kernels', 'gemms', 'comparison', 'fusion', 'compile', 'verdict', 'next', 'conclusions'] as const;
export type ExplainSectionId = (typeof EXPLAIN_SECTIONS)[number];

export interface ExplainSection {
  readonly id: ExplainSectionId;
  readonly title: string;
  /** The seed's readings it answers (`S1`…). */
  readonly readings: readonly string[];
  readonly sentences: readonly ExplainSentence[];
  readonly tables: readonly ExplainTable[];
  /** The kinetoscope command that shows the full analysis behind it, with `TRACE` / `OTHER` for the files. */
  readonly more: string;
}

export interface ExplainTraceInfo {
  readonly label: string;
  readonly device?: string;
  /** What the reading is per: an annotation name, `step` or `trace`. */
  readonly scope: string;
  readonly instances: number;
}

export interface Explanation {
  readonly trace: ExplainTraceInfo;
  readonly vs: readonly ExplainTraceInfo[];
  readonly sections: readonly ExplainSection[];
}

export interface ExplainInput {
  readonly label: string;
  readonly model: TraceModel;
}

export interface ExplainOptions {
  /** Other traces of the same workload: the first is compared with this one; each adds a row to the conclusions. */
  readonly vs?: readonly ExplainInput[];
  /** Only these sections (default: every section that has something to say). */
  readonly only?: ReadonlySet<ExplainSectionId>;
  /** How many kernels the kernels section names (default 8). */
  readonly kernelLimit?: number;
}

// ------------------------------------------------------------------------------------------------

/** Lists in a sentence name at most this many items, then say how many more. */
const LIST_MAX = 8;

const say = (id: string, template: string, numbers: ExplainSentence['numbers'] = {}): ExplainSentence => ({ id, template, numbers });

const mean = (v: readonly number[]) => (v.length ? v.reduce((s, x) => s + x, 0) / v.length : NaN);

/** A kernel's name as a sentence shows it: the full name when short, else torch's short form. */
function kernelLabel(name: string): string {
  return name.length <= 80 ? name : shortKernelName(name);
}

/** Everything computed once per trace and shared by the sections. */
interface TraceContext {
  readonly label: string;
  readonly m: TraceModel;
  readonly scope: ScopeSpec;
  readonly scopeName: string;
  readonly instances: ScopeInstance[];
  readonly lazy: Lazy;
}

interface Lazy {
  steps(): StepAnalysis;
  ops(): OpsReport;
  gemm(): GemmReport;
  fusion(): FusionResult;
  compile(): CompileOverhead;
  gemmKernels(): Set<number>;
  roofline(): RooflineReport;
}

function context(input: ExplainInput): TraceContext {
  const m = input.model;
  const scope = choosePrimaryScope(m);
  const instances = computeScopeInstances(m, scope);
  const memo = <T>(f: () => T): (() => T) => {
    let v: T | undefined;
    let done = false;
    return () => {
      if (!done) {
        v = f();
        done = true;
      }
      return v as T;
    };
  };
  const lazy: Lazy = {
    steps: memo(() => computeStepBreakdown(m)),
    ops: memo(() => computeOps(m)),
    gemm: memo(() => computeGemmTable(m)),
    fusion: memo(() => computeFusion(m)),
    compile: memo(() => computeCompileOverhead(m)),
    gemmKernels: memo(() => {
      const set = new Set<number>();
      for (const c of findGemmCalls(m)) for (const g of c.kernels) set.add(g);
      return set;
    }),
    roofline: memo(() => computeRoofline(m, {}, lazy.gemm())),
  };
  return { label: input.label, m, scope, scopeName: scope.per === 'annotation' ? scope.name : scope.per === 'step' ? 'step' : 'trace', instances, lazy };
}

function traceInfo(c: TraceContext): ExplainTraceInfo {
  const d = c.m.devices[0];
  const device = d?.name ? `${d.name}${typeof d.numSms === 'number' ? ` (${d.numSms} SMs)` : ''}` : undefined;
  return { label: c.label, ...(device ? { device } : {}), scope: scopeLabel(c.scope), instances: c.instances.length };
}

export function computeExplanation(input: ExplainInput, opts: ExplainOptions = {}): Explanation {
  const c = context(input);
  const others = (opts.vs ?? []).map(context);
  const want = (id: ExplainSectionId) => !opts.only || opts.only.has(id);
  const sections: ExplainSection[] = [];
  const push = (s: ExplainSection | undefined) => {
    if (s && (s.sentences.length || s.tables.length)) sections.push(s);
  };
  const first = others[0];
  // `TRACE --vs OTHER` reads TRACE → OTHER: this trace is A, the first --vs trace B.
  const compared = first && want('comparison') ? computeTraceDiffWithMatch(c.m, first.m) : undefined;
  if (want('steps')) push(stepsSection(c));
  if (want('dispatch')) push(dispatchSection(c));
  if (want('views')) push(viewsSection(c));
  if (want('bias')) push(biasSection(c));
  if (want('launches')) push(launchesSection(c));
  if (want('kernels')) push(kernelsSection(c, opts.kernelLimit ?? 8));
  if (want('gemms')) push(gemmSection(c, first));
  if (want('comparison') && first && compared) push(comparisonSection(c, first, compared.diff, compared.match));
  if (want('fusion')) push(fusionSection(c));
  if (want('compile')) push(compileSection(c));
  if (want('verdict')) push(verdictSection(c));
  if (want('next')) push(nextSection(c));
  if (want('conclusions') && others.length) push(conclusionsSection([c, ...others]));
  return { trace: traceInfo(c), vs: others.map(traceInfo), sections };
}

// ------------------------------------------------------------------------------------------------
// S1: steps and annotations

/** CPU extent, GPU extent (first GPU start → last GPU end) of one instance, ns. */
function extents(m: TraceModel, inst: ScopeInstance): { cpuNs: number; gpuNs: number | undefined } {
  let lo = Infinity;
  let hi = -Infinity;
  for (const g of inst.gpu) {
    lo = Math.min(lo, m.gpu.startNs[g]!);
    hi = Math.max(hi, m.gpu.startNs[g]! + m.gpu.durNs[g]!);
  }
  return { cpuNs: inst.endNs - inst.startNs, gpuNs: Number.isFinite(lo) ? hi - lo : undefined };
}

function stepsSection(c: TraceContext): ExplainSection {
  const { m } = c;
  const sentences: ExplainSentence[] = [];
  const steps = computeScopeInstances(m, { per: 'step' });
  if (steps.length) {
    const cpu = steps.map((s) => (s.endNs - s.startNs) / 1000);
    const numbers = {
      steps: steps.length,
      firstStep: steps[0]!.name,
      lastStep: steps[steps.length - 1]!.name,
      cpuMeanUs: mean(cpu),
      cpuMinUs: Math.min(...cpu),
      cpuMaxUs: Math.max(...cpu),
    };
    sentences.push(
      steps.length === 1
        ? say('steps.count', 'The trace holds 1 profiler step, `{firstStep}`, {cpuMeanUs} long on the host.', numbers)
        : say('steps.count', 'The trace holds {steps} profiler steps, `{firstStep}` to `{lastStep}`: {cpuMeanUs} each on the host on average ({cpuMinUs} to {cpuMaxUs}).', numbers),
    );
  } else {
    sentences.push(say('steps.none', 'The trace has no `ProfilerStep#N` annotation (the profiler\'s `step()` was not called while it recorded): it is read per annotation, or as a whole.'));
  }
  const annotations = listAnnotations(m).filter((a) => a.topLevel && a.instances > 0);
  for (const a of annotations) {
    const inst = computeScopeInstances(m, { per: 'annotation', name: a.name });
    const st = scopeStats(m, inst);
    const ext = inst.map((x) => extents(m, x));
    const gpuExt = ext.map((e) => e.gpuNs).filter((x): x is number => x !== undefined);
    const perStep = steps.length && inst.length % steps.length === 0 ? inst.length / steps.length : undefined;
    const numbers = {
      name: a.name,
      instances: inst.length,
      ...(perStep !== undefined ? { perStep } : {}),
      cpuExtentUs: mean(ext.map((e) => e.cpuNs / 1000)),
      cpuExtentMinUs: Math.min(...ext.map((e) => e.cpuNs / 1000)),
      cpuExtentMaxUs: Math.max(...ext.map((e) => e.cpuNs / 1000)),
      ...(gpuExt.length ? { gpuExtentUs: mean(gpuExt) / 1000 } : {}),
      gpuTimeUs: st.gpuUs,
      kernels: st.kernels,
      launches: st.launches,
      memsets: st.memsets,
      memcpys: st.memcpys,
    };
    // Launches are calls that launched kernels (launches.ts `isLaunchCall`); memsets and copies are named beside.
    const beside = [st.memsets > 0 ? '{memsets|memset}' : '', st.memcpys > 0 ? '{memcpys|copy|copies}' : ''].filter(Boolean);
    const besideText = beside.length ? `, plus ${beside.join(' and ')}` : '';
    const times = perStep !== undefined ? (perStep === 1 ? ' (once per step)' : ' ({perStep} per step)') : '';
    const span = '{cpuExtentUs} on the host per instance on average ({cpuExtentMinUs} to {cpuExtentMaxUs})';
    sentences.push(
      gpuExt.length
        ? say(
            'steps.annotation',
            `\`{name}\` ran {instances|time}${times}: ${span}; the GPU work it launched spans {gpuExtentUs} from its first start to its last end, {gpuTimeUs} of GPU time in {kernels|kernel} from {launches|launch|launches}${besideText}.`,
            numbers,
          )
        : say('steps.annotation', `\`{name}\` ran {instances|time}${times}: ${span}; it launched no GPU work.`, numbers),
    );
  }
  // Every host time below is inflated when the profiler recorded stacks, memory or FLOPs.
  const inflating = findInflatingOptions(m);
  const caveat = describeInflatingOptions(inflating);
  if (caveat) sentences.push(say('steps.profiler-options', '{caveat}', { caveat, options: inflating.map((o) => o.option), evidence: inflating.map((o) => o.evidence) }));
  if (c.scope.per === 'annotation') {
    const own = annotations.find((a) => a.name === c.scopeName);
    const ref = steps.length ? steps : computeScopeInstances(m, { per: 'trace' });
    let refNs = 0;
    for (const s of ref) for (const g of s.gpu) refNs += m.gpu.durNs[g]!;
    if (own && refNs > 0) {
      sentences.push(
        say('steps.primary', '`{name}` holds {gpuShare} of the GPU time {where}: the readings below are per `{name}` instance.', {
          name: own.name,
          gpuShare: own.gpuNs / refNs,
          where: steps.length ? 'in the steps' : 'in the trace',
        }),
      );
    }
  }
  return { id: 'steps', title: 'Steps and annotations', readings: ['S1'], sentences, tables: [], more: 'kinetoscope steps TRACE' };
}

// ------------------------------------------------------------------------------------------------
// S2: the dispatch chain, short form

/** `aten::linear` → `aten::t` (→ `aten::transpose` → `aten::as_strided`) + `aten::addmm` ⇒ `cuLaunchKernelEx` → `nvjet…`; below `depth` levels, `…`. */
function chainText(n: DispatchNode, depth = Infinity): string {
  if (depth <= 0) return n.children.length ? `\`${n.name}\` → …` : `\`${n.name}\``;
  const ops = n.children.filter((k) => k.category === 'cpu_op' || k.category === 'user_annotation');
  const calls = n.children.filter((k) => k.category === 'cuda_runtime' || k.category === 'cuda_driver');
  const name = `\`${n.name}\``;
  if (n.view) {
    const inner: string[] = [];
    for (let k: DispatchNode | undefined = ops[0]; k; k = k.children.find((x) => x.category === 'cpu_op')) inner.push(`\`${k.name}\``);
    return inner.length ? `${name} (→ ${inner.join(' → ')})` : name;
  }
  const parts = ops.map((k) => {
    const t = chainText(k, depth - 1);
    return ops.length > 1 && !k.view && (t.includes(' → ') || t.includes(' ⇒ ')) ? `(${t})` : t;
  });
  const launches = calls
    .filter((k) => k.children.length)
    .map((k) => `\`${k.name}\` → ${[...new Set(k.children.map((g) => `\`${kernelLabel(g.name)}\``))].join(', ')}`);
  let text = name;
  if (parts.length) text += ` → ${parts.join(' + ')}`;
  if (launches.length) text += ` ⇒ ${launches.join(', ')}`;
  return text;
}

/** Chains longer than this are cut to fewer levels (a training step's ops nest deep). */
const CHAIN_MAX_CHARS = 400;
/** How many ops and distinct chains the dispatch section names. */
const DISPATCH_MAX_OPS = 12;
const DISPATCH_MAX_CHAINS = 10;

function shortChain(n: DispatchNode): string {
  let text = chainText(n);
  for (let depth = 6; text.length > CHAIN_MAX_CHARS && depth >= 1; depth--) text = chainText(n, depth);
  return text;
}

function dispatchSection(c: TraceContext): ExplainSection | undefined {
  const { m } = c;
  const scope = c.scope.per === 'annotation' ? { annotation: c.scope.name, instance: 0 } : {};
  const tree = computeDispatchTree(m, scope);
  if ('error' in tree || !tree.roots.length) return undefined;
  const root = tree.roots.length === 1 ? tree.roots[0]! : undefined;
  const top = root ? root.children : tree.roots;
  const ops = top.filter((k) => k.category === 'cpu_op' || k.category === 'user_annotation');
  if (!ops.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const counts = new Map<string, number>();
  for (const o of ops) counts.set(o.name, (counts.get(o.name) ?? 0) + 1);
  const list = [...counts].map(([name, n]) => ({ name, calls: n }));
  const where = root ? `\`${tree.scope.replace(/ \(instance 1 of \d+\)$/, '')}\`${c.instances.length > 1 ? ' (its first instance)' : ''}` : 'The trace';
  sentences.push(
    say(
      'dispatch.top',
      `${where} calls {opCount|op} at its top level${ops.length > 1 ? ', in this order' : ''}: ${ops
        .slice(0, DISPATCH_MAX_OPS)
        .map((_, i) => `\`{order.${i}}\``)
        .join(', ')}${ops.length > DISPATCH_MAX_OPS ? ', and {moreOps} more' : ''}.`,
      { opCount: ops.length, order: ops.slice(0, DISPATCH_MAX_OPS).map((o) => o.name), moreOps: Math.max(0, ops.length - DISPATCH_MAX_OPS), distinct: list },
    ),
  );
  // One sentence per distinct chain, in first-seen order.
  const chains = new Map<string, DispatchNode[]>();
  for (const o of ops) {
    const t = shortChain(o);
    const list2 = chains.get(t);
    if (list2) list2.push(o);
    else chains.set(t, [o]);
  }
  for (const [text, nodes] of [...chains].slice(0, DISPATCH_MAX_CHAINS)) {
    const numbers = { chain: text, calls: nodes.length, cpuUs: mean(nodes.map((n) => n.durUs)), gpuUs: mean(nodes.map((n) => n.gpuUs ?? 0)) };
    const times = nodes.length > 1 ? '{calls}×: ' : '';
    sentences.push(
      say('dispatch.chain', nodes.some((n) => (n.gpuUs ?? 0) > 0) ? `${times}{chain} — {cpuUs} on the host, {gpuUs} of GPU work.` : `${times}{chain} — {cpuUs} on the host, no GPU work.`, numbers),
    );
  }
  if (chains.size > DISPATCH_MAX_CHAINS) {
    sentences.push(say('dispatch.more', 'And {more|more distinct chain}.', { more: chains.size - DISPATCH_MAX_CHAINS }));
  }
  return { id: 'dispatch', title: 'The dispatch chain', readings: ['S2'], sentences, tables: [], more: c.scope.per === 'annotation' ? `kinetoscope tree TRACE --annotation ${c.scope.name}` : 'kinetoscope tree TRACE' };
}

// ------------------------------------------------------------------------------------------------
// S3: views

function viewsSection(c: TraceContext): ExplainSection | undefined {
  const r = c.lazy.ops();
  if (!r.views.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const views = r.views.slice(0, LIST_MAX).map((v) => ({ name: v.name, calls: v.calls, selfCpuUs: v.selfCpuUs }));
  const moreViews = r.views.length - views.length;
  sentences.push(
    say(
      'views.launched-nothing',
      `{viewCalls|call} of view ops launched no GPU work — ${views.map((_, i) => `\`{views.${i}.name}\` ×{views.${i}.calls}`).join(', ')}${moreViews ? ' and {moreViews|more view op}' : ''}: they rewrite a tensor's shape and strides on the CPU and copy no data, {viewSelfCpuUs} of self CPU time in all.`,
      { viewCalls: r.totals.viewCalls, viewSelfCpuUs: r.totals.viewSelfCpuUs, views, moreViews },
    ),
  );
  if (c.instances.length > 1 && c.scope.per !== 'trace') {
    const inScope = viewCallsIn(c);
    sentences.push(
      say('views.per-instance', 'Per `{scope}` instance: {callsPerInstance|view call} and {selfCpuPerInstanceUs} of their self CPU time.', {
        scope: c.scopeName,
        callsPerInstance: inScope.calls / c.instances.length,
        selfCpuPerInstanceUs: inScope.selfNs / 1000 / c.instances.length,
      }),
    );
  }
  const partial = r.views.filter((v) => v.ofCalls > v.calls);
  if (partial.length) {
    sentences.push(
      say(
        'views.some-launched',
        `Some calls of ${partial.map((_, i) => `\`{partial.${i}.name}\` ({partial.${i}.launched} of {partial.${i}.ofCalls})`).join(', ')} did launch GPU work (a copy when the view was impossible): only the others are counted as views.`,
        { partial: partial.map((v) => ({ name: v.name, launched: v.ofCalls - v.calls, ofCalls: v.ofCalls })) },
      ),
    );
  }
  return { id: 'views', title: 'Views: ops that launch no kernel', readings: ['S3'], sentences, tables: [], more: 'kinetoscope ops TRACE' };
}

/** View calls (that launched nothing) inside the scope's instances, and their self CPU ns. */
function viewCallsIn(c: TraceContext): { calls: number; selfNs: number } {
  const { m } = c;
  const names = new Set(c.lazy.ops().views.map((v) => v.name));
  // The launch calls and every event around one (a walk stops at an event already marked: its ancestors are too).
  const launched = new Uint8Array(m.host.length);
  for (let g = 0; g < m.gpu.length; g++) for (let p = m.gpu.launcher[g]!; p >= 0 && !launched[p]; p = m.host.parent[p]!) launched[p] = 1;
  let calls = 0;
  let selfNs = 0;
  for (const inst of c.instances) {
    for (const h of inst.hostEvents) {
      if (m.host.kind[h] !== HostKind.Op || launched[h] || !names.has(hostName(m, h))) continue;
      calls++;
      let self = m.host.durNs[h]!;
      for (let k = m.host.firstChild[h]!; k >= 0; k = m.host.nextSibling[k]!) self -= m.host.durNs[k]!;
      selfNs += self;
    }
  }
  return { calls, selfNs };
}

// ------------------------------------------------------------------------------------------------
// S4: where the bias went

function biasSection(c: TraceContext): ExplainSection | undefined {
  const { m } = c;
  const calls = findGemmCalls(m);
  if (!calls.length) return undefined;
  const rows = c.lazy.ops().epilogues;
  const sentences: ExplainSentence[] = [];
  // The GEMMs with the most calls first; a training step has dozens of shapes.
  const shown = [...rows].sort((x, y) => y.calls - x.calls).slice(0, LIST_MAX);
  for (const r of shown) {
    const shape = r.shape ? formatGemmShape(r.shape) : r.inputDims;
    const base = { op: r.op, shape, calls: r.calls, kernel: r.kernel ? kernelLabel(r.kernel) : '', compiled: r.compiled, via: r.via.join(' → ') };
    const where = r.compiled ? ' inside the compiled graph' : r.via.length ? ' under `{via}`' : '';
    if (r.carried.includes('bias')) {
      const evidence =
        r.evidence === 'op and kernel name'
          ? 'the op takes the bias operand and the kernel name says `bias`'
          : r.evidence === 'op'
            ? 'the op takes the bias operand; the kernel name does not state its epilogue, and no other kernel ran under the op'
            : 'the kernel name says `bias`';
      const others = r.carried.filter((x) => x !== 'bias');
      sentences.push(
        say(
          'bias.epilogue',
          `\`{op}\` {shape}${where} ({calls|call}): the bias is added in the GEMM's epilogue, inside \`{kernel}\` — ${evidence}${others.length ? '; so is the {activation}' : ''} — and no separate add kernel ran.`,
          { ...base, ...(others.length ? { activation: others.join(', ') } : {}) },
        ),
      );
    } else if (r.carried.length) {
      sentences.push(say('bias.activation', `\`{op}\` {shape}${where} ({calls|call}): the {activation} is applied in the GEMM's epilogue, inside \`{kernel}\`.`, { ...base, activation: r.carried.join(', ') }));
    }
    // epilogues.ts reports a separate add only after a forward GEMM, and in a compiled graph
    // only a pointwise Inductor kernel; the wording follows who placed the add.
    if (r.separateAdd) {
      const a = r.separateAdd;
      const addNumbers = {
        ...base,
        addOp: a.op,
        addDims: a.inputDims,
        addKernel: a.kernels[0] ? kernelLabel(a.kernels[0]) : 'no kernel',
        ...(a.meanUs !== undefined ? { addMeanUs: a.meanUs } : { addMeanUs: null }),
        fusedWith: a.fusedWith.map((o) => `\`${o}\``).join(', '),
      };
      sentences.push(
        !r.compiled
          ? say(
              'bias.separate-add',
              `\`{op}\` {shape}${where} takes no bias; the next op, \`{addOp}\` {addDims}, adds it in a kernel of its own (\`{addKernel}\`, {addMeanUs} per call): the product makes a round trip through HBM that an epilogue would not.`,
              addNumbers,
            )
          : a.fusedWith.length
            ? say(
                'bias.separate-add',
                `\`{op}\` {shape}${where} runs without its bias; Inductor adds it in \`{addKernel}\` ({addMeanUs} per call) together with {fusedWith}: that kernel reads the product for those ops anyway, so the bias costs no round trip of its own.`,
                addNumbers,
              )
            : say(
                'bias.separate-add',
                `\`{op}\` {shape}${where} runs without its bias; Inductor adds it in a pointwise kernel of its own (\`{addKernel}\`, {addMeanUs} per call): the product makes a round trip through HBM that an epilogue would not.`,
                addNumbers,
              ),
      );
    }
  }
  if (rows.length > shown.length) {
    const rest = rows.filter((r) => !shown.includes(r));
    const restCarried = rest.filter((r) => r.carried.includes('bias'));
    const restAdds = rest.filter((r) => r.separateAdd);
    sentences.push(
      say('bias.more', 'And {more|more GEMM shape}: {carried} with the bias in the epilogue, {separateAdds} followed by a separate add.', {
        more: rest.length,
        carried: restCarried.length,
        separateAdds: restAdds.length,
      }),
    );
  }
  const carried = rows.filter((r) => r.carried.includes('bias'));
  if (carried.length) {
    const adds = countOps(m, ['aten::add', 'aten::add_']);
    if (adds === 0) sentences.push(say('bias.no-add-op', 'The trace has no `aten::add` at all: the bias never appears as an op of its own.'));
  }
  if (!rows.length) {
    const ops = [...new Set(calls.map((x) => x.op))];
    sentences.push(
      say('bias.none', `None of the {gemmCalls} GEMM calls (${ops.map((_, i) => `\`{ops.${i}}\``).join(', ')}) takes a bias or is followed by a bias add: there is no bias to place.`, {
        gemmCalls: calls.length,
        ops,
      }),
    );
  }
  return { id: 'bias', title: 'Where the bias went', readings: ['S4'], sentences, tables: [], more: 'kinetoscope ops TRACE' };
}

function countOps(m: TraceModel, names: readonly string[]): number {
  const ids = new Set(names.map((n) => m.strings.find(n)).filter((x) => x >= 0));
  let n = 0;
  for (let i = 0; i < m.host.length; i++) if (m.host.kind[i] === HostKind.Op && ids.has(m.host.name[i]!)) n++;
  return n;
}

// ------------------------------------------------------------------------------------------------
// S5: launches

function launchesSection(c: TraceContext): ExplainSection | undefined {
  const { m } = c;
  const l = computeLaunches(m, { top: 0 });
  if (!l.totals.launches && !l.syncs.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const launchApis = l.byApi.filter((r) => r.role === 'kernel-launch' || r.role === 'graph-launch');
  for (const r of launchApis) {
    const kernels = l.byKernel.filter((k) => k.apis[r.api] !== undefined && k.kind === 'kernel').map((k) => kernelLabel(k.name));
    const driver = /^cu[A-Z]/.test(r.api);
    sentences.push(
      say(
        'launches.api',
        `\`{api}\` (${driver ? 'CUDA driver API' : r.role === 'graph-launch' ? 'a CUDA-graph replay' : 'CUDA runtime API'}) launched {kernels|kernel} in {calls|call}, {cpuMeanUs} of CPU per call; the GPU started them a median {latencyMedianUs} after the call returned. It launched: ${kernels
          .slice(0, 6)
          .map((_, i) => `\`{names.${i}}\``)
          .join(', ')}${kernels.length > 6 ? ' and {moreNames} more' : ''}.`,
        { api: r.api, kernels: r.kernels, calls: r.calls, cpuMeanUs: r.cpu.meanUs, latencyMedianUs: r.latency.medianUs, names: kernels.slice(0, 6), moreNames: Math.max(0, kernels.length - 6) },
      ),
    );
  }
  // Each op's calls, for ops that launched something (the article's "a GEMM is a launch; a pointwise op just a launch").
  for (const p of l.ops.filter((o) => o.op !== '(outside any cpu_op)' && o.calls.some((x) => x.kernels + x.memsets + x.memcpys > 0)).slice(0, 8)) {
    sentences.push(
      say('launches.op', 'Each `{op}` ({instances|instance}) makes {pattern}: {meanApiUs} of its {meanOpUs} inside those calls.', {
        op: p.op,
        instances: p.instances,
        pattern: p.pattern,
        meanApiUs: p.meanApiUs,
        meanOpUs: p.meanOpUs,
      }),
    );
  }
  const memsets = l.byKernel.filter((k) => k.kind === 'gpu_memset');
  const gemmHosts = new Set(findGemmCalls(m).map((x) => x.host));
  const memsetsInGemm = findGemmCalls(m).reduce((s, x) => s + x.otherGpu.filter((g) => m.gpu.kind[g] === GpuKind.Memset).length, 0);
  if (memsets.length && memsetsInGemm > 0) {
    const total = memsets.reduce((s, k) => s + k.count, 0);
    sentences.push(
      say('launches.gemm-memset', '{inGemm} of the {memsets} `Memset (Device)` activities ran inside GEMM ops, before their kernel ({memsetMeanUs} each): cuBLAS clearing a workspace, not part of the product.', {
        inGemm: memsetsInGemm,
        memsets: total,
        memsetMeanUs: mean(memsets.map((k) => k.gpu.meanUs)),
        gemmOps: gemmHosts.size,
      }),
    );
  }
  const occupancy = l.byApi.filter((r) => /Occupancy/.test(r.api));
  if (occupancy.length) {
    sentences.push(
      say('launches.occupancy', `${occupancy.map((_, i) => `\`{apis.${i}.api}\` ×{apis.${i}.calls}`).join(', ')}: occupancy queries the library makes before launching.`, {
        apis: occupancy.map((r) => ({ api: r.api, calls: r.calls, cpuUs: r.cpu.totalUs })),
      }),
    );
  }
  for (const s of l.syncsByCause) {
    sentences.push(
      say('launches.sync', `{count|host synchronization} — \`{api}\`, {cause} — blocked the host for {blockedUs} in all, ${s.gpuBusyDuringUs > 0 ? 'while the GPU was busy for {gpuBusyDuringUs} of it' : 'with the GPU already idle'}.`, {
        count: s.count,
        api: s.api,
        cause: s.cause,
        blockedUs: s.blockedUs,
        gpuBusyDuringUs: s.gpuBusyDuringUs,
      }),
    );
  }
  return { id: 'launches', title: 'How the work is launched', readings: ['S5'], sentences, tables: [], more: 'kinetoscope launches TRACE' };
}

// ------------------------------------------------------------------------------------------------
// S6: kernels and what their names say

/** What a decoded kernel name says, in words. */
export function nameSays(d: DecodedKernelName): string {
  const parts: string[] = [];
  if (d.inductor) {
    const ops = d.inductor.ops ?? d.inductor.opCandidates?.[0];
    parts.push(`an Inductor ${d.inductor.kind.replace('_', ' ')} kernel (#${d.inductor.index})${ops ? ` fusing ${ops.map((o) => `\`${o}\``).join(', ')}` : ''}`);
  } else if (d.aten) {
    parts.push(`an ATen \`${d.aten.template}\`${d.aten.op ?? d.aten.functor ? ` running ${d.aten.op ?? d.aten.functor}` : ''}`);
  } else if (d.library) {
    const gen = d.generator && !d.library.toLowerCase().includes(d.generator.toLowerCase()) ? ` ${d.generator}` : '';
    parts.push(`${d.library}${gen}${d.kind === 'gemm' ? ' GEMM' : d.kind !== 'unknown' && d.kind !== 'other' ? ` ${d.kind}` : ''}`);
  } else if (d.kind === 'unknown') {
    parts.push('a name kinetoscope does not decode');
  } else parts.push(d.kind);
  if (d.arch) parts.push(`built for ${d.arch}`);
  if (d.dtype) parts.push(d.dtype);
  if (d.instructionShape) parts.push(`instruction ${d.instructionShape}`);
  if (d.tile) parts.push(`tile ${d.tile}`);
  if (d.stages) parts.push(`${d.stages} stages`);
  if (d.cluster) parts.push(`cluster ${d.cluster}`);
  if (d.layout) parts.push(`layout ${d.layout}`);
  if (d.epilogue?.length) parts.push(`epilogue ${d.epilogue.join(' + ')}`);
  if (d.splitK) parts.push('split-K');
  if (d.tensorCores) parts.push('tensor cores');
  return parts.join(', ');
}

function kernelsSection(c: TraceContext, limit: number): ExplainSection | undefined {
  const cat = computeKernelCatalog(c.m);
  const kernels = cat.entries.filter((e) => e.category === 'kernel');
  if (!kernels.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const kernelUs = kernels.reduce((s, e) => s + e.totalUs, 0);
  sentences.push(
    say('kernels.count', '{names|distinct kernel} ran {calls|time}, {kernelUs} of kernel time ({gpuShare} of all GPU activity time).', {
      names: kernels.length,
      calls: kernels.reduce((s, e) => s + e.calls, 0),
      kernelUs,
      gpuShare: cat.totalUs > 0 ? kernelUs / cat.totalUs : NaN,
    }),
  );
  for (const e of kernels.slice(0, limit)) {
    sentences.push(
      say('kernels.kernel', '`{kernel}` — {calls|call}, {meanUs} each, {gpuShare} of GPU time, under `{op}`, launched by `{api}`: {says}.', {
        kernel: kernelLabel(e.name),
        name: e.name,
        calls: e.calls,
        meanUs: e.meanUs,
        gpuShare: e.share,
        op: e.ops[0]?.name ?? '(none)',
        api: e.launchedBy[0]?.name ?? '(none)',
        says: nameSays(e.decoded),
      }),
    );
  }
  if (kernels.length > limit) sentences.push(say('kernels.more', 'And {more|more kernel}, {moreUs} in all.', { more: kernels.length - limit, moreUs: kernels.slice(limit).reduce((s, e) => s + e.totalUs, 0) }));
  const others = cat.entries.filter((e) => e.category !== 'kernel');
  for (const e of others) {
    sentences.push(say('kernels.other', '`{name}` ({category}) — {calls|time}, {meanUs} each, under `{op}`.', { name: e.name, category: e.category, calls: e.calls, meanUs: e.meanUs, op: e.ops[0]?.name ?? '(none)' }));
  }
  return { id: 'kernels', title: 'The kernels and what their names say', readings: ['S6'], sentences, tables: [], more: 'kinetoscope kernels TRACE' };
}

// ------------------------------------------------------------------------------------------------
// S7: the GEMM table

/** How many GEMM shapes the table shows (most kernel time first). */
const GEMM_TABLE_MAX = 16;
/** An alignment finding gets a sentence from this share of the trace's kernel time. */
const ALIGNMENT_MIN_SHARE = 0.01;

/** `other`: the trace of `--vs`, whose same or padded shapes the alignment sentences cite. */
function gemmSection(c: TraceContext, other?: TraceContext): ExplainSection | undefined {
  const r = c.lazy.gemm();
  if (!r.rows.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const dev = r.device;
  if (dev?.peaks) {
    sentences.push(
      say('gemms.device', 'Peaks for {device}: {peakName}, from its datasheet unless `--peaks` says otherwise.', { device: dev.name ?? `device ${dev.id}`, peakName: dev.peaks.name }),
    );
  }
  const rows = r.rows.slice(0, GEMM_TABLE_MAX).map((x) => ({
    op: x.op,
    shape: x.shape ? formatGemmShape(x.shape, false) : x.inputDims,
    mnk: x.shape ? `${x.shape.m}×${x.shape.n}×${x.shape.k}` : '',
    dtype: x.shape?.dtype ?? '',
    flops: x.shape?.flops ?? null,
    bytes: x.shape?.bytes ?? null,
    flopPerByte: x.arithmeticIntensity ?? null,
    callsPerStep: x.callsPerStep ?? x.calls,
    meanUs: x.meanUs ?? null,
    tflops: x.tflops ?? null,
    peakPct: x.percentOfPeak ?? null,
    bound: x.bound ?? '',
    tile: x.kernel?.decoded.tile ?? '',
    kernel: x.kernel ? kernelLabel(x.kernel.name) : '',
  }));
  if (r.rows.length > GEMM_TABLE_MAX) {
    sentences.push(say('gemms.table-more', 'The table shows the {shown} GEMM shapes with the most kernel time of {shapes}.', { shown: GEMM_TABLE_MAX, shapes: r.rows.length }));
  }
  for (const [i, x] of r.rows.entries()) {
    if (i >= LIST_MAX) {
      sentences.push(say('gemms.more', 'And {more|more GEMM shape}.', { more: r.rows.length - LIST_MAX }));
      break;
    }
    if (!x.shape || x.meanUs === undefined) continue;
    const row = rows[i]!; // i < LIST_MAX ≤ GEMM_TABLE_MAX
    const numbers = {
      ...row,
      m: x.shape.m,
      n: x.shape.n,
      k: x.shape.k,
      batch: x.shape.batch,
      calls: x.calls,
      ...(x.peakTflops !== undefined ? { peakTflops: x.peakTflops, peakDtype: x.peakDtype ?? '' } : {}),
      ...(x.ridgePoint !== undefined ? { ridgeFlopPerByte: x.ridgePoint } : {}),
    };
    const batch = x.shape.batch > 1 ? '{batch}·' : '';
    const peak = x.percentOfPeak !== undefined ? ', {peakPct} of the {peakDtype} dense peak ({peakTflops} TFLOP/s)' : '';
    const bound = x.bound ? `; {flopPerByte} FLOP per byte against a ridge point of {ridgeFlopPerByte}: ${x.bound}-bound` : '';
    sentences.push(
      say(
        'gemms.row',
        `\`{op}\` {shape} ({dtype}): M·N·K = {m}·{n}·{k}, so 2·${batch}M·N·K = {flops} FLOPs; {calls|call}, {meanUs} each, {tflops} TFLOP/s${peak}${bound}; kernel \`{kernel}\`${x.kernel?.decoded.tile ? ', tile {tile}' : ''}.`,
        numbers,
      ),
    );
  }
  // The tile picked per shape (the article's "why does down_proj pick another tile?").
  const byOp = new Map<string, typeof r.rows>();
  for (const x of r.rows) if (x.shape && x.kernel?.decoded.tile) byOp.set(x.op, [...(byOp.get(x.op) ?? []), x]);
  for (const [op, xs] of byOp) {
    const tiles = new Set(xs.map((x) => x.kernel!.decoded.tile));
    if (tiles.size < 2) continue;
    const shapes = xs.slice(0, LIST_MAX).map((x) => ({ shape: formatGemmShape(x.shape!, false), tile: x.kernel!.decoded.tile!, kernel: kernelLabel(x.kernel!.name), grid: x.kernel!.grid ? x.kernel!.grid.join('×') : '' }));
    sentences.push(
      say(
        'gemms.tile-per-shape',
        `\`{op}\` runs a different kernel per shape: ${shapes.map((s, i) => `{shapes.${i}.shape} → tile {shapes.${i}.tile}${s.grid ? ` (grid {shapes.${i}.grid})` : ''}`).join('; ')}${xs.length > shapes.length ? '; and {moreShapes|more shape}' : ''}. The library picks the kernel for each M, N, K; the names say which.`,
        { op, shapes, moreShapes: xs.length - shapes.length },
      ),
    );
  }
  // The alignment rule (gemm-alignment.ts), for GEMMs with a share of the kernel time worth a sentence.
  for (const f of other ? findAlignmentIssues(r, r.traceKernelUs, other.lazy.gemm()) : r.alignment) {
    if ((f.shareOfKernelTime ?? 0) < ALIGNMENT_MIN_SHARE) continue;
    const best = f.compare.find((x) => x.where === 'same trace');
    const there = f.compare.find((x) => x.where === 'other trace' && x.percentOfPeak !== undefined);
    sentences.push(
      say(
        'gemms.alignment',
        `\`{op}\` {m}×{n}×{k} ({dtype}): {dimsText} — not a multiple of {multiple} — runs on an align{kernelAlignment} kernel (\`{kernel}\`)${f.percentOfPeak !== undefined ? ' at {peakPct} of peak' : ''}, {kernelTimeShare} of the trace's kernel time; kernels with {multiple}-element (16-byte) alignment need every dim a multiple of {multiple}${best ? '; the largest aligned {dtype} GEMM here reaches {comparePeakPct}' : ''}${there ? (there.m === f.m && there.n === f.n && there.k === f.k ? '; in `{otherTrace}` the same shape reaches {otherPeakPct}' : '; in `{otherTrace}` the product padded to {otherM}×{otherN}×{otherK} reaches {otherPeakPct}') : ''}.`,
        {
          op: f.op,
          m: f.m,
          n: f.n,
          k: f.k,
          dtype: f.dtype,
          dimsText: f.dims.map((d) => `${d.dim} = ${d.size} (padded: ${d.padded})`).join(', '),
          multiple: f.multiple,
          kernelAlignment: f.kernelAlignment,
          kernel: kernelLabel(f.kernel),
          ...(f.percentOfPeak !== undefined ? { peakPct: f.percentOfPeak } : {}),
          kernelTimeShare: f.shareOfKernelTime ?? 0,
          ...(best?.percentOfPeak !== undefined ? { comparePeakPct: best.percentOfPeak } : {}),
          ...(there && other ? { otherTrace: other.label, otherM: String(there.m), otherN: String(there.n), otherK: String(there.k), otherPeakPct: there.percentOfPeak! } : {}),
        },
      ),
    );
  }
  const table: ExplainTable = {
    id: 'gemms',
    columns: [
      { key: 'op', header: 'Op' },
      { key: 'shape', header: 'A × B' },
      { key: 'mnk', header: 'M×N×K' },
      { key: 'flops', header: 'FLOPs' },
      { key: 'callsPerStep', header: r.stepCount ? 'Calls/step' : 'Calls' },
      { key: 'meanUs', header: 'Mean' },
      { key: 'tflops', header: 'TFLOP/s' },
      { key: 'peakPct', header: '% peak' },
      { key: 'bound', header: 'Bound' },
      { key: 'tile', header: 'Tile' },
      { key: 'kernel', header: 'Kernel' },
    ],
    rows,
  };
  return { id: 'gemms', title: 'The GEMMs', readings: ['S7'], sentences, tables: [table], more: 'kinetoscope gemm TRACE' };
}

// ------------------------------------------------------------------------------------------------
// S8, S10, S11: against another trace

/** This trace (`c`) is A, the other B: every number reads A → B. */
function comparisonSection(c: TraceContext, other: TraceContext, d: TraceDiff, km: KernelMatch): ExplainSection {
  const sentences: ExplainSentence[] = [];
  const scopeName = d.scope.name ?? (d.scope.per === 'step' ? 'step' : 'trace');
  sentences.push(
    say('comparison.scope', '`{a}` (A) against `{b}` (B), per `{scope}`: {instancesA|instance} in A, {instancesB} in B; the numbers are per instance.', {
      a: c.label,
      b: other.label,
      scope: scopeName,
      instancesA: d.scope.instancesA,
      instancesB: d.scope.instancesB,
    }),
  );
  // The same work, the longest first; past LIST_MAX one sentence sums the rest (a training step
  // has dozens of kernels that compile leaves alone: one bullet each reads as noise).
  const perInstanceUs = (x: { count: number; meanUs: number }) => (Number.isFinite(x.meanUs) ? x.count * x.meanUs : 0);
  const same = [...d.kernels.same].sort((x, y) => perInstanceUs(y.a) - perInstanceUs(x.a));
  const rest = same.slice(LIST_MAX);
  for (const k of same.slice(0, LIST_MAX)) {
    sentences.push(
      say('comparison.same-kernel', `\`{kernel}\`${k.shapes ? ' on {shapes}' : ''} runs in both ({countA} vs {countB} per instance, {meanAUs} vs {meanBUs} each): the same name and shapes — the same GPU work.`, {
        kernel: kernelLabel(k.name),
        shapes: k.shapes,
        countA: k.a.count,
        countB: k.b.count,
        meanAUs: k.a.meanUs,
        meanBUs: k.b.meanUs,
      }),
    );
  }
  if (rest.length) {
    sentences.push(
      say('comparison.same-kernels-more', '{more|more kernel} {moreVerb} in both with the same name and shapes (the same GPU work): {aUs} of kernel time per instance in A, {bUs} in B.', {
        more: rest.length,
        moreVerb: rest.length === 1 ? 'runs' : 'run',
        aUs: rest.reduce((t, k) => t + perInstanceUs(k.a), 0),
        bUs: rest.reduce((t, k) => t + perInstanceUs(k.b), 0),
      }),
    );
  }
  const fusedA = new Map(c.lazy.fusion().fusedKernels.map((f) => [f.name, f]));
  const fusedB = new Map(other.lazy.fusion().fusedKernels.map((f) => [f.name, f]));
  // The same matcher's savings, replacement by replacement (fusion --vs reads them the same way).
  const savings = d.kernels.replaced.length ? fusionFromMatch(c.m, other.m, km, d.kernels.replaced, scopeName).replacements : [];
  for (const [index, r] of d.kernels.replaced.entries()) {
    const rule = r.by === 'op-and-shape' ? 'the same op and Input Dims' : r.by === 'fused-ops' ? "Inductor's fused op list" : 'its position between the same kernels';
    const replaced = r.a.map((k) => ({ kernel: kernelLabel(k.name), op: k.op ?? '(no op)', meanUs: k.durUs }));
    const numbers = {
      kernel: kernelLabel(r.b.name),
      ...(r.laterStages ? { laterStages: r.laterStages.map((x) => kernelLabel(x.name)) } : {}),
      kernelUs: r.bUs,
      replaced,
      replacedUs: r.aUs,
      savedUs: r.aUs - r.bUs,
      ratio: r.aUs > 0 ? r.bUs / r.aUs : NaN,
      count: r.count,
      rule,
    };
    sentences.push(
      say(
        'comparison.replaced',
        `\`{kernel}\`${r.laterStages ? ` with its later stage${r.laterStages.length > 1 ? 's' : ''} ${r.laterStages.map((_, i) => `\`{laterStages.${i}}\``).join(', ')}` : ''} ({kernelUs}) does the work of ${replaced.map((x, i) => `\`{replaced.${i}.kernel}\`${x.op !== x.kernel ? ` under \`{replaced.${i}.op}\`` : ''} ({replaced.${i}.meanUs})`).join(' and ')} — {replacedUs} in A — matched by {rule}: ${r.aUs >= r.bUs ? '{savedUs} less' : '{savedUs} more'} per occurrence ({ratio}), {count|occurrence} per instance.`,
        { ...numbers, savedUs: Math.abs(numbers.savedUs) },
      ),
    );
    const m = savings[index];
    if (m && m.hbmBytesSaved > 0) {
      sentences.push(
        say(
          'comparison.hbm-saved',
          `\`{kernel}\` keeps ${m.intermediates.map((_, i) => `the {intermediates.${i}.dims} {intermediates.${i}.dtype} intermediate between \`{intermediates.${i}.producer}\` and \`{intermediates.${i}.consumer}\``).join(', ')} on chip: {intermediateBytes} no longer written to HBM and read back: {hbmSavedBytes} less traffic per instance.`,
          {
            kernel: kernelLabel(r.b.name),
            intermediates: m.intermediates.map((x) => ({ dims: `[${x.dims.join(',')}]`, dtype: shortDtype(x.dtype), producer: x.producer, consumer: x.consumer, bytes: x.bytes })),
            intermediateBytes: m.intermediateBytes,
            hbmSavedBytes: m.hbmBytesSaved,
          },
        ),
      );
    }
    // S11: a hand-written kernel against Inductor's, either way round.
    const hand = fusedB.get(r.b.name)?.generator === 'hand-written' ? { name: r.b.name, us: r.bUs, side: 'B' } : r.a.length === 1 && fusedA.get(r.a[0]!.name)?.generator === 'hand-written' ? { name: r.a[0]!.name, us: r.aUs, side: 'A' } : undefined;
    const inductor = hand?.side === 'B' ? (r.a.length === 1 && fusedA.get(r.a[0]!.name)?.generator === 'inductor' ? { name: r.a[0]!.name, us: r.aUs } : undefined) : hand && fusedB.get(r.b.name)?.generator === 'inductor' ? { name: r.b.name, us: r.bUs } : undefined;
    if (hand && inductor) {
      sentences.push(
        say('comparison.hand-vs-inductor', 'The hand-written `{hand}` takes {handUs} where Inductor\'s `{inductor}` takes {inductorUs}: {ratio} the time, {diffUs} {faster} per call.', {
          hand: hand.name,
          handUs: hand.us,
          inductor: inductor.name,
          inductorUs: inductor.us,
          ratio: hand.us / inductor.us,
          diffUs: Math.abs(inductor.us - hand.us),
          faster: hand.us <= inductor.us ? 'faster' : 'slower',
        }),
      );
    }
  }
  for (const k of d.kernels.onlyA) {
    sentences.push(say('comparison.only-a', 'Only in A: `{kernel}` under `{op}`, {count} per instance, {meanUs} each; unmatched: {reason}.', { kernel: kernelLabel(k.name), op: k.op ?? '(no op)', count: k.count, meanUs: k.meanUs, reason: k.reason }));
  }
  for (const k of d.kernels.onlyB) {
    sentences.push(say('comparison.only-b', 'Only in B: `{kernel}` under `{op}`, {count} per instance, {meanUs} each; unmatched: {reason}.', { kernel: kernelLabel(k.name), op: k.op ?? '(no op)', count: k.count, meanUs: k.meanUs, reason: k.reason }));
  }
  const list = (id: string, lead: string, xs: readonly { name: string; a: number; b: number; aCpuUs: number; bCpuUs: number }[], side: 'a' | 'b') => {
    if (!xs.length) return;
    const items = xs.map((x) => ({ name: x.name, calls: side === 'a' ? x.a : x.b, cpuUs: side === 'a' ? x.aCpuUs : x.bCpuUs }));
    sentences.push(say(id, `${lead} ${items.map((_, i) => `\`{ops.${i}.name}\` ×{ops.${i}.calls}`).join(', ')}.`, { ops: items }));
  };
  const removed = d.ops.removed;
  const removedViews = removed.filter((o) => c.lazy.ops().views.some((v) => v.name === o.name));
  list('comparison.ops-removed', 'CPU ops in A only (per instance):', removed, 'a');
  if (removedViews.length) {
    sentences.push(
      say('comparison.views-removed', `The view ops ${removedViews.map((_, i) => `\`{views.${i}}\``).join(', ')} are gone from B: {viewCpuUs} of A's host time per instance (their total CPU time, nested ones counted in their parent too); the GPU work does not change for it.`, {
        views: removedViews.map((o) => o.name),
        viewCpuUs: removedViews.filter((o) => !removedViews.some((p) => p !== o && isNestedView(c, p.name, o.name))).reduce((s, o) => s + o.aCpuUs, 0),
      }),
    );
  }
  const added = d.ops.added;
  const preOps = added.filter((o) => compilePreOpRole(o.name) !== undefined);
  list('comparison.ops-added', 'CPU ops in B only (per instance):', added, 'b');
  if (preOps.length) {
    const own = preOps.map((o) => ({ name: o.name, role: compilePreOpRole(o.name)! }));
    const cb = other.lazy.compile();
    const scopes = cb.annotations.filter((s) => s.name === scopeName);
    const numbers = { preOps: own.map((o) => o.name), count: own.length, ...(scopes.length ? { preOpsCpuUs: mean(scopes.map((s) => s.preOpsCpuUs)), preOpsShare: mean(scopes.map((s) => s.preOpsShare)) } : {}) };
    sentences.push(
      say(
        'comparison.compile-pre-ops',
        `Of those, {count} are the compile stack's pre-ops (${own.map((_, i) => `\`{preOps.${i}}\``).join(', ')})${scopes.length ? ': {preOpsCpuUs} of self CPU per instance, {preOpsShare} of its host time' : ''}.`,
        numbers,
      ),
    );
  }
  for (const ch of d.ops.changed) {
    sentences.push(say('comparison.ops-changed', '`{name}` ({category}) is called {a|time} per instance in A, {b} in B.', { name: ch.name, category: ch.category, a: ch.a, b: ch.b }));
  }
  const per = d.perAnnotation.find((p) => p.name === scopeName) ?? d.perAnnotation[0];
  if (per) {
    sentences.push(
      say('comparison.per-instance', 'Per `{scope}`: {kernelsA|kernel} in A, {kernelsB} in B; GPU time {gpuAUs} → {gpuBUs} ({gpuDeltaUs}); host time {cpuAUs} → {cpuBUs} ({cpuDeltaUs}); launches {launchesA} → {launchesB}.', {
        scope: per.name,
        kernelsA: per.a.kernels,
        kernelsB: per.b.kernels,
        gpuAUs: per.a.gpuUs,
        gpuBUs: per.b.gpuUs,
        gpuDeltaUs: per.delta.gpuUs,
        cpuAUs: per.a.cpuUs,
        cpuBUs: per.b.cpuUs,
        cpuDeltaUs: per.delta.cpuUs,
        launchesA: per.a.launches,
        launchesB: per.b.launches,
      }),
    );
  }
  for (const n of d.notes) sentences.push(say('comparison.note', 'Note: {note}.', { note: n.replace(/\.$/, '') }));
  return { id: 'comparison', title: 'Against the other trace', readings: ['S8', 'S10', 'S11'], sentences, tables: [], more: 'kinetoscope diff TRACE OTHER' };
}

/** Whether a view op named `inner` ran nested inside one named `outer` (aten::transpose inside aten::t). */
function isNestedView(c: TraceContext, outer: string, inner: string): boolean {
  const { m } = c;
  const id = m.strings.find(inner);
  if (id < 0) return false;
  for (let i = 0; i < m.host.length; i++) {
    if (m.host.name[i] !== id) continue;
    for (let p = m.host.parent[i]!; p >= 0; p = m.host.parent[p]!) if (hostName(m, p) === outer) return true;
  }
  return false;
}

// ------------------------------------------------------------------------------------------------
// S9: fusion

/** How many could-fuse chains the fusion section names (most HBM bytes first). */
const FUSION_MAX_CHAINS = 5;

function fusionSection(c: TraceContext): ExplainSection | undefined {
  const f = c.lazy.fusion();
  const sentences: ExplainSentence[] = [];
  const fused = [...f.fusedKernels].sort((x, y) => y.totalUs - x.totalUs);
  for (const k of fused.slice(0, LIST_MAX)) {
    const base = { kernel: kernelLabel(k.name), calls: k.calls, meanUs: k.meanUs, kind: k.kind, ops: [...k.ops], launchedBy: k.launchedBy.join(', ') };
    if (k.generator === 'inductor') {
      sentences.push(inductorKernelSentence(k, base));
    } else {
      sentences.push(
        say('fusion.hand-written', `\`{kernel}\` is no library's kernel${k.outsideOp ? ' and ran outside any ATen op' : ''} (launched by \`{launchedBy}\`): a hand-written kernel, {calls|call}, {meanUs} each.`, base),
      );
    }
  }
  if (fused.length > LIST_MAX) {
    sentences.push(say('fusion.more-fused', 'And {more|more fused or hand-written kernel}, {moreUs} in all.', { more: fused.length - LIST_MAX, moreUs: fused.slice(LIST_MAX).reduce((x, k) => x + k.totalUs, 0) }));
  }
  // The chains with the most HBM traffic at stake first; long chains are named by their ends.
  const ranked = [...f.opportunities].sort((x, y) => y.roundTripBytes - x.roundTripBytes);
  for (const o of ranked.slice(0, FUSION_MAX_CHAINS)) {
    const shown = o.kernels.length <= 4 ? o.kernels : [o.kernels[0]!, o.kernels[1]!, o.kernels[o.kernels.length - 1]!];
    const mids = o.intermediates.slice(0, 2);
    const numbers = {
      annotation: o.annotation || '(no annotation)',
      kernelCount: o.kernels.length,
      kernels: shown.map((k) => ({ op: k.op, kernel: k.shortName, meanUs: k.meanUs })),
      intermediates: mids.map((x) => ({ dims: `[${x.dims.join(',')}]`, dtype: shortDtype(x.dtype), bytes: x.bytes, producer: x.producer, consumer: x.consumer })),
      moreIntermediates: o.intermediates.length - mids.length,
      intermediateBytes: o.intermediateBytes,
      roundTripBytes: o.roundTripBytes,
      timeUs: o.timeUs,
      instances: o.instances,
      ...(o.estimatedFusedUs !== undefined ? { estimatedFusedUs: o.estimatedFusedUs } : {}),
    };
    const ops = o.kernels.length <= 4 ? shown.map((_, i) => `\`{kernels.${i}.op}\``).join(' then ') : '`{kernels.0.op}` then `{kernels.1.op}` … `{kernels.2.op}` ({kernelCount|kernel})';
    const outputs = mids.map((_, i) => `the {intermediates.${i}.dims} {intermediates.${i}.dtype} output of \`{intermediates.${i}.producer}\` ({intermediates.${i}.bytes})`).join(' and ');
    const verb = o.intermediates.length > 1 ? 'are' : 'is';
    // A chain may run across GEMMs that do not read the intermediate (fusion.ts): say so.
    const betweenOps = [...new Set(o.between.flat().map((b) => b.op))];
    const across = betweenOps.length > 0;
    if (across) (numbers as Record<string, unknown>)['betweenOps'] = betweenOps.map((x) => `\`${x}\``).join(', ');
    sentences.push(
      say(
        'fusion.opportunity',
        `In \`{annotation}\`, ${ops} ${across ? 'are memory-bound and run one after the other — only {betweenOps} runs between them, without reading the intermediate' : 'run back to back, memory-bound'}: ${outputs}${o.intermediates.length > mids.length ? ' and {moreIntermediates|more intermediate}' : ''} ${verb} written to HBM and read straight back — {intermediateBytes} per instance, {roundTripBytes} of traffic, while the chain takes {timeUs} of kernel time${o.estimatedFusedUs !== undefined ? '; one fused kernel at the same bandwidth would take about {estimatedFusedUs}' : ''}.`,
        numbers,
      ),
    );
  }
  if (ranked.length > FUSION_MAX_CHAINS) {
    const rest = ranked.slice(FUSION_MAX_CHAINS);
    sentences.push(say('fusion.more', 'And {more|more chain}, {moreBytes} of intermediates per instance in all.', { more: rest.length, moreBytes: rest.reduce((x, o) => x + o.intermediateBytes, 0) }));
  }
  if (!sentences.length) return undefined;
  return { id: 'fusion', title: 'What fused, and what could', readings: ['S9'], sentences, tables: [], more: 'kinetoscope fusion TRACE' };
}

/** Inductor op names of matrix products (a template kernel computes one). */
const GEMM_OP_NAMES = new Set(['mm', 'addmm', 'bmm', 'baddbmm', '_scaled_mm', '_int_mm', 'convolution']);

/** Inductor's own prims (torch/_inductor/inductor_prims.py): they exist only in compiled graphs, never as an eager op. */
const INDUCTOR_PRIM = /^(?:inductor_|prepare_softmax_online$|_low_memory_max_pool|_low_memory_max_pool_offsets_to_indices$|cvt_e8m0_rceil$|force_stride_order$)/;

/**
 * What an Inductor kernel's name says it fused, claiming only what holds: the ops that launch a
 * kernel in eager mode (views launch none, views.ts), a fusion only where two or more of them
 * share the kernel, and a template kernel read as the matrix product it computes with the rest
 * in its epilogue.
 */
function inductorKernelSentence(k: FusionResult['fusedKernels'][number], base: ExplainSentence['numbers']): ExplainSentence {
  const launching = k.ops.filter((o) => !isViewOpName(`aten::${o}`) && !INDUCTOR_PRIM.test(o));
  const views = k.ops.filter((o) => isViewOpName(`aten::${o}`));
  const prims = k.ops.filter((o) => INDUCTOR_PRIM.test(o));
  const list = (xs: readonly string[]) => xs.map((o) => `\`${o}\``).join(', ');
  const numbers = { ...base, launchingOps: [...launching], viewOps: [...views], primOps: [...prims], opList: list(launching), viewList: list(views), primList: list(prims) };
  const tail = '({calls|call}, {meanUs} each)';
  const viewsNote = views.length === 1 ? '; {viewList} is a view, which launches no kernel' : views.length ? '; {viewList} are views, which launch no kernel' : '';
  const primsNote = prims.length ? `; {primList} ${prims.length === 1 ? 'is an Inductor prim' : 'are Inductor prims'}, not an eager op` : '';
  if (!k.ops.length) return say('fusion.inductor', `\`{kernel}\` is an Inductor {kind} kernel ${tail}; its name does not split into ops one way only.`, numbers);
  if (k.kind === 'template') {
    const gemm = launching.filter((o) => GEMM_OP_NAMES.has(o));
    const rest = launching.filter((o) => !GEMM_OP_NAMES.has(o));
    return say(
      'fusion.inductor',
      `\`{kernel}\` is an Inductor Triton template ${gemm.length ? `computing ${list(gemm)}` : 'kernel'}${rest.length ? ` with ${list(rest)} in its epilogue` : ''} ${tail}${viewsNote}${primsNote}.`,
      { ...numbers, gemmOps: gemm, epilogueOps: rest },
    );
  }
  if (launching.length >= 2) {
    return say(
      'fusion.inductor',
      `\`{kernel}\` is an Inductor {kind} kernel fusing {opList}: one kernel for ops that each launch a kernel of their own when run eagerly ${tail}${viewsNote}${primsNote}.`,
      numbers,
    );
  }
  if (launching.length === 1) {
    return say(
      'fusion.inductor',
      `\`{kernel}\` is an Inductor {kind} kernel computing {opList} ${tail}: one op's work, no fusion across ops${viewsNote}${primsNote}.`,
      numbers,
    );
  }
  return say('fusion.inductor', `\`{kernel}\` is an Inductor {kind} kernel whose name lists only views ({viewList}), which launch nothing in eager mode: it copies data into the layout they describe ${tail}.`, numbers);
}

// ------------------------------------------------------------------------------------------------
// S10: compile overhead

function compileSection(c: TraceContext): ExplainSection | undefined {
  const co = c.lazy.compile();
  if (!co.compiled) return undefined;
  const sentences: ExplainSentence[] = [];
  const scopes = co.annotations.filter((s) => s.name === c.scopeName);
  const xs = scopes.length ? scopes : co.steps;
  if (xs.length) {
    const preOps = new Map<string, number>();
    for (const s of xs) for (const p of s.preOps) preOps.set(p.name, (preOps.get(p.name) ?? 0) + p.selfCpuUs);
    const list = [...preOps].map(([name, us]) => ({ name, selfCpuUs: us / xs.length }));
    const wrapperCpuUs = mean(xs.map((s) => s.wrapperCpuUs));
    // The compiled graph's own host code (`## Call CompiledFxGraph … ##` self CPU) is named apart
    // from guards and cache lookups and from the layers that call the graph (compile-overhead.ts).
    sentences.push(
      say(
        'compile.pre-ops',
        `Each \`{scope}\` runs {regions|compiled region}; the compile stack's events take {preOpsCpuUs} of self CPU per instance ({preOpsShare} of its host time): ${
          wrapperCpuUs > 0 ? "{wrapperCpuUs} is the compiled graph's own host code (the self CPU of `## Call CompiledFxGraph … ##`: Inductor's Python wrapper, its buffer allocations and the Python side of each kernel launch), " : ''
        }{guardsCpuUs} guards and cache lookups, {callLayersCpuUs} the layers that call the graph (region, AOTDispatcher, CompiledFunction); {beforeFirstLaunchUs} pass from the cache lookup to the first kernel launch.`,
        {
          scope: scopes.length ? c.scopeName : 'step',
          regions: mean(xs.map((s) => s.regions)),
          preOps: list,
          preOpsCpuUs: mean(xs.map((s) => s.preOpsCpuUs)),
          preOpsShare: mean(xs.map((s) => s.preOpsShare)),
          wrapperCpuUs,
          guardsCpuUs: mean(xs.map((s) => s.guardsCpuUs)),
          callLayersCpuUs: mean(xs.map((s) => s.callLayersCpuUs)),
          beforeFirstLaunchUs: mean(xs.map((s) => s.beforeFirstLaunchUs)),
        },
      ),
    );
  }
  for (const f of co.findings) {
    if (f.code === 'PRE_LAUNCH_OVERHEAD') continue; // said above
    if (f.code === 'PROFILER_OPTIONS_INFLATE_HOST_TIME') continue; // said in S1 (steps.profiler-options)
    sentences.push(say(`compile.finding.${f.code}`, '{message}', { message: f.message, code: f.code, severity: f.severity, evidence: f.evidence as ExplainValue }));
  }
  return { id: 'compile', title: 'What compiling costs on the host', readings: ['S10'], sentences, tables: [], more: 'kinetoscope compile TRACE' };
}

// ------------------------------------------------------------------------------------------------
// S12: overhead-bound or GPU-bound

function verdictSection(c: TraceContext): ExplainSection | undefined {
  const s = c.lazy.steps();
  const o = s.stats.overall;
  if (!s.steps.length || !o) return undefined;
  const sentences: ExplainSentence[] = [];
  const unit = s.source === 'profiler-steps' ? 'steps' : s.source === 'annotations' ? 'top-level annotations (taken as steps)' : 'trace';
  const counts = (['gpu-bound', 'overhead-bound', 'no-gpu-work'] as const).filter((v) => s.stats.verdicts[v] > 0).map((v) => ({ verdict: v, count: s.stats.verdicts[v] }));
  // Per-step figures ride in the summary's numbers (for scripts); the text says one verdict.
  const perStep = s.steps.map((r) => ({
    name: r.name,
    durUs: r.durUs,
    verdict: r.verdict + (r.borderline ? ' (borderline)' : ''),
    gpuBusyUs: r.gpuBusyUs,
    gpuIdleUs: r.gpuIdleUs,
    gpuIdleShare: 1 - r.gpuBusyShare,
  }));
  const numbers = {
    steps: s.steps.length,
    verdict: o.verdict + (o.borderline ? ' (borderline)' : ''),
    medianStep: o.medianStep,
    medianStepBusyShare: o.medianStepBusyShare,
    busyMinShare: o.gpuBusyShare.min,
    busyMaxShare: o.gpuBusyShare.max,
    reason: o.reason,
    verdicts: counts,
    perStep,
  };
  sentences.push(
    s.steps.length === 1
      ? say('verdict.summary', `The one ${unit === 'trace' ? 'trace window' : 'step'}, \`{medianStep}\`, is {verdict}: {reason}.`, numbers)
      : say(
          'verdict.summary',
          `Over {steps} ${unit}: {verdict} — GPU busy {medianStepBusyShare} of the median step, \`{medianStep}\` ({busyMinShare} to {busyMaxShare} over the ${unit === 'trace' ? 'windows' : 'steps'}); {reason}.`,
          numbers,
        ),
  );
  if (o.split) {
    sentences.push(
      say(
        'verdict.split',
        `The per-step verdicts split — ${counts.map((_, i) => `{verdicts.${i}.count} {verdicts.${i}.verdict}`).join(', ')} — because the GPU busy share sits near the 50% line ({busyMinShare} to {busyMaxShare}): one workload near the line, read by the median step above.`,
        numbers,
      ),
    );
  }
  // Per step: only the steps whose verdict differs from the overall one, and only when the
  // steps did not merely split around the line (said above); at most LIST_MAX.
  const differ = o.split ? [] : s.steps.filter((r) => r.verdict !== o.verdict);
  for (const r of differ.slice(0, LIST_MAX)) {
    sentences.push(
      say('verdict.step', '`{name}` ({durUs}) differs: {verdict} — GPU busy {gpuBusyUs}, idle {gpuIdleUs} ({gpuIdleShare} of the step); {reason}.', {
        name: r.name,
        durUs: r.durUs,
        verdict: r.verdict + (r.borderline ? ' (borderline)' : ''),
        gpuBusyUs: r.gpuBusyUs,
        gpuIdleUs: r.gpuIdleUs,
        gpuIdleShare: 1 - r.gpuBusyShare,
        reason: r.reason,
      }),
    );
  }
  if (differ.length > LIST_MAX) sentences.push(say('verdict.more', 'And {more|more step} with another verdict.', { more: differ.length - LIST_MAX }));
  const bound = o.verdict;
  if (bound === 'overhead-bound') {
    sentences.push(
      say('verdict.meaning.overhead', 'While the GPU is idle it waits for the host: removing all host overhead could save at most the idle {gpuIdleUs} of a step (mean), a faster GPU at most the busy {gpuBusyUs}.', {
        gpuIdleUs: s.stats.gpuIdleUs.mean,
        gpuBusyUs: s.stats.gpuBusyUs.mean,
      }),
    );
  } else if (bound === 'gpu-bound') {
    sentences.push(
      say('verdict.meaning.gpu', 'The GPU is busy most of the step: faster kernels shorten it by up to the busy {gpuBusyUs} (mean); removing host overhead could save at most the idle {gpuIdleUs}.', {
        gpuBusyUs: s.stats.gpuBusyUs.mean,
        gpuIdleUs: s.stats.gpuIdleUs.mean,
      }),
    );
  }
  return { id: 'verdict', title: 'Overhead-bound or GPU-bound', readings: ['S12'], sentences, tables: [], more: 'kinetoscope steps TRACE' };
}

// ------------------------------------------------------------------------------------------------
// What to try next: each rule fires on evidence from the analyses.

/** `.item()` advice needs the host blocked in them for at least this share of the steps' time. */
const ITEM_SYNC_MIN_SHARE = 0.05;

function nextSection(c: TraceContext): ExplainSection | undefined {
  const sentences: ExplainSentence[] = [];
  const co = c.lazy.compile();
  const backward = co.findings.find((f) => f.code === 'BACKWARD_OPS_WITHOUT_BACKWARD');
  const autograd = co.findings.find((f) => f.code === 'AUTOGRAD_GRAPH_WITHOUT_BACKWARD');
  if (backward || autograd) {
    const kernels = backward?.evidence['kernel'];
    sentences.push(
      say(
        'next.no-grad',
        backward
          ? 'Run the compiled region under `torch.no_grad()` (or `torch.inference_mode()`): its graph computes work for a backward pass that never runs ({finding}: `{kernels}`), and under no_grad Inductor compiles an inference graph that saves nothing.'
          : 'Run the compiled region under `torch.no_grad()` (or `torch.inference_mode()`): `CompiledFunction` ran {calls|time} — AOTAutograd compiled a training graph — but no backward ran ({finding}).',
        { finding: (backward ?? autograd)!.code, kernels: (kernels as ExplainValue) ?? '', calls: (autograd?.evidence['calls'] as ExplainValue) ?? null },
      ),
    );
  }
  const s = c.lazy.steps();
  // The advice follows the one verdict across the steps (step-breakdown.ts `overallVerdict`).
  const overall = s.stats.overall;
  const overhead = s.steps.filter((r) => r.verdict === 'overhead-bound');
  if (overall?.verdict === 'overhead-bound' && overhead.length) {
    const graphs = s.steps.reduce((n, r) => n + r.graphLaunches, 0);
    const numbers = {
      steps: overhead.length,
      of: s.steps.length,
      gpuIdleShare: mean(overhead.map((r) => 1 - r.gpuBusyShare)),
      launches: mean(overhead.map((r) => r.launches)),
      meanLaunchUs: mean(overhead.map((r) => r.meanLaunchUs)),
      medianKernelUs: mean(overhead.map((r) => r.medianKernelUs)),
      cpuDispatchUs: mean(overhead.map((r) => r.cpuDispatchUs)),
      graphLaunches: graphs,
    };
    const launchBound = numbers.medianKernelUs < numbers.meanLaunchUs;
    sentences.push(
      say(
        'next.reduce-overhead',
        graphs
          ? '{steps} of {of} steps are overhead-bound (GPU idle {gpuIdleShare} on average) although they already replay CUDA graphs ({graphLaunches} `cudaGraphLaunch`): the host work around the replays is what the GPU waits for — {cpuDispatchUs} of CPU dispatch per step.'
          : launchBound && numbers.launches < 3
            ? '{steps} of {of} steps are overhead-bound (GPU idle {gpuIdleShare} on average): a launch costs more than the kernel it launches ({meanLaunchUs} per launch against a median kernel of {medianKernelUs}), and a step makes only {launches|launch|launches}, so a CUDA graph has little to merge. Give each kernel more work (a larger batch), or profile this work inside the larger step it belongs to.'
            : launchBound
            ? '{steps} of {of} steps are overhead-bound (GPU idle {gpuIdleShare} on average): a launch costs more than the kernel it launches ({meanLaunchUs} per launch against a median kernel of {medianKernelUs}, {launches|launch|launches} per step). Capture the step in a CUDA graph — `torch.compile(mode="reduce-overhead")` does it — so one launch replays all the kernels, or give each kernel more work (a larger batch).'
            : '{steps} of {of} steps are overhead-bound (GPU idle {gpuIdleShare} on average): the kernels outlast their launches (median kernel {medianKernelUs}, {meanLaunchUs} per launch), but the host\'s work between them — {cpuDispatchUs} of CPU dispatch per step — keeps the GPU waiting. A CUDA graph (`torch.compile(mode="reduce-overhead")`) replays the kernels without that work.',
        numbers,
      ),
    );
  }
  const f = c.lazy.fusion();
  const best = [...f.opportunities].sort((a, b) => b.roundTripBytes - a.roundTripBytes)[0];
  if (best) {
    const names = best.kernels.map((k) => k.op.replace(/^aten::/, ''));
    const chain = names.length <= 4 ? names.join('·') : `the ${names.length} kernels of ${[...new Set(names)].join('·')}`;
    const est = best.estimatedFusedUs !== undefined ? '; about {estimatedFusedUs} fused' : '';
    sentences.push(
      say('next.fuse', `Fuse {chain} in \`{annotation}\`: one kernel instead of {kernels} would not write and read back {intermediateBytes} per instance ({timeUs} of kernel time now${est}) — \`torch.compile\` fuses such chains, or a hand-written kernel.`, {
        chain,
        annotation: best.annotation || '(no annotation)',
        kernels: best.kernels.length,
        intermediateBytes: best.intermediateBytes,
        timeUs: best.timeUs,
        ...(best.estimatedFusedUs !== undefined ? { estimatedFusedUs: best.estimatedFusedUs } : {}),
      }),
    );
  }
  // Only where the add is a round trip of its own: a forward GEMM (epilogues.ts), and in a
  // compiled graph an add kernel that fuses nothing else.
  for (const r of c.lazy.ops().epilogues.filter((x) => x.separateAdd && !x.backward && x.separateAdd.kernels.length && !x.separateAdd.fusedWith.length)) {
    const numbers = { op: r.op, addOp: r.separateAdd!.op, addMeanUs: r.separateAdd!.meanUs ?? null };
    sentences.push(
      r.compiled
        ? say(
            'next.bias-epilogue',
            'In the compiled graph, `{op}` runs on cuBLAS without its bias and `{addOp}` adds it in a kernel of its own ({addMeanUs} per call now): `torch.compile(mode="max-autotune")` lets Inductor try Triton template GEMMs, which take a following pointwise op into their epilogue.',
            numbers,
          )
        : say('next.bias-epilogue', 'Let the bias ride in the GEMM: `{op}` followed by `{addOp}` launches two kernels where `torch.addmm` (or `nn.Linear`) launches one with the bias in its epilogue ({addMeanUs} of add kernel per call now).', numbers),
    );
  }
  // Misaligned GEMMs (gemm-alignment.ts) worth a sentence in the GEMM section are worth padding:
  // one piece of advice per size to pad (a vocabulary is N forward, K and M backward).
  const misaligned = c.lazy.gemm().alignment.filter((f) => (f.shareOfKernelTime ?? 0) >= ALIGNMENT_MIN_SHARE);
  const bySize = new Map<string, { sizes: string; dims: Set<string>; multiple: number; share: number; calls: number; peaks: number[] }>();
  for (const f of misaligned) {
    const sizes = [...new Set(f.dims.map((d) => `${d.size} → ${d.padded}`))].join(', ');
    const e = bySize.get(sizes) ?? { sizes, dims: new Set<string>(), multiple: f.multiple, share: 0, calls: 0, peaks: [] };
    for (const d of f.dims) e.dims.add(d.dim);
    e.share += f.shareOfKernelTime ?? 0;
    e.calls += f.calls;
    if (f.percentOfPeak !== undefined) e.peaks.push(f.percentOfPeak);
    bySize.set(sizes, e);
  }
  for (const e of bySize.values()) {
    const lo = Math.min(...e.peaks);
    const hi = Math.max(...e.peaks);
    const peak = !e.peaks.length ? '' : lo === hi ? ', at {minPeakPct} of peak' : ', at {minPeakPct} to {maxPeakPct} of peak';
    sentences.push(
      say(
        'next.pad-gemm',
        `Pad {sizes} (a multiple of {multiple}): as {dims} of {calls|GEMM call} it puts {kernelTimeShare} of the kernel time on align1/align2 kernels${peak}; padding the tensor (a vocabulary or hidden size rounded up, the extra rows or columns ignored) lets the library pick kernels that assume 16-byte alignment.`,
        {
          sizes: e.sizes,
          multiple: e.multiple,
          dims: [...e.dims].sort().join('/'),
          calls: e.calls,
          kernelTimeShare: e.share,
          ...(e.peaks.length ? { minPeakPct: lo, maxPeakPct: hi } : {}),
        },
      ),
    );
  }
  const l = computeLaunches(c.m, { top: 0 });
  const items = l.syncs.filter((x) => x.item);
  const itemBlockedUs = items.reduce((a, x) => a + x.blockedUs, 0);
  const wallUs = s.steps.reduce((a, r) => a + r.durUs, 0);
  // Only where the waiting matters: at least 5% of the steps' time.
  if (items.length && wallUs > 0 && itemBlockedUs >= ITEM_SYNC_MIN_SHARE * wallUs) {
    sentences.push(
      say('next.item-syncs', 'Avoid `.item()` (and `bool()`/`float()` of a GPU tensor) inside the step: {count} of them blocked the host for {blockedUs} ({stepsShare} of the steps\' time), each time waiting for the GPU to drain before the next launch.', {
        count: items.length,
        blockedUs: itemBlockedUs,
        stepsShare: itemBlockedUs / wallUs,
      }),
    );
  }
  // Not when borderline: with the GPU idle for 40% of a step, host-side work can help.
  if (overall?.verdict === 'gpu-bound' && !overall.borderline) {
    const g = c.lazy.gemm();
    const gemmUs = g.totals.kernelUs;
    const gpuUs = s.steps.reduce((a, r) => a + r.gpuTimeUs, 0);
    const pcts = g.rows.map((r) => r.percentOfPeak).filter((x): x is number => x !== undefined);
    sentences.push(
      say(
        'next.gpu-bound',
        pcts.length && gpuUs > 0
          ? `The steps are GPU-bound, so host-side tricks (CUDA graphs, fewer launches) cannot help much; GEMMs take {gemmShare} of the GPU time and reach ${pcts.length > 1 && Math.min(...pcts) !== Math.max(...pcts) ? '{minPeakPct} to {maxPeakPct}' : '{maxPeakPct}'} of peak — the rest is in the kernels themselves.`
          : 'The steps are GPU-bound, so host-side tricks (CUDA graphs, fewer launches) cannot help much: the time is in the kernels themselves.',
        pcts.length && gpuUs > 0 ? { gemmShare: Math.min(1, gemmUs / gpuUs), minPeakPct: Math.min(...pcts), maxPeakPct: Math.max(...pcts) } : {},
      ),
    );
  }
  if (!sentences.length) return undefined;
  return { id: 'next', title: 'What to try next', readings: ['S9', 'S12'], sentences, tables: [], more: 'kinetoscope doctor TRACE' };
}

// ------------------------------------------------------------------------------------------------
// S8–S11: the conclusions table

export interface ConclusionRow {
  readonly trace: string;
  readonly scope: string;
  readonly compiled: boolean;
  readonly kernels: number;
  readonly gemmKernels: readonly string[];
  /** Convolution and attention kernels (roofline.ts). */
  readonly convAttentionKernels: readonly string[];
  readonly otherKernels: readonly string[];
  readonly gpuUs: number;
  readonly cpuUs: number;
  readonly launches: number;
}

/** Kernel names of one instance with their count per instance: `nvjet_… ×2`. */
function kernelList(m: TraceModel, instances: readonly ScopeInstance[], pick: (g: number) => boolean): string[] {
  const counts = new Map<string, number>();
  for (const inst of instances) for (const g of instanceKernels(m, inst)) if (pick(g)) counts.set(m.strings.get(m.gpu.name[g]!), (counts.get(m.strings.get(m.gpu.name[g]!)) ?? 0) + 1);
  return [...counts].map(([name, n]) => {
    const per = n / instances.length;
    const label = kernelLabel(name);
    return per === 1 ? label : `${label} ×${Number.isInteger(per) ? per : per.toFixed(2)}`;
  });
}

function conclusionRow(c: TraceContext): ConclusionRow {
  const { m } = c;
  const st: ScopeStats = scopeStats(m, c.instances);
  const gemm = c.lazy.gemmKernels();
  const convAttention = c.lazy.roofline().convAttentionKernels;
  const isConvAttention = (g: number) => convAttention.has(g);
  const isGemm = (g: number) => !isConvAttention(g) && (gemm.has(g) || decodeKernelName(m.strings.get(m.gpu.name[g]!)).kind === 'gemm' || isTemplateGemmName(m.strings.get(m.gpu.name[g]!)));
  return {
    trace: c.label,
    scope: scopeLabel(c.scope),
    compiled: c.lazy.compile().compiled,
    kernels: st.kernels,
    gemmKernels: kernelList(m, c.instances, isGemm),
    convAttentionKernels: kernelList(m, c.instances, isConvAttention),
    otherKernels: kernelList(m, c.instances, (g) => !isGemm(g) && !isConvAttention(g)),
    gpuUs: st.gpuUs,
    cpuUs: st.cpuUs,
    launches: st.launches,
  };
}

/** Times closer than this (relative) are reported as the same. */
const SAME_TIME_WITHIN = 0.05;

function conclusionsSection(cs: readonly TraceContext[]): ExplainSection {
  const rows = cs.map(conclusionRow);
  const sentences: ExplainSentence[] = [];
  const byScope = new Map<string, ConclusionRow[]>();
  for (const r of rows) byScope.set(r.scope, [...(byScope.get(r.scope) ?? []), r]);
  for (const [scope, rs] of byScope) {
    if (rs.length < 2) continue;
    for (const [what, key] of [
      ['GPU', 'gpuUs'],
      ['host', 'cpuUs'],
    ] as const) {
      const sorted = [...rs].sort((x, y) => x[key] - y[key]);
      const least = sorted[0]!;
      const most = sorted[sorted.length - 1]!;
      // Below 5% apart the traces do not differ beyond the step-to-step noise of these captures.
      if (most[key] > 0 && (most[key] - least[key]) / most[key] >= SAME_TIME_WITHIN) {
        sentences.push(
          say(`conclusions.${key === 'gpuUs' ? 'gpu' : 'cpu'}`, `Per \`{scope}\`, ${what} time is least in \`{least}\` ({leastUs}) and most in \`{most}\` ({mostUs}).`, {
            scope,
            least: least.trace,
            leastUs: least[key],
            most: most.trace,
            mostUs: most[key],
          }),
        );
      } else {
        sentences.push(
          say(`conclusions.${key === 'gpuUs' ? 'gpu' : 'cpu'}-same`, `Per \`{scope}\`, ${what} time is within {withinShare} across these traces ({leastUs} to {mostUs}).`, {
            scope,
            withinShare: SAME_TIME_WITHIN,
            leastUs: least[key],
            mostUs: most[key],
          }),
        );
      }
    }
  }
  const table: ExplainTable = {
    id: 'conclusions',
    columns: [
      { key: 'trace', header: 'Trace' },
      { key: 'scope', header: 'Per' },
      { key: 'compiled', header: 'Compiled' },
      { key: 'kernels', header: 'Kernels' },
      { key: 'gemmKernels', header: 'GEMM kernels' },
      ...(rows.some((r) => r.convAttentionKernels.length) ? [{ key: 'convAttentionKernels', header: 'Conv/attention kernels' }] : []),
      { key: 'otherKernels', header: 'Other kernels' },
      { key: 'gpuUs', header: 'GPU time' },
      { key: 'cpuUs', header: 'CPU time' },
      { key: 'launches', header: 'Launches' },
    ],
    rows: rows.map((r) => ({ ...r, gemmKernels: [...r.gemmKernels], convAttentionKernels: [...r.convAttentionKernels], otherKernels: [...r.otherKernels] })),
  };
  const more = cs.length === 2 ? 'kinetoscope diff TRACE OTHER' : 'kinetoscope diff A B, for two traces of one workload';
  return { id: 'conclusions', title: 'Conclusions, trace by trace', readings: ['S8', 'S9', 'S10', 'S11'], sentences, tables: [table], more };
}
