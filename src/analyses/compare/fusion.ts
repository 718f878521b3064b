/**
 * Fusion (docs/readings.md S9): what fused, and what could.
 *
 * Fused kernels: every Inductor Triton kernel decoded from its name (`triton_poi_fused_…_N` →
 * pointwise, the fused op list, the index), and every hand-written kernel — a kernel whose name
 * decodes to nothing known that ran outside any ATen op (a `@triton.jit` kernel called directly,
 * like the `geglu_mlp_hand` fixture's `geglu_fwd`, is launched by `cuLaunchKernelEx` under no
 * `cpu_op` at all).
 *
 * Opportunities: chains of memory-bound kernels (pointwise, reductions, normalizations, softmax,
 * copies — by `decodeKernelName(…).kind`) on one stream within one annotation instance, where one
 * kernel's op wrote a tensor and the next op to read it is the next kernel's: that intermediate is
 * written to HBM by the first and read back by the second, which a fused kernel would not do.
 * The links come from chain-links.ts (what each op read and wrote: by shape, the producer's
 * output derived by rule, facts/op-shapes.ts — likely; with `--et`, torch's execution trace's
 * tensor ids — fact); activities that do not touch the intermediate (a GEMM of other tensors, a
 * memset, a copy, the consumer's own memset) may run between the two. The chains are assembled
 * and grouped by fusion-chains.ts; who can fuse each (Inductor, a hand-written kernel, nobody
 * when a vendor library runs part of it) by fusion-toolchain.ts. Each chain carries the
 * estimated saving: its kernel time at its own achieved bandwidth without the round trips, per
 * instance and per step (DESIGN §2), which orders them and which `explain`'s fusion action reads.
 *
 * Ignores: kernels on different streams; GEMMs' epilogues (the `gemm` analysis's).
 */
import type { TraceModel } from '../../model/trace-model.js';
import { shortKernelName } from '../kernels/kernel-name.js';
import { tensorArgs } from '../facts/tensor-bytes.js';
import { compareText } from '../../core/compare-text.js';
import { perModel } from '../helpers/per-model.js';
import type { LinkEvidence, LinkStrength } from '../helpers/link-evidence.js';
import { findChainLinks, type RefusedChainLink } from './chain-links.js';
import { assembleChains, groupChains, kernelsOf, type ChainGroup } from './fusion-chains.js';
import { externLibraryOf, fuserOfAll, type Fuser } from './fusion-toolchain.js';
import { computeSiteColumns, generatorOf, Role, ScopeRows, type FusedGenerator, type SiteColumns } from './kernel-sites.js';
import { opTrafficBytes, ShapeIo } from './op-io.js';
import { activitiesByStream } from './stream-activities.js';

// ------------------------------------------------------------------------------------------------
// The analysis

export interface FusedKernel {
  readonly name: string;
  readonly generator: FusedGenerator;
  /** Inductor's kind (`pointwise`, `reduction`, `persistent_reduction`, `template`, …), or the decoded kind of a hand-written kernel. */
  readonly kind: string;
  /** Inductor's prefix: `poi`, `red`, `per`, `tem`, `for`, `spl`. */
  readonly prefix?: string;
  /** The fused ops, as Inductor names them (`_unsafe_view`, `gelu`, `mul`); empty for a hand-written kernel. */
  readonly ops: readonly string[];
  /** Other readings of the op list when the name splits more than one way. */
  readonly opCandidates?: readonly (readonly string[])[];
  /** The trailing index Inductor gives kernels of one graph. */
  readonly index?: number;
  readonly calls: number;
  readonly totalUs: number;
  readonly meanUs: number;
  readonly minUs: number;
  readonly maxUs: number;
  /** The annotations it ran in (row names). */
  readonly annotations: readonly string[];
  /** The runtime/driver calls that launched it (`cuLaunchKernel`, `cuLaunchKernelEx`, `cudaGraphLaunch`). */
  readonly launchedBy: readonly string[];
  /** No cpu_op owns it: it ran outside every op (a directly called Triton kernel). */
  readonly outsideOp: boolean;
  /** Replayed from a CUDA graph. */
  readonly inCudaGraph: boolean;
  /**
   * Inductor records each launch as a cpu_op named after the kernel whose `Input Dims` are the
   * kernel's tensor arguments (inputs, outputs and in/out buffers alike): their shapes, and the
   * bytes they hold — what the kernel touches when it reads or writes each argument once.
   */
  readonly args?: readonly { readonly dims: readonly number[]; readonly dtype: string; readonly bytes: number }[];
  readonly argBytes?: number;
}

export interface FusionKernelRef {
  /** The op's longest kernel (or the activity looked through). */
  readonly name: string;
  readonly shortName: string;
  /** The owning op (`aten::gelu`). */
  readonly op: string;
  /** Mean kernel time of the op per instance (all its kernels). */
  readonly meanUs: number;
  /** Kernels the op ran per instance (chain ops). */
  readonly kernelCount?: number;
  /** HBM bytes its op moves (inputs read once, outputs written once), when known. */
  readonly trafficBytes?: number;
}

export interface FusionIntermediate {
  readonly producer: string;
  readonly consumer: string;
  /** As the consumer reads it. */
  readonly dims: readonly number[];
  /** `Input type` spelling; `''` when not recorded (a TensorList member). */
  readonly dtype: string;
  readonly bytes: number;
  /** What the link stands on (helpers/link-evidence.ts): `tensor-identity` with --et, else `shape-and-order`. */
  readonly evidence: readonly LinkEvidence[];
  /** `fact` with tensor identity; `likely` from shapes and order alone. */
  readonly strength: LinkStrength;
}

export interface FusionOpportunity {
  /** The annotation the chain ran in (row name), `''` when none. */
  readonly annotation: string;
  readonly device: number;
  readonly stream: number;
  /** The chain's ops in stream order, each with its kernels' time. */
  readonly kernels: readonly FusionKernelRef[];
  /** The intermediates between consecutive ops. */
  readonly intermediates: readonly FusionIntermediate[];
  /**
   * Per intermediate: the activities that ran on the stream between its producer and its
   * consumer, none of which touches it (GEMMs of other tensors, memsets, copies); empty when the
   * two ran back to back.
   */
  readonly between: readonly (readonly FusionKernelRef[])[];
  /** `fact` when every link is; else `likely`. */
  readonly strength: LinkStrength;
  /** Who can fuse it (fusion-toolchain.ts); absent when nobody can (notFusible says why). */
  readonly toolchain?: Fuser;
  readonly notFusible?: string;
  /** Times the chain ran. */
  readonly instances: number;
  /** Annotation instances it ran in (12 instances in 3 steps: 4 per step). */
  readonly annotationInstances: number;
  /** instances / profiler steps, when the trace has steps. */
  readonly instancesPerStep?: number;
  /** Σ intermediate bytes per instance: each written to HBM once and read back once. */
  readonly intermediateBytes: number;
  /** 2 × intermediateBytes: the HBM traffic a fused kernel would not make. */
  readonly roundTripBytes: number;
  /** The chain's kernel time, mean per instance. */
  readonly timeUs: number;
  readonly totalUs: number;
  /** HBM bytes the chain's ops move per instance (when every op's is known). */
  readonly trafficBytes?: number;
  /** The same time at the chain's own achieved bandwidth without the round trips: timeUs × (traffic − roundTrip) / traffic (fusible chains only). */
  readonly estimatedFusedUs?: number;
  /** timeUs − estimatedFusedUs: the saving per instance. */
  readonly estimatedSavingUs?: number;
  /** estimatedSavingUs × instancesPerStep: the saving per step. */
  readonly estimatedSavingUsPerStep?: number;
}

/** A link a first reading made and the evidence refused (kept for the record; never printed as a link). */
export interface RefusedFusionLink {
  readonly producer: string;
  readonly consumer: string;
  readonly dims: readonly number[];
  readonly dtype: string;
  readonly bytes: number;
  readonly reason: string;
  readonly instances: number;
}

export interface FusionResult {
  readonly fusedKernels: FusedKernel[];
  /** Most estimated saving per step first; chains with no estimate after, by round-trip bytes. */
  readonly opportunities: FusionOpportunity[];
  readonly refused: RefusedFusionLink[];
  /** What the links stand on: `tensor-identity` when the model has the execution trace's tensors, else `shape-and-order`. */
  readonly evidence: 'tensor-identity' | 'shape-and-order';
  /** Profiler steps in the trace (the per-step figures' divisor; 0: none). */
  readonly steps: number;
}

/** Once per model: `fusion`, `explain` and the MCP tools read the same result. Shared, so read-only. */
export const computeFusion = perModel(computeFusionOnce);

function computeFusionOnce(m: TraceModel): FusionResult {
  const c = computeSiteColumns(m);
  const rows = new ScopeRows(m);
  return { fusedKernels: collectFusedKernels(m, c, rows), ...findOpportunities(m, c, rows), steps: m.steps.length };
}

function collectFusedKernels(m: TraceModel, c: SiteColumns, rows: ScopeRows): FusedKernel[] {
  const { gpu, host, strings } = m;
  interface Acc {
    /** The first kernel of the name. */
    g: number;
    calls: number;
    totalNs: number;
    minNs: number;
    maxNs: number;
    annotations: Set<string>;
    launchedBy: Set<string>;
    outsideOp: boolean;
    inCudaGraph: boolean;
  }
  // By name id: one id per name.
  const byName = new Map<number, Acc>();
  for (const g of c.fused) {
    let a = byName.get(gpu.name[g]!);
    if (!a) {
      a = { g, calls: 0, totalNs: 0, minNs: Infinity, maxNs: -Infinity, annotations: new Set(), launchedBy: new Set(), outsideOp: true, inCudaGraph: false };
      byName.set(gpu.name[g]!, a);
    }
    const d = gpu.durNs[g]!;
    a.calls++;
    a.totalNs += d;
    a.minNs = Math.min(a.minNs, d);
    a.maxNs = Math.max(a.maxNs, d);
    const scopeName = rows.of(c.scope[g]!);
    if (scopeName) a.annotations.add(scopeName);
    const launcher = gpu.launcher[g]!;
    if (launcher >= 0) {
      const l = strings.get(host.name[launcher]!);
      a.launchedBy.add(l);
      if (/GraphLaunch$/.test(l)) a.inCudaGraph = true;
    }
    if (gpu.owner[g]! >= 0) a.outsideOp = false;
  }
  const out: FusedKernel[] = [];
  for (const a of byName.values()) {
    const name = strings.get(gpu.name[a.g]!);
    const decoded = c.decoded[gpu.name[a.g]!]!;
    const ind = decoded.inductor;
    const launchOp = launchOpArgs(m, gpu.owner[a.g]!, name);
    out.push({
      name,
      generator: generatorOf(c.role[a.g]!)!,
      kind: ind ? ind.kind : decoded.kind,
      ...(ind ? { prefix: ind.prefix } : {}),
      ops: ind?.ops ?? [],
      ...(ind?.opCandidates ? { opCandidates: ind.opCandidates } : {}),
      ...(ind ? { index: ind.index } : {}),
      calls: a.calls,
      totalUs: a.totalNs / 1000,
      meanUs: a.totalNs / a.calls / 1000,
      minUs: a.minNs / 1000,
      maxUs: a.maxNs / 1000,
      annotations: [...a.annotations],
      launchedBy: [...a.launchedBy],
      outsideOp: a.outsideOp,
      inCudaGraph: a.inCudaGraph,
      ...(launchOp ? { args: launchOp, argBytes: launchOp.reduce((s, t) => s + t.bytes, 0) } : {}),
    });
  }
  return out.sort((x, y) => y.totalUs - x.totalUs || compareText(x.name, y.name));
}

/** The tensor arguments of the cpu_op Inductor records for a kernel launch (named after the kernel). */
function launchOpArgs(m: TraceModel, owner: number, name: string) {
  if (owner < 0 || m.strings.get(m.host.name[owner]!) !== name) return undefined;
  const args = tensorArgs(m.host.args[owner]);
  return args.length ? args.map((t) => ({ dims: t.dims, dtype: t.dtype, bytes: t.bytes })) : undefined;
}

function findOpportunities(m: TraceModel, c: SiteColumns, rows: ScopeRows): Pick<FusionResult, 'opportunities' | 'refused' | 'evidence'> {
  const found = findChainLinks(m, c, activitiesByStream(m));
  const groups = groupChains(m, c, rows, assembleChains(m, found.links));
  const stepCount = m.steps.length;
  const shapes = new ShapeIo(m);
  const opportunities = groups.map((g) => opportunityOf(m, c, rows, g, stepCount, shapes));
  opportunities.sort(
    (x, y) =>
      (y.estimatedSavingUsPerStep ?? y.estimatedSavingUs ?? -1) - (x.estimatedSavingUsPerStep ?? x.estimatedSavingUs ?? -1) ||
      y.roundTripBytes * y.instances - x.roundTripBytes * x.instances ||
      y.totalUs - x.totalUs,
  );
  return { opportunities, refused: refusedLinks(m, found.refused), evidence: found.evidence };
}

function opportunityOf(m: TraceModel, c: SiteColumns, rows: ScopeRows, group: ChainGroup, stepCount: number, shapes: ShapeIo): FusionOpportunity {
  const { gpu, host, strings } = m;
  const { first, count: n } = group;
  const opName = (op: number) => strings.get(host.name[op]!);
  const kernels: FusionKernelRef[] = first.ops.map((op, k) => {
    const ks = kernelsOf(m, op);
    // The op's longest kernel names it (a backward's main kernel, not its setup kernel).
    let main = ks[0]!;
    for (const g of ks) if (gpu.durNs[g]! > gpu.durNs[main]!) main = g;
    const name = strings.get(gpu.name[main]!);
    const traffic = c.role[main] === Role.MemoryBound ? opTrafficBytes(shapes.of(op)) : undefined;
    return {
      name,
      shortName: shortKernelName(name),
      op: opName(op),
      meanUs: group.opNs[k]! / n / 1000,
      kernelCount: ks.length,
      ...(traffic !== undefined ? { trafficBytes: traffic } : {}),
    };
  });
  const between: FusionKernelRef[][] = first.links.map((l, i) =>
    l.between.map((a, j) => {
      const name = strings.get(gpu.name[a]!);
      const owner = gpu.owner[a]!;
      return { name, shortName: shortKernelName(name), op: owner >= 0 ? opName(owner) : '', meanUs: group.betweenNs[i]![j]! / n / 1000 };
    }),
  );
  const intermediates: FusionIntermediate[] = first.links.map((l) => ({
    producer: opName(l.producer),
    consumer: opName(l.consumer),
    dims: l.tensor.dims,
    dtype: l.tensor.dtype ?? '',
    bytes: l.tensor.bytes ?? 0,
    evidence: l.proof.evidence,
    strength: l.proof.strength,
  }));
  const intermediateBytes = intermediates.reduce((s, l) => s + l.bytes, 0);
  const timeUs = group.totalNs / n / 1000;
  const traffic = kernels.every((k) => k.trafficBytes !== undefined) ? kernels.reduce((s, k) => s + k.trafficBytes!, 0) : undefined;
  const g0 = first.links[0]!.producerKernel;
  const ops = first.ops.map(opName);
  const toolchain = fuserOfAll(ops);
  const library = ops.map(externLibraryOf).find((x) => x !== undefined);
  const strength: LinkStrength = intermediates.every((x) => x.strength === 'fact') ? 'fact' : 'likely';
  const estimate = toolchain !== undefined && traffic !== undefined && traffic > 2 * intermediateBytes ? (timeUs * (traffic - 2 * intermediateBytes)) / traffic : undefined;
  const perStep = stepCount > 0 ? n / stepCount : undefined;
  return {
    annotation: rows.of(c.scope[g0]!),
    device: gpu.device[g0]!,
    stream: gpu.stream[g0]!,
    kernels,
    intermediates,
    between,
    strength,
    ...(toolchain !== undefined ? { toolchain } : { notFusible: `${library ?? 'a library'} runs part of it: no compiler fuses into that kernel` }),
    instances: n,
    annotationInstances: group.scopes.size,
    ...(perStep !== undefined ? { instancesPerStep: perStep } : {}),
    intermediateBytes,
    roundTripBytes: 2 * intermediateBytes,
    timeUs,
    totalUs: group.totalNs / 1000,
    ...(traffic !== undefined ? { trafficBytes: traffic } : {}),
    ...(estimate !== undefined
      ? {
          estimatedFusedUs: estimate,
          estimatedSavingUs: timeUs - estimate,
          ...(perStep !== undefined ? { estimatedSavingUsPerStep: (timeUs - estimate) * perStep } : {}),
        }
      : {}),
  };
}

/** The refused links, one row per (producer op, consumer op, shape, reason), with how many times. */
function refusedLinks(m: TraceModel, refused: readonly RefusedChainLink[]): RefusedFusionLink[] {
  const byKey = new Map<string, RefusedFusionLink & { instances: number }>();
  const name = (op: number) => m.strings.get(m.host.name[op]!);
  for (const r of refused) {
    const key = `${name(r.producer)}\u0000${name(r.consumer)}\u0000${r.tensor.dims.join(',')}\u0000${r.tensor.dtype ?? ''}\u0000${r.reason}`;
    const known = byKey.get(key);
    if (known) known.instances++;
    else byKey.set(key, { producer: name(r.producer), consumer: name(r.consumer), dims: r.tensor.dims, dtype: r.tensor.dtype ?? '', bytes: r.tensor.bytes ?? 0, reason: r.reason, instances: 1 });
  }
  return [...byKey.values()].sort((a, b) => b.bytes * b.instances - a.bytes * a.instances || compareText(a.producer, b.producer) || compareText(a.consumer, b.consumer));
}
