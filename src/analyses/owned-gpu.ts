/**
 * GPU work by the op that owns it, as linked lists over the GPU table: "the kernels an op
 * launched, itself or through the ops inside it". Built once per call site from `gpu.owner`;
 * ignores GPU work with no owning op.
 */
import type { TraceModel } from '../model/trace-model.js';

export interface OwnedGpuIndex {
  /** First GPU activity owned by host event h (in table order), -1 when none. */
  readonly first: Int32Array;
  /** Next GPU activity with the same owner, -1 at the end. */
  readonly next: Int32Array;
}

export function indexOwnedGpu(m: TraceModel): OwnedGpuIndex {
  const first = new Int32Array(m.host.length).fill(-1);
  const next = new Int32Array(m.gpu.length).fill(-1);
  for (let g = m.gpu.length - 1; g >= 0; g--) {
    const o = m.gpu.owner[g]!;
    if (o < 0) continue;
    next[g] = first[o]!;
    first[o] = g;
  }
  return { first, next };
}

/** GPU activities (any kind) owned by `h` itself. */
export function ownedGpu(owned: OwnedGpuIndex, h: number): number[] {
  const out: number[] = [];
  for (let g = owned.first[h]!; g >= 0; g = owned.next[g]!) out.push(g);
  return out;
}

/**
 * GPU activities owned by `h` or any host event under it, with the owning host event of each;
 * `descend(x)` false stops the walk below x (x's own work is still taken).
 */
export function subtreeGpuWithOwner(m: TraceModel, owned: OwnedGpuIndex, h: number, descend?: (x: number) => boolean): { g: number; owner: number }[] {
  const out: { g: number; owner: number }[] = [];
  const stack = [h];
  while (stack.length) {
    const x = stack.pop()!;
    for (let g = owned.first[x]!; g >= 0; g = owned.next[g]!) out.push({ g, owner: x });
    if (x !== h && descend && !descend(x)) continue;
    for (let c = m.host.firstChild[x]!; c >= 0; c = m.host.nextSibling[c]!) stack.push(c);
  }
  return out;
}
