/**
 * The GPU work each op owns, as linked lists over the two tables: `firstOwned[op]` is the first
 * GPU activity (kernel, copy, memset) whose owner is that op, `nextOwned[g]` the next one with the
 * same owner, both in GPU-table order, -1 at the end. Built once when the model is finished, so
 * that every analysis that walks "what did this op launch" reads the same index (the profiler
 * table, the GEMM calls, the epilogue rule) instead of building its own.
 */
export interface OwnedWork {
  readonly firstOwned: Int32Array;
  readonly nextOwned: Int32Array;
}

export function computeOwnedWork(owner: Int32Array, nGpu: number, nHost: number): OwnedWork {
  const firstOwned = new Int32Array(nHost).fill(-1);
  const nextOwned = new Int32Array(nGpu).fill(-1);
  for (let g = nGpu - 1; g >= 0; g--) {
    const o = owner[g]!;
    if (o < 0) continue;
    nextOwned[g] = firstOwned[o]!;
    firstOwned[o] = g;
  }
  return { firstOwned, nextOwned };
}
