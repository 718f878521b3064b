/**
 * Two traces side by side (S8, S11): eager vs compiled, before vs after a change, one GPU vs
 * another — aligned per annotation name (or per step), every count meant per instance.
 *
 * - Kernels: names equal byte for byte are the same GPU work (`same`; the article's proof
 *   that eager and compiled `nn.Linear` run the same `nvjet_…_bias_TNT`). The rest are
 *   `onlyA` / `onlyB`, unless a kernel of B does the work of one or more of A's
 *   (`replaced`), matched by role, in this order:
 *   1. `op-and-shape`: same owning op and `Input Dims` (another GPU's GEMM for the same
 *      `aten::mm`; an out= variant's extra output operand is allowed);
 *   2. `fused-ops`: an Inductor kernel whose fused op list names A's kernels' ops
 *      (`triton_poi_fused__unsafe_view_gelu_mul_0` ← the `aten::gelu` and `aten::mul` kernels):
 *      first between the same two matched kernels; then any of A's kernels still unmatched goes
 *      to the nearest such kernel of B in the instance (on a tie, the later one), even one that
 *      already took others — eager code may run its ops in another order than the compiled graph:
 *      the workloads' eager GeGLU runs gate, gelu, up, mul, down while the compiled one runs gate,
 *      up, then the fused kernel, so gelu is on the other side of the up GEMM;
 *   3. `position`: a kernel with no such clue (a hand-written Triton `geglu_fwd`) takes the
 *      place of A's unmatched kernels between the same two matched kernels. A's memory-bound
 *      kernels left in a stretch where B runs only matched kernels move forward to the next
 *      stretch where B runs one of its own, and join it if that is a single kernel with no op list
 *      (unmatched, or matched by position): `geglu_fwd` after the up GEMM takes the gelu before it
 *      too. Forward only, since a kernel doing work runs after that work's inputs exist; where the
 *      next kernel of B has an op list, that list has said what it does, and they stay only in A.
 *   Work never moves across a matched kernel that needs it in HBM: not forward past one whose op
 *   reads a tensor like its output (element count and dtype: a GEMM reads `[64,128,3072]` as
 *   `[8192,3072]`), nor backward past one whose output it reads.
 *   Positions come from the longest common subsequence of the two kernel sequences; each
 *   side's sequence is that of its most common instance (instances that differ are noted).
 * - CPU ops (`cpu_op`, `user_annotation`) and runtime/driver calls removed, added, or
 *   called a different number of times per instance.
 * - Per annotation (and per step): CPU time, GPU time, kernels and launches as A, B and
 *   delta, with the spread over instances so that noise is visible.
 *
 * Ignores: GPU work launched outside every instance of the scope; the order of kernels
 * inside a replaced group.
 */
import { KinetoscopeError } from '../core/errors.js';
import { HOST_KIND_NAMES, HostKind, type TraceModel } from '../model/trace-model.js';
import { isMemoryBound, readsOutputOf } from './fusion.js';
import { decodeKernelName, type DecodedKernelName } from './kernel-name.js';
import { countLaunches } from './launches.js';
import {
  computeScopeInstances,
  instanceDurNs,
  instanceGpuNs,
  instanceKernels,
  listAnnotations,
  owningOp,
  parseScope,
  primaryAnnotation,
  scopeLabel,
  type AnnotationNameInfo,
  type ScopeInstance,
  type ScopeSpec,
} from './scopes.js';

export interface DiffOptions {
  /** `step`, `trace` or an annotation name; default: the annotations both traces share. */
  readonly per?: string;
}

export interface SameKernel {
  readonly name: string;
  /** Calls per instance and mean duration per call, on each side. */
  readonly a: { readonly count: number; readonly meanUs: number };
  readonly b: { readonly count: number; readonly meanUs: number };
}

export interface KernelCall {
  readonly name: string;
  /** The owning `cpu_op`, when there is one. */
  readonly op?: string;
  readonly inputDims?: unknown;
  /** Mean duration of this call over the instances that share the aligned sequence. */
  readonly durUs: number;
}

export interface UnmatchedKernel {
  readonly name: string;
  readonly op?: string;
  /** Calls per instance. */
  readonly count: number;
  readonly meanUs: number;
}

export type ReplacementRule = 'op-and-shape' | 'fused-ops' | 'position';

export interface Replacement {
  /** A's kernels whose work B's kernel does. */
  readonly a: readonly KernelCall[];
  readonly b: KernelCall;
  readonly by: ReplacementRule;
  /** How many times per instance. */
  readonly count: number;
  /** Σ of A's kernels' durations, and B's kernel's duration, per occurrence. */
  readonly aUs: number;
  readonly bUs: number;
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
    readonly same: readonly SameKernel[];
    readonly onlyA: readonly UnmatchedKernel[];
    readonly onlyB: readonly UnmatchedKernel[];
    readonly replaced: readonly Replacement[];
  };
  readonly ops: OpsDiff;
  readonly apiCalls: OpsDiff;
  readonly perAnnotation: readonly AnnotationDiff[];
  /** Things to know when reading the numbers (instances that differ, scopes missing on one side). */
  readonly notes: readonly string[];
}

export function computeTraceDiff(a: TraceModel, b: TraceModel, opts: DiffOptions = {}): TraceDiff {
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

  const seqA = alignedSequence(a, instA, 'A', notes);
  const seqB = alignedSequence(b, instB, 'B', notes);
  const kernels = diffKernels(a, instA, seqA, b, instB, seqB);

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

  return {
    scope: { per: scope.per, ...(scope.per === 'annotation' ? { name: scope.name } : {}), instancesA: instA.length, instancesB: instB.length },
    kernels,
    ops: diffHostNames(a, instA, b, instB, (k) => k === HostKind.Op || k === HostKind.Annotation),
    apiCalls: diffHostNames(a, instA, b, instB, (k) => k === HostKind.Runtime || k === HostKind.Driver),
    perAnnotation,
    notes,
  };
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
// Kernel sequences

interface Occurrence {
  readonly name: string;
  readonly op?: string;
  /** The owning op's host index in the representative instance, or -1. */
  readonly owner: number;
  readonly decoded: DecodedKernelName;
  /** The owning op and the cpu_ops around it, innermost first (`aten::clamp_min`, `aten::relu`). */
  readonly opPath: readonly string[];
  readonly inputDims?: unknown;
  /** Mean duration over the instances that share the sequence, ns. */
  readonly durNs: number;
}

interface Sequence {
  readonly occ: readonly Occurrence[];
  /** Instances whose kernel sequence is this one. */
  readonly instances: number;
}

/** The kernel sequence of the side's most common instance, with per-call durations averaged over the instances that share it. */
function alignedSequence(m: TraceModel, instances: readonly ScopeInstance[], side: string, notes: string[]): Sequence {
  const lists = instances.map((inst) => instanceKernels(m, inst));
  const keys = lists.map((l) => l.map((g) => m.gpu.name[g]!).join(','));
  const freq = new Map<string, number>();
  for (const k of keys) freq.set(k, (freq.get(k) ?? 0) + 1);
  let best = 0;
  for (let k = 1; k < keys.length; k++) if (freq.get(keys[k]!)! > freq.get(keys[best]!)!) best = k;
  const members = lists.filter((_, k) => keys[k] === keys[best]);
  if (members.length < lists.length) {
    notes.push(
      `${side}: ${lists.length - members.length} of ${lists.length} instances launch a different kernel sequence (${lists.map((l) => l.length).join(', ')} kernels); kernels were aligned on the ${members.length} that agree`,
    );
  }
  const ref = lists[best]!;
  const occ: Occurrence[] = ref.map((g, pos) => {
    let sum = 0;
    for (const l of members) sum += m.gpu.durNs[l[pos]!]!;
    const op = owningOp(m, g);
    const dims = op >= 0 ? (m.host.args[op]?.['Input Dims'] ?? m.host.args[op]?.['Input dims']) : undefined;
    const opPath: string[] = [];
    for (let p = op; p >= 0 && m.host.kind[p] === HostKind.Op; p = m.host.parent[p]!) opPath.push(m.strings.get(m.host.name[p]!));
    const name = m.strings.get(m.gpu.name[g]!);
    return {
      name,
      ...(op >= 0 ? { op: m.strings.get(m.host.name[op]!) } : {}),
      owner: op,
      decoded: decodeKernelName(name),
      opPath,
      ...(dims !== undefined ? { inputDims: dims } : {}),
      durNs: sum / members.length,
    };
  });
  return { occ, instances: members.length };
}

function diffKernels(
  a: TraceModel,
  instA: readonly ScopeInstance[],
  seqA: Sequence,
  b: TraceModel,
  instB: readonly ScopeInstance[],
  seqB: Sequence,
): TraceDiff['kernels'] {
  const namesA = new Set(seqA.occ.map((o) => o.name));
  const namesB = new Set(seqB.occ.map((o) => o.name));
  const pairs = longestCommonSubsequence(
    seqA.occ.map((o) => o.name),
    seqB.occ.map((o) => o.name),
  );

  // Byte-identical names: the same GPU work, counted over every instance.
  const same: SameKernel[] = [];
  const statsA = kernelNameStats(a, instA);
  const statsB = kernelNameStats(b, instB);
  for (const [name, sa] of statsA) {
    const sb = statsB.get(name);
    if (!sb) continue;
    same.push({ name, a: sa, b: sb });
  }

  // Replacements, found in the gaps between aligned kernels.
  const claimedA = new Uint8Array(seqA.occ.length);
  const claimedB = new Uint8Array(seqB.occ.length);
  const found: { a: number[]; b: number; by: ReplacementRule }[] = [];
  const foundOfB = new Map<number, (typeof found)[number]>();
  const onlyAIn = (lo: number, hi: number) => range(lo, hi).filter((i) => !namesB.has(seqA.occ[i]!.name) && !claimedA[i]);
  const onlyBIn = (lo: number, hi: number) => range(lo, hi).filter((j) => !namesA.has(seqB.occ[j]!.name) && !claimedB[j]);
  const gaps: [number, number, number, number][] = [];
  let pa = 0;
  let pb = 0;
  for (const [i, j] of [...pairs, [seqA.occ.length, seqB.occ.length] as [number, number]]) {
    gaps.push([pa, i, pb, j]);
    pa = i + 1;
    pb = j + 1;
  }
  const gapOfA = new Int32Array(seqA.occ.length).fill(-1);
  gaps.forEach(([a0, a1], g) => {
    for (let i = a0; i < a1; i++) gapOfA[i] = g;
  });
  const claim = (as: number[], j: number, by: ReplacementRule) => {
    for (const i of as) claimedA[i] = 1;
    const r = foundOfB.get(j);
    if (r) {
      r.a.push(...as);
      return;
    }
    claimedB[j] = 1;
    const n = { a: [...as], b: j, by };
    found.push(n);
    foundOfB.set(j, n);
  };
  /**
   * Whether A's kernel i can be done by B's kernel j across the matched kernels between them: none
   * of those, after i and before j, reads i's output (that output had to be in HBM for it); none,
   * before i and after j, writes an input of i (j would run before its input existed).
   */
  const canMove = (i: number, j: number) => {
    const oi = seqA.occ[i]!;
    for (const [x, y] of pairs) {
      const ox = seqA.occ[x]!;
      if (x > i && y < j && readsOutputOf(a, ox.owner, oi.owner, oi.decoded.kind)) return false;
      if (x < i && y > j && readsOutputOf(a, oi.owner, ox.owner, ox.decoded.kind)) return false;
    }
    return true;
  };
  // 1. Same op and shape.
  for (const [a0, a1, b0, b1] of gaps) {
    for (const j of onlyBIn(b0, b1)) {
      const ob = seqB.occ[j]!;
      if (ob.op === undefined) continue;
      const i = onlyAIn(a0, a1).find((x) => seqA.occ[x]!.op === ob.op && dimsCompatible(seqA.occ[x]!.inputDims, ob.inputDims));
      if (i !== undefined) claim([i], j, 'op-and-shape');
    }
  }
  // 2. Inductor's fused op list: within the gap first; then each of A's kernels still unmatched
  //    goes to the nearest kernel of B (in B's order, on a tie the later) whose op list covers it.
  for (const [a0, a1, b0, b1] of gaps) {
    for (const j of onlyBIn(b0, b1)) {
      const fused = fusedOps(seqB.occ[j]!.name);
      if (!fused) continue;
      const as = onlyAIn(a0, a1).filter((i) => doesWorkOf(fused, seqA.occ[i]!));
      if (as.length > 0) claim(as, j, 'fused-ops');
    }
  }
  const fusedB = range(0, seqB.occ.length).filter((j) => !namesA.has(seqB.occ[j]!.name) && (!claimedB[j] || foundOfB.get(j)?.by === 'fused-ops'));
  const fusedOpsB = new Map(fusedB.map((j) => [j, fusedOps(seqB.occ[j]!.name)]));
  for (const i of onlyAIn(0, seqA.occ.length)) {
    const [, , b0, b1] = gaps[gapOfA[i]!]!;
    const dist = (j: number) => (j < b0 ? b0 - j : j >= b1 ? j - b1 + 1 : 0);
    const best = fusedB
      .filter((j) => {
        const fused = fusedOpsB.get(j);
        return fused !== undefined && doesWorkOf(fused, seqA.occ[i]!);
      })
      .sort((x, y) => dist(x) - dist(y) || y - x)
      .find((j) => canMove(i, j));
    if (best !== undefined) claim([i], best, 'fused-ops');
  }
  // 3. Position between the same matched kernels.
  for (const [a0, a1, b0, b1] of gaps) {
    const bs = onlyBIn(b0, b1);
    const as = onlyAIn(a0, a1);
    if (bs.length === 0 || as.length === 0) continue;
    if (bs.length === 1) claim(as, bs[0]!, 'position');
    else if (bs.length === as.length) bs.forEach((j, k) => claim([as[k]!], j, 'position'));
  }
  // 4. Position through matched kernels: A's memory-bound kernels left in a gap where B runs no
  //    kernel of its own move forward to the next gap where it does, if that is one kernel with no
  //    op list (unmatched, or matched by position), and no matched kernel on the way reads their output.
  let carried: number[] = [];
  for (const [a0, a1, b0, b1] of gaps) {
    carried.push(...onlyAIn(a0, a1).filter((i) => isMemoryBound(seqA.occ[i]!.decoded)));
    const bs = range(b0, b1).filter((j) => !namesA.has(seqB.occ[j]!.name));
    if (bs.length === 0) continue;
    const j = bs[0]!;
    if (bs.length === 1 && !fusedOps(seqB.occ[j]!.name) && (!claimedB[j] || foundOfB.get(j)?.by === 'position')) {
      const moved = carried.filter((i) => !claimedA[i] && canMove(i, j));
      if (moved.length > 0) claim(moved, j, 'position');
    }
    carried = [];
  }
  for (const r of found) r.a.sort((x, y) => x - y);

  const call = (o: Occurrence): KernelCall => ({
    name: o.name,
    ...(o.op !== undefined ? { op: o.op } : {}),
    ...(o.inputDims !== undefined ? { inputDims: o.inputDims } : {}),
    durUs: o.durNs / 1000,
  });
  // Group identical replacements (the same kernels replaced several times per instance);
  // each call's time is the mean over the group's occurrences.
  const groups = new Map<string, { a: number[]; b: number; by: ReplacementRule }[]>();
  for (const r of found) {
    const key = `${r.by}\u0000${seqB.occ[r.b]!.name}\u0000${r.a.map((i) => seqA.occ[i]!.name).join('\u0001')}`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  const replaced: Replacement[] = [...groups.values()].map((members) => {
    const first = members[0]!;
    const meanNs = (f: (r: (typeof members)[number]) => number) => members.reduce((s, r) => s + f(r), 0) / members.length;
    const a = first.a.map((i, k) => call({ ...seqA.occ[i]!, durNs: meanNs((r) => seqA.occ[r.a[k]!]!.durNs) }));
    const b = call({ ...seqB.occ[first.b]!, durNs: meanNs((r) => seqB.occ[r.b]!.durNs) });
    return { a, b, by: first.by, count: members.length, aUs: a.reduce((s, x) => s + x.durUs, 0), bUs: b.durUs };
  });

  return {
    same,
    onlyA: unmatched(seqA, namesB, claimedA),
    onlyB: unmatched(seqB, namesA, claimedB),
    replaced,
  };
}

function unmatched(seq: Sequence, otherNames: ReadonlySet<string>, claimed: Uint8Array): UnmatchedKernel[] {
  const by = new Map<string, { op?: string; count: number; ns: number }>();
  seq.occ.forEach((o, i) => {
    if (claimed[i] || otherNames.has(o.name)) return;
    const e = by.get(o.name);
    if (e) {
      e.count++;
      e.ns += o.durNs;
    } else by.set(o.name, { ...(o.op !== undefined ? { op: o.op } : {}), count: 1, ns: o.durNs });
  });
  return [...by].map(([name, e]) => ({ name, ...(e.op !== undefined ? { op: e.op } : {}), count: e.count, meanUs: e.ns / e.count / 1000 }));
}

/** Per kernel name: calls per instance and mean duration per call, over every instance. */
function kernelNameStats(m: TraceModel, instances: readonly ScopeInstance[]): Map<string, { count: number; meanUs: number }> {
  const acc = new Map<string, { n: number; ns: number }>();
  for (const inst of instances) {
    for (const g of instanceKernels(m, inst)) {
      const name = m.strings.get(m.gpu.name[g]!);
      const e = acc.get(name);
      if (e) {
        e.n++;
        e.ns += m.gpu.durNs[g]!;
      } else acc.set(name, { n: 1, ns: m.gpu.durNs[g]! });
    }
  }
  const out = new Map<string, { count: number; meanUs: number }>();
  for (const [name, e] of acc) out.set(name, { count: e.n / instances.length, meanUs: e.ns / e.n / 1000 });
  return out;
}

/** The op names an Inductor kernel fused (every reading of an ambiguous name), or undefined. */
function fusedOps(kernel: string): Set<string> | undefined {
  const ind = decodeKernelName(kernel).inductor;
  if (!ind?.ops && !ind?.opCandidates) return undefined;
  const ops = new Set<string>(ind.ops ?? []);
  for (const c of ind.opCandidates ?? []) for (const o of c) ops.add(o);
  return ops.size > 0 ? ops : undefined;
}

/**
 * Whether a fused kernel's op list covers the work of A's kernel: its owning op or an op
 * around it (`aten::relu` → `aten::clamp_min` owns ReLU's kernel), or A's own fused ops.
 */
function doesWorkOf(fused: ReadonlySet<string>, o: Occurrence): boolean {
  for (const op of o.opPath) {
    const base = op.replace(/^aten::/, '').replace(/_$/, '');
    if (fused.has(base)) return true;
  }
  const own = fusedOps(o.name);
  return own !== undefined && [...own].every((x) => fused.has(x));
}

/** Equal `Input Dims`, or one a prefix of the other (an out= variant lists its output too). */
function dimsCompatible(x: unknown, y: unknown): boolean {
  if (!Array.isArray(x) || !Array.isArray(y)) return false;
  const n = Math.min(x.length, y.length);
  if (n === 0) return x.length === y.length;
  for (let k = 0; k < n; k++) if (JSON.stringify(x[k]) !== JSON.stringify(y[k])) return false;
  return true;
}

function range(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let k = lo; k < hi; k++) out.push(k);
  return out;
}

/**
 * Index pairs of a longest common subsequence. The common prefix and suffix are taken
 * first; the middle is solved exactly when small enough, otherwise greedily in order
 * (large training steps: the alignment then only decides where replacements are looked for).
 */
export function longestCommonSubsequence(x: readonly string[], y: readonly string[]): [number, number][] {
  const head: [number, number][] = [];
  let s = 0;
  while (s < x.length && s < y.length && x[s] === y[s]) {
    head.push([s, s]);
    s++;
  }
  const tail: [number, number][] = [];
  let ex = x.length;
  let ey = y.length;
  while (ex > s && ey > s && x[ex - 1] === y[ey - 1]) {
    ex--;
    ey--;
    tail.unshift([ex, ey]);
  }
  const n = ex - s;
  const m = ey - s;
  const mid: [number, number][] = [];
  if (n > 0 && m > 0) {
    if ((n + 1) * (m + 1) <= 16_000_000) {
      const w = m + 1;
      const dp = new Uint32Array((n + 1) * w);
      for (let i = n - 1; i >= 0; i--) {
        for (let j = m - 1; j >= 0; j--) {
          dp[i * w + j] = x[s + i] === y[s + j] ? dp[(i + 1) * w + j + 1]! + 1 : Math.max(dp[(i + 1) * w + j]!, dp[i * w + j + 1]!);
        }
      }
      let i = 0;
      let j = 0;
      while (i < n && j < m) {
        if (x[s + i] === y[s + j]) {
          mid.push([s + i, s + j]);
          i++;
          j++;
        } else if (dp[(i + 1) * w + j]! >= dp[i * w + j + 1]!) i++;
        else j++;
      }
    } else {
      let j = 0;
      for (let i = 0; i < n && j < m; i++) {
        let k = j;
        while (k < m && y[s + k] !== x[s + i]) k++;
        if (k < m) {
          mid.push([s + i, s + k]);
          j = k + 1;
        }
      }
    }
  }
  return [...head, ...mid, ...tail];
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
  const out = new Map<string, { name: string; category: string; n: number; ns: number }>();
  for (const inst of instances) {
    for (const i of inst.hostEvents) {
      const kind = m.host.kind[i]!;
      if (!keep(kind)) continue;
      const name = m.strings.get(m.host.name[i]!);
      const category = HOST_KIND_NAMES[kind]!;
      const key = `${category}\u0000${name}`;
      const e = out.get(key);
      if (e) {
        e.n++;
        e.ns += m.host.durNs[i]!;
      } else out.set(key, { name, category, n: 1, ns: m.host.durNs[i]! });
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Per-scope numbers

export function scopeStats(m: TraceModel, instances: readonly ScopeInstance[]): ScopeStats {
  const cpu = instances.map((x) => instanceDurNs(x) / 1000);
  const gpu = instances.map((x) => instanceGpuNs(m, x) / 1000);
  const kernels = instances.map((x) => instanceKernels(m, x).length);
  const counts = instances.map((x) => countLaunches(m, x.gpu));
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

