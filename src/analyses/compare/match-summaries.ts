/**
 * The kernel matcher's reading (kernel-match.ts) as the views show it (`diff`, `fusion --vs`,
 * `explain --vs`): identical replacements grouped, the same work per (name, op, shapes), the
 * unmatched calls per (name, op, shapes, reason); each time a mean per call over the instances
 * and occurrences it stands for.
 */
import { mergeProofs, type LinkProof } from '../helpers/link-evidence.js';
import type { KernelMatch, MatchGroup, ReplacementRule } from './kernel-match.js';
import { describeShapes, type MatchCall } from './match-calls.js';
import { pairProof, sameWork } from './match-evidence.js';

export interface KernelCall {
  readonly name: string;
  /** The owning `cpu_op`, when there is one. */
  readonly op?: string;
  readonly inputDims?: unknown;
  /** Mean duration of this call over the instances (and occurrences) it stands for. */
  readonly durUs: number;
}

export interface Replacement {
  /** A's calls whose work B's kernels do. */
  readonly a: readonly KernelCall[];
  /** B's first kernel. */
  readonly b: KernelCall;
  /** The later stages of `b`'s split reduction, counted in bUs. */
  readonly laterStages?: readonly KernelCall[];
  /** B's other kernels in the replacement (another kernel Inductor split the op into, with its stages), counted in bUs. */
  readonly withKernels?: readonly KernelCall[];
  readonly by: ReplacementRule;
  /** How many times per instance. */
  readonly count: number;
  /** Σ of A's calls' durations, and of B's kernels' (every stage), per occurrence. */
  readonly aUs: number;
  readonly bUs: number;
  /** What supports it, over every occurrence. */
  readonly proof: LinkProof;
  /** The physics check of its first occurrence: passed (with the least time the work needs) or not checked, and why. */
  readonly physics: { readonly verdict: 'passed' | 'unchecked'; readonly minUs?: number; readonly reason?: string };
  /** The groups it stands for, in the representative instances. */
  readonly occurrences: readonly MatchGroup[];
}

const call = (c: MatchCall, durNs: number): KernelCall => ({
  name: c.name,
  ...(c.op !== undefined ? { op: c.op } : {}),
  ...(c.inputDims !== undefined ? { inputDims: c.inputDims } : {}),
  durUs: durNs / 1000,
});

/** Identical replacements (the same calls, shapes and rule) grouped; each call's time is the mean over the group's occurrences. */
export function summarizeReplacements(k: KernelMatch): Replacement[] {
  const A = k.a.calls;
  const B = k.b.calls;
  const byKey = new Map<string, MatchGroup[]>();
  for (const g of k.groups) {
    const key = [g.by, ...g.b.map((j) => B[j]!.name), ...g.a.map((i) => `${A[i]!.name}\u0001${describeShapes(A[i]!)}`)].join('\u0000');
    const list = byKey.get(key);
    if (list) list.push(g);
    else byKey.set(key, [g]);
  }
  return [...byKey.values()].map((members) => {
    const first = members[0]!;
    const meanNs = (f: (g: MatchGroup) => number) => members.reduce((s, g) => s + f(g), 0) / members.length;
    const a = first.a.map((i, x) => call(A[i]!, meanNs((g) => A[g.a[x]!]!.durNs)));
    const bs = first.b.map((j, x) => ({ j, c: call(B[j]!, meanNs((g) => B[g.b[x]!]!.durNs)) }));
    const b = bs[0]!.c;
    const later = bs.slice(1).filter((x) => k.firstStageOf.get(x.j) === first.b[0]).map((x) => x.c);
    const others = bs.slice(1).filter((x) => k.firstStageOf.get(x.j) !== first.b[0]).map((x) => x.c);
    const ph = first.physics;
    return {
      a,
      b,
      ...(later.length ? { laterStages: later } : {}),
      ...(others.length ? { withKernels: others } : {}),
      by: first.by,
      count: members.length,
      aUs: a.reduce((s, x) => s + x.durUs, 0),
      bUs: bs.reduce((t, x) => t + x.c.durUs, 0),
      proof: mergeProofs(members.map((g) => g.proof)),
      physics: ph.verdict === 'passed' ? { verdict: 'passed', minUs: ph.minNs / 1000 } : { verdict: 'unchecked', reason: ph.verdict === 'unchecked' ? ph.reason : '' },
      occurrences: members,
    };
  });
}

export interface SameWork {
  readonly name: string;
  /** The owning op's tensors in A (`[8192,768] bf16, …`), empty when not recorded. */
  readonly shapes: string;
  readonly op?: string;
  /** Whether each side's op recorded the calls' shapes (a CUDA-graph replay's do not). */
  readonly shapesRecorded: { readonly a: boolean; readonly b: boolean };
  /** A's launch signature (grid, block, shared memory, registers), when recorded: what pairs calls without shapes. */
  readonly signature?: string;
  /** Calls per instance and mean duration per call, on each side. */
  readonly a: { readonly count: number; readonly meanUs: number };
  readonly b: { readonly count: number; readonly meanUs: number };
  /** What makes them the same work: a fact only where both sides recorded equal shapes for every call. */
  readonly proof: LinkProof;
}

/**
 * Calls of the same work in both, per (name, A's op and shapes; and A's launch signature where A
 * recorded no shapes), in A's order: A's calls that are not new, with the B calls aligned to them
 * and B's other calls of the same work. Replayed calls of one kernel with two signatures stay two rows.
 */
export function summarizeSame(k: KernelMatch): SameWork[] {
  const A = k.a.calls;
  const B = k.b.calls;
  interface Row {
    rep: MatchCall;
    as: number[];
    bs: number[];
    proofs: LinkProof[];
  }
  const rows = new Map<string, Row>();
  const rowOfA = new Map<number, Row>();
  A.forEach((c, i) => {
    if (k.newInA[i]) return;
    const key = `${c.name}\u0000${c.op ?? ''}\u0000${describeShapes(c)}\u0000${c.shapesRecorded ? '' : (c.signatureKey ?? '')}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { rep: c, as: [], bs: [], proofs: [] }));
    r.as.push(i);
    rowOfA.set(i, r);
  });
  const paired = new Set<number>();
  k.pairs.forEach(([i, j], x) => {
    const r = rowOfA.get(i)!;
    r.bs.push(j);
    r.proofs.push(k.pairProofs[x]!);
    paired.add(j);
  });
  B.forEach((c, j) => {
    if (paired.has(j) || k.newInB[j]) return;
    const all = [...rows.values()];
    const r = all.find((x) => sameWork(x.rep, c) && x.rep.op === c.op) ?? all.find((x) => sameWork(x.rep, c));
    if (!r) return;
    r.bs.push(j);
    r.proofs.push(pairProof(r.rep, c));
  });
  const mean = (xs: number[], s: readonly MatchCall[]) => (xs.length ? xs.reduce((t, x) => t + s[x]!.durNs, 0) / xs.length / 1000 : NaN);
  return [...rows.values()].map((r) => ({
    name: r.rep.name,
    shapes: describeShapes(r.rep),
    ...(r.rep.op !== undefined ? { op: r.rep.op } : {}),
    shapesRecorded: { a: r.as.every((i) => A[i]!.shapesRecorded), b: r.bs.length > 0 && r.bs.every((j) => B[j]!.shapesRecorded) },
    ...(r.rep.signatureKey !== undefined ? { signature: r.rep.signatureKey } : {}),
    a: { count: r.as.length, meanUs: mean(r.as, A) },
    b: { count: r.bs.length, meanUs: mean(r.bs, B) },
    proof: mergeProofs(r.proofs),
  }));
}

export interface UnmatchedCall {
  readonly name: string;
  readonly op?: string;
  /** The owning op's tensors, empty when not recorded. */
  readonly shapes: string;
  /** Calls per instance. */
  readonly count: number;
  readonly meanUs: number;
  /** Why the evidence did not decide. */
  readonly reason: string;
}

/** Unmatched calls grouped by (name, op, shapes, reason), in first-seen order: the call, count, summed ns. */
export function groupUnmatched(
  calls: readonly MatchCall[],
  reasons: ReadonlyMap<number, string>,
  keep: (c: MatchCall) => boolean = () => true,
): { c: MatchCall; reason: string; n: number; ns: number }[] {
  const by = new Map<string, { c: MatchCall; reason: string; n: number; ns: number }>();
  for (const [i, reason] of reasons) {
    const c = calls[i]!;
    if (!keep(c)) continue;
    const key = `${c.name}\u0000${c.op ?? ''}\u0000${describeShapes(c)}\u0000${reason}`;
    const e = by.get(key);
    if (e) {
      e.n++;
      e.ns += c.durNs;
    } else by.set(key, { c, reason, n: 1, ns: c.durNs });
  }
  return [...by.values()];
}

/** New calls of one side that no replacement holds, per (name, shapes, reason). */
export function summarizeUnmatched(k: KernelMatch, side: 'a' | 'b'): UnmatchedCall[] {
  const groups = side === 'a' ? groupUnmatched(k.a.calls, k.reasonA) : groupUnmatched(k.b.calls, k.reasonB);
  return groups.map((e) => ({
    name: e.c.name,
    ...(e.c.op !== undefined ? { op: e.c.op } : {}),
    shapes: describeShapes(e.c),
    count: e.n,
    meanUs: e.ns / e.n / 1000,
    reason: e.reason,
  }));
}
