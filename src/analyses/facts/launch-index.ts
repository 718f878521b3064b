/**
 * The launch index: the GPU activities (kernels, copies, memsets) each runtime/driver call
 * launched, in start order — the model's `gpu.launcher` column turned around, built once per
 * model and read by the launches, the step breakdown, the dispatch tree and the critical path.
 */
import type { TraceModel } from '../../model/trace-model.js';
import { perModel } from '../helpers/per-model.js';

/**
 * The GPU activities each host call launched, in start order: a compressed index (one offset
 * per host event) rather than a Map of small arrays — launches run to millions.
 */
export interface LaunchIndex {
  /** Activities of host event h: items[offsets[h] .. offsets[h + 1]). */
  readonly offsets: Int32Array;
  readonly items: Int32Array;
}

export function createLaunchIndex(m: TraceModel): LaunchIndex {
  const { gpu } = m;
  const n = m.host.length;
  // Counts, then running totals (the end of each call's list), then each activity placed just
  // before its call's end, last first: the ends become starts, lists in GPU order.
  // One loop per function: V8 optimises each once, with complete type feedback; the lists are
  // checked for start order as they are filled, so the pass over every call that sorts them
  // runs only when one needs it.
  const offsets = new Int32Array(n + 1);
  countByLauncher(gpu.launcher, gpu.length, offsets);
  runningTotals(offsets, n);
  const items = new Int32Array(offsets[n]!);
  if (placeByLauncher(gpu.launcher, gpu.startNs, gpu.length, offsets, items)) sortLaunchLists(gpu.startNs, offsets, items, n);
  return { offsets, items };
}

/** createLaunchIndex, made once per model (per-model.ts): the launches and the step breakdown both read it. Shared, so read-only. */
export const launchIndexOf = perModel(createLaunchIndex);

function countByLauncher(launcher: Int32Array, nGpu: number, counts: Int32Array): void {
  for (let g = 0; g < nGpu; g++) {
    const h = launcher[g]!;
    if (h >= 0) counts[h]++;
  }
}

/** counts[0..n) replaced by their running totals; counts[n] = the total. */
function runningTotals(counts: Int32Array, n: number): void {
  let total = 0;
  for (let h = 0; h < n; h++) counts[h] = total += counts[h]!;
  counts[n] = total;
}

/**
 * Each activity placed just before its call's end, last first; returns whether some call's list
 * may be out of start order (then `sortLaunchLists` looks at every list): each activity is
 * compared with the one placed after it, when that is its call's too.
 */
function placeByLauncher(launcher: Int32Array, startNs: Float64Array, nGpu: number, ends: Int32Array, items: Int32Array): boolean {
  let unordered = false;
  for (let g = nGpu - 1; g >= 0; g--) {
    const h = launcher[g]!;
    if (h < 0) continue;
    const k = --ends[h]!;
    items[k] = g;
    // A place not yet written holds 0: comparing with activity 0 can only raise a false alarm.
    if (k + 1 < items.length && launcher[items[k + 1]!] === h && !(startNs[items[k + 1]!]! >= startNs[g]!)) unordered = true;
  }
  return unordered;
}

/**
 * Each call's activities in start order (a graph launch's run to hundreds): sorted only where
 * they are not already (activities are listed in index order).
 */
function sortLaunchLists(startNs: Float64Array, offsets: Int32Array, items: Int32Array, n: number): void {
  for (let h = 0; h < n; h++) {
    const a = offsets[h]!;
    const b = offsets[h + 1]!;
    if (b - a > 1 && !inStartOrder(startNs, items, a, b)) sortByStart(startNs, items, a, b);
  }
}

function sortByStart(startNs: Float64Array, items: Int32Array, a: number, b: number): void {
  const seg = Array.from(items.subarray(a, b)).sort((x, y) => startNs[x]! - startNs[y]! || x - y);
  items.set(seg, a);
}

/** Whether items[a..b) (ascending indices) are already in (start, index) order: no NaN start, none earlier than the one before. */
function inStartOrder(startNs: Float64Array, items: Int32Array, a: number, b: number): boolean {
  let prev = startNs[items[a]!]!;
  if (prev !== prev) return false;
  for (let k = a + 1; k < b; k++) {
    const s = startNs[items[k]!]!;
    if (!(s >= prev)) return false;
    prev = s;
  }
  return true;
}

/** The activities host event h launched (empty when none). */
export function launchedBy(ix: LaunchIndex, h: number): Int32Array {
  return ix.items.subarray(ix.offsets[h]!, ix.offsets[h + 1]!);
}

