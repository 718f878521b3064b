/**
 * The timeline as the page receives it: one compact JSON document (columns of integers plus a
 * string table) instead of an object per slice, so a 200k-slice timeline stays a few MB.
 *
 * - `runs` is [track, depth, count, …]: slices come sorted by (track, depth, start), so the
 *   track and depth of each slice are run-length coded;
 * - `start` is delta-coded within a run (the first of a run is absolute), ns from time zero;
 * - `dur`, `cat` (index into `cats`), `name` (index into `names`) are one entry per slice;
 * - `launch`, `op`, `dims` are sparse [slice, value, …] pairs: a GPU slice's launch call (as a
 *   slice index, when that slice was kept), its owning cpu_op's name, a cpu_op's `Input Dims`;
 * - `short` and `decoded` give, per kernel name, the short form and what the name says.
 */
import { describeDecoded } from '../kernels-view.js';
import { decodeKernelName, shortKernelName } from '../../analyses/kernels/kernel-name.js';
import { GPU_CATEGORY_BASE, PYTHON_CATEGORY, TIMELINE_CATEGORIES, type Timeline, type TimelineStep } from '../../analyses/trace/timeline.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';

export interface TimelineEmbed {
  readonly version: 1;
  readonly startNs: number;
  readonly endNs: number;
  readonly events: number;
  readonly kept: number;
  readonly maxSlices: number;
  readonly reduced: boolean;
  readonly bucketNs: number;
  readonly cats: readonly string[];
  readonly names: readonly string[];
  readonly short: Record<number, string>;
  readonly decoded: Record<number, string>;
  readonly tracks: readonly { label: string; kind: 'thread' | 'python' | 'stream'; rows: number; events: number; kept: number }[];
  readonly steps: readonly [string, number, number][];
  readonly runs: number[];
  readonly start: number[];
  readonly dur: number[];
  readonly cat: number[];
  readonly name: number[];
  readonly launch: number[];
  readonly op: number[];
  readonly dims: number[];
  /** The critical path's nodes, [slice, 0 start | 1 end, …] (critical-path-section.ts). */
  readonly cpath?: number[];
}

/** The members that hold numbers only (the columns): the page writes them without escaping (jsonObjectForScript). */
export const EMBED_NUMBER_COLUMNS: ReadonlySet<string> = new Set<keyof TimelineEmbed>(['runs', 'start', 'dur', 'cat', 'name', 'launch', 'op', 'dims', 'cpath']);

/** `steps` replaces the model's profiler steps for shading (the step table's windows, when those are annotations). */
export function embedTimeline(t: Timeline, m: TraceModel, steps: readonly TimelineStep[] = t.steps): TimelineEmbed {
  const s = t.slices;
  const names = [...t.names];
  const extra = new Map<string, number>();
  const intern = (text: string): number => {
    let id = extra.get(text);
    if (id === undefined) {
      id = names.length;
      names.push(text);
      extra.set(text, id);
    }
    return id;
  };
  const { runs, start, dur, cat, name, launch, op, dims, short, decoded } = embedColumns(t, m, intern);
  return {
    version: 1,
    startNs: t.startNs,
    endNs: t.endNs,
    events: t.events,
    kept: s.length,
    maxSlices: t.maxSlices,
    reduced: t.reduced,
    bucketNs: t.bucketNs,
    cats: [...TIMELINE_CATEGORIES],
    names,
    short,
    decoded,
    tracks: t.tracks.map((k) => ({ label: k.label, kind: k.kind, rows: k.rows, events: k.events, kept: k.kept })),
    steps: steps.map((x) => [x.name, x.startNs, x.endNs]),
    runs,
    start,
    dur,
    cat,
    name,
    launch,
    op,
    dims,
  };
}

/**
 * The per-slice columns of the embed and the sparse pairs, in one pass over the slices (a
 * function of its own: its loop is what V8 compiles while it runs). `intern` adds a string to
 * the names.
 */
function embedColumns(t: Timeline, m: TraceModel, intern: (text: string) => number) {
  const s = t.slices;
  const runs: number[] = [];
  // The columns as plain arrays filled by push: packed, which JSON.stringify writes fastest
  // (Array.from of a typed array, or a preallocated array, is slower to make and to write).
  const start: number[] = [];
  const dur: number[] = [];
  const cat: number[] = [];
  const name: number[] = [];
  // Where each kept host event sits, to point GPU work at its launch call. (The thread tracks
  // come before the streams: every host slice is placed before the first GPU slice is read.)
  const slotOfHost = new Int32Array(m.host.length).fill(-1);
  // The owning op's name interned once per name id, an op's dims once per args object (the model shares them).
  const opNameId = new Int32Array(m.strings.size).fill(-1);
  const dimsId = new Map<object, number>();
  const launch: number[] = [];
  const op: number[] = [];
  const dims: number[] = [];
  const short: Record<number, string> = {};
  const decoded: Record<number, string> = {};
  const kernelSeen = new Uint8Array(t.names.length);
  // (one pass, the columns read into locals: it runs once per slice, mostly before it is optimised)
  const { track, depth, startNs, durNs, category, source } = s;
  const nameOf = s.name;
  const { launcher, owner } = m.gpu;
  const { kind: hostKind, name: hostName, args: hostArgs } = m.host;
  let prevStart = 0;
  let run = -1;
  for (let j = 0; j < s.length; j++) {
    if (j === 0 || track[j] !== track[j - 1] || depth[j] !== depth[j - 1]) {
      run = runs.push(track[j]!, depth[j]!, 0) - 1;
      prevStart = 0;
    }
    runs[run]!++;
    const st = startNs[j]!;
    start.push(st - prevStart);
    prevStart = st;
    dur.push(durNs[j]!);
    const c = category[j]!;
    cat.push(c);
    const id = nameOf[j]!;
    name.push(id);
    const src = source[j]!;
    // (isGpuCategory written out: once per slice)
    if (c >= GPU_CATEGORY_BASE) {
      const l = launcher[src]!;
      const slot = l >= 0 ? slotOfHost[l]! : -1;
      if (slot >= 0) launch.push(j, slot);
      const o = owner[src]!;
      if (o >= 0) {
        const nameId = hostName[o]!;
        if (opNameId[nameId]! < 0) opNameId[nameId] = intern(m.strings.get(nameId));
        op.push(j, opNameId[nameId]!);
      }
      if (c === GPU_CATEGORY_BASE && !kernelSeen[id]) {
        kernelSeen[id] = 1;
        const full = t.names[id]!;
        decoded[id] = describeDecoded(decodeKernelName(full));
        const sh = shortKernelName(full);
        if (sh !== full) short[id] = sh;
      }
    } else if (c !== PYTHON_CATEGORY) {
      slotOfHost[src] = j;
      if (hostKind[src] !== HostKind.Op) continue;
      const args = hostArgs[src];
      if (!args) continue;
      let d = dimsId.get(args);
      if (d === undefined) {
        const v = args['Input Dims'] ?? args['Input dims'];
        dimsId.set(args, (d = Array.isArray(v) && v.length ? intern(JSON.stringify(v)) : -1));
      }
      if (d >= 0) dims.push(j, d);
    }
  }
  return { runs, start, dur, cat, name, launch, op, dims, short, decoded };
}
