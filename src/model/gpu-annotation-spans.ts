/**
 * Kineto widens each `gpu_user_annotation` on purpose so that it encloses its first and last
 * kernel on screen: `ts −= 1 ns, dur += 2 ns` since kineto 95e06b89 (2024-06); `−1000/+1500 ns`
 * for six weeks before that; `−1 µs/+1 µs` in era A (kineto-format.md §1.4). torch's own table
 * uses the unwidened span. Where the widening is recognisable — the span starts exactly that
 * much before the first activity it covers on its stream and ends that much after the last —
 * the span is narrowed back to the activities; otherwise it is kept as written.
 */
import type { StreamOrder } from './time-order.js';
import type { GpuAnnotation } from './trace-model.js';

interface Activities {
  readonly length: number;
  readonly device: Int32Array;
  readonly stream: Int32Array;
  readonly startNs: Float64Array;
  readonly durNs: Float64Array;
}

const WIDENINGS: readonly (readonly [before: number, after: number])[] = [
  [1, 1],
  [1000, 500],
  [1000, 0],
];

/** `streams`: the activities in stream order (time-order.ts), when every start is finite. */
export function unwidenGpuAnnotations(annotations: readonly GpuAnnotation[], gpu: Activities, streams?: StreamOrder): GpuAnnotation[] {
  if (annotations.length === 0) return [];
  const listOf = streams ? streamLists(streams) : listsBySorting(gpu);
  return annotations.map((a) => {
    const list = listOf(a.device, a.stream);
    if (!list) return a;
    const end = a.startNs + a.durNs;
    let first = Infinity;
    let last = -Infinity;
    // Binary search for the first activity starting at or after the span's start.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (gpu.startNs[list[mid]!]! < a.startNs) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < list.length && gpu.startNs[list[k]!]! <= end; k++) {
      const g = list[k]!;
      const e = gpu.startNs[g]! + gpu.durNs[g]!;
      if (e > end) continue;
      if (gpu.startNs[g]! < first) first = gpu.startNs[g]!;
      if (e > last) last = e;
    }
    if (!Number.isFinite(first)) return a;
    for (const [before, after] of WIDENINGS) {
      if (first - a.startNs === before && end - last === after) return { ...a, startNs: first, durNs: last - first };
    }
    return a;
  });
}

type Lists = (device: number, stream: number) => Int32Array | undefined;

/** Each stream's activities in start order: runs of the stream order. */
function streamLists(o: StreamOrder): Lists {
  const byDevice = new Map<number, Map<number, Int32Array>>();
  o.streams.forEach(([d, s], k) => {
    let m = byDevice.get(d);
    if (!m) byDevice.set(d, (m = new Map()));
    m.set(s, o.order.subarray(o.groupStart[k]!, o.groupStart[k + 1]!));
  });
  return (d, s) => byDevice.get(d)?.get(s);
}

/** The same by a comparator sort per stream (a start is NaN: its place is the sort's). */
function listsBySorting(gpu: Activities): Lists {
  const byStream = new Map<string, number[]>();
  for (let g = 0; g < gpu.length; g++) {
    const key = `${gpu.device[g]}:${gpu.stream[g]}`;
    let list = byStream.get(key);
    if (!list) byStream.set(key, (list = []));
    list.push(g);
  }
  const lists = new Map<string, Int32Array>();
  for (const [k, list] of byStream) lists.set(k, Int32Array.from(list.sort((a, b) => gpu.startNs[a]! - gpu.startNs[b]!)));
  return (d, s) => lists.get(`${d}:${s}`);
}
