/**
 * The timeline view model (docs/readings.md S15): what a trace viewer draws, as columnar slices
 * ready to embed in a page. One track per host thread — `cpu_op`, `user_annotation`, `cuda_runtime`
 * and `cuda_driver` events on rows by the model's nesting depth (torch's rule, nesting.ts) — and
 * one per GPU stream — kernels, memcpy and memset; work that starts before the previous activity on
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
 * Python frames (`python_function`, recorded by with_stack) get a track of their own under their
 * thread's, a row per depth of the call stack: torch keeps them apart from the op tree, and so
 * does the timeline (nested among themselves only). They are slices like the others: the same
 * level of detail reduces them.
 *
 * Ignores: `gpu_user_annotation` spans, instants, counters, memory records, flows (the launch
 * link is carried by `source`: the model's GPU table knows each activity's launcher and owner).
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { identity, nestedOrder, orderByGroupStart, sortByGroupStart } from '../helpers/enclosing.js';

/** Slice categories: Kineto's own words; the index is what `TimelineSlices.category` holds. */
export const TIMELINE_CATEGORIES = ['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver', 'python_function', 'kernel', 'gpu_memcpy', 'gpu_memset'] as const;
export type TimelineCategory = (typeof TIMELINE_CATEGORIES)[number];
/** HostKind 0–3 map to categories 0–3; a python frame is category 4. */
export const PYTHON_CATEGORY = 4;
/** First GPU category: GpuKind 0–2 map to 5–7. */
export const GPU_CATEGORY_BASE = 5;

/** Enough for a readable timeline of a long training step; about 25 bytes each once embedded. */
export const DEFAULT_MAX_SLICES = 200_000;

export interface TimelineTrack {
  /** A thread's host events, its python frames (with_stack), or a GPU stream's work. */
  readonly kind: 'thread' | 'python' | 'stream';
  /** `thread 599 (python3)`, `thread 599 (python3) · python`, `GPU 0 stream 7`. */
  readonly label: string;
  readonly pid: number | string;
  readonly tid: number | string;
  /** Index into `TraceModel.threads` (thread and python tracks). */
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
  /** The event's index in the model: host table for host categories, python table for python frames, GPU table for GPU ones. */
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
  const { host, gpu, python } = m;
  const n = host.length + python.length + gpu.length;
  // Slices are numbered host events first, then python frames, then GPU activities.
  const gpuBase = host.length + python.length;

  // 1. Tracks: per thread (in the threads' order) its host events, then its python frames; then
  // (device, stream) pairs. (Each pass over the events is a function of its own: V8 compiles a
  // function while its first hot loop runs and throws that code away at a later loop that has
  // not run yet.)
  const threadUsed = threadsUsed(m);
  const threadOrder = [...m.threads.keys()]
    .filter((t) => threadUsed[t])
    .sort((a, b) => compareThreads(m.threads[a]!, m.threads[b]!) || a - b);
  const { streams, streamOf } = gpuStreams(m);
  const trackOfThread = new Int32Array(m.threads.length).fill(-1);
  const pythonTrackOfThread = new Int32Array(m.threads.length).fill(-1);
  const threadTracks: { kind: 'thread' | 'python'; thread: number }[] = [];
  for (const t of threadOrder) {
    if (threadUsed[t]! & HOST_USED) trackOfThread[t] = threadTracks.push({ kind: 'thread', thread: t }) - 1;
    if (threadUsed[t]! & PYTHON_USED) pythonTrackOfThread[t] = threadTracks.push({ kind: 'python', thread: t }) - 1;
  }

  // 2. Every slice: track, row, times, category, name (model string id), source. (Columns the
  // model has as they are copied whole.)
  const track = new Int32Array(n);
  const depth = new Int32Array(n);
  const startNs = new Float64Array(n);
  const durNs = new Float64Array(n);
  const category = new Uint8Array(n);
  const nameId = new Int32Array(n);
  const source = new Int32Array(n);
  depth.set(host.depth);
  startNs.set(host.startNs);
  category.set(host.kind);
  nameId.set(host.name);
  hostSlices(m, trackOfThread, track, durNs, source);
  if (python.length) {
    depth.set(pythonDepths(m), host.length);
    startNs.set(python.startNs, host.length);
    nameId.set(python.name, host.length);
    pythonSlices(m, pythonTrackOfThread, track, durNs, category, source);
  }
  const gpuLanes = assignGpuLanes(m, streamOf, streams.length);
  depth.set(gpuLanes, gpuBase);
  startNs.set(gpu.startNs, gpuBase);
  nameId.set(gpu.name, gpuBase);
  gpuSlices(m, threadTracks.length, streamOf, track, durNs, category, source);
  // An event whose time could not be read (BAD_TIMESTAMP: NaN) has no place on a timeline.
  // Per track: drawable slices and rows (the deepest slice's depth + 1).
  const trackCount = threadTracks.length + streams.length;
  const events = new Array<number>(trackCount).fill(0);
  const rows = new Array<number>(trackCount).fill(0);
  const drawn = new Int32Array(n);
  const drawnInfo = drawableSlices(track, depth, startNs, durNs, drawn, events, rows);
  const { drawable, depthsOk } = drawnInfo;
  const lo = drawable === 0 ? 0 : drawnInfo.lo;
  const hi = drawable === 0 ? 0 : drawnInfo.hi;

  // 3. Sort by (track, row, start, longest first), then reduce.
  const drawnRows = drawn.subarray(0, drawable);
  const sorted = (depthsOk ? sortTracks(drawnRows, track, depth, startNs, durNs, rows) : null) ?? sortByComparator(drawnRows, track, depth, startNs, durNs);
  const { segAt } = sorted;
  const ss = sorted.startNs;
  const sd = sorted.durNs;
  let bucketNs = 0;
  // The positions in the order kept; null: all of them.
  let kept: Int32Array | null = null;
  if (drawable > maxSlices) {
    // The smallest power of two that can fit: one row over the whole extent in maxSlices buckets.
    bucketNs = 2 ** Math.max(0, Math.floor(Math.log2(Math.max(1, (hi - lo) / maxSlices))));
    // (the count of the last width tried is the count of the width kept: no pass to count it again)
    let count = longestPerBucket(ss, sd, segAt, bucketNs, lo, null);
    while (count > maxSlices && bucketNs < 2 ** 52) {
      bucketNs *= 2;
      count = longestPerBucket(ss, sd, segAt, bucketNs, lo, null);
    }
    kept = new Int32Array(count);
    longestPerBucket(ss, sd, segAt, bucketNs, lo, kept);
  }

  // 4. Columns of the kept slices, names re-interned locally; per-track counts.
  const len = kept ? kept.length : drawable;
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
  const keptPerTrack = new Array<number>(trackCount).fill(0);
  keptColumns(m, sorted, kept, category, nameId, source, out, names, keptPerTrack);

  const tracks: TimelineTrack[] = [
    ...threadTracks.map(({ kind, thread: t }, k): TimelineTrack => {
      const info = m.threads[t]!;
      const label = kind === 'python' ? `${threadLabel(info)} · python` : threadLabel(info);
      return { kind, label, pid: info.pid, tid: info.tid, thread: t, rows: rows[k]!, events: events[k]!, kept: keptPerTrack[k]! };
    }),
    ...streams.map((s, j): TimelineTrack => {
      const k = threadTracks.length + j;
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

const HOST_USED = 1;
const PYTHON_USED = 2;

/** Per thread, whether it holds host events (HOST_USED) and python frames (PYTHON_USED). */
function threadsUsed(m: TraceModel): Uint8Array {
  const used = new Uint8Array(m.threads.length);
  const { thread, kind } = m.host;
  for (let i = 0; i < thread.length; i++) if (kind[i] !== HostKind.Overhead) used[thread[i]!] |= HOST_USED;
  const pt = m.python.thread;
  for (let f = 0; f < pt.length; f++) used[pt[f]!] |= PYTHON_USED;
  return used;
}

/**
 * Each python frame's depth on its thread's call stack: frames in (thread, start, longest first)
 * order, a frame's parent the innermost earlier one that holds it (a call returns before its
 * caller).
 */
function pythonDepths(m: TraceModel): Int32Array {
  const { python } = m;
  const depth = new Int32Array(python.length);
  const order = nestedOrder(python, identity(python.length));
  const ends: number[] = [];
  let thread = -1;
  for (let j = 0; j < order.length; j++) {
    const f = order[j]!;
    const s = python.startNs[f]!;
    if (python.thread[f] !== thread) {
      thread = python.thread[f]!;
      ends.length = 0;
    }
    const e = s + python.durNs[f]!;
    // (torch's rule for ops, nesting.ts: pop while the top has ended or the frame outlasts it)
    while (ends.length > 0 && (ends[ends.length - 1]! <= s || e > ends[ends.length - 1]!)) ends.length--;
    depth[f] = ends.length;
    ends.push(e);
  }
  return depth;
}

/** The python frames' tracks, durations, category and sources (after the host events). */
function pythonSlices(m: TraceModel, pythonTrackOfThread: Int32Array, track: Int32Array, durNs: Float64Array, category: Uint8Array, source: Int32Array): void {
  const { python } = m;
  const base = m.host.length;
  for (let f = 0; f < python.length; f++) {
    const k = base + f;
    track[k] = pythonTrackOfThread[python.thread[f]!]!;
    durNs[k] = python.durNs[f]!;
    category[k] = PYTHON_CATEGORY;
    source[k] = f;
  }
}

/** The host slices' tracks, durations (negative: an instant) and sources; the other columns are copies. */
function hostSlices(m: TraceModel, trackOfThread: Int32Array, track: Int32Array, durNs: Float64Array, source: Int32Array): void {
  const { host } = m;
  for (let i = 0; i < host.length; i++) {
    track[i] = trackOfThread[host.thread[i]!]!;
    // Math.max(0, d) written out (a negative duration drawn as an instant, NaN kept); CUPTI's
    // overhead is not drawn (NaN): the profiler's work, on no thread of the program.
    const d = host.kind[i] === HostKind.Overhead ? NaN : host.durNs[i]!;
    durNs[i] = d <= 0 ? 0 : d;
    source[i] = i;
  }
}

/** The GPU slices' tracks (after the `threads` thread tracks), durations, categories and sources. */
function gpuSlices(m: TraceModel, threads: number, streamOf: Int32Array, track: Int32Array, durNs: Float64Array, category: Uint8Array, source: Int32Array): void {
  const { gpu } = m;
  const base = m.host.length + m.python.length;
  for (let g = 0; g < gpu.length; g++) {
    const k = base + g;
    track[k] = threads + streamOf[g]!;
    const d = gpu.durNs[g]!;
    durNs[k] = d <= 0 ? 0 : d;
    category[k] = GPU_CATEGORY_BASE + gpu.kind[g]!;
    source[k] = g;
  }
}

/**
 * Into `drawn` the slices with a finite start and duration, and per track their count and rows
 * (the deepest one's depth + 1); their extent, and whether every depth is ≥ 0.
 */
function drawableSlices(
  track: Int32Array,
  depth: Int32Array,
  startNs: Float64Array,
  durNs: Float64Array,
  drawn: Int32Array,
  events: number[],
  rows: number[],
): { drawable: number; lo: number; hi: number; depthsOk: boolean } {
  let lo = Infinity;
  let hi = -Infinity;
  let drawable = 0;
  let depthsOk = true;
  for (let k = 0; k < track.length; k++) {
    const s = startNs[k]!;
    // (finite start and duration by comparisons, not Number.isFinite: a call per slice while unoptimised)
    if (!(s > -Infinity && s < Infinity && durNs[k]! < Infinity)) continue;
    drawn[drawable++] = k;
    if (s < lo) lo = s;
    if (s + durNs[k]! > hi) hi = s + durNs[k]!;
    const t = track[k]!;
    events[t]!++;
    if (depth[k]! + 1 > rows[t]!) rows[t] = depth[k]! + 1;
    if (depth[k]! < 0) depthsOk = false;
  }
  return { drawable, lo, hi, depthsOk };
}

/**
 * The kept slices' columns (positions `kept` of the order, null: all), names re-interned in
 * `names`; per track the count kept. The kept positions ascend: the segments are walked beside
 * them, each one's track and row filled whole.
 */
function keptColumns(
  m: TraceModel,
  sorted: SortedSlices,
  kept: Int32Array | null,
  category: Uint8Array,
  nameId: Int32Array,
  source: Int32Array,
  out: { track: Int32Array; depth: Int32Array; startNs: Float64Array; durNs: Float64Array; category: Uint8Array; name: Int32Array; source: Int32Array; length: number },
  names: string[],
  keptPerTrack: number[],
): void {
  const { order, segAt, segTrack, segDepth } = sorted;
  const ss = sorted.startNs;
  const sd = sorted.durNs;
  const len = out.length;
  const local = new Int32Array(m.strings.size).fill(-1);
  for (let seg = 0, j = 0; seg < segTrack.length; seg++) {
    const from = j;
    const end = segAt[seg + 1]!;
    for (; j < len; j++) {
      const p = kept ? kept[j]! : j;
      if (p >= end) break;
      const k = order[p]!;
      out.startNs[j] = ss[p]!;
      out.durNs[j] = sd[p]!;
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
    if (j > from) {
      out.track.fill(segTrack[seg]!, from, j);
      out.depth.fill(segDepth[seg]!, from, j);
      keptPerTrack[segTrack[seg]!]! += j - from;
    }
  }
}

/**
 * The drawable slices in (track, row, start, longest first, index) order, with each position's
 * start and duration, cut into segments of one (track, row) each: segment s begins at `segAt[s]`
 * (`segAt[segments]` = the count) and holds track `segTrack[s]`, row `segDepth[s]`.
 */
interface SortedSlices {
  readonly order: Int32Array;
  readonly startNs: Float64Array;
  readonly durNs: Float64Array;
  readonly segAt: Int32Array;
  readonly segTrack: Int32Array;
  readonly segDepth: Int32Array;
}

/** The sort as sortByGroupStart does it, a group per (track, row); null where it cannot (see there). */
function sortTracks(drawn: Int32Array, track: Int32Array, depth: Int32Array, startNs: Float64Array, durNs: Float64Array, rows: readonly number[]): SortedSlices | null {
  const trackCount = rows.length;
  const rowBase = new Int32Array(trackCount + 1);
  for (let t = 0; t < trackCount; t++) rowBase[t + 1] = rowBase[t]! + rows[t]!;
  const groups = rowBase[trackCount]!;
  const sorted = sortByGroupStart(drawn, rowGroups(drawn, track, depth, rowBase), startNs, durNs, groups);
  if (!sorted) return null;
  const segTrack = new Int32Array(groups);
  const segDepth = new Int32Array(groups);
  for (let t = 0; t < trackCount; t++) {
    for (let d = 0; d < rows[t]!; d++) {
      segTrack[rowBase[t]! + d] = t;
      segDepth[rowBase[t]! + d] = d;
    }
  }
  return { order: sorted.rows, startNs: sorted.startNs, durNs: sorted.durNs, segAt: sorted.at, segTrack, segDepth };
}

/** Per drawn slice: its (track, row) group, the tracks' rows numbered one after another from `rowBase[track]`. */
function rowGroups(drawn: Int32Array, track: Int32Array, depth: Int32Array, rowBase: Int32Array): Int32Array {
  const group = new Int32Array(track.length);
  for (let j = 0; j < drawn.length; j++) {
    const k = drawn[j]!;
    group[k] = rowBase[track[k]!]! + depth[k]!;
  }
  return group;
}

/** The same order by a comparator sort (where some row is negative), the segments found where (track, row) changes. */
function sortByComparator(drawn: Int32Array, track: Int32Array, depth: Int32Array, startNs: Float64Array, durNs: Float64Array): SortedSlices {
  const order = drawn.slice().sort((a, b) => track[a]! - track[b]! || depth[a]! - depth[b]! || startNs[a]! - startNs[b]! || durNs[b]! - durNs[a]! || a - b);
  const at: number[] = [];
  const segTrack: number[] = [];
  const segDepth: number[] = [];
  for (let j = 0; j < order.length; j++) {
    const k = order[j]!;
    if (j === 0 || track[k] !== segTrack[segTrack.length - 1] || depth[k] !== segDepth[segDepth.length - 1]) {
      at.push(j);
      segTrack.push(track[k]!);
      segDepth.push(depth[k]!);
    }
  }
  at.push(order.length);
  return {
    order,
    startNs: Float64Array.from(order, (k) => startNs[k]!),
    durNs: Float64Array.from(order, (k) => durNs[k]!),
    segAt: Int32Array.from(at),
    segTrack: Int32Array.from(segTrack),
    segDepth: Int32Array.from(segDepth),
  };
}

/**
 * Walks the sorted slices segment by segment (one track and row each) and keeps the longest of
 * each ⌊(start − origin) / bucket⌋ group of a segment (the first of equals). Returns how many are
 * kept; fills `into` with their positions when given.
 */
function longestPerBucket(ss: Float64Array, sd: Float64Array, segAt: Int32Array, bucketNs: number, originNs: number, into: Int32Array | null): number {
  let count = 0;
  for (let seg = 0; seg + 1 < segAt.length; seg++) {
    const end = segAt[seg + 1]!;
    let best = -1;
    let pb = NaN;
    for (let j = segAt[seg]!; j < end; j++) {
      const b = Math.floor((ss[j]! - originNs) / bucketNs);
      if (b !== pb) {
        if (best >= 0 && into) into[count - 1] = best;
        count++;
        best = j;
        pb = b;
      } else if (sd[j]! > sd[best]!) {
        best = j;
      }
    }
    if (best >= 0 && into) into[count - 1] = best;
  }
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
  return { streams: ranked.map((p) => met[p]!), streamOf: renumber(pairOf, rankOf) };
}

/** `ids` with each id replaced by `to[id]`, in place. */
function renumber(ids: Int32Array, to: Int32Array): Int32Array {
  for (let g = 0; g < ids.length; g++) ids[g] = to[ids[g]!]!;
  return ids;
}

/** Row of each GPU activity on its stream: 0, or the first row free when it starts (overlaps go below). */
function assignGpuLanes(m: TraceModel, streamOf: Int32Array, streamCount: number): Int32Array {
  const { gpu } = m;
  // (streamOf ranks the pairs as (device, stream) compare)
  const order =
    orderByGroupStart(identity(gpu.length), streamOf, gpu.startNs, null, streamCount) ??
    Array.from({ length: gpu.length }, (_, g) => g).sort(
      (a, b) => gpu.device[a]! - gpu.device[b]! || gpu.stream[a]! - gpu.stream[b]! || gpu.startNs[a]! - gpu.startNs[b]! || a - b,
    );
  return lanesInOrder(m, order, streamOf);
}

/** The lanes, the activities taken in (stream, start) order. */
function lanesInOrder(m: TraceModel, order: ArrayLike<number>, streamOf: Int32Array): Int32Array {
  const { gpu } = m;
  const lanes = new Int32Array(gpu.length);
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
