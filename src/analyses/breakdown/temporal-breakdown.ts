/**
 * Temporal breakdown (HTA's `get_temporal_breakdown`): over the span from the first GPU
 * activity's start to the last one's end, how much time the GPU was idle, computing, or busy
 * with nothing but non-compute work (communication, copies, memsets).
 *
 * - span = last end − first start of the GPU activities (all streams together);
 * - busy = wall-clock union of all GPU activities; idle = span − busy;
 * - compute = union of the computation kernels (facts/gpu-work-type.ts);
 * - non-compute = busy − compute: communication and memory time *not* hidden under
 *   computation (overlapped communication counts as compute, as in HTA).
 *
 * kinetoscope computes this per device, in exact ns, over every step. HTA computes it per
 * rank on its preprocessed rows (hta-compat.ts) and stops with an AssertionError when its
 * rounding makes the parts inconsistent (idle > span, compute > span or non-compute < 0 — a
 * −1 µs kernel does that); here such a violation is reported as a diagnostic instead.
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import type { TraceModel } from '../../model/trace-model.js';
import { buildHtaView, type HtaView } from './hta-compat.js';
import { computeIdleTime, DEFAULT_CONSECUTIVE_KERNEL_DELAY_NS, type StreamIdle } from './idle-time.js';
import {
  collectActivities,
  computeKernelTypeBreakdown,
  mergeRows,
  mergedLengthNs,
  type BreakdownActivities,
  type KernelTypeBreakdown,
} from './kernel-type-breakdown.js';
import { KernelTypeId } from '../facts/gpu-work-type.js';

export interface TemporalDevice {
  /** Device id; in HTA mode the whole rank is one row, device 0. */
  readonly device: number;
  readonly activities: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly spanNs: number;
  readonly busyNs: number;
  readonly idleNs: number;
  readonly computeNs: number;
  readonly nonComputeNs: number;
}

export interface TemporalBreakdown {
  readonly devices: readonly TemporalDevice[];
  /** Sums over devices (each over its own span). */
  readonly spanNs: number;
  readonly busyNs: number;
  readonly idleNs: number;
  readonly computeNs: number;
  readonly nonComputeNs: number;
  readonly diagnostics: readonly Diagnostic[];
}

export interface TemporalOptions {
  /** HTA's arithmetic: span from the merged groups, non-compute = span − compute − idle, its asserts checked. */
  readonly hta?: boolean;
}

export function computeTemporalBreakdown(a: BreakdownActivities, opts: TemporalOptions = {}): TemporalBreakdown {
  const byDevice = new Map<number, number[]>();
  for (let r = 0; r < a.length; r++) {
    let list = byDevice.get(a.device[r]!);
    if (!list) byDevice.set(a.device[r]!, (list = []));
    list.push(r);
  }
  const devices: TemporalDevice[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const [device, rows] of [...byDevice].sort((x, y) => x[0] - y[0])) {
    const merged = mergeRows(a, rows);
    const compute = rows.filter((r) => a.type[r] === KernelTypeId.Computation);
    const computeNs = compute.length ? mergedLengthNs(mergeRows(a, compute)) : 0;
    const busyNs = mergedLengthNs(merged);
    let startNs: number;
    let endNs: number;
    if (opts.hta) {
      // HTA: `kernel_time = merged.iloc[-1].end − merged.iloc[0].ts`.
      startNs = merged[0]!;
      endNs = merged[merged.length - 1]!;
    } else {
      startNs = Infinity;
      endNs = -Infinity;
      for (const r of rows) {
        if (a.startNs[r]! < startNs) startNs = a.startNs[r]!;
        if (a.endNs[r]! > endNs) endNs = a.endNs[r]!;
      }
    }
    const spanNs = endNs - startNs;
    const idleNs = spanNs - busyNs;
    const nonComputeNs = opts.hta ? spanNs - computeNs - idleNs : busyNs - computeNs;
    if (opts.hta) {
      const failed = [
        idleNs <= spanNs ? '' : 'idle_time <= kernel_time',
        computeNs <= spanNs ? '' : 'compute_time <= kernel_time',
        nonComputeNs >= 0 ? '' : 'non_compute_time >= 0',
      ].filter(Boolean);
      if (failed.length) {
        diagnostics.push({
          code: 'HTA_TEMPORAL_ASSERTION',
          severity: 'warning',
          message: `HTA's get_temporal_breakdown stops with an AssertionError on this trace (${failed.join(', ')} fails after its µs rounding); the figures shown are what its arithmetic gives before the assert.`,
        });
      }
    }
    devices.push({ device, activities: rows.length, startNs, endNs, spanNs, busyNs, idleNs, computeNs, nonComputeNs });
  }
  const sum = (f: (d: TemporalDevice) => number) => devices.reduce((s, d) => s + f(d), 0);
  return {
    devices,
    spanNs: sum((d) => d.spanNs),
    busyNs: sum((d) => d.busyNs),
    idleNs: sum((d) => d.idleNs),
    computeNs: sum((d) => d.computeNs),
    nonComputeNs: sum((d) => d.nonComputeNs),
    diagnostics,
  };
}

// ------------------------------------------------------------------------------------------------
// The three breakdowns together (the `breakdown` command)

export interface BreakdownOptions {
  /** Replay HTA's preprocessing and arithmetic (hta-compat.ts). */
  readonly htaCompat?: boolean;
  readonly consecutiveKernelDelayNs?: number;
  /** Kernels listed per type before the rest is folded into `others` (HTA's num_kernels, 10). */
  readonly topKernels?: number;
}

export interface BreakdownResult {
  readonly mode: 'kinetoscope' | 'hta-compat';
  readonly temporal: TemporalBreakdown;
  readonly kernelTypes: KernelTypeBreakdown;
  readonly idle: readonly StreamIdle[];
  readonly consecutiveKernelDelayNs: number;
  /** HTA's preprocessing, under htaCompat. */
  readonly hta?: HtaView;
  readonly diagnostics: readonly Diagnostic[];
}

/** Temporal, kernel-type and idle-time breakdowns over one view of the GPU time: kinetoscope's (exact ns) or HTA's. */
export function computeBreakdown(model: TraceModel, opts: BreakdownOptions = {}): BreakdownResult {
  const hta = opts.htaCompat ? buildHtaView(model) : undefined;
  const activities = hta ? hta.activities : collectActivities(model);
  const consecutiveKernelDelayNs = opts.consecutiveKernelDelayNs ?? DEFAULT_CONSECUTIVE_KERNEL_DELAY_NS;
  const temporal = computeTemporalBreakdown(activities, { hta: !!hta });
  const kernelTypes = computeKernelTypeBreakdown(activities, { topKernels: opts.topKernels ?? 10, htaFolding: !!hta });
  const idle = computeIdleTime(activities, { consecutiveKernelDelayNs, hta: !!hta });
  return {
    mode: hta ? 'hta-compat' : 'kinetoscope',
    temporal,
    kernelTypes,
    idle,
    consecutiveKernelDelayNs,
    hta,
    diagnostics: [...(hta?.diagnostics ?? []), ...temporal.diagnostics],
  };
}
