/**
 * Each GPU kernel as fusion and fusion-match read it (its site): its decoded name, its role
 * (a fused kernel, memory-bound work, or anything else, which ends a chain), the op that owns
 * it and the annotation instance it ran in. Worked out once per model as columns, from each
 * kernel name and op name decided once.
 */
import type { JsonObject } from '../../core/json.js';
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { decodeKernelName, type DecodedKernelName, type KernelKind } from '../kernels/kernel-name.js';
import { torchRowName } from '../torch-table/profiler-table.js';

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

/**
 * Compute kernels a chain may run across: their ops read the tensors they list and write a fresh
 * output. Other kernels (scans, sorts, scatters, copies, memsets) may write a tensor they do not
 * list — an embedding backward scatters into the buffer `fill_` zeroed — so they end a chain.
 */
const LOOK_THROUGH_KINDS = new Set<KernelKind>(['gemm', 'conv', 'attention']);

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
  const { gpu, strings } = m;
  const c = computeSiteColumns(m);
  const rows = new ScopeRows(m);
  const sites: KernelSite[] = [];
  for (let g = 0; g < gpu.length; g++) {
    const r = c.role[g]!;
    if (r === Role.None) continue;
    const decoded = c.decoded[gpu.name[g]!]!;
    const name = strings.get(gpu.name[g]!);
    const generator = generatorOf(r);
    const memoryBound = isMemoryBound(decoded);
    const role = roleName(r);
    const owner = gpu.owner[g]!;
    const launcher = gpu.launcher[g]!;
    const scope = c.scope[g]!;
    const scopeName = rows.of(scope);
    sites.push(
      generator
        ? { gpu: g, name, decoded, role, generator, memoryBound, owner, launcher, scope, scopeName }
        : { gpu: g, name, decoded, role, memoryBound, owner, launcher, scope, scopeName },
    );
  }
  return sites;
}

/** A kernel's role as one number (None: a copy or memset). */
export const enum Role {
  None = 0,
  /** Fused, by Inductor. */
  Inductor = 1,
  /** Fused, by hand. */
  HandWritten = 2,
  MemoryBound = 3,
  /** `other`, of a kind a chain may run across (LOOK_THROUGH_KINDS). */
  Compute = 4,
  /** `other`, any other kind. */
  Other = 5,
}

export function roleName(r: Role): KernelRole {
  return r === Role.Inductor || r === Role.HandWritten ? 'fused' : r === Role.MemoryBound ? 'memory-bound' : 'other';
}

export function generatorOf(r: Role): FusedGenerator | undefined {
  return r === Role.Inductor ? 'inductor' : r === Role.HandWritten ? 'hand-written' : undefined;
}

/**
 * The kernel sites as columns over `model.gpu`, so the analysis allocates nothing per kernel:
 * what a name says is decided once per name id (names are interned: one id per name).
 */
export interface SiteColumns {
  /** Per GPU activity, its Role (None for copies and memsets). */
  readonly role: Uint8Array;
  /** Per GPU activity, the annotation instance (host index) of a kernel, or -1. */
  readonly scope: Int32Array;
  /** Per kernel name id, the decoded name (holes for ids no kernel has). */
  readonly decoded: readonly (DecodedKernelName | undefined)[];
  /** The fused kernels (Inductor, hand-written), in GPU-table order. */
  readonly fused: readonly number[];
  /**
   * Per GPU activity, for a memory-bound kernel with an owning op, the id of the op's (name id,
   * args object), else -1: args objects are shared by every op with the same args, so a training
   * loop's ops get the same ids step after step (0 to opCount - 1).
   */
  readonly op: Int32Array;
  readonly opCount: number;
  /** Per kernel name id, its decoded kind as a small number (one per distinct kind). */
  readonly kindCode: Uint8Array;
}

// Per kernel name id (computeSiteColumns' `kernelFacts`): bits, 0 until decided.
const K_DECIDED = 1;
const K_INDUCTOR = 2;
/** Decodes to nothing known: hand-written unless an ATen op owns it. */
const K_UNKNOWN = 4;
const K_MEMORY_BOUND = 8;
const K_LOOK_THROUGH = 16;
// Per host name id (`hostFacts`): bits, 0 until decided.
const H_ATEN_DECIDED = 1;
const H_ATEN = 2;
const H_SCOPING_DECIDED = 4;
/** A user annotation's name that scopes kernels (not a compiled graph's frame). */
const H_SCOPING = 8;

function kernelFactsOf(d: DecodedKernelName): number {
  let f = K_DECIDED;
  if (d.inductor) f |= K_INDUCTOR;
  else if (d.kind === 'unknown' || (d.library === 'Triton' && d.kind === 'triton')) f |= K_UNKNOWN;
  if (isMemoryBound(d)) f |= K_MEMORY_BOUND;
  if (LOOK_THROUGH_KINDS.has(d.kind)) f |= K_LOOK_THROUGH;
  return f;
}

export function computeSiteColumns(m: TraceModel): SiteColumns {
  const { host, gpu, strings } = m;
  const role = new Uint8Array(gpu.length);
  const scope = new Int32Array(gpu.length).fill(-1);
  const decoded = new Array<DecodedKernelName | undefined>(strings.size);
  const kernelFacts = new Uint8Array(strings.size);
  const hostFacts = new Uint8Array(strings.size);
  const fused: number[] = [];
  const op = new Int32Array(gpu.length).fill(-1);
  // Per op name id (holes until its first op): its ops' ids by args object.
  const opsByName = new Array<Map<JsonObject | undefined, number> | undefined>(strings.size);
  let opCount = 0;
  const kindCode = new Uint8Array(strings.size);
  const kindCodes = new Map<KernelKind, number>();
  // The profiler steps as columns, for kernels no annotation scopes.
  const stepCount = m.steps.length;
  const stepStart = new Float64Array(stepCount);
  const stepEnd = new Float64Array(stepCount);
  const stepHost = new Int32Array(stepCount);
  for (let s = 0; s < stepCount; s++) {
    stepStart[s] = m.steps[s]!.startNs;
    stepEnd[s] = m.steps[s]!.endNs;
    stepHost[s] = m.steps[s]!.host;
  }
  for (let g = 0; g < gpu.length; g++) {
    if (gpu.kind[g] !== GpuKind.Kernel) continue;
    const nameId = gpu.name[g]!;
    const k = kernelFacts[nameId] || decideName(nameId);
    const owner = gpu.owner[g]!;
    // Inductor kernels by name; hand-written ones are kernels whose names decode to nothing known
    // and that no ATen op owns (ATen's own kernels always run under their op).
    let r: Role;
    if (k & K_INDUCTOR) r = Role.Inductor;
    else if (k & K_UNKNOWN && (owner < 0 || !isAten(owner))) r = Role.HandWritten;
    else r = k & K_MEMORY_BOUND ? Role.MemoryBound : k & K_LOOK_THROUGH ? Role.Compute : Role.Other;
    role[g] = r;
    if (r === Role.Inductor || r === Role.HandWritten) fused.push(g);
    else if (r === Role.MemoryBound && owner >= 0) op[g] = opId(owner);
    const from = owner >= 0 ? owner : gpu.launcher[g]!;
    let p = from;
    for (; p >= 0; p = host.parent[p]!) {
      if (host.kind[p] !== HostKind.Annotation) continue;
      const h = hostFacts[host.name[p]!]!;
      if ((h & H_SCOPING_DECIDED ? h : decideScoping(host.name[p]!)) & H_SCOPING) break;
    }
    if (p < 0 && from >= 0 && stepCount > 0) {
      // Backward work runs on autograd's thread outside any annotation: it belongs to the step
      // whose window it starts in. Steps do not overlap: the last one starting at or before t is
      // the only candidate.
      const t = host.startNs[from]!;
      let lo = 0;
      let hi = stepCount;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (stepStart[mid]! <= t) lo = mid + 1;
        else hi = mid;
      }
      if (lo > 0 && t < stepEnd[lo - 1]!) p = stepHost[lo - 1]!;
    }
    scope[g] = p;
  }
  return { role, scope, decoded, fused, op, opCount, kindCode };

  // The rarer steps apart, so the loop above stays small (V8 compiles it sooner).

  function decideName(nameId: number): number {
    const d = (decoded[nameId] = decodeKernelName(strings.get(nameId)));
    let code = kindCodes.get(d.kind);
    if (code === undefined) kindCodes.set(d.kind, (code = kindCodes.size));
    kindCode[nameId] = code;
    return (kernelFacts[nameId] = kernelFactsOf(d));
  }

  function decideScoping(id: number): number {
    return (hostFacts[id] |= H_SCOPING_DECIDED | (isCompiledGraphFrame(strings.get(id)) ? 0 : H_SCOPING));
  }

  function opId(owner: number): number {
    const nameId = host.name[owner]!;
    const byArgs = (opsByName[nameId] ??= new Map());
    const args = host.args[owner];
    let id = byArgs.get(args);
    if (id === undefined) byArgs.set(args, (id = opCount++));
    return id;
  }

  function isAten(op: number): boolean {
    const id = host.name[op]!;
    let h = hostFacts[id]!;
    if (!(h & H_ATEN_DECIDED)) hostFacts[id] = h |= H_ATEN_DECIDED | (strings.get(id).startsWith('aten::') ? H_ATEN : 0);
    return (h & H_ATEN) !== 0;
  }
}

/** Scopes' row names (`mlp_fwd`, `ProfilerStep*`), `''` for none: worked out once per name id. */
export class ScopeRows {
  private readonly byName = new Map<number, string>();
  private readonly ids = new Map<string, number>();
  /** Per host name id, its row name's number, or -1 until asked. */
  private idByName: Int32Array | undefined;
  constructor(private readonly m: TraceModel) {}

  /** The row name as a number (one per distinct row name). */
  idOf(scope: number): number {
    if (scope < 0) return this.idOfRow('');
    const idByName = (this.idByName ??= new Int32Array(this.m.strings.size).fill(-1));
    const nameId = this.m.host.name[scope]!;
    let id = idByName[nameId]!;
    if (id < 0) idByName[nameId] = id = this.idOfRow(this.of(scope));
    return id;
  }

  private idOfRow(row: string): number {
    let id = this.ids.get(row);
    if (id === undefined) this.ids.set(row, (id = this.ids.size));
    return id;
  }

  of(scope: number): string {
    if (scope < 0) return '';
    const id = this.m.host.name[scope]!;
    let row = this.byName.get(id);
    if (row === undefined) this.byName.set(id, (row = torchRowName(this.m.strings.get(id))));
    return row;
  }
}

/** `aten::mul_` → `mul`: the op names Inductor writes into kernel names (overload packets, no namespace). */
export function opBaseName(name: string): string {
  const bare = name.replace(/^\w+::/, '').replace(/\..*$/, '');
  return bare.endsWith('_') && !bare.endsWith('__') ? bare.slice(0, -1) : bare;
}
