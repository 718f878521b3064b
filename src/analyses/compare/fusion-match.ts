/**
 * Fused kernels matched to the eager kernels they replaced (docs/readings.md S9, S11), as the one
 * matcher (`kernel-match.ts`, behind `diff` and `explain --vs` too) reads them: `fusion TRACE --vs
 * BASELINE` reads BASELINE → TRACE — the baseline (eager) is A, the before; the trace (compiled or
 * hand-fused) B, the after — compared over the scope `diff BASELINE TRACE` would use. Each
 * replacement here is one of `diff`'s, with the same calls and times; unmatched calls carry the
 * matcher's reason.
 *
 * Savings, per occurrence: time = Σ eager calls' mean time − the replacing kernel's (both stages
 * of a split reduction); HBM bytes = the intermediates the replacing kernel keeps on chip, claimed
 * only for a producer → consumer pair of the replaced calls, consecutive in the eager instance's
 * order among them, whose intermediate (inferred from shapes, see fusion.ts) no other call between
 * them reads: one that does (a GEMM between two ReLUs) needed it in HBM, and one with no recorded
 * shapes may read anything; and only between ops wholly replaced (an op whose other kernels still
 * run reads its tensors from HBM). Each written once and read back once: 2 × its bytes.
 *
 * Ignores: CPU-side differences (the compile analysis's).
 */
import type { TraceModel } from '../../model/trace-model.js';
import { GpuKind } from '../../model/trace-model.js';
import { computeTraceDiffWithMatch, type DiffOptions } from './diff.js';
import type { FusionIntermediate, FusionKernelRef } from './fusion.js';
import { computeKernelSites, isCompiledGraphFrame, isMemoryBound, type FusedGenerator } from './kernel-sites.js';
import { findIntermediate, kernelTrafficBytes } from './intermediates.js';
import type { KernelMatch, MatchGroup } from './kernel-match.js';
import { describeShapes, type MatchCall } from './match-calls.js';
import { groupUnmatched, type Replacement as MatchReplacement } from './match-summaries.js';
import { shortKernelName } from '../kernels/kernel-name.js';
import type { LinkProof } from '../helpers/link-evidence.js';
import { listAnnotations } from '../host/scopes.js';
import { numelOf, tensorArgs } from '../facts/tensor-bytes.js';

export interface ReplacedBy {
  readonly name: string;
  /** `library`: a kernel of a library (a cuBLAS GEMM with a bias epilogue) that took eager work. */
  readonly generator: FusedGenerator | 'library';
  readonly kind: string;
  readonly ops: readonly string[];
  readonly meanUs: number;
  /** Bytes of the kernel's tensor arguments (Inductor's launch op), when recorded. */
  readonly argBytes?: number;
  /** The later stages of a split reduction, whose time is in meanUs. */
  readonly laterStages?: readonly { readonly name: string; readonly meanUs: number }[];
  /** The compiled trace's other kernels in the replacement (another kernel an op was split into), whose time is in meanUs. */
  readonly withKernels?: readonly { readonly name: string; readonly meanUs: number }[];
}

export interface Replacement {
  /** The scope compared (annotation name, `ProfilerStep*` or `trace`). */
  readonly annotation: string;
  /** How many times per instance (identical replacements are one row). */
  readonly count: number;
  readonly fused: ReplacedBy;
  /** The eager calls it replaced, in stream order. */
  readonly replaced: readonly FusionKernelRef[];
  readonly matchedBy: 'ops' | 'position' | 'op-and-shape';
  /** What supports it (`diff`'s link): `fact` only where the same op on the same recorded shapes runs the kernel, else `likely`. */
  readonly link: LinkProof;
  /** Σ of the replaced calls' mean time, per occurrence. */
  readonly eagerUs: number;
  readonly fusedUs: number;
  /** eagerUs − fusedUs (negative: the fused kernel is slower). */
  readonly timeSavedUs: number;
  /** Kept on chip: producer → consumer pairs with no other reader between them (see the module comment). */
  readonly intermediates: readonly FusionIntermediate[];
  readonly intermediateBytes: number;
  /** 2 × intermediateBytes: the write and the read-back the fused kernel does not make. */
  readonly hbmBytesSaved: number;
  /** HBM bytes the replaced kernels move (inputs read once, outputs written once), when all known. */
  readonly eagerTrafficBytes?: number;
}

export interface UnmatchedKernel {
  readonly annotation: string;
  readonly name: string;
  readonly shortName: string;
  readonly op: string;
  /** The owning op's tensors, empty when not recorded. */
  readonly shapes: string;
  /** Calls per instance. */
  readonly count: number;
  readonly meanUs: number;
  /** Why the evidence did not decide. */
  readonly reason: string;
}

export interface FusionMatchResult {
  readonly replacements: Replacement[];
  /** Eager calls no compiled kernel was shown to replace (memsets and copies included). */
  readonly unmatchedEager: UnmatchedKernel[];
  /** Fused (Inductor, hand-written) kernels shown to replace nothing. */
  readonly unmatchedFused: UnmatchedKernel[];
  /** The scope compared, and its instances on each side. */
  readonly annotations: { readonly name: string; readonly compiledInstances: number; readonly eagerInstances: number }[];
  /** Annotation names found in one trace only. */
  readonly onlyInCompiled: string[];
  readonly onlyInEager: string[];
  /** The diff's notes (instances whose GPU work differs). */
  readonly notes: readonly string[];
}

/** `fusion COMPILED --vs EAGER`: the eager trace is A, the compiled one B, as `diff EAGER COMPILED` reads them. */
export function computeFusionMatch(compiled: TraceModel, eager: TraceModel, opts: DiffOptions = {}): FusionMatchResult {
  const { diff, match } = computeTraceDiffWithMatch(eager, compiled, opts);
  const scope = diff.scope.name ?? (diff.scope.per === 'step' ? 'ProfilerStep*' : 'trace');
  const result = fusionFromMatch(eager, compiled, match, diff.kernels.replaced, scope);
  // Inductor's `## Call CompiledFxGraph … ##` frames are not the user's annotations.
  const names = (m: TraceModel) => listAnnotations(m).map((x) => x.name).filter((n) => !isCompiledGraphFrame(n));
  const namesC = names(compiled);
  const namesE = names(eager);
  return {
    ...result,
    annotations: [{ name: scope, compiledInstances: diff.scope.instancesB, eagerInstances: diff.scope.instancesA }],
    onlyInCompiled: namesC.filter((n) => !namesE.includes(n)),
    onlyInEager: namesE.filter((n) => !namesC.includes(n)),
    notes: diff.notes,
  };
}

/** The fusion reading of one match: A is the eager side, B the compiled. */
export function fusionFromMatch(
  eager: TraceModel,
  compiled: TraceModel,
  match: KernelMatch,
  replaced: readonly MatchReplacement[],
  scope: string,
): Pick<FusionMatchResult, 'replacements' | 'unmatchedEager' | 'unmatchedFused'> {
  const generatorOf = new Map<number, FusedGenerator>();
  for (const s of computeKernelSites(compiled)) if (s.generator) generatorOf.set(s.gpu, s.generator);
  const replacements = replaced.map((r) => describeReplacement(eager, compiled, match, r, scope, generatorOf));
  const unmatched = (calls: readonly MatchCall[], reasons: ReadonlyMap<number, string>, keep: (c: MatchCall) => boolean): UnmatchedKernel[] => {
    return groupUnmatched(calls, reasons, keep).map((e) => ({
      annotation: scope,
      name: e.c.name,
      shortName: shortKernelName(e.c.name),
      op: e.c.op ?? '',
      shapes: describeShapes(e.c),
      count: e.n,
      meanUs: e.ns / e.n / 1000,
      reason: e.reason,
    }));
  };
  return {
    replacements,
    unmatchedEager: unmatched(match.a.calls, match.reasonA, () => true),
    unmatchedFused: unmatched(match.b.calls, match.reasonB, (c) => generatorOf.has(c.gpu)),
  };
}

function describeReplacement(
  eager: TraceModel,
  compiled: TraceModel,
  match: KernelMatch,
  r: MatchReplacement,
  scope: string,
  generatorOf: ReadonlyMap<number, FusedGenerator>,
): Replacement {
  const first = r.occurrences[0]!;
  const b = match.b.calls[first.b[0]!]!;
  const argBytes = launchArgBytes(compiled, b);
  const replaced: FusionKernelRef[] = r.a.map((x, k) => {
    const c = match.a.calls[first.a[k]!]!;
    const traffic = c.gpuKind === GpuKind.Kernel ? kernelTrafficBytes(eager, { owner: c.owner, decoded: c.decoded, role: isMemoryBound(c.decoded) ? 'memory-bound' : 'other' }) : undefined;
    return {
      name: x.name,
      shortName: shortKernelName(x.name),
      op: x.op ?? '',
      meanUs: x.durUs,
      ...(traffic !== undefined ? { trafficBytes: traffic } : {}),
    };
  });
  // The intermediates must be the same in every occurrence to be claimed.
  const per = r.occurrences.map((g) => keptOnChip(eager, match, g));
  const same = per.every((l) => l.length === per[0]!.length && l.every((x, k) => x.bytes === per[0]![k]!.bytes));
  const intermediates = same ? per[0]! : [];
  const intermediateBytes = intermediates.reduce((s, l) => s + l.bytes, 0);
  const traffic = replaced.every((x) => x.trafficBytes !== undefined) ? replaced.reduce((s, x) => s + x.trafficBytes!, 0) : undefined;
  const generator = generatorOf.get(b.gpu) ?? 'library';
  return {
    annotation: scope,
    count: r.count,
    fused: {
      name: b.name,
      generator,
      kind: b.decoded.inductor?.kind ?? b.decoded.kind,
      ops: b.decoded.inductor?.ops ?? [],
      meanUs: r.bUs,
      ...(argBytes !== undefined ? { argBytes } : {}),
      ...(r.laterStages ? { laterStages: r.laterStages.map((x) => ({ name: x.name, meanUs: x.durUs })) } : {}),
      ...(r.withKernels ? { withKernels: r.withKernels.map((x) => ({ name: x.name, meanUs: x.durUs })) } : {}),
    },
    replaced,
    matchedBy: r.by === 'fused-ops' ? 'ops' : r.by,
    link: r.proof,
    eagerUs: r.aUs,
    fusedUs: r.bUs,
    timeSavedUs: r.aUs - r.bUs,
    intermediates,
    intermediateBytes,
    hbmBytesSaved: 2 * intermediateBytes,
    ...(traffic !== undefined ? { eagerTrafficBytes: traffic } : {}),
  };
}

/**
 * The intermediates one replacement keeps on chip: for each pair of its eager calls consecutive in
 * stream order, the tensor the first's op wrote and the second's read, when no call of the
 * instance between them (outside the group) may read it — a call whose op takes a tensor of its
 * element count and dtype, or a kernel or copy with no recorded shapes. Memsets read nothing.
 */
function keptOnChip(eager: TraceModel, match: KernelMatch, g: MatchGroup): FusionIntermediate[] {
  const A = match.a.calls;
  const out: FusionIntermediate[] = [];
  const members = new Set(g.a);
  // An op only part of whose calls were replaced still runs its other kernels in the compiled
  // trace, reading its inputs from HBM there: nothing it reads or writes is kept on chip.
  const wholly = (op: number) => op >= 0 && A.every((c, i) => c.owner !== op || members.has(i));
  for (let k = 0; k + 1 < g.a.length; k++) {
    const p = A[g.a[k]!]!;
    const q = A[g.a[k + 1]!]!;
    if (p.gpuKind !== GpuKind.Kernel || q.gpuKind !== GpuKind.Kernel) continue;
    if (!wholly(p.owner) || !wholly(q.owner)) continue;
    const l = findIntermediate(eager, p, q);
    if (!l) continue;
    const numel = numelOf(l.dims);
    let readBetween = false;
    for (let x = g.a[k]! + 1; x < g.a[k + 1]! && !readBetween; x++) {
      if (members.has(x)) continue;
      const c = A[x]!;
      if (c.gpuKind === GpuKind.Memset) continue;
      const args = c.owner >= 0 ? tensorArgs(eager.host.args[c.owner]) : [];
      readBetween = args.length === 0 || args.some((t) => t.numel === numel && t.dtype === l.dtype);
    }
    if (!readBetween) out.push({ producer: l.producer, consumer: l.consumer, dims: l.dims, dtype: l.dtype, bytes: l.bytes, evidence: l.evidence, strength: l.strength });
  }
  return out;
}

/** Bytes of the tensor arguments of the cpu_op Inductor records for a launch (named after the kernel). */
function launchArgBytes(m: TraceModel, c: MatchCall): number | undefined {
  if (c.owner < 0 || m.strings.get(m.host.name[c.owner]!) !== c.name) return undefined;
  const args = tensorArgs(m.host.args[c.owner]);
  return args.length ? args.reduce((sum, t) => sum + t.bytes, 0) : undefined;
}
