/**
 * "Guess first, then look" (docs/readings.md S13): expectations written before opening a trace,
 * checked against it, every count meant per instance of the scope (each step, or each instance of
 * an annotation). A mismatch is reported as expected vs seen, per instance when the instances
 * disagree.
 *
 * The keys (as written in an expectations file; `Expectations` holds them typed):
 *   per                   annotation name, `step` or `trace` (default `step`)
 *   instances             how many instances the scope has
 *   kernels               device kernels per instance (memsets and copies not counted)
 *   gemms                 GEMM kernels: owned by a GEMM op (gemm.ts) or named as one (nvjet, cuBLAS, CUTLASS,
 *                         Triton templates `triton_tem_fused_*mm*`, …)
 *   launches              runtime/driver calls that launched kernels (facts/runtime-calls.ts `isLaunchCall`; memsets and copies are not launches)
 *   absent-ops            host event names that must not occur in any instance
 *   ops                   {name: calls per instance} for host events (ops, annotations, API calls)
 *   kernel-matching       {regular expression: kernels per instance whose name (or short name) it finds}
 *   views-launch-nothing  true: every view op (`aten::t`, `view`, …) launched no GPU work
 *   gpu-idle-max          the GPU idle at most this share of each instance (as `steps` computes it)
 *   verdict               overhead-bound, gpu-bound or no-gpu-work, for every instance (as `steps` judges;
 *                         a truncated trace's verdict is unknown, and no expected verdict holds)
 *   step-time-max         each instance's duration ≤ us × (1 + tolerance)
 *
 * `deriveExpectations` writes what a trace shows as a starting file; checking the trace
 * against it passes by construction.
 *
 * Ignores: what lies outside the scope's instances (setup before the first step, work
 * between steps).
 */
import { MAX_PATTERN_CHARS, regexHazard } from '../../core/safe-regex.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { findGemmCalls, isTemplateGemmName } from '../gemm/gemm.js';
import { clippedLengthNs, mergeIntervals } from '../helpers/intervals.js';
import { decodeKernelName, shortKernelName } from '../kernels/kernel-name.js';
import {
  computeScopeInstances,
  instanceDurNs,
  instanceKernels,
  instanceLaunches,
  parseScope,
  scopeLabel,
  type ScopeInstance,
  type ScopeSpec,
} from '../host/scopes.js';
import { computeStepBreakdown, type StepRow } from '../steps/step-breakdown.js';
import { GPU_BOUND_BUSY_SHARE, TRUNCATED_REASON, type StepVerdict } from '../steps/step-verdict.js';
import { computeLaunchedGpuWork, isViewOpName } from '../facts/view-ops.js';

export type Verdict = StepVerdict;
export const VERDICTS: readonly Verdict[] = ['overhead-bound', 'gpu-bound', 'no-gpu-work'];

export interface Expectations {
  readonly per?: string;
  readonly instances?: number;
  readonly kernels?: number;
  readonly gemms?: number;
  readonly launches?: number;
  readonly absentOps?: readonly string[];
  readonly ops?: Readonly<Record<string, number>>;
  readonly kernelMatching?: Readonly<Record<string, number>>;
  readonly viewsLaunchNothing?: boolean;
  readonly gpuIdleMaxPercent?: number;
  readonly verdict?: Verdict;
  readonly stepTimeMax?: { readonly us: number; readonly tolerancePercent: number };
}

/** The file's spelling of each key, in the order results are reported. */
export const EXPECTATION_KEYS = {
  per: 'per',
  instances: 'instances',
  kernels: 'kernels',
  gemms: 'gemms',
  launches: 'launches',
  absentOps: 'absent-ops',
  ops: 'ops',
  kernelMatching: 'kernel-matching',
  viewsLaunchNothing: 'views-launch-nothing',
  gpuIdleMaxPercent: 'gpu-idle-max',
  verdict: 'verdict',
  stepTimeMax: 'step-time-max',
} as const satisfies Record<keyof Expectations, string>;

/** What an expectation says: a count, a word or flag, a bound in words (`≥ 1`, `5%`), or step-time-max's bound. */
export type ExpectedValue = number | boolean | string | { readonly us: number; readonly tolerance: string };
/** What the trace shows: one value when every instance agrees, else one per instance; the views that launched work. */
export type SeenValue = number | boolean | string | readonly number[] | readonly string[];

export interface ExpectationResult {
  /** The key as written in the file (`kernels`, `absent-ops`, …). */
  readonly key: string;
  /** For map and list keys: the op name or pattern this result is about. */
  readonly item?: string;
  readonly expected: ExpectedValue;
  /** One value when every instance agrees, else one per instance. */
  readonly seen: SeenValue;
  readonly ok: boolean;
  /** Expected vs seen, in words. */
  readonly message: string;
}

export interface CheckedInstance {
  /** `ProfilerStep#3`, `mlp_fwd #2`, `trace`. */
  readonly name: string;
  readonly startUs: number;
  readonly durUs: number;
}

export interface CheckResult {
  readonly ok: boolean;
  readonly scope: { readonly per: ScopeSpec['per']; readonly name?: string };
  readonly instances: readonly CheckedInstance[];
  readonly results: readonly ExpectationResult[];
}

/** What each instance shows, computed once for checking and for writing a starting file. */
interface InstanceFacts {
  readonly label: string;
  readonly kernels: number;
  readonly gemms: number;
  readonly launches: number;
  /** Host event name → calls. */
  readonly hostNames: ReadonlyMap<string, number>;
  /** cpu_op names only (what a written file lists under `ops`). */
  readonly opNames: ReadonlyMap<string, number>;
  readonly kernelNames: readonly string[];
  /** `shortKernelName` of each, in the same order. */
  readonly kernelShortNames: readonly string[];
  /** View ops that launched GPU work: `aten::reshape` → the kernels' names. */
  readonly viewsThatLaunched: readonly string[];
  readonly gpuIdleFraction: number;
  readonly verdict: Verdict;
  readonly verdictReason: string;
  readonly durUs: number;
}

export function checkExpectations(m: TraceModel, e: Expectations): CheckResult {
  const scope = parseScope(e.per ?? 'step');
  const label = scopeLabel(scope);
  const instances = computeScopeInstances(m, scope);
  const facts = computeInstanceFacts(m, scope, instances);
  const results: ExpectationResult[] = [];
  const unit = scope.per === 'step' ? 'step' : scope.per === 'trace' ? 'trace' : label;

  if (e.instances !== undefined || instances.length === 0) {
    const expected = e.instances ?? 1;
    const ok = e.instances !== undefined ? instances.length === e.instances : false;
    results.push({
      key: 'instances',
      expected: e.instances ?? '≥ 1',
      seen: instances.length,
      ok,
      message: ok
        ? `${plural(instances.length, `instance`)} of ${unit}, as expected`
        : instances.length === 0
          ? `expected ${e.instances !== undefined ? plural(expected, 'instance') : 'instances'} of ${unit}, saw none in the trace`
          : `expected ${plural(expected, 'instance')} of ${unit}, saw ${instances.length}`,
    });
  }
  if (instances.length > 0) {
    const count = (key: string, phrase: (n: number) => string, expected: number | undefined, get: (f: InstanceFacts) => number, item?: string) => {
      if (expected === undefined) return;
      results.push(countResult(key, phrase, unit, expected, facts.map(get), facts, item));
    };
    count('kernels', (n) => plural(n, 'kernel'), e.kernels, (f) => f.kernels);
    count('gemms', (n) => plural(n, 'GEMM kernel'), e.gemms, (f) => f.gemms);
    count('launches', (n) => plural(n, 'launch', 'launches'), e.launches, (f) => f.launches);
    for (const name of e.absentOps ?? []) {
      const seen = facts.map((f) => f.hostNames.get(name) ?? 0);
      const ok = seen.every((x) => x === 0);
      results.push({
        key: 'absent-ops',
        item: name,
        expected: 0,
        seen: collapse(seen),
        ok,
        message: ok ? `no ${name} in any ${unit}, as expected` : `expected no ${name}, saw ${describeSeen(seen, facts)} per ${unit}`,
      });
    }
    for (const [name, n] of Object.entries(e.ops ?? {})) count('ops', (k) => `${name} called ${k}×`, n, (f) => f.hostNames.get(name) ?? 0, name);
    for (const [pattern, n] of Object.entries(e.kernelMatching ?? {})) {
      const re = new RegExp(pattern);
      const seen = facts.map((f) => countMatching(f, re));
      const r = countResult('kernel-matching', (k) => `${plural(k, 'kernel')} matching /${pattern}/`, unit, n, seen, facts, pattern);
      if (!r.ok) {
        const names = [...new Set(facts.flatMap((f) => f.kernelShortNames))].map(shortName);
        results.push({ ...r, message: `${r.message}; the kernels were: ${names.join(', ') || 'none'}` });
      } else results.push(r);
    }
    if (e.viewsLaunchNothing !== undefined) {
      const bad = [...new Set(facts.flatMap((f) => f.viewsThatLaunched))];
      const seen = bad.length === 0;
      const ok = seen === e.viewsLaunchNothing;
      results.push({
        key: 'views-launch-nothing',
        expected: e.viewsLaunchNothing,
        seen: bad.length === 0 ? true : bad,
        ok,
        message: seen
          ? ok
            ? `every view op launched nothing, as expected`
            : `expected a view op to launch GPU work, but every view op launched nothing`
          : ok
            ? `view ops launched GPU work, as expected: ${bad.join('; ')}`
            : `expected view ops to launch nothing, but ${bad.join('; ')}`,
      });
    }
    if (e.gpuIdleMaxPercent !== undefined) {
      const seen = facts.map((f) => f.gpuIdleFraction * 100);
      const worst = Math.max(...seen);
      const ok = worst <= e.gpuIdleMaxPercent;
      results.push({
        key: 'gpu-idle-max',
        expected: `${e.gpuIdleMaxPercent}%`,
        seen: collapse(seen.map((x) => round1(x))),
        ok,
        message: ok
          ? `the GPU was idle at most ${pct(worst)} of each ${unit} (limit ${e.gpuIdleMaxPercent}%)`
          : `expected the GPU idle at most ${e.gpuIdleMaxPercent}% of each ${unit}, saw ${describeSeen(seen, facts, pct)}`,
      });
    }
    if (e.verdict !== undefined) {
      const seen = facts.map((f) => f.verdict);
      const ok = seen.every((v) => v === e.verdict);
      const wrong = facts.filter((f) => f.verdict !== e.verdict);
      results.push({
        key: 'verdict',
        expected: e.verdict,
        seen: collapse(seen),
        ok,
        message: ok
          ? `every ${unit} is ${e.verdict}, as expected (${facts[0]!.verdictReason})`
          : `expected ${e.verdict}, saw ${wrong.map((f) => `${f.verdict} in ${f.label} (${f.verdictReason})`).join('; ')}`,
      });
    }
    if (e.stepTimeMax !== undefined) {
      const limit = e.stepTimeMax.us * (1 + e.stepTimeMax.tolerancePercent / 100);
      const seen = facts.map((f) => f.durUs);
      const worst = Math.max(...seen);
      const slowest = facts[seen.indexOf(worst)]!;
      const ok = worst <= limit;
      const limitText = e.stepTimeMax.tolerancePercent > 0 ? `${us(e.stepTimeMax.us)} + ${e.stepTimeMax.tolerancePercent}% = ${us(limit)}` : us(limit);
      results.push({
        key: 'step-time-max',
        expected: { us: e.stepTimeMax.us, tolerance: `${e.stepTimeMax.tolerancePercent}%` },
        seen: collapse(seen.map(roundUs)),
        ok,
        message: ok
          ? `every ${unit} took at most ${us(worst)} (limit ${limitText})`
          : `expected every ${unit} to take at most ${limitText}, ${slowest.label} took ${us(worst)}${seen.length > 1 ? ` (all: ${seen.map(us).join(', ')})` : ''}`,
      });
    }
  }
  return {
    ok: results.every((r) => r.ok),
    scope: { per: scope.per, ...(scope.per === 'annotation' ? { name: scope.name } : {}) },
    instances: facts.map((f, k) => ({ name: f.label, startUs: instances[k]!.startNs / 1000, durUs: f.durUs })),
    results,
  };
}

export interface DerivedExpectations {
  readonly expectations: Expectations;
  /** What could not be written as an expectation (instances that disagree), for comments in the file. */
  readonly notes: readonly string[];
}

/**
 * What the trace shows, as expectations: every count on which all instances agree, each
 * kernel name as a `kernel-matching` pattern, and limits (idle, step time) at the worst
 * instance, so that the trace passes against its own file.
 */
export function deriveExpectations(m: TraceModel, per: string): DerivedExpectations {
  const scope = parseScope(per);
  const instances = computeScopeInstances(m, scope);
  const facts = computeInstanceFacts(m, scope, instances);
  const notes: string[] = [];
  if (instances.length === 0) return { expectations: { per, instances: 0 }, notes: [`the trace has no instance of ${per}`] };
  const agreed = (what: string, get: (f: InstanceFacts) => number): number | undefined => {
    const v = facts.map(get);
    if (v.every((x) => x === v[0])) return v[0];
    notes.push(`${what} differ between instances: ${v.join(', ')}`);
    return undefined;
  };
  const kernels = agreed('kernels', (f) => f.kernels);
  const gemms = agreed('gemms', (f) => f.gemms);
  const launches = agreed('launches', (f) => f.launches);

  const ops: Record<string, number> = Object.create(null) as Record<string, number>; // op names are data (__proto__ too)
  for (const name of unionKeys(facts.map((f) => f.opNames))) {
    const n = agreed(`calls of ${name}`, (f) => f.opNames.get(name) ?? 0);
    if (n !== undefined) ops[name] = n;
  }
  const kernelMatching: Record<string, number> = Object.create(null) as Record<string, number>;
  let refused = 0;
  for (const name of new Set(facts.flatMap((f) => f.kernelNames))) {
    const pattern = kernelPattern(name);
    if (pattern in kernelMatching) continue;
    // A pattern check would refuse to read back (core/safe-regex.ts: e.g. a name past 1000 characters) is not written.
    if (regexHazard(pattern) !== undefined) {
      refused++;
      continue;
    }
    const re = new RegExp(pattern);
    const n = agreed(`kernels matching /${pattern}/`, (f) => countMatching(f, re));
    if (n !== undefined) kernelMatching[pattern] = n;
  }
  if (refused > 0) notes.push(`kernel-matching for ${refused} kernel name${refused === 1 ? '' : 's'} whose pattern check would refuse (${MAX_PATTERN_CHARS} characters at most)`);
  const viewsLaunchNothing = facts.every((f) => f.viewsThatLaunched.length === 0);
  const verdicts = new Set(facts.map((f) => f.verdict));
  if (verdicts.size > 1) notes.push(`verdicts differ between instances: ${facts.map((f) => f.verdict).join(', ')}`);
  const idle = Math.max(...facts.map((f) => f.gpuIdleFraction * 100));
  const worstUs = Math.max(...facts.map((f) => f.durUs));

  return {
    expectations: {
      per,
      instances: instances.length,
      ...(kernels !== undefined ? { kernels } : {}),
      ...(gemms !== undefined ? { gemms } : {}),
      ...(launches !== undefined ? { launches } : {}),
      ...(Object.keys(ops).length > 0 ? { ops } : {}),
      ...(Object.keys(kernelMatching).length > 0 ? { kernelMatching } : {}),
      ...(viewsLaunchNothing ? { viewsLaunchNothing } : {}),
      // The worst instance, rounded up to a whole percent (and to the next µs below), so the trace passes its own file.
      gpuIdleMaxPercent: Math.min(100, Math.ceil(idle + 1e-9)),
      ...(verdicts.size === 1 ? { verdict: facts[0]!.verdict } : {}),
      stepTimeMax: { us: Math.ceil(worstUs), tolerancePercent: 10 },
    },
    notes,
  };
}

/**
 * A pattern that finds this kernel: its whole name anchored, or for a long C++ signature its
 * short form (`vectorized_elementwise_kernel<GeluCUDAKernelImpl>`), which patterns are also
 * tried against.
 */
export function kernelPattern(name: string): string {
  return `^${escapeRegExp(name.length <= 100 ? name : shortKernelName(name))}$`;
}

/** Kernels whose name, or short name, the pattern finds. */
function countMatching(f: InstanceFacts, re: RegExp): number {
  let n = 0;
  for (let k = 0; k < f.kernelNames.length; k++) if (re.test(f.kernelNames[k]!) || re.test(f.kernelShortNames[k]!)) n++;
  return n;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ------------------------------------------------------------------------------------------------
// Facts per instance

function computeInstanceFacts(m: TraceModel, scope: ScopeSpec, instances: readonly ScopeInstance[]): InstanceFacts[] {
  if (instances.length === 0) return [];
  const launched = computeLaunchedGpuWork(m);
  const gemmByName = new Map<number, boolean>();
  const ofGemmCall = new Set(findGemmCalls(m).flatMap((c) => c.kernels));
  const isGemm = (g: number) => {
    if (ofGemmCall.has(g)) return true;
    const id = m.gpu.name[g]!;
    let v = gemmByName.get(id);
    if (v === undefined) gemmByName.set(id, (v = decodeKernelName(m.strings.get(id)).kind === 'gemm' || isTemplateGemmName(m.strings.get(id))));
    return v;
  };
  const shortByName = new Map<number, string>();
  const shortOf = (id: number) => {
    let v = shortByName.get(id);
    if (v === undefined) shortByName.set(id, (v = shortKernelName(m.strings.get(id))));
    return v;
  };
  const judge = createIdleJudge(m, scope);
  return instances.map((inst) => {
    const kernels = instanceKernels(m, inst);
    const hostNames = new Map<string, number>();
    const opNames = new Map<string, number>();
    const viewsThatLaunched: string[] = [];
    for (const i of inst.hostEvents) {
      const name = m.strings.get(m.host.name[i]!);
      hostNames.set(name, (hostNames.get(name) ?? 0) + 1);
      if (m.host.kind[i] !== HostKind.Op) continue;
      opNames.set(name, (opNames.get(name) ?? 0) + 1);
      if (isViewOpName(name) && launched[i]) viewsThatLaunched.push(`${name} launched ${describeLaunched(m, inst, i)}`);
    }
    const idle = judge(inst);
    return {
      label: instanceLabel(scope, inst, instances.length),
      kernels: kernels.length,
      gemms: kernels.filter(isGemm).length,
      launches: instanceLaunches(m, inst),
      hostNames,
      opNames,
      kernelNames: kernels.map((g) => m.strings.get(m.gpu.name[g]!)),
      kernelShortNames: kernels.map((g) => shortOf(m.gpu.name[g]!)),
      viewsThatLaunched,
      gpuIdleFraction: idle.fraction,
      verdict: idle.verdict,
      verdictReason: idle.reason,
      durUs: instanceDurNs(inst) / 1000,
    };
  });
}

function instanceLabel(scope: ScopeSpec, inst: ScopeInstance, n: number): string {
  if (scope.per === 'annotation') return n > 1 ? `${inst.name} #${inst.index + 1}` : inst.name;
  return inst.name;
}

/** The GPU work launched in a host event's subtree, named shortly. */
function describeLaunched(m: TraceModel, inst: ScopeInstance, i: number): string {
  const inside = (h: number) => {
    for (let p = h; p >= 0; p = m.host.parent[p]!) if (p === i) return true;
    return false;
  };
  const names = inst.gpu.filter((g) => inside(m.gpu.launcher[g]!) || inside(m.gpu.owner[g]!)).map((g) => shortName(m.strings.get(m.gpu.name[g]!)));
  return names.length > 0 ? names.join(', ') : 'GPU work';
}

/**
 * GPU idle and the verdict, as the `steps` analysis (steps/step-verdict.ts) defines them: the
 * window is the instance's span on the host (not stretched to GPU work running past it);
 * busy is the union of all GPU activity (kernels, copies, memsets; any device and stream)
 * inside it; `gpu-bound` when busy for at least half of it, else `overhead-bound`
 * (`no-gpu-work` when nothing ran). Steps take the step analysis' own rows, reason included;
 * annotation instances the same rule over their own window.
 */
function createIdleJudge(m: TraceModel, scope: ScopeSpec): (inst: ScopeInstance) => { fraction: number; verdict: Verdict; reason: string } {
  const rows = new Map<number, StepRow>();
  if (scope.per === 'step') for (const r of computeStepBreakdown(m).steps) rows.set(r.host, r);
  const busy: number[] = [];
  for (let g = 0; g < m.gpu.length; g++) busy.push(m.gpu.startNs[g]!, m.gpu.startNs[g]! + m.gpu.durNs[g]!);
  mergeIntervals(busy);
  return (inst) => {
    const row = rows.get(inst.root);
    if (row) return { fraction: row.durUs > 0 ? row.gpuIdleUs / row.durUs : 0, verdict: row.verdict, reason: row.reason };
    const window = inst.endNs - inst.startNs;
    const busyNs = window > 0 ? clippedLengthNs(busy, inst.startNs, inst.endNs) : 0;
    const share = window > 0 ? busyNs / window : 0;
    // (the steps' rows say so themselves: StepVerdict)
    if (m.source.truncated) return { fraction: 1 - share, verdict: 'unknown', reason: TRUNCATED_REASON };
    if (busyNs <= 0 && instanceKernels(m, inst).length === 0) return { fraction: 1, verdict: 'no-gpu-work', reason: 'no GPU activity in the window' };
    const verdict: Verdict = share >= GPU_BOUND_BUSY_SHARE ? 'gpu-bound' : 'overhead-bound';
    return {
      fraction: 1 - share,
      verdict,
      reason: verdict === 'gpu-bound' ? `GPU busy ${Math.round(100 * share)}% of ${us(window / 1000)}` : `GPU idle ${Math.round(100 * (1 - share))}% of ${us(window / 1000)}`,
    };
  };
}

// ------------------------------------------------------------------------------------------------
// Words

function countResult(
  key: string,
  phrase: (n: number) => string,
  unit: string,
  expected: number,
  seen: readonly number[],
  facts: readonly InstanceFacts[],
  item?: string,
): ExpectationResult {
  const ok = seen.every((x) => x === expected);
  return {
    key,
    ...(item !== undefined ? { item } : {}),
    expected,
    seen: collapse(seen),
    ok,
    message: ok ? `${phrase(expected)} per ${unit}, as expected` : `expected ${phrase(expected)} per ${unit}, saw ${describeSeen(seen, facts)}`,
  };
}

/** `5`, or `5, 6, 5 (ProfilerStep#2: 5, ProfilerStep#3: 6, …)` when instances disagree. */
function describeSeen(seen: readonly number[], facts: readonly InstanceFacts[], fmt: (x: number) => string = String): string {
  if (seen.every((x) => x === seen[0])) return fmt(seen[0]!);
  return seen.map((x, k) => `${fmt(x)} in ${facts[k]!.label}`).join(', ');
}

function collapse<T extends number | string>(v: readonly T[]): T | readonly T[] {
  return v.every((x) => x === v[0]) ? v[0]! : v;
}

function unionKeys(maps: readonly ReadonlyMap<string, number>[]): string[] {
  const out = new Set<string>();
  for (const mp of maps) for (const k of mp.keys()) out.add(k);
  return [...out];
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

function pct(x: number): string {
  return `${x.toFixed(1)}%`;
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

function roundUs(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function us(x: number): string {
  return x >= 1000 ? `${(x / 1000).toFixed(3)} ms` : `${x.toFixed(3)} µs`;
}

function shortName(name: string): string {
  return name.length > 70 ? `${name.slice(0, 67)}...` : name;
}
