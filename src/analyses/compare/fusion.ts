/**
 * Fusion (docs/readings.md S9): what fused, and what could.
 *
 * Fused kernels: every Inductor Triton kernel decoded from its name (`triton_poi_fused_…_N` →
 * pointwise, the fused op list, the index), and every hand-written kernel — a kernel whose name
 * decodes to nothing known that ran outside any ATen op (a `@triton.jit` kernel called directly,
 * like the `geglu_mlp_hand` fixture's `geglu_fwd`, is launched by `cuLaunchKernelEx` under no
 * `cpu_op` at all).
 *
 * Opportunities: in the trace's own kernels, chains of memory-bound kernels (pointwise,
 * reductions, normalizations, softmax, copies — by `decodeKernelName(…).kind`, or an Inductor
 * kernel's kind) on one stream within one annotation instance, where one kernel's output is the next
 * kernel's input: that intermediate is written to HBM by the first and read back by the second,
 * which a fused kernel would not do. The two need not run back to back: GEMM, convolution and
 * attention kernels of the same instance may run between them (with the memsets their own ops
 * launch), as long as none of their ops takes a tensor of the intermediate's element count and
 * dtype — the eager GeGLU runs gelu, the up GEMM, then mul, and gelu's output still round-trips
 * HBM (Inductor fuses exactly that pair). Any other activity between them ends the chain: another
 * memory-bound or fused kernel, a copy, a memset of no such GEMM, a kernel of another kind (a scan
 * or scatter may write a buffer its op does not list, like an embedding backward into the grad
 * that `fill_` zeroed), a kernel of another instance.
 *
 * The trace records no tensor identities, so the intermediate is inferred from shapes and dtypes
 * (intermediates.ts; each kernel's role and op come from kernel-sites.ts):
 * the producing op's output (for pointwise ops the broadcast of its tensor inputs, in the promoted
 * dtype; a normalization's or softmax's is its input's shape) must match one of the consuming op's
 * tensor inputs (`Input Dims`, `Input type`); where the producer's output cannot be inferred (a
 * reduction), the consumer's one input that none of the producer's inputs looks like is taken. Two
 * kernels of one op are not a chain (the op chose its kernels); a kernel with no owning op or no
 * recorded shapes ends a chain.
 *
 * Ignores: kernels on different streams; GEMMs' epilogues (the `gemm` analysis's).
 */
import { GpuKind, type TraceModel } from '../../model/trace-model.js';
import { shortKernelName } from '../kernels/kernel-name.js';
import { formatDims, numelOf, tensorArgs } from '../facts/tensor-bytes.js';
import { compareText } from '../../core/compare-text.js';
import { orderByStart } from '../helpers/natural-merge-sort.js';
import { gpuTimeIndexOf } from '../facts/gpu-time-index.js';
import { perModel } from '../helpers/per-model.js';
import { computeSiteColumns, generatorOf, Role, roleName, ScopeRows, type FusedGenerator, type SiteColumns } from './kernel-sites.js';
import { findIntermediate, kernelTrafficBytes, type Intermediate } from './intermediates.js';

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
  readonly name: string;
  readonly shortName: string;
  /** The owning op (`aten::gelu`). */
  readonly op: string;
  /** Mean duration per instance. */
  readonly meanUs: number;
  /** HBM bytes its op moves (inputs read once, output written once), when known. */
  readonly trafficBytes?: number;
}

export interface FusionIntermediate {
  readonly producer: string;
  readonly consumer: string;
  readonly dims: readonly number[];
  readonly dtype: string;
  readonly bytes: number;
  readonly inferredFrom: Intermediate['inferredFrom'];
}

export interface FusionOpportunity {
  /** The annotation the chain ran in (row name), `''` when none. */
  readonly annotation: string;
  readonly device: number;
  readonly stream: number;
  readonly kernels: readonly FusionKernelRef[];
  /** The intermediates between consecutive kernels. */
  readonly intermediates: readonly FusionIntermediate[];
  /**
   * Per intermediate: the compute kernels (GEMMs and the like) that ran on the stream between its
   * producer and its consumer, none of which reads it; empty when the two ran back to back.
   */
  readonly between: readonly (readonly FusionKernelRef[])[];
  /** Times the chain ran. */
  readonly instances: number;
  /** Annotation instances it ran in (12 instances in 3 steps: 4 per step). */
  readonly annotationInstances: number;
  /** Σ intermediate bytes per instance: each written to HBM once and read back once. */
  readonly intermediateBytes: number;
  /** 2 × intermediateBytes: the HBM traffic a fused kernel would not make. */
  readonly roundTripBytes: number;
  /** The chain's kernel time, mean per instance. */
  readonly timeUs: number;
  readonly totalUs: number;
  /** HBM bytes the chain's kernels move per instance (when every kernel's is known). */
  readonly trafficBytes?: number;
  /** The same time at the chain's own achieved bandwidth without the round trips: timeUs × (traffic − roundTrip) / traffic. */
  readonly estimatedFusedUs?: number;
}

export interface FusionResult {
  readonly fusedKernels: FusedKernel[];
  readonly opportunities: FusionOpportunity[];
}

/** Once per model: `fusion`, `explain` and the MCP tools read the same result. Shared, so read-only. */
export const computeFusion = perModel(computeFusionOnce);

function computeFusionOnce(m: TraceModel): FusionResult {
  const c = computeSiteColumns(m);
  const rows = new ScopeRows(m);
  return { fusedKernels: collectFusedKernels(m, c, rows), opportunities: findOpportunities(m, c, rows) };
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

/** One chain as GPU indexes. */
interface ChainInstance {
  sites: number[];
  /** Per link, its index in `Links.found`. */
  links: number[];
  /** Per link: the compute kernels that ran between its producer and its consumer (shared when none: never written). */
  between: (readonly number[])[];
}

const NONE_BETWEEN: readonly number[] = [];

// Each phase below is its own function with one loop: the analysis runs once per process, and V8
// optimises each loop once, with its own type feedback, instead of recompiling one large function
// at each loop it reaches (three compiles of the single function this was, on the 160 MB trace).

function findOpportunities(m: TraceModel, c: SiteColumns, rows: ScopeRows): FusionOpportunity[] {
  const links = new Links(m, c);
  const chains: ChainInstance[] = [];
  for (const list of activitiesByStream(m)) chainsOnStream(m, list, c, links, chains);
  const groups = groupChains(m, c, rows, links, chains);
  const out: FusionOpportunity[] = [];
  for (const g of groups) out.push(opportunityOf(m, c, rows, links, g));
  return out.sort((x, y) => y.roundTripBytes * y.instances - x.roundTripBytes * x.instances || y.totalUs - x.totalUs);
}

/**
 * GPU activities per (device, stream), in (start, index) order: copies and memsets sit in the
 * stream too and end chains. Lists in order of each stream's first activity. Each list is the
 * model's GPU time order (shared, per model: the step breakdown has made it already) restricted to
 * the stream, so nothing is sorted here; the streams are found by (device, stream) numbers only
 * where the table's stream changes (it is written a run per stream).
 */
function activitiesByStream(m: TraceModel): Int32Array[] {
  const { gpu } = m;
  const { device, stream, startNs } = gpu;
  // One stream, every start readable (the common case): the time order itself (shared: read
  // only), found by a pass that stops at the first activity that says otherwise.
  if (oneReadableStream(gpu)) return [gpuTimeIndexOf(m).order];
  const slotOf = new Int32Array(gpu.length);
  const counts: number[] = [];
  const byDevice = new Map<number, Map<number, number>>();
  let slot = -1;
  let lastDevice = NaN;
  let lastStream = NaN;
  let readable = true;
  for (let g = 0; g < gpu.length; g++) {
    const d = device[g]!;
    const s = stream[g]!;
    if (d !== lastDevice || s !== lastStream) {
      let byStream = byDevice.get(d);
      if (!byStream) byDevice.set(d, (byStream = new Map()));
      let found = byStream.get(s);
      if (found === undefined) {
        byStream.set(s, (found = counts.length));
        counts.push(0);
      }
      slot = found;
      lastDevice = d;
      lastStream = s;
    }
    slotOf[g] = slot;
    counts[slot]++;
    if (startNs[g]! !== startNs[g]!) readable = false;
  }
  const lists = counts.map((n) => new Int32Array(n));
  const filled = new Int32Array(counts.length);
  if (!readable) {
    // An unreadable (NaN) start: no time order to restrict; each stream sorted alone, as orderByStart decides.
    for (let g = 0; g < gpu.length; g++) lists[slotOf[g]!]![filled[slotOf[g]!]!++] = g;
    return lists.map((l) => orderByStart(l, startNs));
  }
  const { order } = gpuTimeIndexOf(m);
  for (let k = 0; k < order.length; k++) {
    const g = order[k]!;
    const s = slotOf[g]!;
    lists[s]![filled[s]!++] = g;
  }
  return lists;
}

/** Whether all GPU activities share one device and stream, with no NaN start (none: false). */
function oneReadableStream(gpu: TraceModel['gpu']): boolean {
  const { device, stream, startNs, length } = gpu;
  if (length === 0) return false;
  const d = device[0]!;
  const s = stream[0]!;
  for (let g = 0; g < length; g++) if (device[g] !== d || stream[g] !== s || startNs[g] !== startNs[g]) return false;
  return true;
}

/**
 * findIntermediate, worked out once per distinct pair of ops and producer kernel kind: it reads
 * only the two ops' names and args and the producer's kernel kind (SiteColumns' `op` and
 * `kindCode` number them), so a training loop asks about the same pairs step after step.
 */
class Links {
  /** The intermediates found, each once per pair. */
  readonly found: Intermediate[] = [];
  /** Per found intermediate, the number of its shape and dtype (`[8192,3072]c10::BFloat16`): equal texts, equal numbers. */
  readonly textId: number[] = [];
  private readonly textIds = new Map<string, number>();
  /** Per producer op id: by kind code × opCount + consumer op id, the index in `found` or -1 for none. */
  private readonly byProducer: (Map<number, number> | undefined)[];

  constructor(
    private readonly m: TraceModel,
    private readonly c: SiteColumns,
  ) {
    this.byProducer = new Array<Map<number, number> | undefined>(c.opCount);
  }

  /** The intermediate's index in `found` from kernel `a` to kernel `b` (GPU indexes), or -1. */
  of(a: number, b: number): number {
    const { owner, name } = this.m.gpu;
    const pa = this.c.op[a]!;
    const pb = this.c.op[b]!;
    if (pa < 0 || pb < 0 || owner[a] === owner[b]) return -1;
    let byConsumer = this.byProducer[pa];
    if (byConsumer === undefined) this.byProducer[pa] = byConsumer = new Map();
    const key = this.c.kindCode[name[a]!]! * this.c.opCount + pb;
    const known = byConsumer.get(key);
    return known !== undefined ? known : this.resolve(byConsumer, key, a, b);
  }

  /** The pair of kernels `a` then `b` not asked about before: its intermediate's index, or -1, kept under `key`. */
  private resolve(byConsumer: Map<number, number>, key: number, a: number, b: number): number {
    const { gpu } = this.m;
    const decoded = this.c.decoded;
    const l = findIntermediate(this.m, { owner: gpu.owner[a]!, decoded: decoded[gpu.name[a]!]! }, { owner: gpu.owner[b]!, decoded: decoded[gpu.name[b]!]! });
    let index = -1;
    if (l) {
      index = this.found.length;
      this.found.push(l);
      const text = `${formatDims(l.dims)}${l.dtype}`;
      let id = this.textIds.get(text);
      if (id === undefined) this.textIds.set(text, (id = this.textIds.size));
      this.textId.push(id);
    }
    byConsumer.set(key, index);
    return index;
  }
}

/**
 * The chains of one stream's activities (in start order), added to `chains`. The tests on roles
 * and scopes are written out in the loop: one pass, a call only per pair of memory-bound kernels.
 */
function chainsOnStream(m: TraceModel, list: Int32Array, c: SiteColumns, links: Links, chains: ChainInstance[]): void {
  const { kind, owner } = m.gpu;
  const { role, scope } = c;
  let cur: ChainInstance | undefined;
  // The last activity not looked through (-1 before the first) and its role, and the compute
  // kernels looked through since it (undefined for none: no array per activity).
  let prev = -1;
  let prevRole: number = Role.None;
  let skipped: number[] | undefined;
  for (let k = 0; k < list.length; k++) {
    const g = list[k]!;
    const r = role[g]!;
    // A compute kernel of the instance of a memory-bound `prev`: a chain from `prev` may run across it.
    if (r === Role.Compute && prevRole === Role.MemoryBound && scope[g] === scope[prev]) {
      (skipped ??= []).push(g);
      continue;
    }
    // A memset the GEMM's own op launches right before it (cuBLAS clearing its workspace) is part of that GEMM.
    if (kind[g] === GpuKind.Memset && owner[g]! >= 0 && k + 1 < list.length && prevRole === Role.MemoryBound) {
      const next = list[k + 1]!;
      if (role[next] === Role.Compute && scope[next] === scope[prev] && owner[next] === owner[g]) continue;
    }
    // Both ATen-style memory-bound kernels of one annotation instance, of two ops. Fused kernels
    // are left out: an Inductor kernel's recorded arguments mix its inputs and outputs, so what
    // it hands the next kernel cannot be told apart from what it read.
    const link = r === Role.MemoryBound && prevRole === Role.MemoryBound && scope[g] === scope[prev] ? links.of(prev, g) : -1;
    if (link >= 0 && (skipped === undefined || !anyReadsTensorLike(m, skipped, links.found[link]!))) {
      if (!cur) cur = newChain(prev, g, link, skipped ?? NONE_BETWEEN);
      else {
        cur.sites.push(g);
        cur.links.push(link);
        cur.between.push(skipped ?? NONE_BETWEEN);
      }
    } else if (cur) {
      chains.push(cur);
      cur = undefined;
    }
    prev = g;
    prevRole = r;
    skipped = undefined;
  }
  if (cur) chains.push(cur);
}

interface ChainGroup {
  readonly first: ChainInstance;
  /** The number of the first instance's annotation row name (ScopeRows.idOf). */
  readonly row: number;
  /** How many instances. */
  count: number;
  /** Σ over the instances (in order) of each kernel's duration, of each kernel run between, of all the chain's kernels. */
  readonly siteNs: number[];
  readonly betweenNs: number[][];
  totalNs: number;
  /** The annotation instances (host indexes) they ran in, and the last one added. */
  readonly scopes: Set<number>;
  lastScope: number;
}

/**
 * The instances of the same chain, in order of first instance: the same annotation (row name),
 * device and stream, each kernel's op and kernel (by their string ids), each intermediate's shape
 * and dtype, the kernels run between. Found by a hash of those numbers, then compared.
 */
function groupChains(m: TraceModel, c: SiteColumns, rows: ScopeRows, links: Links, chains: readonly ChainInstance[]): ChainGroup[] {
  const { name, durNs } = m.gpu;
  const { textId } = links;
  const groups: ChainGroup[] = [];
  // By hash; a bucket holds the groups whose hashes are equal.
  const byHash = new Map<number, ChainGroup[]>();
  for (let i = 0; i < chains.length; i++) {
    const ch = chains[i]!;
    const row = rows.idOf(c.scope[ch.sites[0]!]!);
    // FNV-1a over the annotation, the kernels and the intermediates, cut to 30 bits (a
    // small-integer Map key); sameChain compares the rest.
    let h = Math.imul(0x811c9dc5 ^ row, 0x01000193);
    for (let k = 0; k < ch.sites.length; k++) h = Math.imul(h ^ name[ch.sites[k]!]!, 0x01000193);
    for (let k = 0; k < ch.links.length; k++) h = Math.imul(h ^ textId[ch.links[k]!]!, 0x01000193);
    h &= 0x3fffffff;
    const bucket = byHash.get(h);
    let group: ChainGroup | undefined;
    for (let k = 0; bucket !== undefined && k < bucket.length && !group; k++) if (bucket[k]!.row === row && sameChain(m, links, bucket[k]!.first, ch)) group = bucket[k];
    addInstance(group ?? newGroup(byHash, h, groups, ch, row), ch, durNs, c.scope);
  }
  return groups;
}

// The rarer steps apart, in functions of their own: the loops that call them stay small, so V8
// compiles them sooner and at less cost (the analysis runs once per process).

/** A chain's first instance: its group, entered in its hash's bucket and in `groups`. */
function newGroup(byHash: Map<number, ChainGroup[]>, h: number, groups: ChainGroup[], ch: ChainInstance, row: number): ChainGroup {
  const group: ChainGroup = {
    first: ch,
    row,
    count: 0,
    siteNs: new Array<number>(ch.sites.length).fill(0),
    betweenNs: ch.between.map((ks) => new Array<number>(ks.length).fill(0)),
    totalNs: 0,
    scopes: new Set(),
    lastScope: -2,
  };
  const bucket = byHash.get(h);
  if (bucket) bucket.push(group);
  else byHash.set(h, [group]);
  groups.push(group);
  return group;
}

/** A chain's first two kernels, `a` then `b`, and their link. */
function newChain(a: number, b: number, link: number, between: readonly number[]): ChainInstance {
  return { sites: [a, b], links: [link], between: [between] };
}

/** One more instance of a group's chain: its durations added to the group's sums (the instances' order is the sums' order). */
function addInstance(group: ChainGroup, ch: ChainInstance, durNs: Float64Array, scope: Int32Array): void {
  group.count++;
  let t = 0;
  for (let k = 0; k < ch.sites.length; k++) {
    const d = durNs[ch.sites[k]!]!;
    group.siteNs[k] += d;
    t += d;
  }
  group.totalNs += t;
  for (let l = 0; l < ch.between.length; l++) {
    const ks = ch.between[l]!;
    if (ks.length === 0) continue;
    const sums = group.betweenNs[l]!;
    for (let k = 0; k < ks.length; k++) sums[k] += durNs[ks[k]!]!;
  }
  // A chain's instances mostly follow one another within an annotation instance: one set entry each.
  const s = scope[ch.sites[0]!]!;
  if (s !== group.lastScope) group.scopes.add((group.lastScope = s));
}

/** Whether two chain instances (of the same annotation row name) are the same chain: see groupChains. */
function sameChain(m: TraceModel, links: Links, a: ChainInstance, b: ChainInstance): boolean {
  const { gpu, host } = m;
  const { textId } = links;
  if (a.sites.length !== b.sites.length || gpu.device[a.sites[0]!] !== gpu.device[b.sites[0]!] || gpu.stream[a.sites[0]!] !== gpu.stream[b.sites[0]!]) return false;
  for (let k = 0; k < a.sites.length; k++) {
    const x = a.sites[k]!;
    const y = b.sites[k]!;
    if (gpu.name[x] !== gpu.name[y] || host.name[gpu.owner[x]!] !== host.name[gpu.owner[y]!]) return false;
  }
  for (let k = 0; k < a.links.length; k++) if (textId[a.links[k]!] !== textId[b.links[k]!]) return false;
  for (let k = 0; k < a.between.length; k++) {
    const xs = a.between[k]!;
    const ys = b.between[k]!;
    if (xs.length !== ys.length) return false;
    for (let j = 0; j < xs.length; j++) if (gpu.name[xs[j]!] !== gpu.name[ys[j]!]) return false;
  }
  return true;
}

function opportunityOf(m: TraceModel, c: SiteColumns, rows: ScopeRows, links: Links, group: ChainGroup): FusionOpportunity {
  const { gpu, host, strings } = m;
  const { first, count: n } = group;
  const kernels: FusionKernelRef[] = [];
  for (let k = 0; k < first.sites.length; k++) {
    const g = first.sites[k]!;
    const name = strings.get(gpu.name[g]!);
    const traffic = kernelTrafficBytes(m, { owner: gpu.owner[g]!, decoded: c.decoded[gpu.name[g]!]!, role: roleName(c.role[g]!) });
    kernels.push({
      name,
      shortName: shortKernelName(name),
      op: strings.get(host.name[gpu.owner[g]!]!),
      meanUs: group.siteNs[k]! / n / 1000,
      ...(traffic !== undefined ? { trafficBytes: traffic } : {}),
    });
  }
  const between: FusionKernelRef[][] = [];
  for (let l = 0; l < first.between.length; l++) {
    const ks = first.between[l]!;
    const refs: FusionKernelRef[] = [];
    for (let k = 0; k < ks.length; k++) {
      const g = ks[k]!;
      const name = strings.get(gpu.name[g]!);
      const owner = gpu.owner[g]!;
      refs.push({ name, shortName: shortKernelName(name), op: owner >= 0 ? strings.get(host.name[owner]!) : '', meanUs: group.betweenNs[l]![k]! / n / 1000 });
    }
    between.push(refs);
  }
  const intermediates: FusionIntermediate[] = first.links.map((index) => {
    const l = links.found[index]!;
    return { producer: l.producer, consumer: l.consumer, dims: l.dims, dtype: l.dtype, bytes: l.bytes, inferredFrom: l.inferredFrom };
  });
  const intermediateBytes = intermediates.reduce((s, l) => s + l.bytes, 0);
  const { totalNs } = group;
  const timeUs = totalNs / n / 1000;
  const traffic = kernels.every((k) => k.trafficBytes !== undefined) ? kernels.reduce((s, k) => s + k.trafficBytes!, 0) : undefined;
  const g0 = first.sites[0]!;
  return {
    annotation: rows.of(c.scope[g0]!),
    device: gpu.device[g0]!,
    stream: gpu.stream[g0]!,
    kernels,
    intermediates,
    between,
    instances: n,
    annotationInstances: group.scopes.size,
    intermediateBytes,
    roundTripBytes: 2 * intermediateBytes,
    timeUs,
    totalUs: totalNs / 1000,
    ...(traffic !== undefined && traffic > 2 * intermediateBytes
      ? { trafficBytes: traffic, estimatedFusedUs: (timeUs * (traffic - 2 * intermediateBytes)) / traffic }
      : {}),
  };
}

/**
 * Whether one of the kernels `gs` has an op that takes a tensor that could be the intermediate
 * (same element count and dtype: a GEMM reads a `[64,128,3072]` activation as `[8192,3072]`), or
 * may take anything (no op, no recorded shapes). Such a kernel needs the intermediate in HBM
 * anyway, so fusing its producer into its consumer would not save the round trip.
 */
function anyReadsTensorLike(m: TraceModel, gs: readonly number[], t: Intermediate): boolean {
  const numel = numelOf(t.dims);
  for (let k = 0; k < gs.length; k++) {
    const owner = m.gpu.owner[gs[k]!]!;
    const args = owner >= 0 ? tensorArgs(m.host.args[owner]) : [];
    if (args.length === 0) return true; // no op or no shapes: it may read anything, as before (it ends the chain)
    for (let j = 0; j < args.length; j++) if (args[j]!.numel === numel && args[j]!.dtype === t.dtype) return true;
  }
  return false;
}
