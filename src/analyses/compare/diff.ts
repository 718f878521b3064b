/**
 * Two traces side by side (docs/readings.md S8, S11): eager vs compiled, before vs after a change,
 * one GPU vs another — aligned per annotation name (or per step), every count meant per instance.
 *
 * - Kernels (and memsets, copies): the one matcher's reading (`kernel-match.ts`, shared with
 *   `fusion --vs` and `explain --vs`): the same work (the same name and shapes, per shape), work
 *   of A done by a kernel of B (`replaced`: by op and shape, Inductor's fused op list, or
 *   position), and calls in one trace only, each with why it stayed unmatched.
 * - CPU ops (`cpu_op`, `user_annotation`) and runtime/driver calls removed, added, or
 *   called a different number of times per instance.
 * - Per annotation (and per step): CPU time, GPU time, kernels and launches as A, B and
 *   delta, with the spread over instances so that noise is visible.
 *
 * Ignores: GPU work launched outside every instance of the scope; the order of kernels
 * inside a replaced group.
 */
import { KinetoscopeError } from '../../core/errors.js';
import { HOST_KIND_NAMES, HostKind, type TraceModel } from '../../model/trace-model.js';
import { matchKernels, type KernelMatch } from './kernel-match.js';
import { representativeSequence, type MatchCall } from './match-calls.js';
import { summarizeReplacements, summarizeSame, summarizeUnmatched, type Replacement, type SameWork, type UnmatchedCall } from './match-summaries.js';
import { countLaunches } from '../facts/runtime-calls.js';
import { shortKernelName } from '../kernels/kernel-name.js';
import { computeImplementationChanges, type ImplementationChange } from './implementation-changes.js';
import {
  computeScopeInstances,
  gpuNsPerInstance,
  instanceDurNs,
  listAnnotations,
  parseScope,
  primaryAnnotation,
  scopeLabel,
  type AnnotationNameInfo,
  type ScopeInstance,
  type ScopeSpec,
} from '../host/scopes.js';

export interface DiffOptions {
  /** `step`, `trace` or an annotation name; default: the annotations both traces share. */
  readonly per?: string;
}

export type { ReplacementRule } from './kernel-match.js';
export type { KernelCall, Replacement, SameWork, UnmatchedCall } from './match-summaries.js';
export type { ClassTime, ImplementationChange, ImplementationKind } from './implementation-changes.js';

/** A pairing physics (or the lack of any evidence) refused: A's calls, B's kernels, why. */
export interface RefusedReplacement {
  /** A's calls, short kernel names with their op. */
  readonly a: readonly { readonly name: string; readonly op?: string }[];
  readonly b: readonly string[];
  readonly reason: string;
}

export interface OpChange {
  readonly name: string;
  /** `cpu_op`, `user_annotation`, `cuda_runtime`, `cuda_driver`. */
  readonly category: string;
  /** Calls per instance. */
  readonly a: number;
  readonly b: number;
  /** CPU time per instance (Σ durations). */
  readonly aCpuUs: number;
  readonly bCpuUs: number;
}

export interface OpsDiff {
  readonly removed: readonly OpChange[];
  readonly added: readonly OpChange[];
  /** In both, called a different number of times per instance. */
  readonly changed: readonly OpChange[];
}

export interface Spread {
  readonly min: number;
  readonly max: number;
  /** Population standard deviation. */
  readonly stdev: number;
  readonly values: readonly number[];
}

export interface ScopeStats {
  readonly instances: number;
  /** Means per instance. */
  readonly cpuUs: number;
  readonly gpuUs: number;
  readonly kernels: number;
  /** Launches (`isLaunchCall`), with the memsets and copies counted beside them. */
  readonly launches: number;
  readonly memsets: number;
  readonly memcpys: number;
  readonly spread: {
    readonly cpuUs: Spread;
    readonly gpuUs: Spread;
    readonly kernels: Spread;
    readonly launches: Spread;
  };
}

export interface AnnotationDiff {
  /** The annotation name, or `ProfilerStep*` for steps, `trace` for the whole trace. */
  readonly name: string;
  readonly a: ScopeStats;
  readonly b: ScopeStats;
  /** B − A of the means. */
  readonly delta: { readonly cpuUs: number; readonly gpuUs: number; readonly kernels: number; readonly launches: number };
}

export interface TraceDiff {
  /** What the kernels and ops were compared over. */
  readonly scope: { readonly per: ScopeSpec['per']; readonly name?: string; readonly instancesA: number; readonly instancesB: number };
  readonly kernels: {
    /** The same work in both: the same name and shapes, per (name, shapes). */
    readonly same: readonly SameWork[];
    /** A's calls no replacement holds, with the reason. */
    readonly onlyA: readonly UnmatchedCall[];
    readonly onlyB: readonly UnmatchedCall[];
    readonly replaced: readonly Replacement[];
    /** Pairings the evidence contradicts (physics), each for calls of A that then stayed unmatched. */
    readonly refused: readonly RefusedReplacement[];
  };
  /** Changes of implementation class (attention backend, math units, precision, GEMM implementation), the largest first. */
  readonly changes: readonly ImplementationChange[];
  readonly ops: OpsDiff;
  readonly apiCalls: OpsDiff;
  readonly perAnnotation: readonly AnnotationDiff[];
  /** Things to know when reading the numbers (instances that differ, scopes missing on one side). */
  readonly notes: readonly string[];
}

export function computeTraceDiff(a: TraceModel, b: TraceModel, opts: DiffOptions = {}): TraceDiff {
  return computeTraceDiffWithMatch(a, b, opts).diff;
}

/** The diff and the matcher's own reading behind its kernels (for `fusion --vs` and `explain --vs`). */
export function computeTraceDiffWithMatch(
  a: TraceModel,
  b: TraceModel,
  opts: DiffOptions = {},
): { diff: TraceDiff; match: KernelMatch; instances: { readonly a: readonly ScopeInstance[]; readonly b: readonly ScopeInstance[] } } {
  const notes: string[] = [];
  const annA = listAnnotations(a);
  const annB = listAnnotations(b);
  const scope = chooseScope(a, b, annA, annB, opts, notes);
  const instA = computeScopeInstances(a, scope);
  const instB = computeScopeInstances(b, scope);
  const label = scopeLabel(scope);
  if (instA.length === 0 || instB.length === 0) {
    const side = instA.length === 0 ? 'A' : 'B';
    const m = instA.length === 0 ? a : b;
    const have = scope.per === 'step' ? 'no ProfilerStep#N annotations' : `annotations: ${(m === a ? annA : annB).map((x) => x.name).join(', ') || 'none'}`;
    throw new KinetoscopeError('BAD_ARGUMENT', `trace ${side} has no instance of "${label}" (${have})`);
  }

  const match = matchKernels(a, representativeSequence(a, instA, 'A', notes), b, representativeSequence(b, instB, 'B', notes));
  const kernels: TraceDiff['kernels'] = {
    same: summarizeSame(match),
    onlyA: summarizeUnmatched(match, 'a'),
    onlyB: summarizeUnmatched(match, 'b'),
    replaced: summarizeReplacements(match),
    refused: match.refused.map((r) => ({
      a: r.a.map((i) => callName(match.a.calls[i]!)),
      b: r.b.map((j) => shortKernelName(match.b.calls[j]!.name)),
      reason: r.reason,
    })),
  };

  const perAnnotation: AnnotationDiff[] = [];
  const scopes: { name: string; spec: ScopeSpec }[] = [];
  if (opts.per !== undefined) {
    scopes.push({ name: scope.per === 'step' ? 'ProfilerStep*' : label, spec: scope });
  } else {
    if (a.steps.length > 0 && b.steps.length > 0) scopes.push({ name: 'ProfilerStep*', spec: { per: 'step' } });
    const namesB = new Set(annB.map((x) => x.name));
    for (const x of annA) if (namesB.has(x.name)) scopes.push({ name: x.name, spec: { per: 'annotation', name: x.name } });
    if (scopes.length === 0) scopes.push({ name: 'trace', spec: { per: 'trace' } });
  }
  for (const s of scopes) {
    const sa = scopeStats(a, s.spec === scope ? instA : computeScopeInstances(a, s.spec));
    const sb = scopeStats(b, s.spec === scope ? instB : computeScopeInstances(b, s.spec));
    perAnnotation.push({
      name: s.name,
      a: sa,
      b: sb,
      delta: { cpuUs: sb.cpuUs - sa.cpuUs, gpuUs: sb.gpuUs - sa.gpuUs, kernels: sb.kernels - sa.kernels, launches: sb.launches - sa.launches },
    });
  }

  const diff: TraceDiff = {
    scope: { per: scope.per, ...(scope.per === 'annotation' ? { name: scope.name } : {}), instancesA: instA.length, instancesB: instB.length },
    kernels,
    changes: computeImplementationChanges(a, b, match),
    ops: diffHostNames(a, instA, b, instB, (k) => k === HostKind.Op || k === HostKind.Annotation),
    apiCalls: diffHostNames(a, instA, b, instB, (k) => k === HostKind.Runtime || k === HostKind.Driver),
    perAnnotation,
    notes,
  };
  return { diff, match, instances: { a: instA, b: instB } };
}

const callName = (c: MatchCall) => ({ name: shortKernelName(c.name), ...(c.op !== undefined ? { op: c.op } : {}) });

/** The per-instance row of the scope the kernels were compared over (the first row when none is named alike). */
export function comparedScopeRow(d: TraceDiff): AnnotationDiff | undefined {
  const name = d.scope.per === 'annotation' ? d.scope.name : d.scope.per === 'step' ? 'ProfilerStep*' : 'trace';
  return d.perAnnotation.find((p) => p.name === name) ?? d.perAnnotation[0];
}

/** `--per` as given; else the annotation both traces share that `choosePrimaryScope` would read A in; else steps; else the whole traces. */
function chooseScope(
  a: TraceModel,
  b: TraceModel,
  annA: readonly AnnotationNameInfo[],
  annB: readonly AnnotationNameInfo[],
  opts: DiffOptions,
  notes: string[],
): ScopeSpec {
  if (opts.per !== undefined) return parseScope(opts.per);
  const inB = new Set(annB.filter((x) => x.instances > 0).map((x) => x.name));
  const name = primaryAnnotation(a, inB, annA);
  if (name !== undefined) return { per: 'annotation', name };
  const bothHaveSteps = a.steps.length > 0 && b.steps.length > 0;
  const own = primaryAnnotation(a, undefined, annA);
  if (own !== undefined && !inB.has(own)) notes.push(`trace B has no ${own} annotation; compared per ${bothHaveSteps ? 'step' : 'trace'}`);
  return bothHaveSteps ? { per: 'step' } : { per: 'trace' };
}

// ------------------------------------------------------------------------------------------------
// Host names

function diffHostNames(a: TraceModel, instA: readonly ScopeInstance[], b: TraceModel, instB: readonly ScopeInstance[], keep: (kind: number) => boolean): OpsDiff {
  const ca = hostNameCounts(a, instA, keep);
  const cb = hostNameCounts(b, instB, keep);
  const change = (key: string): OpChange => {
    const x = ca.get(key);
    const y = cb.get(key);
    return {
      name: (x ?? y)!.name,
      category: (x ?? y)!.category,
      a: x ? x.n / instA.length : 0,
      b: y ? y.n / instB.length : 0,
      aCpuUs: x ? x.ns / instA.length / 1000 : 0,
      bCpuUs: y ? y.ns / instB.length / 1000 : 0,
    };
  };
  const removed: OpChange[] = [];
  const changed: OpChange[] = [];
  for (const key of ca.keys()) {
    if (!cb.has(key)) removed.push(change(key));
    else if (ca.get(key)!.n / instA.length !== cb.get(key)!.n / instB.length) changed.push(change(key));
  }
  const added: OpChange[] = [];
  for (const key of cb.keys()) if (!ca.has(key)) added.push(change(key));
  return { removed, added, changed };
}

/** Per (category, name), in order of first appearance: calls and Σ durations over the instances. */
function hostNameCounts(m: TraceModel, instances: readonly ScopeInstance[], keep: (kind: number) => boolean) {
  // Counted per (name id, kind), the same pairs as (name, category); keyed by text only once per
  // pair, in the order each pair first appears.
  const byId = new Map<number, { name: string; category: string; n: number; ns: number }>();
  const kinds = HOST_KIND_NAMES.length;
  for (const inst of instances) {
    for (const i of inst.hostEvents) {
      const kind = m.host.kind[i]!;
      if (!keep(kind)) continue;
      const id = m.host.name[i]! * kinds + kind;
      const e = byId.get(id);
      if (e) {
        e.n++;
        e.ns += m.host.durNs[i]!;
      } else byId.set(id, { name: m.strings.get(m.host.name[i]!), category: HOST_KIND_NAMES[kind]!, n: 1, ns: m.host.durNs[i]! });
    }
  }
  const out = new Map<string, { name: string; category: string; n: number; ns: number }>();
  for (const e of byId.values()) out.set(`${e.category}\u0000${e.name}`, e);
  return out;
}

// ------------------------------------------------------------------------------------------------
// Per-scope numbers

export function scopeStats(m: TraceModel, instances: readonly ScopeInstance[]): ScopeStats {
  const cpu = instances.map((x) => instanceDurNs(x) / 1000);
  const gpu = gpuNsPerInstance(m, instances).map((ns) => ns / 1000);
  const counts = instances.map((x) => countLaunches(m, x.gpu));
  // countLaunches counts the kernels too (instanceKernels' length): no kernel list per instance.
  const kernels = counts.map((c) => c.kernels);
  const launches = counts.map((c) => c.launches);
  return {
    instances: instances.length,
    cpuUs: mean(cpu),
    gpuUs: mean(gpu),
    kernels: mean(kernels),
    launches: mean(launches),
    memsets: mean(counts.map((c) => c.memsets)),
    memcpys: mean(counts.map((c) => c.memcpys)),
    spread: { cpuUs: spread(cpu), gpuUs: spread(gpu), kernels: spread(kernels), launches: spread(launches) },
  };
}

function mean(v: readonly number[]): number {
  return v.length === 0 ? NaN : v.reduce((s, x) => s + x, 0) / v.length;
}

function spread(v: readonly number[]): Spread {
  if (v.length === 0) return { min: NaN, max: NaN, stdev: NaN, values: [] };
  const mu = mean(v);
  return {
    min: Math.min(...v),
    max: Math.max(...v),
    stdev: Math.sqrt(v.reduce((s, x) => s + (x - mu) ** 2, 0) / v.length),
    values: [...v],
  };
}

