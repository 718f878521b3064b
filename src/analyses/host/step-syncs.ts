/**
 * The host synchronizations of each profiler step and the GPU idle they cause (sync-costs.ts),
 * grouped by what waited (`.item()`, `aten::index > aten::nonzero`, a copy to host memory) and
 * whose call it was (torch.amp.GradScaler, a package, the program): what `steps`, the `host-sync`
 * action and `explain` read. Per step = the sum over a step's syncs, averaged over every step of
 * the trace (a sync that runs once a step counts once per step).
 *
 * Ignores: syncs that do not block the host (a stream wait), and syncs outside every step when
 * the trace has steps (they belong to no step; `launches` lists them).
 */
import type { TraceModel } from '../../model/trace-model.js';
import { syncBlocksHost, type SyncKind } from '../facts/runtime-calls.js';
import { perModel } from '../helpers/per-model.js';
import { computeLaunchDigest, syncCause, type HostSync } from './launches.js';
import type { SyncCaller } from './sync-costs.js';

export interface SyncGroup {
  /** What waited: `.item()`, the op path, or where it was called (launches.ts `syncCause`). */
  readonly cause: string;
  readonly api: string;
  readonly kind: SyncKind;
  /** Whose call it was, when the python frames or the ops around it say. */
  readonly caller?: SyncCaller;
  /** The innermost op around the call. */
  readonly op?: string;
  /** Per step, averaged over the trace's steps: calls, host time blocked, GPU idle caused. */
  readonly perStep: { readonly calls: number; readonly blockedUs: number; readonly gpuBusyDuringUs: number; readonly gpuIdleUs: number };
}

export interface StepSyncRow {
  readonly step: string;
  readonly stepUs: number;
  readonly syncs: number;
  readonly blockedUs: number;
  /** Of blockedUs, the part during which the GPU was running something (the host waited on real work). */
  readonly gpuBusyDuringUs: number;
  /** The GPU idle the step's syncs caused. */
  readonly gpuIdleUs: number;
}

export interface StepSyncs {
  /** One row per profiler step (one `trace` row without steps); empty when no sync blocks the host. */
  readonly steps: readonly StepSyncRow[];
  /** Most GPU idle per step first. */
  readonly groups: readonly SyncGroup[];
  /** Mean step duration (µs), the share's denominator. */
  readonly meanStepUs: number;
}

/** Once per model. Shared, so read-only. */
export const computeStepSyncs = perModel((m: TraceModel): StepSyncs => {
  const syncs = computeLaunchDigest(m).syncs.filter((s) => syncBlocksHost(s.kind));
  if (syncs.length === 0) return { steps: [], groups: [], meanStepUs: 0 };
  const windows = m.steps.length
    ? m.steps.map((s) => ({ name: s.name, startNs: s.startNs, endNs: s.endNs }))
    : [{ name: 'trace', startNs: -Infinity, endNs: Infinity }];
  const spanUs = m.steps.length ? undefined : m.traceEndNs / 1000;
  // sums in integer ns (exact in any order), µs in the result
  const ns = (us: number) => Math.round(us * 1000);
  const sums = windows.map(() => ({ syncs: 0, blockedNs: 0, busyNs: 0, idleNs: 0 }));
  const groups = new Map<string, { g: Omit<SyncGroup, 'perStep'>; calls: number; blockedNs: number; busyNs: number; idleNs: number }>();
  for (const s of syncs) {
    const k = windows.findIndex((w) => s.startUs * 1000 >= w.startNs && s.startUs * 1000 < w.endNs);
    if (k < 0) continue;
    const r = sums[k]!;
    r.syncs++;
    r.blockedNs += ns(s.blockedUs);
    r.busyNs += ns(s.gpuBusyDuringUs);
    r.idleNs += ns(s.gpuIdleAfterUs);
    const cause = syncCause(s);
    const key = `${cause}\u0000${s.api}\u0000${s.caller?.name ?? ''}`;
    let a = groups.get(key);
    if (!a) groups.set(key, (a = { g: groupOf(s, cause), calls: 0, blockedNs: 0, busyNs: 0, idleNs: 0 }));
    a.calls++;
    a.blockedNs += ns(s.blockedUs);
    a.busyNs += ns(s.gpuBusyDuringUs);
    a.idleNs += ns(s.gpuIdleAfterUs);
  }
  const rows = windows.map((w, k) => ({
    step: w.name,
    stepUs: spanUs ?? (w.endNs - w.startNs) / 1000,
    syncs: sums[k]!.syncs,
    blockedUs: sums[k]!.blockedNs / 1000,
    gpuBusyDuringUs: sums[k]!.busyNs / 1000,
    gpuIdleUs: sums[k]!.idleNs / 1000,
  }));
  const n = windows.length;
  return {
    steps: rows,
    groups: [...groups.values()]
      .map((a) => ({ ...a.g, perStep: { calls: a.calls / n, blockedUs: a.blockedNs / n / 1000, gpuBusyDuringUs: a.busyNs / n / 1000, gpuIdleUs: a.idleNs / n / 1000 } }))
      .sort((a, b) => b.perStep.gpuIdleUs - a.perStep.gpuIdleUs || (a.cause < b.cause ? -1 : a.cause > b.cause ? 1 : 0)),
    meanStepUs: rows.reduce((t, r) => t + r.stepUs, 0) / n,
  };
});

function groupOf(s: HostSync, cause: string): Omit<SyncGroup, 'perStep'> {
  return { cause, api: s.api, kind: s.kind, ...(s.caller ? { caller: s.caller } : {}), ...(s.op ? { op: s.op } : {}) };
}
