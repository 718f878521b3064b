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
 * 4. A fused kernel that took nothing — a hand-written kernel has no op list — takes, by position,
 *    the eager memory-bound kernels left in its segment, when anchors aligned the segments.
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

  for (let k = 0; k < cSeg.length; k++) {
    const cs = cSeg[k]!;
    const es = anchorsAligned ? (eSeg[k] ?? []) : eSeg.flat();
    const fused = cs.filter((i) => c.positions[i]!.site.role === 'fused');
    // 2. by op role
    for (const i of fused) {
      const site = c.positions[i]!.site;
      const ops = new Set((site.decoded.inductor?.ops ?? []).map(opBaseName));
      if (ops.size === 0) continue;
      const template = site.decoded.inductor?.kind === 'template';
      const candidates = es.filter((j) => !taken.has(j) && (template || e.positions[j]!.site.role === 'memory-bound'));
      const fits = (j: number) => e.positions[j]!.site.opChain.some((op) => ops.has(opBaseName(op)));
      const start = candidates.findIndex(fits);
      if (start < 0) continue;
      const run: number[] = [];
      for (let x = start; x < candidates.length && fits(candidates[x]!); x++) run.push(candidates[x]!);
      run.forEach((j) => taken.add(j));
      assigned.set(i, { eager: run, matchedBy: 'ops' });
    }
    // 3. survivors: same kernel name
    for (const i of cs) {
      const site = c.positions[i]!.site;
      if (site.role === 'fused') continue;
      const j = es.find((x) => !taken.has(x) && e.positions[x]!.site.name === site.name);
      if (j !== undefined) taken.add(j);
    }
    // 4. by position
    if (anchorsAligned) {
      const left = es.filter((j) => !taken.has(j) && e.positions[j]!.site.role === 'memory-bound');
      const empty = fused.filter((i) => !assigned.has(i));
      if (left.length > 0 && empty.length > 0) {
        left.forEach((j) => taken.add(j));
        assigned.set(empty[0]!, { eager: left, matchedBy: 'position' });
      }
    }
  }

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
