/**
 * Each stream's GPU activities (kernels, copies, memsets) in start order: the order chains are
 * read in (chain-links.ts).
 */
import type { TraceModel } from '../../model/trace-model.js';
import { orderByStart } from '../helpers/natural-merge-sort.js';
import { gpuTimeIndexOf } from '../facts/gpu-time-index.js';

/**
 * GPU activities per (device, stream), in (start, index) order: copies and memsets sit in the
 * stream too (a chain looks through those that do not touch its tensor). Lists in order of each stream's first activity. Each list is the
 * model's GPU time order (shared, per model: the step breakdown has made it already) restricted to
 * the stream, so nothing is sorted here; the streams are found by (device, stream) numbers only
 * where the table's stream changes (it is written a run per stream).
 */
export function activitiesByStream(m: TraceModel): Int32Array[] {
  const { gpu } = m;
  const { device, stream, startNs } = gpu;
  // One stream, every start readable (the common case): the time order itself (shared: read
  // only), found by a pass that stops at the first activity that says otherwise.
  if (oneReadableStream(gpu)) return [gpuTimeIndexOf(m).order];
  const slotOf = new Int32Array(gpu.length);
  const counts: number[] = [];
  const byDevice = new Map<number, Map<number, number>>();
  let slot = -1;
  let lastDevice = NaN;
  let lastStream = NaN;
  let readable = true;
  for (let g = 0; g < gpu.length; g++) {
    const d = device[g]!;
    const s = stream[g]!;
    if (d !== lastDevice || s !== lastStream) {
      let byStream = byDevice.get(d);
      if (!byStream) byDevice.set(d, (byStream = new Map()));
      let found = byStream.get(s);
      if (found === undefined) {
        byStream.set(s, (found = counts.length));
        counts.push(0);
      }
      slot = found;
      lastDevice = d;
      lastStream = s;
    }
    slotOf[g] = slot;
    counts[slot]++;
    if (startNs[g]! !== startNs[g]!) readable = false;
  }
  const lists = counts.map((n) => new Int32Array(n));
  const filled = new Int32Array(counts.length);
  if (!readable) {
    // An unreadable (NaN) start: no time order to restrict; each stream sorted alone, as orderByStart decides.
    for (let g = 0; g < gpu.length; g++) lists[slotOf[g]!]![filled[slotOf[g]!]!++] = g;
    return lists.map((l) => orderByStart(l, startNs));
  }
  const { order } = gpuTimeIndexOf(m);
  for (let k = 0; k < order.length; k++) {
    const g = order[k]!;
    const s = slotOf[g]!;
    lists[s]![filled[s]!++] = g;
  }
  return lists;
}

/** Whether all GPU activities share one device and stream, with no NaN start (none: false). */
function oneReadableStream(gpu: TraceModel['gpu']): boolean {
  const { device, stream, startNs, length } = gpu;
  if (length === 0) return false;
  const d = device[0]!;
  const s = stream[0]!;
  for (let g = 0; g < length; g++) if (device[g] !== d || stream[g] !== s || startNs[g] !== startNs[g]) return false;
  return true;
}

