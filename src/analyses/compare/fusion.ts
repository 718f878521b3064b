/**
 * Fusion (S9): what fused, and what could.
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
 * The trace records no tensor identities, so the intermediate is inferred from shapes and dtypes:
 * the producing op's output (for pointwise ops the broadcast of its tensor inputs, in the promoted
 * dtype; a normalization's or softmax's is its input's shape) must match one of the consuming op's
 * tensor inputs (`Input Dims`, `Input type`); where the producer's output cannot be inferred (a
 * reduction), the consumer's one input that none of the producer's inputs looks like is taken. Two
 * kernels of one op are not a chain (the op chose its kernels); a kernel with no owning op or no
 * recorded shapes ends a chain.
 *
 * Ignores: kernels on different streams; GEMMs' epilogues (the `gemm` analysis's).
 */
import type { JsonObject } from '../../ingest/raw-event.js';
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { decodeKernelName, shortKernelName, type DecodedKernelName, type KernelKind } from '../kernels/kernel-name.js';
import { torchRowName } from '../torch-table/profiler-table.js';
import { formatDims, numelOf, shortDtype, tensorArgs, type TensorArg } from '../gemm/tensor-bytes.js';
import { compareText } from '../../core/compare-text.js';
import { orderByStart } from '../helpers/natural-merge-sort.js';

// ------------------------------------------------------------------------------------------------
// Per-kernel context shared by fusion and fusion-match

export type KernelRole =
  /** Inductor or hand-written kernel: the product of a fusion. */
  | 'fused'
  /** Pointwise, reduction, normalization, softmax, copy: bound by HBM traffic. */
  | 'memory-bound'
  /** GEMM, convolution, attention, collectives, anything else: ends a chain. */
  | 'other';

export type FusedGenerator = 'inductor' | 'hand-written';

export interface KernelSite {
  /** Index in `model.gpu`. */
  readonly gpu: number;
  readonly name: string;
  readonly decoded: DecodedKernelName;
  readonly role: KernelRole;
  readonly generator?: FusedGenerator;
  readonly memoryBound: boolean;
  /** Owning cpu_op (host index) or -1. */
  readonly owner: number;
  /** Launching runtime/driver call (host index) or -1. */
  readonly launcher: number;
  /** The annotation instance (host index) the kernel belongs to, or -1. */
  readonly scope: number;
  /** Its name as a row name (`mlp_fwd`, `ProfilerStep*`), or `''` when none. */
  readonly scopeName: string;
}

const MEMORY_BOUND_KINDS = new Set<KernelKind>(['elementwise', 'reduction', 'normalization', 'softmax', 'copy']);
const MEMORY_BOUND_INDUCTOR = new Set(['pointwise', 'reduction', 'persistent_reduction', 'foreach', 'split_scan']);

/** Pointwise, reduction, normalization, softmax, copy (or an Inductor kernel of such a kind): bound by HBM traffic. */
export function isMemoryBound(decoded: DecodedKernelName): boolean {
  return decoded.inductor ? MEMORY_BOUND_INDUCTOR.has(decoded.inductor.kind) : MEMORY_BOUND_KINDS.has(decoded.kind);
}

/** Inductor's compiled-graph frames (`## Call CompiledFxGraph <hash> ##`) are not the user's annotations. */
export function isCompiledGraphFrame(name: string): boolean {
  return name.startsWith('## ') && name.endsWith(' ##');
}

/**
 * Every kernel of the trace with its role, owning op chain and annotation instance, in the
 * order of `model.gpu`. Copies and memsets are left out (they are not kernels).
 */
export function computeKernelSites(m: TraceModel): KernelSite[] {
  const { host, gpu, strings } = m;
  // What a name says, decided once per name id (names are interned: one id per name).
  const decodedByName: (DecodedKernelName | undefined)[] = [];
  // Per host name id: 1 a user annotation's name that scopes kernels (not a compiled graph's
  // frame), 2 not, 0 not decided yet; and its row name.
  const scoping = new Uint8Array(strings.size);
  const rowNames: (string | undefined)[] = [];
  const sites: KernelSite[] = [];
  for (let g = 0; g < gpu.length; g++) {
    if (gpu.kind[g] !== GpuKind.Kernel) continue;
    const nameId = gpu.name[g]!;
    const name = strings.get(nameId);
    const decoded = (decodedByName[nameId] ??= decodeKernelName(name));
    const owner = gpu.owner[g]!;
    const launcher = gpu.launcher[g]!;
    const ownerName = owner >= 0 ? strings.get(host.name[owner]!) : undefined;
    const generator = fusedGenerator(decoded, ownerName);
    const memoryBound = isMemoryBound(decoded);
    const role: KernelRole = generator ? 'fused' : memoryBound ? 'memory-bound' : 'other';
    let scope = -1;
    for (let p = owner >= 0 ? owner : launcher; p >= 0; p = host.parent[p]!) {
      if (host.kind[p] !== HostKind.Annotation) continue;
      const id = host.name[p]!;
      if (!scoping[id]) scoping[id] = isCompiledGraphFrame(strings.get(id)) ? 2 : 1;
      if (scoping[id] === 1) {
        scope = p;
        break;
      }
    }
    if (scope < 0) scope = stepAt(m, owner >= 0 ? owner : launcher);
    const scopeName = scope >= 0 ? (rowNames[host.name[scope]!] ??= torchRowName(strings.get(host.name[scope]!))) : '';
    sites.push(
      generator
        ? { gpu: g, name, decoded, role, generator, memoryBound, owner, launcher, scope, scopeName }
        : { gpu: g, name, decoded, role, memoryBound, owner, launcher, scope, scopeName },
    );
  }
  return sites;
}

/**
 * Inductor kernels by name; hand-written ones are kernels whose names decode to nothing known and
 * that no ATen op owns (ATen's own kernels always run under their op).
 */
function fusedGenerator(d: DecodedKernelName, ownerName: string | undefined): FusedGenerator | undefined {
  if (d.inductor) return 'inductor';
  const unknownName = d.kind === 'unknown' || (d.library === 'Triton' && d.kind === 'triton');
  if (unknownName && (ownerName === undefined || !ownerName.startsWith('aten::'))) return 'hand-written';
  return undefined;
}

/** Backward work runs on autograd's thread outside any annotation: it belongs to the step whose window it starts in. */
function stepAt(m: TraceModel, hostIndex: number): number {
  if (hostIndex < 0 || m.steps.length === 0) return -1;
  const t = m.host.startNs[hostIndex]!;
  // steps do not overlap: the last one starting at or before t is the only candidate
  let lo = 0;
  let hi = m.steps.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (m.steps[mid]!.startNs <= t) lo = mid + 1;
    else hi = mid;
  }
  const s = m.steps[lo - 1];
  return s && t < s.endNs ? s.host : -1;
}

/** `aten::mul_` → `mul`: the op names Inductor writes into kernel names (overload packets, no namespace). */
export function opBaseName(name: string): string {
  const bare = name.replace(/^\w+::/, '').replace(/\..*$/, '');
  return bare.endsWith('_') && !bare.endsWith('__') ? bare.slice(0, -1) : bare;
}

// ------------------------------------------------------------------------------------------------
// Tensors an op produces and consumes

/** What an op's output is known to be: shape and/or dtype (`Input type` spelling). */
export interface InferredOutput {
  readonly dims?: readonly number[];
  readonly dtype?: string;
}

const COMPARISON_OPS = /^(eq|ne|lt|le|gt|ge|logical_and|logical_or|logical_not|logical_xor|isnan|isinf|isfinite|isneginf|isposinf|signbit|__and__|__or__|__xor__)$/;
const CAST_OPS = /^(to|_to_copy|type_as|_autocast_to_reduced_precision|_autocast_to_full_precision|copy)$/;
const FLOAT_TYPES = ['c10::Float8_e5m2', 'c10::Float8_e4m3fn', 'c10::Half', 'c10::BFloat16', 'float', 'double'];

/**
 * The output of the op that owns a kernel, as far as its op name, kernel kind and inputs say.
 * In-place ops (`mul_`, `copy_`) write their first argument; casts keep the shape but their
 * target dtype is not recorded; reductions' output shapes depend on arguments not reliably
 * recorded, so they are left unknown.
 */
export function inferOutput(opName: string, kind: KernelKind, inputs: readonly TensorArg[]): InferredOutput | undefined {
  if (inputs.length === 0) return undefined;
  const base = opName.replace(/^[\w]+::/, '');
  const first = inputs[0]!;
  if (base.endsWith('_') && !base.startsWith('__')) return { dims: first.dims, dtype: first.dtype };
  if (CAST_OPS.test(base)) return { dims: first.dims };
  if (kind === 'normalization' || kind === 'softmax') return { dims: first.dims, dtype: first.dtype };
  if (kind !== 'elementwise' && kind !== 'copy') return undefined;
  const dims = broadcastDims(inputs.map((t) => t.dims));
  if (!dims) return undefined;
  if (COMPARISON_OPS.test(base)) return { dims, dtype: 'bool' };
  return { dims, dtype: promotedDtype(inputs) };
}

/** numpy broadcasting of shapes; undefined when they do not broadcast. */
export function broadcastDims(shapes: readonly (readonly number[])[]): number[] | undefined {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    for (let k = 0; k < s.length; k++) {
      const o = rank - s.length + k;
      const d = s[k]!;
      if (d === 1) continue;
      if (out[o] !== 1 && out[o] !== d) return undefined;
      out[o] = d;
    }
  }
  return out;
}

/**
 * torch's type promotion, reduced to what decides an elementwise output here: dimensioned tensors
 * outrank 0-dim ones (a wrapped Python number is a 0-dim `double`), floats outrank integers and bool,
 * and the wider float wins (bf16 with f16 gives f32).
 */
function promotedDtype(inputs: readonly TensorArg[]): string | undefined {
  const dimensioned = inputs.filter((t) => t.dims.length > 0);
  const pool = dimensioned.length > 0 ? dimensioned : inputs;
  const types = [...new Set(pool.map((t) => t.dtype))];
  if (types.length === 1) return types[0];
  const floats = types.filter((t) => FLOAT_TYPES.includes(t));
  if (floats.length === 0) return undefined;
  if (floats.length === 1) return floats[0];
  if (floats.includes('double')) return 'double';
  return 'float';
}

/** Ops that only write their tensor arguments (fills, random draws) or write their first (`copy_`). */
const WRITE_ONLY_OPS = /^(fill|zero|normal|uniform|random|bernoulli|exponential|geometric|cauchy|log_normal|empty|empty_like|empty_strided|zeros|ones|full|arange|resize)_?$/;

/** The tensor arguments an op reads. */
function readArgs(opName: string, args: readonly TensorArg[]): readonly TensorArg[] {
  const base = opName.replace(/^\w+::/, '');
  if (WRITE_ONLY_OPS.test(base)) return [];
  if (base === 'copy_' || base === '_foreach_copy_') return args.filter((t) => t.index !== 0);
  return args;
}

const sameDims = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, k) => d === b[k]);

export interface Intermediate {
  /** The producing and consuming ops. */
  readonly producer: string;
  readonly consumer: string;
  readonly dims: readonly number[];
  readonly dtype: string;
  /** numel × element size: written once by the producer, read back once by the consumer. */
  readonly bytes: number;
  /** Which argument of the consumer it is. */
  readonly consumerArg: number;
  /** `producer-output`: matched against the producer's inferred output; `consumer-input`: the consumer's one new input. */
  readonly inferredFrom: 'producer-output' | 'consumer-input';
}

/**
 * The tensor kernel `a`'s op wrote and kernel `b`'s op read, if shapes and dtypes say there is one.
 * `a` and `b` must be owned by different ops with recorded shapes.
 */
export function findIntermediate(m: TraceModel, a: Pick<KernelSite, 'owner' | 'decoded'>, b: Pick<KernelSite, 'owner' | 'decoded'>): Intermediate | undefined {
  if (a.owner < 0 || b.owner < 0 || a.owner === b.owner) return undefined;
  const producer = m.strings.get(m.host.name[a.owner]!);
  const consumer = m.strings.get(m.host.name[b.owner]!);
  const pIn = tensorArgs(m.host.args[a.owner]);
  const cIn = readArgs(consumer, tensorArgs(m.host.args[b.owner]));
  if (pIn.length === 0 || cIn.length === 0) return undefined;
  const out = inferOutput(producer, a.decoded.kind, pIn);
  const make = (t: TensorArg, inferredFrom: Intermediate['inferredFrom']): Intermediate => ({
    producer,
    consumer,
    dims: t.dims,
    dtype: t.dtype,
    bytes: t.bytes,
    consumerArg: t.index,
    inferredFrom,
  });
  if (out && (out.dims || out.dtype)) {
    const fits = (t: TensorArg) =>
      (out.dims === undefined || t.numel === numelOf(out.dims)) && (out.dtype === undefined || t.dtype === out.dtype);
    const exact = cIn.find((t) => fits(t) && out.dims !== undefined && sameDims(t.dims, out.dims));
    const any = exact ?? cIn.find(fits);
    return any && any.numel > 1 ? make(any, 'producer-output') : undefined;
  }
  const fresh = cIn.filter((t) => t.numel > 1 && !pIn.some((p) => p.dtype === t.dtype && sameDims(p.dims, t.dims)));
  return fresh.length === 1 ? make(fresh[0]!, 'consumer-input') : undefined;
}

/**
 * Whether op `reader` (host index) takes a tensor like the output of op `producer`, whose kernel is
 * of `producerKind`: the same element count (a GEMM reads a `[64,128,3072]` activation as
 * `[8192,3072]`) and dtype. False when the producer's output is not known, or `reader` is -1.
 * Work whose output an op reads cannot move past that op: a replacing kernel after a GEMM that
 * reads the output is not doing that work.
 */
export function readsOutputOf(m: TraceModel, reader: number, producer: number, producerKind: KernelKind): boolean {
  if (reader < 0 || producer < 0) return false;
  const out = inferOutput(m.strings.get(m.host.name[producer]!), producerKind, tensorArgs(m.host.args[producer]));
  if (!out?.dims || !out.dtype) return false;
  const numel = numelOf(out.dims);
  return tensorArgs(m.host.args[reader]).some((a) => a.numel === numel && a.dtype === out.dtype);
}

/**
 * HBM bytes one kernel's op moves when each tensor input is read once and its output written once;
 * undefined when the output is not known.
 */
export function kernelTrafficBytes(m: TraceModel, s: Pick<KernelSite, 'owner' | 'decoded' | 'role'>): number | undefined {
  if (s.owner < 0 || s.role !== 'memory-bound') return undefined;
  const inputs = tensorArgs(m.host.args[s.owner]);
  if (inputs.length === 0) return undefined;
  const opName = m.strings.get(m.host.name[s.owner]!);
  const out = inferOutput(opName, s.decoded.kind, inputs);
  if (!out?.dims || !out.dtype) return undefined;
  const outBytes = tensorArgs({ 'Input Dims': [out.dims as number[]], 'Input type': [out.dtype] })[0]?.bytes;
  if (outBytes === undefined) return undefined;
  // 0-dim tensors are wrapped Python numbers or CPU scalars: passed to the kernel as arguments, not read from HBM.
  return inputs.reduce((sum, t) => sum + (t.dims.length > 0 ? t.bytes : 0), 0) + outBytes;
}

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

export function computeFusion(m: TraceModel, sites: readonly KernelSite[] = computeKernelSites(m)): FusionResult {
  return { fusedKernels: collectFusedKernels(m, sites), opportunities: findOpportunities(m, sites) };
}

function collectFusedKernels(m: TraceModel, sites: readonly KernelSite[]): FusedKernel[] {
  const { gpu, host, strings } = m;
  interface Acc {
    site: KernelSite;
    calls: number;
    totalNs: number;
    minNs: number;
    maxNs: number;
    annotations: Set<string>;
    launchedBy: Set<string>;
    outsideOp: boolean;
    inCudaGraph: boolean;
  }
  const byName = new Map<string, Acc>();
  for (const s of sites) {
    if (s.role !== 'fused') continue;
    let a = byName.get(s.name);
    if (!a) {
      a = { site: s, calls: 0, totalNs: 0, minNs: Infinity, maxNs: -Infinity, annotations: new Set(), launchedBy: new Set(), outsideOp: true, inCudaGraph: false };
      byName.set(s.name, a);
    }
    const d = gpu.durNs[s.gpu]!;
    a.calls++;
    a.totalNs += d;
    a.minNs = Math.min(a.minNs, d);
    a.maxNs = Math.max(a.maxNs, d);
    if (s.scopeName) a.annotations.add(s.scopeName);
    if (s.launcher >= 0) {
      const l = strings.get(host.name[s.launcher]!);
      a.launchedBy.add(l);
      if (/GraphLaunch$/.test(l)) a.inCudaGraph = true;
    }
    if (s.owner >= 0) a.outsideOp = false;
  }
  const out: FusedKernel[] = [];
  for (const a of byName.values()) {
    const { site } = a;
    const ind = site.decoded.inductor;
    const launchOp = launchOpArgs(m, site);
    out.push({
      name: site.name,
      generator: site.generator!,
      kind: ind ? ind.kind : site.decoded.kind,
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
function launchOpArgs(m: TraceModel, s: KernelSite) {
  if (s.owner < 0 || m.strings.get(m.host.name[s.owner]!) !== s.name) return undefined;
  const args = tensorArgs(m.host.args[s.owner]);
  return args.length ? args.map((t) => ({ dims: t.dims, dtype: t.dtype, bytes: t.bytes })) : undefined;
}

/**
 * Compute kernels a chain may run across: their ops read the tensors they list and write a fresh
 * output. Other kernels (scans, sorts, scatters, copies, memsets) may write a tensor they do not
 * list — an embedding backward scatters into the buffer `fill_` zeroed — so they end a chain.
 */
const LOOK_THROUGH_KINDS = new Set<KernelKind>(['gemm', 'conv', 'attention']);

interface ChainInstance {
  sites: KernelSite[];
  links: Intermediate[];
  /** Per link: the compute kernels that ran between its producer and its consumer. */
  between: KernelSite[][];
}

// Each phase below is its own function with one loop: the analysis runs once per process, and V8
// optimises each loop once, with its own type feedback, instead of recompiling one large function
// at each loop it reaches (three compiles of the single function this was, on the 160 MB trace).

function findOpportunities(m: TraceModel, sites: readonly KernelSite[]): FusionOpportunity[] {
  const siteOf = sitesByActivity(m, sites);
  const links = new IntermediateCache(m);
  const chains: ChainInstance[] = [];
  for (const stream of activitiesByStream(m)) {
    // In (start, index) order: a stream's activities are nearly so already (natural-merge-sort.ts).
    chainsOnStream(m, orderByStart(Int32Array.from(stream), m.gpu.startNs), siteOf, links, chains);
  }
  const out = groupChains(m, chains).map((g) => opportunityOf(m, g.first, g.instances));
  return out.sort((x, y) => y.roundTripBytes * y.instances - x.roundTripBytes * x.instances || y.totalUs - x.totalUs);
}

/** Per GPU activity, its kernel site (copies and memsets have none). */
function sitesByActivity(m: TraceModel, sites: readonly KernelSite[]): (KernelSite | undefined)[] {
  const siteOf: (KernelSite | undefined)[] = new Array<KernelSite | undefined>(m.gpu.length).fill(undefined);
  for (const s of sites) siteOf[s.gpu] = s;
  return siteOf;
}

/**
 * GPU activities per (device, stream), in index order: copies and memsets sit in the stream too
 * and end chains. Lists in order of each stream's first activity, found by (device, stream)
 * numbers (no text key per activity).
 */
function activitiesByStream(m: TraceModel): number[][] {
  const { gpu } = m;
  const streamLists: number[][] = [];
  const byDevice = new Map<number, Map<number, number[]>>();
  const { device, stream } = gpu;
  // The table is written a run per stream: the list is looked up only where the stream changes.
  let list: number[] = [];
  let lastDevice = NaN;
  let lastStream = NaN;
  for (let g = 0; g < gpu.length; g++) {
    const d = device[g]!;
    const s = stream[g]!;
    if (d !== lastDevice || s !== lastStream) {
      let byStream = byDevice.get(d);
      if (!byStream) byDevice.set(d, (byStream = new Map()));
      let found = byStream.get(s);
      if (!found) {
        byStream.set(s, (found = []));
        streamLists.push(found);
      }
      list = found;
      lastDevice = d;
      lastStream = s;
    }
    list.push(g);
  }
  return streamLists;
}

/**
 * findIntermediate, worked out once per distinct pair: it reads only the two ops' names and args
 * and the producer's kernel kind, and args objects are shared by every op with the same args, so
 * a training loop asks about the same pairs step after step. Pairs are found by numbers: each op
 * gets the id of its (name, args), once per host event.
 */
class IntermediateCache {
  /** Per host event, the id of its (name id, args object), or -1 until asked. */
  private readonly opIds: Int32Array;
  /** Op ids by args object, then by name id. */
  private readonly idsByArgs = new Map<JsonObject | undefined, Map<number, number>>();
  private count = 0;
  /** By producer id × (host length + 1) + consumer id (below 2^53 for any host table under 9·10^7 events), then by the producer kernel's kind. */
  private readonly links = new Map<number, Map<KernelKind, Intermediate | undefined>>();

  constructor(private readonly m: TraceModel) {
    this.opIds = new Int32Array(m.host.length).fill(-1);
  }

  of(a: KernelSite, b: KernelSite): Intermediate | undefined {
    if (a.owner < 0 || b.owner < 0 || a.owner === b.owner) return undefined;
    const pair = this.opId(a.owner) * (this.m.host.length + 1) + this.opId(b.owner);
    let byKind = this.links.get(pair);
    if (!byKind) this.links.set(pair, (byKind = new Map()));
    const kind = a.decoded.kind;
    if (byKind.has(kind)) return byKind.get(kind);
    const r = findIntermediate(this.m, a, b);
    byKind.set(kind, r);
    return r;
  }

  private opId(h: number): number {
    let id = this.opIds[h]!;
    if (id >= 0) return id;
    const args = this.m.host.args[h];
    let byName = this.idsByArgs.get(args);
    if (!byName) this.idsByArgs.set(args, (byName = new Map()));
    const name = this.m.host.name[h]!;
    const known = byName.get(name);
    if (known !== undefined) id = known;
    else byName.set(name, (id = this.count++));
    return (this.opIds[h] = id);
  }
}

/** A compute kernel of `prev`'s annotation instance that a chain from the memory-bound `prev` may run across. */
function looksThrough(b: KernelSite | undefined, prev: KernelSite | undefined): b is KernelSite {
  return b !== undefined && LOOK_THROUGH_KINDS.has(b.decoded.kind) && b.role === 'other' && prev?.role === 'memory-bound' && b.scope === prev.scope;
}

/** The chains of one stream's activities (in start order), added to `chains`. */
function chainsOnStream(m: TraceModel, list: Int32Array, siteOf: readonly (KernelSite | undefined)[], links: IntermediateCache, chains: ChainInstance[]): void {
  const { gpu } = m;
  let cur: ChainInstance | undefined;
  // The last activity not looked through, and the compute kernels looked through since it.
  let prev: KernelSite | undefined;
  let skipped: KernelSite[] = [];
  for (let k = 0; k < list.length; k++) {
    const g = list[k]!;
    const b = siteOf[g];
    if (looksThrough(b, prev)) {
      skipped.push(b);
      continue;
    }
    // A memset the GEMM's own op launches right before it (cuBLAS clearing its workspace) is part of that GEMM.
    const next = k + 1 < list.length ? siteOf[list[k + 1]!] : undefined;
    if (gpu.kind[g] === GpuKind.Memset && gpu.owner[g]! >= 0 && looksThrough(next, prev) && next.owner === gpu.owner[g]) continue;
    const link = prev && b && chainable(prev, b) ? links.of(prev, b) : undefined;
    if (link && !skipped.some((s) => readsTensorLike(m, s, link))) {
      if (!cur) cur = { sites: [prev!], links: [], between: [] };
      cur.sites.push(b!);
      cur.links.push(link);
      cur.between.push(skipped);
    } else if (cur) {
      chains.push(cur);
      cur = undefined;
    }
    prev = b;
    skipped = [];
  }
  if (cur) chains.push(cur);
}

/** The instances of the same chain (same annotation, same kernels and ops, same intermediates), in order of first instance. */
function groupChains(m: TraceModel, chains: readonly ChainInstance[]): { first: ChainInstance; instances: ChainInstance[] }[] {
  const groups = new Map<string, { first: ChainInstance; instances: ChainInstance[] }>();
  const linkTexts = new Map<Intermediate, string>();
  for (const c of chains) {
    const key = chainKey(m, c, linkTexts);
    const g = groups.get(key);
    if (g) g.instances.push(c);
    else groups.set(key, { first: c, instances: [c] });
  }
  return [...groups.values()];
}

/**
 * What makes two chain instances the same chain, as text: the annotation, device and stream, each
 * kernel's op and kernel by their string ids (one id per name: no long kernel name copied per
 * chain), each intermediate's shape and dtype, the kernels run between; parts apart by \\u0000.
 * An intermediate's text is written once per intermediate (`linkTexts`): IntermediateCache hands
 * every instance of a pair the same object.
 */
function chainKey(m: TraceModel, c: ChainInstance, linkTexts: Map<Intermediate, string>): string {
  const { gpu } = m;
  const s0 = c.sites[0]!;
  let key = `${s0.scopeName}\u0000${gpu.device[s0.gpu]}\u0000${gpu.stream[s0.gpu]}`;
  for (const s of c.sites) key += `\u0000${m.host.name[s.owner]!}\u0001${gpu.name[s.gpu]!}`;
  for (const l of c.links) {
    let text = linkTexts.get(l);
    if (text === undefined) linkTexts.set(l, (text = `\u0000${formatDims(l.dims)}${l.dtype}`));
    key += text;
  }
  for (const ks of c.between) {
    key += '\u0000';
    for (let j = 0; j < ks.length; j++) key += j > 0 ? `\u0001${gpu.name[ks[j]!.gpu]!}` : `${gpu.name[ks[j]!.gpu]!}`;
  }
  return key;
}

function opportunityOf(m: TraceModel, first: ChainInstance, instances: readonly ChainInstance[]): FusionOpportunity {
  const { gpu } = m;
  const n = instances.length;
  const kernels: FusionKernelRef[] = first.sites.map((s, k) => {
    let sum = 0;
    for (const inst of instances) sum += gpu.durNs[inst.sites[k]!.gpu]!;
    const traffic = kernelTrafficBytes(m, s);
    return {
      name: s.name,
      shortName: shortKernelName(s.name),
      op: m.strings.get(m.host.name[s.owner]!),
      meanUs: sum / n / 1000,
      ...(traffic !== undefined ? { trafficBytes: traffic } : {}),
    };
  });
  const between: FusionKernelRef[][] = first.between.map((ks, l) =>
    ks.map((s, k) => ({
      name: s.name,
      shortName: shortKernelName(s.name),
      op: s.owner >= 0 ? m.strings.get(m.host.name[s.owner]!) : '',
      meanUs: instances.reduce((sum, inst) => sum + gpu.durNs[inst.between[l]![k]!.gpu]!, 0) / n / 1000,
    })),
  );
  const intermediates: FusionIntermediate[] = first.links.map((l) => ({
    producer: l.producer,
    consumer: l.consumer,
    dims: l.dims,
    dtype: l.dtype,
    bytes: l.bytes,
    inferredFrom: l.inferredFrom,
  }));
  const intermediateBytes = intermediates.reduce((s, l) => s + l.bytes, 0);
  const totalNs = instances.reduce((s, inst) => s + inst.sites.reduce((t, x) => t + gpu.durNs[x.gpu]!, 0), 0);
  const timeUs = totalNs / n / 1000;
  const traffic = kernels.every((k) => k.trafficBytes !== undefined) ? kernels.reduce((s, k) => s + k.trafficBytes!, 0) : undefined;
  const s0 = first.sites[0]!;
  return {
    annotation: s0.scopeName,
    device: gpu.device[s0.gpu]!,
    stream: gpu.stream[s0.gpu]!,
    kernels,
    intermediates,
    between,
    instances: n,
    annotationInstances: new Set(instances.map((inst) => inst.sites[0]!.scope)).size,
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
 * Whether a kernel's op takes a tensor that could be the intermediate (same element count and
 * dtype: a GEMM reads a `[64,128,3072]` activation as `[8192,3072]`), or may take anything (no op,
 * no recorded shapes). Such a kernel needs the intermediate in HBM anyway, so fusing its producer
 * into its consumer would not save the round trip.
 */
function readsTensorLike(m: TraceModel, s: KernelSite, t: Intermediate): boolean {
  const args = s.owner >= 0 ? tensorArgs(m.host.args[s.owner]) : [];
  if (args.length === 0) return true; // no op or no shapes: it may read anything, as before (it ends the chain)
  const numel = numelOf(t.dims);
  return args.some((a) => a.numel === numel && a.dtype === t.dtype);
}

/**
 * Both ATen-style memory-bound kernels of one annotation instance. Fused kernels are left out: an
 * Inductor kernel's recorded arguments mix its inputs and outputs, so what it hands the next
 * kernel cannot be told apart from what it read.
 */
function chainable(a: KernelSite, b: KernelSite): boolean {
  return a.role === 'memory-bound' && b.role === 'memory-bound' && a.scope === b.scope;
}

/** `[64,128,3072] bf16`. */
export function describeTensor(dims: readonly number[], dtype: string): string {
  return `${formatDims(dims)} ${shortDtype(dtype)}`;
}
