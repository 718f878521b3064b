/**
 * The steps' windows on the host's clock: the profiler steps (`ProfilerStep#N`, their
 * annotation's span); with none, each top-level `user_annotation` instance; with none of those
 * either, the whole trace. A window is what the host measured: GPU work running past it is not
 * pulled into it (step-breakdown.ts reports it as the step's `gpuTailUs`).
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { perModel } from '../helpers/per-model.js';
import { wholeTraceWindow } from '../host/scopes.js';

export type StepSource = 'profiler-steps' | 'annotations' | 'trace';

/** One step's window [lo, hi) in ns, and the host index of its annotation (-1 for the whole trace). */
export interface StepWindow {
  name: string;
  host: number;
  lo: number;
  hi: number;
}

/** The step windows: profiler steps, else top-level user annotations, else the whole trace. */
export function findStepWindows(m: TraceModel): { windows: StepWindow[]; source: StepSource } {
  if (m.steps.length) {
    return { source: 'profiler-steps', windows: m.steps.map((s) => ({ name: s.name, host: s.host, lo: s.startNs, hi: s.endNs })) };
  }
  const { host, strings } = m;
  const windows: StepWindow[] = [];
  for (let i = 0; i < host.length; i++) {
    if (host.kind[i] !== HostKind.Annotation || host.parent[i]! >= 0) continue;
    windows.push({ name: strings.get(host.name[i]!), host: i, lo: host.startNs[i]!, hi: host.startNs[i]! + host.durNs[i]! });
  }
  if (windows.length) return { source: 'annotations', windows: windows.sort((a, b) => a.lo - b.lo || a.host - b.host) };
  const { startNs: lo, endNs: hi } = wholeTraceWindow(m);
  if (!Number.isFinite(lo)) return { source: 'trace', windows: [] };
  return { source: 'trace', windows: [{ name: '(whole trace)', host: -1, lo, hi }] };
}

/** The step windows, once per model: shared, so read-only. */
export const stepWindowsOf = perModel(findStepWindows);

/** Windows in time order that do not overlap, with readable bounds. */
export function windowsInOrder(windows: readonly StepWindow[]): boolean {
  for (let w = 0; w < windows.length; w++) {
    const { lo, hi } = windows[w]!;
    if (!(lo <= hi) || (w > 0 && !(windows[w - 1]!.hi <= lo))) return false;
  }
  return true;
}

/** The window [lo, hi) holding time s (windows in order, not overlapping), or -1. */
export function windowAt(windows: readonly StepWindow[], s: number): number {
  let a = 0;
  let b = windows.length;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (windows[mid]!.lo <= s) a = mid + 1;
    else b = mid;
  }
  const w = a - 1;
  return w >= 0 && s < windows[w]!.hi ? w : -1;
}

