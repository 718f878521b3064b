/**
 * The GPU work under an op: what it launched itself or through the ops inside it, read from the
 * model's owned-work index (model/owned-work.ts: `host.firstOwned`, `gpu.nextOwned`), with the
 * op that owns each activity. Ignores GPU work with no owning op.
 */
import type { TraceModel } from '../../model/trace-model.js';

/**
 * GPU activities (any kind) owned by `h` or any host event under it, with the owning host event of each;
 * `descend(x)` false stops the walk below x (x's own work is still taken).
 */
export function subtreeGpuWithOwner(m: TraceModel, h: number, descend?: (x: number) => boolean): { g: number; owner: number }[] {
  const { firstOwned } = m.host;
  const { nextOwned } = m.gpu;
  const out: { g: number; owner: number }[] = [];
  const stack = [h];
  while (stack.length) {
    const x = stack.pop()!;
    for (let g = firstOwned[x]!; g >= 0; g = nextOwned[g]!) out.push({ g, owner: x });
    if (x !== h && descend && !descend(x)) continue;
    for (let c = m.host.firstChild[x]!; c >= 0; c = m.host.nextSibling[c]!) stack.push(c);
  }
  return out;
}
