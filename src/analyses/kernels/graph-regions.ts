/**
 * CUDA-graph regions: the GPU work a CUDA-graph replay ran, grouped by the annotation torch
 * wrote on it. A replay records no op and no shapes (its ops ran at capture time); torch's Python
 * exporter (pytorch/pytorch#194854, 2026-08), given `export_chrome_trace(path,
 * cuda_graph_annotations=…)`, copies the annotation `torch.cuda.graph_annotations.mark_kernels(...)`
 * recorded for each graph node into the args of the kernels, copies and memsets replayed from that
 * node (matched by `graph node id`), and marks the file with the top-level
 * `"cudaGraphInlineAnnotated": true`
 * (docs/kineto-format.md §9.1). The annotation's `name` is the region; it is the only attribution
 * the trace gives that work.
 *
 * Lanes: with `graph_lanes="all"` the exporter draws each annotated activity on the lane its
 * annotation names (a `stream` field, or stream 7), rewrites `tid` and `args.stream` to it and
 * keeps the stream it ran on as `args.original_stream` (which the model reads as its stream);
 * otherwise the activity stays on its stream and a requested lane is `args.annotated_stream`.
 * A lane may be named by the annotation's `Process Group Description` (the lane's `thread_name`).
 *
 * Ignores: annotations without a `name` (their other fields name no region), and activities
 * without a `graph node id` (not replayed from a graph node, whatever their args say).
 */
import { perModel } from '../helpers/per-model.js';
import { compareText } from '../../core/compare-text.js';
import type { TraceModel } from '../../model/trace-model.js';

export interface GraphRegionLane {
  /** The lane's id: the stream the exporter drew the work on, or the one the annotation asked for. */
  readonly lane: number;
  /** The lane's `thread_name` when it is not Kineto's `stream N ` (the annotation's `Process Group Description`). */
  readonly name?: string;
}

export interface GraphRegion {
  /** The annotation's `name`. */
  readonly name: string;
  /** GPU activities (kernels, copies, memsets) replayed in it. */
  readonly activities: number;
  /** Distinct activity names. */
  readonly kernels: number;
  readonly totalUs: number;
  /** Of all GPU activity time (Σ durations). */
  readonly share: number;
  /** Distinct launch calls (`cudaGraphLaunch`) whose replays ran its work. */
  readonly replays: number;
  readonly devices: readonly number[];
  /** The streams the work ran on. */
  readonly streams: readonly number[];
  /** The display lanes the exporter drew it on or the annotation asked for, when any. */
  readonly lanes: readonly GraphRegionLane[];
}

export interface GraphRegions {
  /** The file says the annotations are baked in (`cudaGraphInlineAnnotated: true`). */
  readonly inlineAnnotated: boolean;
  /** GPU activities with a `graph node id` other than 0 (replayed from a graph node). */
  readonly graphed: number;
  /** Of those, the ones whose annotation has a `name`. */
  readonly annotated: number;
  /** By total time, longest first. */
  readonly regions: readonly GraphRegion[];
  /** Per GPU activity: its region's index in `regions`, or −1. */
  readonly regionOf: Int32Array;
}

/** Kineto's name for a stream's track, `stream 7 ` (with the trailing space of an empty postfix). */
const STREAM_TRACK = /^stream -?\d+ ?$/;

function computeGraphRegionsOnce(m: TraceModel): GraphRegions {
  const { gpu } = m;
  const regionOf = new Int32Array(gpu.length).fill(-1);
  const inlineAnnotated = m.header['cudaGraphInlineAnnotated'] === true;
  let graphed = 0;
  let annotated = 0;
  interface Acc {
    index: number;
    name: string;
    activities: number;
    names: Set<number>;
    ns: number;
    launches: Set<number>;
    devices: Set<number>;
    streams: Set<number>;
    lanes: Map<string, { device: number; lane: number }>;
  }
  const byName = new Map<string, Acc>();
  const order: Acc[] = [];
  let totalNs = 0;
  for (let g = 0; g < gpu.length; g++) {
    totalNs += gpu.durNs[g]!;
    const a = gpu.args[g];
    const node = a?.['graph node id'];
    if (typeof node !== 'number' || node === 0) continue;
    graphed++;
    const name = a!['name'];
    if (typeof name !== 'string') continue;
    annotated++;
    let r = byName.get(name);
    if (!r) {
      byName.set(name, (r = { index: order.length, name, activities: 0, names: new Set(), ns: 0, launches: new Set(), devices: new Set(), streams: new Set(), lanes: new Map() }));
      order.push(r);
    }
    regionOf[g] = r.index;
    r.activities++;
    r.names.add(gpu.name[g]!);
    r.ns += gpu.durNs[g]!;
    if (gpu.launcher[g]! >= 0) r.launches.add(gpu.launcher[g]!);
    r.devices.add(gpu.device[g]!);
    r.streams.add(gpu.stream[g]!);
    // Moved: args.stream is the lane (original_stream the stream); not moved: the lane asked for.
    const lane = typeof a!['original_stream'] === 'number' ? a!['stream'] : a!['annotated_stream'];
    const laneNo = typeof lane === 'number' ? lane : typeof lane === 'string' && lane.trim() !== '' ? Number(lane) : NaN;
    if (Number.isInteger(laneNo)) r.lanes.set(`${gpu.device[g]}/${laneNo}`, { device: gpu.device[g]!, lane: laneNo });
  }
  const laneName = (device: number, lane: number): string | undefined => {
    const t = m.threads.find((x) => x.pid === device && x.tid === lane && x.name !== undefined);
    return t && !STREAM_TRACK.test(t.name!) ? t.name : undefined;
  };
  const regions = order.map(
    (r): GraphRegion => ({
      name: r.name,
      activities: r.activities,
      kernels: r.names.size,
      totalUs: r.ns / 1000,
      share: totalNs > 0 ? r.ns / totalNs : 0,
      replays: r.launches.size,
      devices: [...r.devices].sort((x, y) => x - y),
      streams: [...r.streams].sort((x, y) => x - y),
      lanes: [...r.lanes.values()]
        .sort((x, y) => x.device - y.device || x.lane - y.lane)
        .map(({ device, lane }) => {
          const name = laneName(device, lane);
          return name === undefined ? { lane } : { lane, name };
        }),
    }),
  );
  // Longest first; regionOf follows the new order.
  const ranked = regions.map((_, k) => k).sort((x, y) => regions[y]!.totalUs - regions[x]!.totalUs || compareText(regions[x]!.name, regions[y]!.name));
  const rankOf = new Int32Array(ranked.length);
  ranked.forEach((k, rank) => (rankOf[k] = rank));
  for (let g = 0; g < regionOf.length; g++) if (regionOf[g]! >= 0) regionOf[g] = rankOf[regionOf[g]!]!;
  return { inlineAnnotated, graphed, annotated, regions: ranked.map((k) => regions[k]!), regionOf };
}

/** Once per model; shared, so read-only. */
export const computeGraphRegions = perModel(computeGraphRegionsOnce);
