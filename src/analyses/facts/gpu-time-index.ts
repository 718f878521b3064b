/**
 * The GPU time index: every GPU activity (kernel, copy, memset) in start order, with the
 * longest duration, so "what ran during [lo, hi)" is a binary search and a short walk rather
 * than a scan of the GPU table. Built once per model; the step breakdown, the fusion chains and
 * the launches' synchronizations read it. Also here: what the GPU was busy with during host calls
 * (the union of all activities, clipped to each call).
 */
import type { TraceModel } from '../../model/trace-model.js';
import { lowerBound, mergeUnion, unionLengthInNs, type MergedIntervals } from '../helpers/intervals.js';
import { orderByStart, sortByKeyRuns } from '../helpers/natural-merge-sort.js';
import { perModel } from '../helpers/per-model.js';

/** GPU activities sorted by start, for window queries without scanning the whole table. */
export interface GpuTimeIndex {
  /** GPU table indices sorted by start time. */
  readonly order: Int32Array;
  readonly sortedStartNs: Float64Array;
  /** The longest duration, so a window query knows how far back to look. */
  readonly maxDurNs: number;
  /** Every start readable (not NaN): then `sortedStartNs` is in order. */
  readonly startsReadable: boolean;
}

export function createGpuTimeIndex(m: TraceModel): GpuTimeIndex {
  const { startNs, durNs, length: n } = m.gpu;
  // One loop for the starts, their runs and the longest duration, then the runs merged
  // (the table is written a run per stream): the order `orderByStart` gives.
  // (Indices as doubles while sorting: sortByKeyRuns sees one kind of array.)
  const order = new Float64Array(n);
  const sortedStartNs = new Float64Array(n);
  let runs = 1;
  let maxDurNs = 0;
  for (let g = 0; g < n; g++) {
    const s = startNs[g]!;
    if (s !== s) return gpuTimeIndexWithUnreadable(m);
    order[g] = g;
    sortedStartNs[g] = s;
    if (g > 0 && s < sortedStartNs[g - 1]!) runs++;
    if (durNs[g]! > maxDurNs) maxDurNs = durNs[g]!;
  }
  if (runs > 1) sortByKeyRuns(sortedStartNs, order, runs);
  return { order: new Int32Array(order), sortedStartNs, maxDurNs, startsReadable: true };
}

/** createGpuTimeIndex, made once per model (per-model.ts): the step breakdown and the launches' GPU busy union both read it. Shared, so read-only. */
export const gpuTimeIndexOf = perModel(createGpuTimeIndex);

/** createGpuTimeIndex when some start is unreadable (NaN): orderByStart's comparator order. */
function gpuTimeIndexWithUnreadable(m: TraceModel): GpuTimeIndex {
  const { gpu } = m;
  const all = new Int32Array(gpu.length);
  for (let g = 0; g < gpu.length; g++) all[g] = g;
  const order = orderByStart(all, gpu.startNs);
  const sortedStartNs = new Float64Array(order.length);
  let maxDurNs = 0;
  for (let k = 0; k < order.length; k++) {
    const g = order[k]!;
    sortedStartNs[k] = gpu.startNs[g]!;
    if (gpu.durNs[g]! > maxDurNs) maxDurNs = gpu.durNs[g]!;
  }
  return { order, sortedStartNs, maxDurNs, startsReadable: false };
}

/** GPU activities (any kind) whose interval overlaps [lo, hi), in start order. */
export function gpuInWindow(m: TraceModel, ix: GpuTimeIndex, lo: number, hi: number): number[] {
  const out: number[] = [];
  const from = lowerBound(ix.sortedStartNs, lo - ix.maxDurNs);
  const to = lowerBound(ix.sortedStartNs, hi);
  for (let k = from; k < to; k++) {
    const g = ix.order[k]!;
    const s = m.gpu.startNs[g]!;
    const e = s + m.gpu.durNs[g]!;
    // A zero-length activity at the window's start still belongs to it.
    if (e > lo || (e === s && s >= lo)) out.push(g);
  }
  return out;
}

/**
 * The union of every GPU activity, for "was the GPU busy then" queries. Listed in start order
 * (the per-model time index the step breakdown reads too): the union is then one sweep, with no
 * sort of its own.
 */
export function gpuBusyUnion(m: TraceModel): MergedIntervals {
  const { order, sortedStartNs } = gpuTimeIndexOf(m);
  const { startNs, durNs } = m.gpu;
  // mergeUnion overwrites its arrays: the shared index's starts are copied.
  const starts = sortedStartNs.slice();
  const ends = new Float64Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const g = order[k]!;
    ends[k] = startNs[g]! + durNs[g]!;
  }
  return mergeUnion(starts, ends);
}
/** gpuBusyUnion, made once per model: the graph breaks and the syncs' GPU idle both read it. Shared, so read-only. */
export const gpuBusyUnionOf = perModel(gpuBusyUnion);

/**
 * Per host call, the part of it during which some GPU activity ran: `unionLengthInNs(
 * gpuBusyUnion(m), start, end)`, without the union. The activities that can overlap a call start
 * at most the longest activity before it (the time index's bound): each call merges those, clipped
 * to itself, in start order. The same length (model times are integer ns: every sum is exact).
 * The union is built instead when the calls' windows would read more activities than the trace
 * has (very long activities, many calls) or when some start is unreadable.
 */
export function gpuBusyDuring(m: TraceModel, calls: readonly number[]): Float64Array {
  const ix = gpuTimeIndexOf(m);
  const { startNs, durNs } = m.host;
  const out = new Float64Array(calls.length);
  const from = new Int32Array(calls.length);
  const to = new Int32Array(calls.length);
  let reads = 0;
  let readable = true;
  for (let k = 0; k < calls.length; k++) {
    const lo = startNs[calls[k]!]!;
    const hi = lo + durNs[calls[k]!]!;
    if (!(hi > lo)) continue; // empty or unreadable: overlaps nothing
    from[k] = lowerBound(ix.sortedStartNs, lo - ix.maxDurNs);
    to[k] = lowerBound(ix.sortedStartNs, hi);
    reads += to[k]! - from[k]!;
  }
  for (let k = 1; k < ix.sortedStartNs.length && readable; k++) readable = ix.sortedStartNs[k]! >= ix.sortedStartNs[k - 1]!;
  if (!readable || ix.maxDurNs !== ix.maxDurNs || reads > m.gpu.length) {
    const busy = gpuBusyUnion(m);
    for (let k = 0; k < calls.length; k++) out[k] = unionLengthInNs(busy, startNs[calls[k]!]!, startNs[calls[k]!]! + durNs[calls[k]!]!);
    return out;
  }
  for (let k = 0; k < calls.length; k++) {
    const lo = startNs[calls[k]!]!;
    if (to[k]! > from[k]!) out[k] = gpuBusyWithin(m, ix.order, from[k]!, to[k]!, lo, lo + durNs[calls[k]!]!);
  }
  return out;
}

/**
 * The length of the union of GPU activities order[from..to) (listed in start order) clipped to
 * [lo, hi) (by default not clipped): an end before its start taken as the start, unreadable ones
 * left out. One sweep, no arrays built: for many small sets (a host call's window here, a
 * subtree's GPU work in torch's table).
 */
export function gpuBusyWithin(m: TraceModel, order: Int32Array, from: number, to: number, lo = -Infinity, hi = Infinity): number {
  const { startNs, durNs } = m.gpu;
  let total = 0;
  let cs = NaN;
  let ce = NaN;
  for (let k = from; k < to; k++) {
    const g = order[k]!;
    const s = startNs[g]!;
    let e = s + durNs[g]!;
    if (e !== e) continue;
    if (e < s) e = s;
    const a = s > lo ? s : lo;
    const b = e < hi ? e : hi;
    if (!(b > a)) continue;
    if (a <= ce) {
      if (b > ce) ce = b;
    } else {
      if (ce === ce) total += ce - cs;
      cs = a;
      ce = b;
    }
  }
  if (ce === ce) total += ce - cs;
  return total;
}
