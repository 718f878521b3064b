/**
 * Kineto widens each `gpu_user_annotation` on purpose so that it encloses its first and last
 * kernel on screen: `ts −= 1 ns, dur += 2 ns` since kineto 95e06b89 (2024-06); `−1000/+1500 ns`
 * for six weeks before that; `−1 µs/+1 µs` in era A (docs/kineto-format.md §1.4). torch's own table
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
  if (!streams) {
    const listOf = listsBySorting(gpu);
    return annotations.map((a) => unwidenByScan(a, gpu, listOf(a.device, a.stream)));
  }
  const streamOf = streamLists(streams, gpu);
  return annotations.map((a) => unwiden(a, gpu, streamOf(a.device, a.stream)));
}

/**
 * The span narrowed to its activities when it is widened by one of WIDENINGS around them: `first`,
 * the earliest start of an activity inside the span (start and end within it), and `last`, the
 * latest end of one. The activities are in start order, so the first one inside is found from the
 * span's start on, and the latest end from the span's end back, until no earlier activity ends
 * later (`maxEnd`): a span over a whole step costs a few activities, not all of them.
 */
function unwiden(a: GpuAnnotation, gpu: Activities, stream: Stream | undefined): GpuAnnotation {
  if (!stream) return a;
  const { list } = stream;
  const startNs = gpu.startNs;
  const durNs = gpu.durNs;
  const end = a.startNs + a.durNs;
  const lo = firstStartingAfter(list, startNs, a.startNs, false);
  const hi = firstStartingAfter(list, startNs, end, true);
  let first = Infinity;
  for (let k = lo; k < hi; k++) {
    const g = list[k]!;
    if (startNs[g]! + durNs[g]! <= end) {
      first = startNs[g]!;
      break;
    }
  }
  if (!Number.isFinite(first)) return a;
  const maxEnd = stream.maxEnd();
  let last = -Infinity;
  for (let k = hi - 1; k >= lo && maxEnd[k]! > last; k--) {
    const g = list[k]!;
    const e = startNs[g]! + durNs[g]!;
    if (e <= end && e > last) last = e;
  }
  return narrowed(a, first, last, end);
}

/** The first position in `list` whose start is at or after `t` (`after`: strictly after). */
function firstStartingAfter(list: Int32Array, startNs: Float64Array, t: number, after: boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const s = startNs[list[mid]!]!;
    if (s < t || (after && s === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function narrowed(a: GpuAnnotation, first: number, last: number, end: number): GpuAnnotation {
  for (const [before, after] of WIDENINGS) {
    if (first - a.startNs === before && end - last === after) return { ...a, startNs: first, durNs: last - first };
  }
  return a;
}

/** A stream's activities in start order, and by position the latest end up to there (made when first asked). */
interface Stream {
  readonly list: Int32Array;
  maxEnd(): Float64Array;
}

/** Each stream's activities in start order: runs of the stream order. */
function streamLists(o: StreamOrder, gpu: Activities): (device: number, stream: number) => Stream | undefined {
  const byDevice = new Map<number, Map<number, Stream>>();
  o.streams.forEach(([d, s], k) => {
    let m = byDevice.get(d);
    if (!m) byDevice.set(d, (m = new Map()));
    const list = o.order.subarray(o.groupStart[k]!, o.groupStart[k + 1]!);
    let maxEnd: Float64Array | undefined;
    m.set(s, {
      list,
      maxEnd: () => {
        if (maxEnd === undefined) {
          maxEnd = new Float64Array(list.length);
          let m = -Infinity;
          for (let k = 0; k < list.length; k++) {
            const e = gpu.startNs[list[k]!]! + gpu.durNs[list[k]!]!;
            if (e > m) m = e;
            maxEnd[k] = m;
          }
        }
        return maxEnd;
      },
    });
  });
  return (d, s) => byDevice.get(d)?.get(s);
}

/** As unwiden, every activity from the span's start to its end looked at (a start is NaN: the sort's order). */
function unwidenByScan(a: GpuAnnotation, gpu: Activities, list: Int32Array | undefined): GpuAnnotation {
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
  return narrowed(a, first, last, end);
}

/** The same by a comparator sort per stream (a start is NaN: its place is the sort's). */
function listsBySorting(gpu: Activities): (device: number, stream: number) => Int32Array | undefined {
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
