/**
 * Which GPU work is communication — one rule for every analysis (steps, breakdown, doctor):
 * a kernel whose name contains `nccl`, `rccl`, `hccl` or `msccl` in any case (NCCL ≤ 2.18
 * `ncclKernel_*`, ≥ 2.19 `ncclDevKernel_*`, RCCL's `ncclDevKernel_Generic_4`, MTIA's HCCL,
 * MSCCL), or one carrying the NCCL collective args Kineto copies from `record_param_comms`
 * onto the kernel (≥ 2023-10: `Collective name`, `In msg nelems`, `Group size`). Not one old
 * prefix: HTA's `^nccl` rule missed `ncclDevKernel` names and lower-case variants, the bug its
 * users keep reporting.
 */
import type { JsonObject } from '../../ingest/raw-event.js';

const COMM_NAME = /nccl|rccl|hccl|msccl/i;
const COLLECTIVE_ARGS = ['Collective name', 'collective_name', 'In msg nelems', 'Group size'];

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
