/**
 * The timeline view model (S15): what a trace viewer draws, as columnar slices ready to embed in
 * a page. One track per host thread — `cpu_op`, `user_annotation`, `cuda_runtime` and
 * `cuda_driver` events on rows by the model's nesting depth (torch's rule, nesting.ts) — and one
 * per GPU stream — kernels, memcpy and memset; work that starts before the previous activity on
 * its stream has ended (programmatic dependent launch, a profiler artefact) goes to a second row,
 * as Perfetto's overflow track, instead of being hidden under it.
 *
 * Level of detail, as Perfetto UI does it: when the trace holds more slices than `maxSlices`,
 * each (track, row, time bucket) keeps only its longest slice — the one a person would see at
 * that zoom. The bucket is the smallest power-of-two width in ns for which the kept slices fit
 * under the cap; powers of two nest, so a wider bucket never keeps more. Long slices always
 * survive (a slice is the longest of its own bucket unless a longer one starts in it), so the
 * structure of steps, annotations and long kernels stays exact; what is lost is short slices
 * next to longer ones, which at the bucket's width are under a pixel anyway.
 *
 * Ignores: `python_function` frames (with_stack: torch keeps them apart from the op tree too),
 * `gpu_user_annotation` spans, instants, counters, memory records, flows (the launch link is
 * carried by `source`: the model's GPU table knows each activity's launcher and owner).
 */
import type { TraceModel } from '../../model/trace-model.js';
import { orderByGroupStart } from '../helpers/enclosing.js';

/** Slice categories: Kineto's own words; the index is what `TimelineSlices.category` holds. */
export const TIMELINE_CATEGORIES = ['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver', 'kernel', 'gpu_memcpy', 'gpu_memset'] as const;
export type TimelineCategory = (typeof TIMELINE_CATEGORIES)[number];
/** First GPU category: HostKind 0–3 map to categories 0–3, GpuKind 0–2 to 4–6. */
export const GPU_CATEGORY_BASE = 4;

/** Enough for a readable timeline of a long training step; about 25 bytes each once embedded. */
export const DEFAULT_MAX_SLICES = 200_000;

export interface TimelineTrack {
  readonly kind: 'thread' | 'stream';
  /** `thread 599 (python3)`, `GPU 0 stream 7`. */
  readonly label: string;
  readonly pid: number | string;
  readonly tid: number | string;
  /** Index into `TraceModel.threads` (thread tracks). */
  readonly thread?: number;
  readonly device?: number;
  readonly stream?: number;
  /** Rows the track needs: its deepest slice's depth + 1. */
  readonly rows: number;
  /** Slices on the track before level-of-detail reduction, and after. */
  readonly events: number;
  readonly kept: number;
}

/** Kept slices, sorted by (track, depth, start); times in ns relative to the trace's time zero. */
export interface TimelineSlices {
  readonly length: number;
  readonly track: Int32Array;
  readonly depth: Int32Array;
  readonly startNs: Float64Array;
  /** ≥ 0 (a negative duration in the file is drawn as an instant). */
  readonly durNs: Float64Array;
  /** Index into `TIMELINE_CATEGORIES`. */
  readonly category: Uint8Array;
  /** Index into `Timeline.names`. */
  readonly name: Int32Array;
  /** The event's index in the model: host table for host categories, GPU table for GPU ones. */
  readonly source: Int32Array;
}

export interface TimelineStep {
  readonly name: string;
  readonly startNs: number;
  readonly endNs: number;
}

export interface Timeline {
  readonly tracks: readonly TimelineTrack[];
  readonly slices: TimelineSlices;
  /** The names the kept slices use (a string table local to the timeline). */
  readonly names: readonly string[];
  readonly steps: readonly TimelineStep[];
  /** Extent of all slices (before reduction). */
  readonly startNs: number;
  readonly endNs: number;
  /** Slices before reduction. */
  readonly events: number;
  /** Host and GPU events left off because their time could not be read (NaN). */
  readonly undrawable: number;
  readonly maxSlices: number;
  /** Whether level of detail dropped slices; `bucketNs` is the bucket width it used (0 when not reduced). */
  readonly reduced: boolean;
  readonly bucketNs: number;
}

export interface TimelineOptions {
  /** Cap on kept slices (default DEFAULT_MAX_SLICES). */
  readonly maxSlices?: number;
}

export function computeTimeline(m: TraceModel, opts: TimelineOptions = {}): Timeline {
  const maxSlices = Math.max(1, Math.floor(opts.maxSlices ?? DEFAULT_MAX_SLICES));
  const { host, gpu } = m;
  const n = host.length + gpu.length;

  // 1. Tracks: threads that hold host events, then (device, stream) pairs.
  const threadUsed = new Uint8Array(m.threads.length);
  for (let i = 0; i < host.length; i++) threadUsed[host.thread[i]!] = 1;
  const threadOrder = [...m.threads.keys()]
    .filter((t) => threadUsed[t])
    .sort((a, b) => compareThreads(m.threads[a]!, m.threads[b]!) || a - b);
  const { streams, streamOf } = gpuStreams(m);
  const trackOfThread = new Int32Array(m.threads.length).fill(-1);
  threadOrder.forEach((t, k) => (trackOfThread[t] = k));

  // 2. Every slice: track, row, times, category, name (model string id), source.
  const track = new Int32Array(n);
  const depth = new Int32Array(n);
  const startNs = new Float64Array(n);
  const durNs = new Float64Array(n);
  const category = new Uint8Array(n);
  const nameId = new Int32Array(n);
  const source = new Int32Array(n);
  for (let i = 0; i < host.length; i++) {
    track[i] = trackOfThread[host.thread[i]!]!;
    depth[i] = host.depth[i]!;
    startNs[i] = host.startNs[i]!;
    durNs[i] = Math.max(0, host.durNs[i]!);
    category[i] = host.kind[i]!;
    nameId[i] = host.name[i]!;
    source[i] = i;
  }
  const gpuLanes = assignGpuLanes(m, streamOf, streams.length);
  for (let g = 0; g < gpu.length; g++) {
    const k = host.length + g;
    track[k] = threadOrder.length + streamOf[g]!;
    depth[k] = gpuLanes[g]!;
    startNs[k] = gpu.startNs[g]!;
    durNs[k] = Math.max(0, gpu.durNs[g]!);
    category[k] = GPU_CATEGORY_BASE + gpu.kind[g]!;
    nameId[k] = gpu.name[g]!;
    source[k] = g;
  }
  // An event whose time could not be read (BAD_TIMESTAMP: NaN) has no place on a timeline.
  // Per track: drawable slices and rows (the deepest slice's depth + 1).
  const trackCount = threadOrder.length + streams.length;
  const events = new Array<number>(trackCount).fill(0);
  const rows = new Array<number>(trackCount).fill(0);
  const drawn = new Int32Array(n);
  let lo = Infinity;
  let hi = -Infinity;
  let drawable = 0;
  let depthsOk = true;
  for (let k = 0; k < n; k++) {
    if (!Number.isFinite(startNs[k]!) || !Number.isFinite(durNs[k]!)) continue;
    drawn[drawable++] = k;
    if (startNs[k]! < lo) lo = startNs[k]!;
    if (startNs[k]! + durNs[k]! > hi) hi = startNs[k]! + durNs[k]!;
    const t = track[k]!;
    events[t]!++;
    if (depth[k]! + 1 > rows[t]!) rows[t] = depth[k]! + 1;
    if (depth[k]! < 0) depthsOk = false;
  }
  if (drawable === 0) lo = hi = 0;

  // 3. Sort by (track, row, start, longest first), then reduce. A (track, row) pair is one group
  // of orderByGroupStart: the tracks' rows numbered one after another.
  const drawnRows = drawn.subarray(0, drawable);
  let order: Int32Array | null = null;
  if (depthsOk) {
    const rowBase = new Int32Array(trackCount + 1);
    for (let t = 0; t < trackCount; t++) rowBase[t + 1] = rowBase[t]! + rows[t]!;
    const group = new Int32Array(n);
    for (let j = 0; j < drawable; j++) {
      const k = drawn[j]!;
      group[k] = rowBase[track[k]!]! + depth[k]!;
    }
    order = orderByGroupStart(drawnRows, group, startNs, durNs, rowBase[trackCount]!);
  }
  order ??= drawnRows.slice().sort((a, b) => track[a]! - track[b]! || depth[a]! - depth[b]! || startNs[a]! - startNs[b]! || durNs[b]! - durNs[a]! || a - b);
  let bucketNs = 0;
  let kept: Int32Array = order;
  if (drawable > maxSlices) {
    // The smallest power of two that can fit: one row over the whole extent in maxSlices buckets.
    bucketNs = 2 ** Math.max(0, Math.floor(Math.log2(Math.max(1, (hi - lo) / maxSlices))));
    // (the count of the last width tried is the count of the width kept: no pass to count it again)
    let count = longestPerBucket(order, track, depth, startNs, durNs, bucketNs, lo, null);
    while (count > maxSlices && bucketNs < 2 ** 52) {
      bucketNs *= 2;
      count = longestPerBucket(order, track, depth, startNs, durNs, bucketNs, lo, null);
    }
    kept = new Int32Array(count);
    longestPerBucket(order, track, depth, startNs, durNs, bucketNs, lo, kept);
  }

  // 4. Columns of the kept slices, names re-interned locally; per-track counts.
  const len = kept.length;
  const out = {
    length: len,
    track: new Int32Array(len),
    depth: new Int32Array(len),
    startNs: new Float64Array(len),
    durNs: new Float64Array(len),
    category: new Uint8Array(len),
    name: new Int32Array(len),
    source: new Int32Array(len),
  };
  const names: string[] = [];
  const local = new Int32Array(m.strings.size).fill(-1);
  for (let j = 0; j < len; j++) {
    const k = kept[j]!;
    out.track[j] = track[k]!;
    out.depth[j] = depth[k]!;
    out.startNs[j] = startNs[k]!;
    out.durNs[j] = durNs[k]!;
    out.category[j] = category[k]!;
    out.source[j] = source[k]!;
    let id = local[nameId[k]!]!;
    if (id < 0) {
      id = names.length;
      names.push(m.strings.get(nameId[k]!));
      local[nameId[k]!] = id;
    }
    out.name[j] = id;
  }
  const keptPerTrack = new Array<number>(trackCount).fill(0);
  for (let j = 0; j < len; j++) keptPerTrack[out.track[j]!]!++;

  const tracks: TimelineTrack[] = [
    ...threadOrder.map((t, k): TimelineTrack => {
      const info = m.threads[t]!;
      return { kind: 'thread', label: threadLabel(info), pid: info.pid, tid: info.tid, thread: t, rows: rows[k]!, events: events[k]!, kept: keptPerTrack[k]! };
    }),
    ...streams.map((s, j): TimelineTrack => {
      const k = threadOrder.length + j;
      return { kind: 'stream', label: `GPU ${s.device} stream ${s.stream}`, pid: s.device, tid: s.stream, device: s.device, stream: s.stream, rows: rows[k]!, events: events[k]!, kept: keptPerTrack[k]! };
    }),
  ];
  return {
    tracks,
    slices: out,
    names,
    steps: m.steps.map((s) => ({ name: s.name, startNs: s.startNs, endNs: s.endNs })),
    startNs: lo,
    endNs: hi,
    events: drawable,
    undrawable: n - drawable,
    maxSlices,
    reduced: len < drawable,
    bucketNs: len < drawable ? bucketNs : 0,
  };
}

/**
 * Walks slices in (track, row, start) order and keeps the longest of each (track, row,
 * ⌊(start − origin) / bucket⌋) group (the first of equals). Returns how many are kept; fills `into` when given.
 */
function longestPerBucket(
  order: Int32Array,
  track: Int32Array,
  depth: Int32Array,
  startNs: Float64Array,
  durNs: Float64Array,
  bucketNs: number,
  originNs: number,
  into: Int32Array | null,
): number {
  let count = 0;
  let best = -1;
  let pt = -1;
  let pd = -1;
  let pb = NaN;
  for (let j = 0; j < order.length; j++) {
    const k = order[j]!;
    const b = Math.floor((startNs[k]! - originNs) / bucketNs);
    if (track[k] !== pt || depth[k] !== pd || b !== pb) {
      if (best >= 0 && into) into[count - 1] = best;
      count++;
      best = k;
      pt = track[k]!;
      pd = depth[k]!;
      pb = b;
    } else if (durNs[k]! > durNs[best]!) {
      best = k;
    }
  }
  if (best >= 0 && into) into[count - 1] = best;
  return count;
}

/**
 * The (device, stream) pairs in (device, stream) order, and each GPU activity's pair as an index
 * into that list (pairs numbered as met, a look-up only when the pair changes, then ranked).
 */
function gpuStreams(m: TraceModel): { streams: { device: number; stream: number }[]; streamOf: Int32Array } {
  const { gpu } = m;
  const met: { device: number; stream: number }[] = [];
  const pairOf = new Int32Array(gpu.length);
  const byDevice = new Map<number, Map<number, number>>();
  let device = NaN;
  let stream = NaN;
  let pair = -1;
  for (let g = 0; g < gpu.length; g++) {
    if (gpu.device[g] !== device || gpu.stream[g] !== stream) {
      device = gpu.device[g]!;
      stream = gpu.stream[g]!;
      let ofDevice = byDevice.get(device);
      if (!ofDevice) byDevice.set(device, (ofDevice = new Map()));
      const p = ofDevice.get(stream);
      if (p === undefined) ofDevice.set(stream, (pair = met.push({ device, stream }) - 1));
      else pair = p;
    }
    pairOf[g] = pair;
  }
  const ranked = met.map((_, p) => p).sort((a, b) => met[a]!.device - met[b]!.device || met[a]!.stream - met[b]!.stream);
  const rankOf = new Int32Array(met.length);
  ranked.forEach((p, k) => (rankOf[p] = k));
  for (let g = 0; g < gpu.length; g++) pairOf[g] = rankOf[pairOf[g]!]!;
  return { streams: ranked.map((p) => met[p]!), streamOf: pairOf };
}

/** Row of each GPU activity on its stream: 0, or the first row free when it starts (overlaps go below). */
function assignGpuLanes(m: TraceModel, streamOf: Int32Array, streamCount: number): Int32Array {
  const { gpu } = m;
  const lanes = new Int32Array(gpu.length);
  const all = new Int32Array(gpu.length);
  for (let g = 0; g < gpu.length; g++) all[g] = g;
  // (streamOf ranks the pairs as (device, stream) compare)
  const order =
    orderByGroupStart(all, streamOf, gpu.startNs, null, streamCount) ??
    Array.from({ length: gpu.length }, (_, g) => g).sort(
      (a, b) => gpu.device[a]! - gpu.device[b]! || gpu.stream[a]! - gpu.stream[b]! || gpu.startNs[a]! - gpu.startNs[b]! || a - b,
    );
  const ends: number[] = [];
  for (let k = 0; k < order.length; k++) {
    const g = order[k]!;
    if (k === 0 || streamOf[order[k - 1]!] !== streamOf[g]) ends.length = 0;
    const s = gpu.startNs[g]!;
    let lane = 0;
    while (lane < ends.length && !(ends[lane]! <= s)) lane++;
    ends[lane] = s + Math.max(0, gpu.durNs[g]!);
    lanes[g] = lane;
  }
  return lanes;
}

function compareThreads(a: TraceModel['threads'][number], b: TraceModel['threads'][number]): number {
  const sa = a.sortIndex ?? Infinity;
  const sb = b.sortIndex ?? Infinity;
  if (sa !== sb) return sa < sb ? -1 : 1;
  return String(a.pid).localeCompare(String(b.pid), 'en', { numeric: true }) || String(a.tid).localeCompare(String(b.tid), 'en', { numeric: true });
}

function threadLabel(t: TraceModel['threads'][number]): string {
  const name = t.name?.trim();
  return name ? name : `thread ${t.tid} (pid ${t.pid})`;
}

/** Whether a category index is a GPU one (its `source` indexes the model's GPU table). */
export function isGpuCategory(category: number): boolean {
  return category >= GPU_CATEGORY_BASE;
}
