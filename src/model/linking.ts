/**
 * Links each GPU activity to the runtime/driver call that launched it (by `correlation`,
 * with `ac2g` flows as a fallback) and to the `cpu_op` that owns it.
 *
 * Who owns a kernel depends on the trace's era (docs/kineto-format.md §3.2):
 * - torch ≥ 2.3 (and ≤ 1.10): the kernel's `External id` is the owning op's. Torch's own
 *   rule; a kernel launched outside any op (a hand-written Triton kernel called from
 *   Python) carries none and belongs to none. torch 2.3–2.5 fell back to the kernel's own
 *   correlation there, which is recognised and treated as "none".
 * - torch ≈ 1.11–2.2: `External id` merely repeats the correlation; the owner is the
 *   innermost cpu_op around the launching call.
 * Detected per trace, not by version number.
 */
import type { DiagnosticSink } from '../core/diagnostics.js';
import { IdTable } from './id-table.js';
import type { TableKernels } from './table-kernels.js';
import { HostKind, type OwnerRule } from './trace-model.js';

export interface LinkingInput {
  readonly host: {
    readonly length: number;
    readonly kind: Uint8Array;
    readonly name: Int32Array;
    readonly externalId: Float64Array;
    readonly correlation: Float64Array;
    readonly parent: Int32Array;
  };
  readonly gpu: {
    readonly length: number;
    readonly device: Int32Array;
    readonly stream: Int32Array;
    readonly startNs: Float64Array;
    readonly durNs: Float64Array;
    readonly correlation: Float64Array;
    readonly externalId: Float64Array;
  };
  /** The first runtime/driver call of each finite correlation (and how many calls repeated one). */
  readonly byCorrelation: IdTable;
  /** Flow id of the `ac2g` end bound at a GPU activity's start, for activities without `correlation`. */
  flowEndAt(device: number, stream: number, tsNs: number): number | string | undefined;
  hostName(i: number): string;
  gpuName(i: number): string;
  /** Another implementation of the host-wide loop, when there is one (table-kernels.ts). */
  readonly kernels?: TableKernels;
}

export interface Linking {
  readonly launcher: Int32Array;
  readonly owner: Int32Array;
  readonly ownerRule: OwnerRule;
  /** Runtime/driver calls that torch's `key_averages` wrongly credits with kernels (see below). */
  readonly torchIdCollisions: readonly TorchIdCollision[];
}

/**
 * torch gives each runtime/driver event the id of its CUPTI correlation, and each op the id
 * of its External id; the two counters overlap. When a call's correlation equals the External
 * id of an op that owns kernels, `key_averages` credits those kernels to the call as well
 * (seen on `linear_compile`: a GEMM credited to `cudaDeviceSynchronize`).
 */
export interface TorchIdCollision {
  readonly call: number;
  readonly op: number;
  readonly activities: readonly number[];
}

export function innermostOp(host: LinkingInput['host'], i: number): number {
  let p = i;
  while (p >= 0 && host.kind[p] !== HostKind.Op) p = host.parent[p]!;
  return p;
}

/*
 * Each loop over the activities or the host events is a function of its own that ends in
 * returning what it counted: `finish` runs once per trace, so V8 optimises such a loop while it
 * runs (on-stack replacement), and the code after a loop in the same function, never run yet,
 * would throw the optimised code away when reached.
 */

export function linkGpuActivities(input: LinkingInput, diagnostics: DiagnosticSink): Linking {
  const { host, gpu } = input;
  const byCorr = input.byCorrelation;
  const duplicateCorr = byCorr.repeats;
  if (duplicateCorr > 0) {
    diagnostics.add({
      code: 'DUPLICATE_CORRELATION',
      severity: 'warning',
      count: duplicateCorr,
      message: `${duplicateCorr} runtime call(s) repeat another call's correlation id (a merged multi-process file?); GPU work was linked to the first.`,
    });
  }

  const launches = findLaunchers(gpu, byCorr, input.flowEndAt);
  const { launcher, viaFlow, noLaunch, withExt, extEqualsCorr } = launches;
  if (viaFlow > 0) {
    diagnostics.add({
      code: 'LINKED_BY_FLOW',
      severity: 'info',
      count: viaFlow,
      message: `${viaFlow} GPU activit(ies) had no correlation id and were linked to their launch through ac2g flows.`,
    });
  }
  if (noLaunch > 0) {
    diagnostics.add({
      code: 'KERNEL_WITHOUT_LAUNCH',
      severity: 'warning',
      count: noLaunch,
      message: `${noLaunch} GPU activit(ies) have no launching runtime call in the trace (launched before the capture window, or the call was not recorded).`,
    });
  }

  // Era detection: in torch ≈ 1.12–2.2 every kernel's External id equals its correlation.
  let ownerRule: OwnerRule;
  if (gpu.length === 0) ownerRule = 'none';
  // (no op to own anything: a trace of the CUDA activity alone, which says nothing of torch's era)
  else if (host.kind.indexOf(HostKind.Op) < 0) ownerRule = 'no-ops';
  else if (withExt === 0 || extEqualsCorr >= 0.9 * withExt) ownerRule = 'innermost-op';
  else ownerRule = 'external-id';

  const owners =
    ownerRule === 'external-id'
      ? ownersByExternalId(host, gpu, launcher, byCorr, firstOpByExternalId(host, gpu.externalId, input.kernels))
      : innermostOwners(host, gpu, launcher, byCorr);
  const { owner, missingOwner, disagree, collide } = owners;
  if (missingOwner > 0) {
    diagnostics.add({
      code: 'OWNER_NOT_IN_TRACE',
      severity: 'warning',
      count: missingOwner,
      message: `${missingOwner} GPU activit(ies) name an owning op (External id) that is not in the trace; the innermost op around the launch was used instead.`,
    });
  }
  if (disagree > 0) {
    diagnostics.add({
      code: 'OWNER_DISAGREES_WITH_NESTING',
      severity: 'info',
      count: disagree,
      message: `${disagree} GPU activit(ies) are owned (by External id) by an op other than the innermost op around their launch call.`,
    });
  }

  const torchIdCollisions = collide ? findCollisions(host, owner, input.kernels) : [];
  if (torchIdCollisions.length > 0) {
    const first = torchIdCollisions[0]!;
    diagnostics.add({
      code: 'TORCH_ID_COLLISION',
      severity: 'info',
      count: torchIdCollisions.length,
      message:
        `torch's key_averages credits GPU work to ${torchIdCollisions.length} runtime call(s) whose CUPTI correlation id equals an op's External id ` +
        `(e.g. \`${input.hostName(first.call)}\` correlation ${host.correlation[first.call]} = External id of \`${input.hostName(first.op)}\`, ` +
        `credited with \`${input.gpuName(first.activities[0]!)}\`); kinetoscope credits that work only to the op.`,
    });
  }
  return { launcher, owner, ownerRule, torchIdCollisions };
}

/**
 * Each activity's launching call (−1: none) by its correlation, or by its `ac2g` flow when it has
 * none; and the counts linking reports and the era detection reads.
 */
function findLaunchers(gpu: LinkingInput['gpu'], byCorr: IdTable, flowEndAt: LinkingInput['flowEndAt']) {
  const launcher = new Int32Array(gpu.length).fill(-1);
  let viaFlow = 0;
  let noLaunch = 0;
  let withExt = 0;
  let extEqualsCorr = 0;
  for (let g = 0; g < gpu.length; g++) {
    let c = gpu.correlation[g]!;
    if (!Number.isFinite(c)) {
      const id = flowEndAt(gpu.device[g]!, gpu.stream[g]!, gpu.startNs[g]!);
      c = typeof id === 'number' ? id : Number(id);
      if (Number.isFinite(c)) viaFlow++;
    }
    const slot = Number.isFinite(c) ? byCorr.get(c) : -1;
    if (slot < 0) noLaunch++;
    else launcher[g] = byCorr.rowOf(slot);
    const ext = gpu.externalId[g]!;
    if (Number.isFinite(ext)) {
      withExt++;
      if (ext === gpu.correlation[g]) extEqualsCorr++;
    }
  }
  return { launcher, viaFlow, noLaunch, withExt, extEqualsCorr };
}

/**
 * Owners in torch ≈ 1.11–2.2: the innermost cpu_op around each launching call. `collide`: an
 * owner's External id is some call's correlation (torch's id collision, TorchIdCollision; rare:
 * the calls are looked for only when there is one).
 */
function innermostOwners(host: LinkingInput['host'], gpu: LinkingInput['gpu'], launcher: Int32Array, byCorr: IdTable) {
  const owner = new Int32Array(gpu.length).fill(-1);
  let collide = false;
  for (let g = 0; g < gpu.length; g++) {
    const l = launcher[g]!;
    const o = l >= 0 ? innermostOp(host, l) : -1;
    owner[g] = o;
    if (!collide && o >= 0 && Number.isFinite(host.externalId[o]!) && byCorr.get(host.externalId[o]!) >= 0) collide = true;
  }
  return { owner, missingOwner: 0, disagree: 0, collide };
}

/**
 * Owners in torch ≥ 2.3 (and ≤ 1.10): the cpu_op of the activity's External id (`opByExt`, by
 * activity); none without one. `collide` as in innermostOwners.
 */
function ownersByExternalId(host: LinkingInput['host'], gpu: LinkingInput['gpu'], launcher: Int32Array, byCorr: IdTable, opByExt: Int32Array) {
  const owner = new Int32Array(gpu.length).fill(-1);
  let missingOwner = 0;
  let disagree = 0;
  let collide = false;
  for (let g = 0; g < gpu.length; g++) {
    const l = launcher[g]!;
    const inner = l >= 0 ? innermostOp(host, l) : -1;
    let o = inner;
    const ext = gpu.externalId[g]!;
    if (!Number.isFinite(ext)) o = -1; // launched outside any op: belongs to none
    else {
      const byExt = opByExt[g]!;
      if (ext === gpu.correlation[g] && (byExt < 0 || byExt !== inner)) {
        // torch 2.3–2.5 fallback: no op was active, the id is the kernel's own correlation.
      } else if (byExt < 0) missingOwner++;
      else {
        o = byExt;
        if (l >= 0 && inner !== byExt) disagree++;
      }
    }
    owner[g] = o;
    if (!collide && o >= 0 && Number.isFinite(host.externalId[o]!) && byCorr.get(host.externalId[o]!) >= 0) collide = true;
  }
  return { owner, missingOwner, disagree, collide };
}

/**
 * For each of `named`: the first cpu_op (in host order) with that External id, −1 when there is
 * none or the id is not finite. The ids are indexed (a few, one per launch), then the host table
 * is read once; or `kernels` do it.
 */
function firstOpByExternalId(host: LinkingInput['host'], named: Float64Array, kernels: TableKernels | undefined): Int32Array {
  if (kernels) return kernels.firstRowWithId(host.kind, host.externalId, HostKind.Op, named);
  const ids = indexIds(named);
  const op = firstOps(host, ids);
  const out = new Int32Array(named.length).fill(-1);
  for (let g = 0; g < named.length; g++) if (Number.isFinite(named[g]!)) out[g] = op[ids.get(named[g]!)]!;
  return out;
}

/** The finite ids of `named`, numbered in the order first seen. */
function indexIds(named: Float64Array): IdTable {
  const ids = new IdTable();
  for (let g = 0; g < named.length; g++) if (Number.isFinite(named[g]!)) ids.add(named[g]!, g);
  return ids;
}

/** By number in `ids`: the first cpu_op with that External id (−1: none). */
function firstOps(host: LinkingInput['host'], ids: IdTable): Int32Array {
  const op = new Int32Array(ids.size).fill(-1);
  for (let i = 0; i < host.length; i++) {
    if (host.kind[i] !== HostKind.Op) continue;
    const ext = host.externalId[i]!;
    if (!Number.isFinite(ext)) continue;
    const n = ids.get(ext);
    if (n >= 0 && op[n]! < 0) op[n] = i;
  }
  return op;
}

/** Each runtime/driver call whose correlation is the External id of ops that own GPU work, in host order. */
function findCollisions(host: LinkingInput['host'], owner: Int32Array, kernels: TableKernels | undefined): TorchIdCollision[] {
  // The activities owned by ops of each External id, as lists through `nextOwned`.
  const exts = new IdTable();
  for (let g = 0; g < owner.length; g++) {
    const o = owner[g]!;
    if (o >= 0 && Number.isFinite(host.externalId[o]!)) exts.add(host.externalId[o]!, g);
  }
  const firstOwned = new Int32Array(exts.size).fill(-1);
  const nextOwned = new Int32Array(owner.length);
  for (let g = owner.length - 1; g >= 0; g--) {
    const o = owner[g]!;
    if (o < 0) continue;
    const ext = host.externalId[o]!;
    if (!Number.isFinite(ext)) continue;
    const n = exts.get(ext);
    nextOwned[g] = firstOwned[n]!;
    firstOwned[n] = g;
  }
  // By number in exts: the first op with that External id.
  const opOf = firstOpByExternalId(host, Float64Array.from({ length: exts.size }, (_, n) => host.externalId[owner[exts.rowOf(n)]!]!), kernels);
  const collisions: TorchIdCollision[] = [];
  const listOf = new Map<number, number[]>();
  for (let i = 0; i < host.length; i++) {
    const k = host.kind[i];
    if (k !== HostKind.Runtime && k !== HostKind.Driver) continue;
    const c = host.correlation[i]!;
    const n = Number.isFinite(c) ? exts.get(c) : -1;
    if (n < 0) continue;
    let acts = listOf.get(n);
    if (!acts) {
      listOf.set(n, (acts = []));
      for (let g = firstOwned[n]!; g >= 0; g = nextOwned[g]!) acts.push(g);
    }
    collisions.push({ call: i, op: opOf[n]!, activities: acts });
  }
  return collisions;
}
