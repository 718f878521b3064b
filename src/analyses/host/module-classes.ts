/**
 * The module tree rolled up by class: all `Linear`s, all `GPT2Block`s — how much of the step a
 * kind of layer costs, whichever of its N instances ran it.
 *
 * A class's self figures are its instances' summed. Its totals are summed over its outermost
 * instances only (those with no ancestor of the same class): an instance inside another of its
 * class (a `Sequential` in a `Sequential`) is already in that one's total, and would count twice.
 */
import type { ModuleNode, ModuleTree } from './modules.js';

export interface ModuleClass {
  readonly className: string;
  /** Instances: module paths of this class. */
  readonly modules: number;
  /** Calls of all its instances. */
  readonly calls: number;
  readonly hostSelfNs: number;
  readonly hostTotalNs: number;
  readonly deviceSelfNs: number;
  readonly deviceTotalNs: number;
  readonly backwardDeviceSelfNs: number;
  readonly backwardDeviceTotalNs: number;
  readonly allocatedDeviceTotalBytes: number;
}

/** One row per class, the most GPU time (forward and backward totals) first, then by name. */
export function computeModuleClasses(t: ModuleTree): ModuleClass[] {
  const rows = new Map<string, { -readonly [K in keyof ModuleClass]: ModuleClass[K] }>();
  for (const n of t.nodes) {
    let r = rows.get(n.className);
    if (!r) {
      r = { className: n.className, modules: 0, calls: 0, hostSelfNs: 0, hostTotalNs: 0, deviceSelfNs: 0, deviceTotalNs: 0, backwardDeviceSelfNs: 0, backwardDeviceTotalNs: 0, allocatedDeviceTotalBytes: 0 };
      rows.set(n.className, r);
    }
    r.modules++;
    r.calls += n.calls;
    r.hostSelfNs += n.hostSelfNs;
    r.deviceSelfNs += n.deviceSelfNs;
    r.backwardDeviceSelfNs += n.backward.deviceSelfNs;
    if (insideSameClass(t.nodes, n)) continue;
    r.hostTotalNs += n.hostTotalNs;
    r.deviceTotalNs += n.deviceTotalNs;
    r.backwardDeviceTotalNs += n.backward.deviceTotalNs;
    r.allocatedDeviceTotalBytes += n.allocatedDeviceTotalBytes;
  }
  const gpu = (c: ModuleClass) => c.deviceTotalNs + c.backwardDeviceTotalNs;
  return [...rows.values()].sort((a, b) => gpu(b) - gpu(a) || (a.className < b.className ? -1 : a.className > b.className ? 1 : 0));
}

/** Whether an ancestor of `n` is of its class. */
function insideSameClass(nodes: readonly ModuleNode[], n: ModuleNode): boolean {
  for (let p = n.parent; p >= 0; p = nodes[p]!.parent) if (nodes[p]!.className === n.className) return true;
  return false;
}
