/**
 * What kind of work each GPU activity is — computation, communication or memory — one rule for
 * every analysis that asks (`breakdown`, `steps`, `ranks`, `doctor`, the kernel-name decoder):
 *
 * - communication: a kernel whose name contains `nccl`, `rccl`, `hccl` or `msccl` in any case
 *   (NCCL ≤ 2.18 `ncclKernel_*`, ≥ 2.19 `ncclDevKernel_*`, RCCL's `ncclDevKernel_Generic_4`,
 *   MTIA's HCCL, MSCCL), or one carrying the NCCL collective args Kineto copies from
 *   `record_param_comms` onto the kernel (≥ 2023-10: `Collective name`, `In msg nelems`,
 *   `Group size`). Not one old prefix: HTA's `^nccl` rule missed `ncclDevKernel` names and
 *   lower-case variants, the bug its users keep reporting.
 * - memory: memcpy and memset activities (by category), and kernels named like them (`Memcpy …`,
 *   `Memset …`, MTIA's `dma_request`).
 * - computation: every other kernel.
 * HTA's fourth type, `other` (sync events, launch-API names), occurs only in HTA's mode
 * (breakdown/hta-compat.ts): kinetoscope's GPU table holds only kernels, copies and memsets.
 *
 * The TensorBoard plugin's step breakdown also counts as communication a kernel launched under an
 * `nccl:*` or `gloo:*` host op (`isCommunicationOpName`); `steps` follows it there.
 */
import type { JsonObject } from '../../core/json.js';
import { GpuKind, type TraceModel } from '../../model/trace-model.js';
import { perModel } from '../helpers/per-model.js';

const COMM_NAME = /nccl|rccl|hccl|msccl/i;
const COLLECTIVE_ARGS = ['Collective name', 'collective_name', 'In msg nelems', 'Group size'];
const MEMORY_NAME = /^(?:hip)?mem(?:cpy|set)|^dma/i;

export function isCommunicationKernelName(name: string): boolean {
  return COMM_NAME.test(name);
}

export function hasCollectiveArgs(args: JsonObject | undefined): boolean {
  if (!args) return false;
  for (const k of COLLECTIVE_ARGS) if (args[k] !== undefined) return true;
  return false;
}

/** Host ops the TensorBoard plugin counts as communication (its NcclOpNameSet/GlooOpNameSet, by prefix). */
export function isCommunicationOpName(name: string): boolean {
  return name.startsWith('nccl:') || name.startsWith('gloo:');
}

export const KERNEL_TYPES = ['computation', 'communication', 'memory', 'other'] as const;
export type KernelType = (typeof KERNEL_TYPES)[number];
/** A GPU activity's work type, as a number (the index into KERNEL_TYPES). */
export const enum KernelTypeId {
  Computation = 0,
  Communication = 1,
  Memory = 2,
  /** HTA's mode only. */
  Other = 3,
}

/** The work type of one GPU activity (the module comment's rule). */
export function kernelTypeOf(kind: GpuKind, name: string, args: JsonObject | undefined): KernelTypeId {
  if (kind === GpuKind.Memcpy || kind === GpuKind.Memset) return KernelTypeId.Memory;
  if (isCommunicationKernelName(name) || hasCollectiveArgs(args)) return KernelTypeId.Communication;
  if (MEMORY_NAME.test(name)) return KernelTypeId.Memory;
  return KernelTypeId.Computation;
}

const UNDECIDED = 255;

/**
 * Per GPU activity, its work type (KernelTypeId): copies and memsets memory, a kernel with
 * collective args communication, any other kernel by its name, decided once per name.
 */
function computeGpuWorkTypesOnce(m: TraceModel): Uint8Array {
  const { kind, name, args, length: n } = m.gpu;
  const types = new Uint8Array(n);
  const byName = new Uint8Array(m.strings.size).fill(UNDECIDED);
  for (let g = 0; g < n; g++) {
    if (kind[g] !== GpuKind.Kernel) types[g] = KernelTypeId.Memory;
    else if (hasCollectiveArgs(args[g])) types[g] = KernelTypeId.Communication;
    else {
      const id = name[g]!;
      let t = byName[id]!;
      if (t === UNDECIDED) t = byName[id] = kernelTypeOf(GpuKind.Kernel, m.strings.get(id), undefined);
      types[g] = t;
    }
  }
  return types;
}

/** Per GPU activity, its work type (KernelTypeId), once per model (per-model.ts). Shared, so read-only. */
export const gpuWorkTypes = perModel(computeGpuWorkTypesOnce);
