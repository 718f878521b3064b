/**
 * The GPU's idle gaps inside each step's GPU work that the host's launching left: what a CUDA
 * graph could close. A graph replays its kernels back to back from one launch, so the gaps it can
 * remove are those between the step's first GPU activity and its last (clipped to the step); not
 * the idle before the first kernel or after the last (the host's Python, the data, the launch of
 * the graph itself), and not the idle other readings explain, each counted once (a graph removes
 * none of it):
 * - the host blocked in a synchronization (a graph cannot hold one: the host would wait the same)
 *   or waiting for a DataLoader's batch;
 * - a host sync's idle (host/sync-costs.ts): from the sync to the GPU's next work, while the host,
 *   released, runs on to its next launch — the `host-sync` action's time;
 * - the windows between compiled regions (host/graph-breaks.ts): the host's Python, guards and call
 *   layers between two graphs — the `graph-break` action's time.
 * So `launchGapUs` is an upper bound on the idle a graph removes from the step.
 *
 * Steps: those of step-windows.ts (profiler steps, else top-level annotations, else the trace).
 * Ignores: which stream or device a gap is on (the GPU is idle when none is busy: gpuBusyUnion).
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { CallFlag, runtimeCallFlags, syncBlocksHost } from '../facts/runtime-calls.js';
import { gpuBusyUnion } from '../facts/gpu-time-index.js';
import { lowerBound, mergeUnion, unionLengthInNs, type MergedIntervals } from '../helpers/intervals.js';
import { perModel } from '../helpers/per-model.js';
import { allGaps, computeGraphBreaks } from '../host/graph-breaks.js';
import { computeLaunchDigest } from '../host/launches.js';
import { syncIdleWindowsNs } from '../host/sync-costs.js';
import { isDataLoaderName } from './breakdown-roles.js';
import { findStepWindows } from './step-windows.js';

export interface StepLaunchGaps {
  readonly name: string;
  /** GPU idle between the step's first GPU activity and its last, inside the step. */
  readonly innerIdleUs: number;
  /** Of it, the part other readings explain (the module comment): the host's waits, a sync's idle, the gaps between compiled regions. */
  readonly waitsUs: number;
  /** innerIdleUs − waitsUs: the idle a CUDA graph could remove, at most. */
  readonly launchGapUs: number;
}

/** Per step, in the steps' order; computed once per model. Shared, so read-only. */
export const computeLaunchGaps = perModel((m: TraceModel): StepLaunchGaps[] => {
  const { windows } = findStepWindows(m);
  const busy = gpuBusyUnion(m);
  const waits = explainedIdle(m);
  return windows.map((w) => {
    const { inner, waited } = innerIdle(busy, waits, w.lo, w.hi);
    return { name: w.name, innerIdleUs: inner / 1000, waitsUs: waited / 1000, launchGapUs: (inner - waited) / 1000 };
  });
});

/**
 * The union of the times whose idle another reading explains: calls that block the host
 * (CallFlag.BlocksHost), DataLoader `__next__` spans, each blocking sync's idle window
 * (sync-costs.ts) and each window between two compiled regions (graph-breaks.ts).
 */
function explainedIdle(m: TraceModel): MergedIntervals {
  const { host } = m;
  const flags = runtimeCallFlags(m);
  const dataLoader = new Uint8Array(m.strings.size);
  for (let id = 0; id < m.strings.size; id++) if (isDataLoaderName(m.strings.get(id))) dataLoader[id] = 1;
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < host.length; i++) {
    const k = host.kind[i];
    const wait = flags[i]! & CallFlag.BlocksHost || ((k === HostKind.Op || k === HostKind.Annotation) && dataLoader[host.name[i]!] === 1);
    if (!wait) continue;
    starts.push(host.startNs[i]!);
    ends.push(host.startNs[i]! + host.durNs[i]!);
  }
  // the syncs host/step-syncs.ts and the host-sync action count
  const syncs = computeLaunchDigest(m).syncs.filter((x) => syncBlocksHost(x.kind)).map((x) => x.host);
  for (const [s, e] of syncIdleWindowsNs(m, syncs)) {
    if (!(e > s)) continue;
    starts.push(s);
    ends.push(e);
  }
  for (const g of allGaps(computeGraphBreaks(m))) {
    if (!(g.endNs > g.startNs)) continue;
    starts.push(g.startNs);
    ends.push(g.endNs);
  }
  return mergeUnion(Float64Array.from(starts), Float64Array.from(ends));
}

/** The GPU idle between the first and the last busy instant inside [lo, hi), and the part of it inside the host's waits (ns). */
function innerIdle(busy: MergedIntervals, waits: MergedIntervals, lo: number, hi: number): { inner: number; waited: number } {
  let inner = 0;
  let waited = 0;
  // The busy intervals overlapping [lo, hi), in order: each gap between two of them is idle.
  let prevEnd = NaN;
  for (let k = Math.max(0, lowerBound(busy.starts, lo) - 1); k < busy.starts.length; k++) {
    const s = Math.max(busy.starts[k]!, lo);
    const e = Math.min(busy.ends[k]!, hi);
    if (busy.starts[k]! >= hi) break;
    if (!(e > s)) continue;
    if (prevEnd === prevEnd && s > prevEnd) {
      inner += s - prevEnd;
      waited += unionLengthInNs(waits, prevEnd, s);
    }
    prevEnd = e;
  }
  return { inner, waited };
}
