/**
 * Fused kernels matched to the eager kernels they replaced (S9, S11): a compiled (or hand-fused)
 * trace against an eager trace of the same workload, annotation by annotation.
 *
 * For each annotation name present in both traces, one instance's kernels are read as a sequence
 * (the sequence most instances share; durations are means over those instances):
 * 1. Anchors — kernels that are neither fused nor memory-bound (GEMMs, attention, collectives) —
 *    cut both sequences into segments; when both have the same number of anchors, segment k of
 *    one corresponds to segment k of the other, else each instance is one segment.
 * 2. In a segment, each Inductor kernel takes, by op role, the run of eager memory-bound kernels
 *    whose owning op (or an op around it: `aten::relu` → `aten::clamp_min`) is in its fused op list
 *    (`_unsafe_view, gelu, mul` takes the `aten::gelu` and `aten::mul` kernels); a template kernel
 *    (`triton_tem_…`) may take GEMM kernels too.
 * 3. ATen kernels that survived compilation take eager kernels of the same name (no replacement).
 *    Then, when anchors aligned, an eager kernel still untaken goes by op role to the Inductor
 *    kernel of the nearest segment whose op list fits (on a tie, the later one): eager code may
 *    run its ops in another order than the compiled graph — the workloads' eager GeGLU runs gate,
 *    gelu, up, mul, down, so gelu sits before the up GEMM while the fused `gelu_mul` kernel runs
 *    after it. Work moves forward past an anchor only if that anchor's op reads no tensor like the
 *    eager kernel's output (element count and dtype): a GEMM that reads it needed it in HBM first;
 *    backward, only past anchors whose output (where known) it does not read.
 * 4. A fused kernel that took nothing — a hand-written kernel has no op list — takes, by position,
 *    the eager memory-bound kernels left in its segment, when anchors aligned the segments. Eager
 *    memory-bound kernels left in a segment where the compiled trace runs no fused kernel move
 *    forward, through anchors that do not read their output, to the next segment that runs one; if
 *    that is a single kernel with no op list (untaken, or matched by position), it takes them too
 *    (`geglu_fwd` after the up GEMM takes the gelu before it as well as the mul). Forward only: a
 *    kernel that replaces work runs after that work's inputs exist. Where the segment holds an
 *    Inductor kernel, its op list has already said what it does, and the eager kernels stay unmatched.
 *
 * Savings, per instance: time = Σ eager kernels' mean time − the fused kernel's mean time; HBM
 * bytes = the intermediates between the replaced kernels, each written once and read back once,
 * that the fused kernel keeps on chip (see fusion.ts for how an intermediate is inferred).
 *
 * Ignores: CPU-side differences (the compile analysis's), copies and memsets.
 */
import type { TraceModel } from '../model/trace-model.js';
import {
  computeKernelSites,
  findIntermediate,
  kernelTrafficBytes,
  opBaseName,
  readsOutputOf,
  type FusedGenerator,
  type FusionIntermediate,
  type FusionKernelRef,
  type KernelSite,
} from './fusion.js';
import { shortKernelName } from './kernel-name.js';
import { tensorArgs } from './tensor-bytes.js';

export interface ReplacedBy {
  readonly name: string;
  readonly generator: FusedGenerator;
  readonly kind: string;
  readonly ops: readonly string[];
  readonly meanUs: number;
  /** Bytes of the kernel's tensor arguments (Inductor's launch op), when recorded. */
  readonly argBytes?: number;
}

export interface Replacement {
  readonly annotation: string;
  /** Which launch of this kernel in the annotation instance (0-based). */
  readonly occurrence: number;
  readonly fused: ReplacedBy;
  /** The eager kernels it replaced, in stream order. */
  readonly replaced: readonly FusionKernelRef[];
  readonly matchedBy: 'ops' | 'position';
  /** Σ of the replaced kernels' mean time per instance. */
  readonly eagerUs: number;
  readonly fusedUs: number;
  /** eagerUs − fusedUs (negative: the fused kernel is slower). */
  readonly timeSavedUs: number;
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
  readonly meanUs: number;
}

export interface FusionMatchResult {
  readonly replacements: Replacement[];
  /** Eager memory-bound kernels no compiled kernel took. */
  readonly unmatchedEager: UnmatchedKernel[];
  /** Fused kernels that took no eager kernel. */
  readonly unmatchedFused: UnmatchedKernel[];
  /** Instances read per annotation, and whether anchors aligned its segments. */
  readonly annotations: { readonly name: string; readonly compiledInstances: number; readonly eagerInstances: number; readonly anchorsAligned: boolean }[];
  /** Annotation names found in one trace only. */
  readonly onlyInCompiled: string[];
  readonly onlyInEager: string[];
}

interface Position {
  /** The site in the representative instance. */
  readonly site: KernelSite;
  readonly meanUs: number;
}

interface Sequence {
  readonly positions: Position[];
  readonly instances: number;
}

export function computeFusionMatch(compiled: TraceModel, eager: TraceModel): FusionMatchResult {
  const cSeqs = sequencesByAnnotation(compiled, computeKernelSites(compiled));
  const eSeqs = sequencesByAnnotation(eager, computeKernelSites(eager));
  const replacements: Replacement[] = [];
  const unmatchedEager: UnmatchedKernel[] = [];
  const unmatchedFused: UnmatchedKernel[] = [];
  const annotations: FusionMatchResult['annotations'] = [];
  for (const [name, c] of cSeqs) {
    const e = eSeqs.get(name);
    if (!e) continue;
    const r = matchSequences(compiled, eager, name, c, e);
    replacements.push(...r.replacements);
    unmatchedEager.push(...r.unmatchedEager);
    unmatchedFused.push(...r.unmatchedFused);
    annotations.push({ name, compiledInstances: c.instances, eagerInstances: e.instances, anchorsAligned: r.anchorsAligned });
  }
  return {
    replacements,
    unmatchedEager,
    unmatchedFused,
    annotations,
    onlyInCompiled: [...cSeqs.keys()].filter((k) => !eSeqs.has(k)),
    onlyInEager: [...eSeqs.keys()].filter((k) => !cSeqs.has(k)),
  };
}

/** Each annotation's kernel sequence: the one most of its instances share, with mean durations. */
function sequencesByAnnotation(m: TraceModel, sites: readonly KernelSite[]): Map<string, Sequence> {
  const byInstance = new Map<number, KernelSite[]>();
  for (const s of sites) {
    if (s.scope < 0) continue;
    let list = byInstance.get(s.scope);
    if (!list) byInstance.set(s.scope, (list = []));
    list.push(s);
  }
  const byName = new Map<string, Map<string, KernelSite[][]>>();
  for (const list of byInstance.values()) {
    list.sort((a, b) => m.gpu.startNs[a.gpu]! - m.gpu.startNs[b.gpu]! || a.gpu - b.gpu);
    const name = list[0]!.scopeName;
    const signature = list.map((s) => s.name).join('\u0000');
    let sigs = byName.get(name);
    if (!sigs) byName.set(name, (sigs = new Map()));
    let group = sigs.get(signature);
    if (!group) sigs.set(signature, (group = []));
    group.push(list);
  }
  const out = new Map<string, Sequence>();
  for (const [name, sigs] of byName) {
    let best: KernelSite[][] = [];
    for (const g of sigs.values()) if (g.length > best.length) best = g;
    const first = best[0]!;
    const positions = first.map((site, k) => ({
      site,
      meanUs: best.reduce((sum, inst) => sum + m.gpu.durNs[inst[k]!.gpu]!, 0) / best.length / 1000,
    }));
    out.set(name, { positions, instances: best.length });
  }
  return out;
}

const isAnchor = (s: KernelSite) => s.role === 'other';

function matchSequences(compiled: TraceModel, eager: TraceModel, annotation: string, c: Sequence, e: Sequence) {
  const cAnchors = c.positions.filter((p) => isAnchor(p.site)).length;
  const eAnchors = e.positions.filter((p) => isAnchor(p.site)).length;
  const anchorsAligned = cAnchors === eAnchors;
  const segments = (seq: Sequence): number[][] => {
    const out: number[][] = [[]];
    seq.positions.forEach((p, k) => {
      if (anchorsAligned && isAnchor(p.site)) out.push([]);
      else if (!isAnchor(p.site)) out[out.length - 1]!.push(k);
    });
    return out;
  };
  const cSeg = segments(c);
  const eSeg = segments(e);
  const taken = new Set<number>();
  const replacements: Replacement[] = [];
  const unmatchedFused: UnmatchedKernel[] = [];
  const occurrences = new Map<string, number>();
  const assigned = new Map<number, { eager: number[]; matchedBy: 'ops' | 'position' }>();

  const eSegOf = (k: number) => (anchorsAligned ? (eSeg[k] ?? []) : eSeg.flat());
  const opSets = c.positions.map((p) => new Set((p.site.decoded.inductor?.ops ?? []).map(opBaseName)));
  const opsOf = (i: number) => opSets[i]!;
  const fusedIn = (cs: readonly number[]) => cs.filter((i) => c.positions[i]!.site.role === 'fused');
  // A template kernel (`triton_tem_…`) may take GEMM kernels too.
  const eligible = (i: number, j: number) => c.positions[i]!.site.decoded.inductor?.kind === 'template' || e.positions[j]!.site.role === 'memory-bound';
  const fits = (i: number, j: number) => e.positions[j]!.site.opChain.some((op) => opsOf(i).has(opBaseName(op)));

  // Eager anchors in order: anchor k ends segment k.
  const eAnchorSites = e.positions.filter((p) => isAnchor(p.site)).map((p) => p.site);
  /**
   * Whether eager kernel j's work can move from segment k to segment t: forward, past no anchor that
   * reads its output; backward, past no anchor whose output it reads.
   */
  const canMove = (j: number, k: number, t: number) => {
    const s = e.positions[j]!.site;
    for (let x = k; x < t; x++) if (readsOutputOf(eager, eAnchorSites[x]!.owner, s.owner, s.decoded.kind)) return false;
    for (let x = t; x < k; x++) if (readsOutputOf(eager, s.owner, eAnchorSites[x]!.owner, eAnchorSites[x]!.decoded.kind)) return false;
    return true;
  };

  // 2. by op role, in the fused kernel's own segment
  cSeg.forEach((cs, k) => {
    const es = eSegOf(k);
    for (const i of fusedIn(cs)) {
      if (opsOf(i).size === 0) continue;
      const candidates = es.filter((j) => !taken.has(j) && eligible(i, j));
      const start = candidates.findIndex((j) => fits(i, j));
      if (start < 0) continue;
      const run: number[] = [];
      for (let x = start; x < candidates.length && fits(i, candidates[x]!); x++) run.push(candidates[x]!);
      run.forEach((j) => taken.add(j));
      assigned.set(i, { eager: run, matchedBy: 'ops' });
    }
  });
  // 3. survivors: same kernel name
  cSeg.forEach((cs, k) => {
    const es = eSegOf(k);
    for (const i of cs) {
      const site = c.positions[i]!.site;
      if (site.role === 'fused') continue;
      const j = es.find((x) => !taken.has(x) && e.positions[x]!.site.name === site.name);
      if (j !== undefined) taken.add(j);
    }
  });
  if (anchorsAligned) {
    // 2b. by op role, from another segment: the fused kernel of the nearest segment whose op list fits
    eSeg.forEach((es, k) => {
      for (const j of es) {
        if (taken.has(j)) continue;
        let best: { i: number; dist: number } | undefined;
        cSeg.forEach((cs, t) => {
          for (const i of fusedIn(cs)) {
            if (opsOf(i).size === 0 || !eligible(i, j) || !fits(i, j) || !canMove(j, k, t)) continue;
            const dist = Math.abs(t - k);
            // on a tie, the later kernel: a fused kernel runs after the work whose inputs it needs
            if (!best || dist < best.dist || (dist === best.dist && t > k)) best = { i, dist };
          }
        });
        if (!best) continue;
        taken.add(j);
        const a = assigned.get(best.i);
        if (a) a.eager.push(j);
        else assigned.set(best.i, { eager: [j], matchedBy: 'ops' });
      }
    });
  }
  // 4. by position, in the fused kernel's own segment
  if (anchorsAligned) {
    cSeg.forEach((cs, k) => {
      const left = eSeg[k]!.filter((j) => !taken.has(j) && e.positions[j]!.site.role === 'memory-bound');
      const empty = fusedIn(cs).filter((i) => !assigned.has(i));
      if (left.length > 0 && empty.length > 0) {
        left.forEach((j) => taken.add(j));
        assigned.set(empty[0]!, { eager: left, matchedBy: 'position' });
      }
    });
    // 4b. by position, through anchors: eager kernels left in a segment where the compiled trace
    // runs no fused kernel go to the next segment that has one, if that is one kernel with no op list
    // (and whose output no anchor on the way reads)
    let carried: { j: number; from: number }[] = [];
    cSeg.forEach((cs, k) => {
      carried.push(...eSeg[k]!.filter((j) => !taken.has(j) && e.positions[j]!.site.role === 'memory-bound').map((j) => ({ j, from: k })));
      const fused = fusedIn(cs);
      if (fused.length === 0) return;
      const target = fused[0]!;
      const a = assigned.get(target);
      const moved = carried.filter((x) => canMove(x.j, x.from, k)).map((x) => x.j);
      if (fused.length === 1 && opsOf(target).size === 0 && (!a || a.matchedBy === 'position') && moved.length > 0) {
        moved.forEach((j) => taken.add(j));
        if (a) a.eager.push(...moved);
        else assigned.set(target, { eager: moved, matchedBy: 'position' });
      }
      carried = [];
    });
  }
  for (const a of assigned.values()) a.eager.sort((x, y) => x - y);

  for (let i = 0; i < c.positions.length; i++) {
    const { site } = c.positions[i]!;
    if (site.role !== 'fused') continue;
    const occurrence = occurrences.get(site.name) ?? 0;
    occurrences.set(site.name, occurrence + 1);
    const a = assigned.get(i);
    if (!a) {
      unmatchedFused.push(unmatched(compiled, annotation, c.positions[i]!));
      continue;
    }
    replacements.push(describeReplacement(compiled, eager, annotation, occurrence, c.positions[i]!, a.eager.map((j) => e.positions[j]!), a.matchedBy));
  }
  const unmatchedEager = e.positions
    .map((p, j) => ({ p, j }))
    .filter(({ p, j }) => !taken.has(j) && p.site.role === 'memory-bound')
    .map(({ p }) => unmatched(eager, annotation, p));
  return { replacements, unmatchedEager, unmatchedFused, anchorsAligned };
}

function describeReplacement(
  compiled: TraceModel,
  eager: TraceModel,
  annotation: string,
  occurrence: number,
  fusedPos: Position,
  replacedPos: Position[],
  matchedBy: 'ops' | 'position',
): Replacement {
  const site = fusedPos.site;
  const argBytes = launchArgBytes(compiled, site);
  const replaced: FusionKernelRef[] = replacedPos.map((p) => {
    const traffic = kernelTrafficBytes(eager, p.site);
    return {
      name: p.site.name,
      shortName: shortKernelName(p.site.name),
      op: p.site.owner >= 0 ? eager.strings.get(eager.host.name[p.site.owner]!) : '',
      meanUs: p.meanUs,
      ...(traffic !== undefined ? { trafficBytes: traffic } : {}),
    };
  });
  const intermediates: FusionIntermediate[] = [];
  for (let k = 0; k + 1 < replacedPos.length; k++) {
    const l = findIntermediate(eager, replacedPos[k]!.site, replacedPos[k + 1]!.site);
    if (l) intermediates.push({ producer: l.producer, consumer: l.consumer, dims: l.dims, dtype: l.dtype, bytes: l.bytes, inferredFrom: l.inferredFrom });
  }
  const intermediateBytes = intermediates.reduce((s, l) => s + l.bytes, 0);
  const eagerUs = replaced.reduce((s, r) => s + r.meanUs, 0);
  const traffic = replaced.every((r) => r.trafficBytes !== undefined) ? replaced.reduce((s, r) => s + r.trafficBytes!, 0) : undefined;
  return {
    annotation,
    occurrence,
    fused: {
      name: site.name,
      generator: site.generator!,
      kind: site.decoded.inductor?.kind ?? site.decoded.kind,
      ops: site.decoded.inductor?.ops ?? [],
      meanUs: fusedPos.meanUs,
      ...(argBytes !== undefined ? { argBytes } : {}),
    },
    replaced,
    matchedBy,
    eagerUs,
    fusedUs: fusedPos.meanUs,
    timeSavedUs: eagerUs - fusedPos.meanUs,
    intermediates,
    intermediateBytes,
    hbmBytesSaved: 2 * intermediateBytes,
    ...(traffic !== undefined ? { eagerTrafficBytes: traffic } : {}),
  };
}

/** Bytes of the tensor arguments of the cpu_op Inductor records for a launch (named after the kernel). */
function launchArgBytes(m: TraceModel, s: KernelSite): number | undefined {
  if (s.owner < 0 || m.strings.get(m.host.name[s.owner]!) !== s.name) return undefined;
  const args = tensorArgs(m.host.args[s.owner]);
  return args.length ? args.reduce((sum, t) => sum + t.bytes, 0) : undefined;
}

function unmatched(m: TraceModel, annotation: string, p: Position): UnmatchedKernel {
  return {
    annotation,
    name: p.site.name,
    shortName: shortKernelName(p.site.name),
    op: p.site.owner >= 0 ? m.strings.get(m.host.name[p.site.owner]!) : '',
    meanUs: p.meanUs,
  };
}
