/**
 * Idle-time breakdown per stream (HTA's `get_idle_time_breakdown`): every gap between one GPU
 * activity and the next on the same stream, put in one of three categories by what the stream
 * was waiting for. A gap is credited to the activity that ends it:
 *
 * - host wait: the call that launched the next activity (`cudaLaunchKernel`, …) had not even
 *   started when the stream went idle — the CPU was not enqueuing work fast enough;
 * - kernel wait: otherwise, a gap shorter than `consecutive_kernel_delay` (30 µs, HTA's default):
 *   the ordinary delay between back-to-back kernels;
 * - other: every longer gap — the stream waits on an event from another stream, a sync, or
 *   something the trace does not show.
 *
 * Gaps before a stream's first activity and after its last are not counted.
 *
 * kinetoscope's rules differ from HTA's in one place: a stream can run an activity before the
 * previous one ends (Hopper's programmatic dependent launch, or CUPTI clock jitter). HTA
 * measures the gap from the previous activity's end and books a negative gap as "kernel wait";
 * here the gap is measured from the latest end so far, an overlap is no gap at all, and the
 * overlaps are counted apart. Under `hta` HTA's arithmetic is kept, negative gaps included.
 */
import type { BreakdownActivities } from './kernel-type-breakdown.js';

export interface StreamIdle {
  readonly device: number;
  readonly stream: number;
  readonly activities: number;
  /** First start to last end on this stream. */
  readonly spanNs: number;
  readonly idleNs: number;
  readonly hostWaitNs: number;
  readonly kernelWaitNs: number;
  readonly otherNs: number;
  /** Gaps per category. */
  readonly hostWaitGaps: number;
  readonly kernelWaitGaps: number;
  readonly otherGaps: number;
  /** Activities that start before an earlier one on the stream has ended, and the largest such overlap. */
  readonly overlaps: number;
  readonly maxOverlapNs: number;
}

export interface IdleTimeOptions {
  /** HTA's `consecutive_kernel_delay`, in ns (default 30 µs). */
  readonly consecutiveKernelDelayNs?: number;
  readonly hta?: boolean;
}

export const DEFAULT_CONSECUTIVE_KERNEL_DELAY_NS = 30_000;

export function computeIdleTime(a: BreakdownActivities, opts: IdleTimeOptions = {}): StreamIdle[] {
  const delay = opts.consecutiveKernelDelayNs ?? DEFAULT_CONSECUTIVE_KERNEL_DELAY_NS;
  const byStream = new Map<string, number[]>();
  const order: string[] = [];
  for (let r = 0; r < a.length; r++) {
    if (!a.inIdle[r]) continue;
    const key = `${a.device[r]}\u0000${a.stream[r]}`;
    let list = byStream.get(key);
    if (!list) {
      byStream.set(key, (list = []));
      order.push(key);
    }
    list.push(r);
  }
  const out: StreamIdle[] = [];
  for (const key of order) {
    const rows = byStream.get(key)!;
    // Start order; equal starts keep file order (HTA's pandas sort leaves their order unspecified).
    rows.sort((x, y) => a.startNs[x]! - a.startNs[y]! || x - y);
    let hostWaitNs = 0;
    let kernelWaitNs = 0;
    let otherNs = 0;
    let hostWaitGaps = 0;
    let kernelWaitGaps = 0;
    let otherGaps = 0;
    let overlaps = 0;
    let maxOverlapNs = 0;
    let prevEnd = a.endNs[rows[0]!]!;
    let maxEnd = prevEnd;
    let first = a.startNs[rows[0]!]!;
    for (let k = 1; k < rows.length; k++) {
      const r = rows[k]!;
      const s = a.startNs[r]!;
      const e = a.endNs[r]!;
      const before = opts.hta ? prevEnd : maxEnd;
      const gap = s - before;
      if (maxEnd > s) {
        overlaps++;
        if (maxEnd - s > maxOverlapNs) maxOverlapNs = maxEnd - s;
      }
      if (opts.hta || gap > 0) {
        const launch = a.launchStartNs[r]!;
        if (launch > before) {
          hostWaitNs += gap;
          hostWaitGaps++;
        } else if (gap < delay) {
          kernelWaitNs += gap;
          kernelWaitGaps++;
        } else {
          otherNs += gap;
          otherGaps++;
        }
      }
      prevEnd = e;
      if (e > maxEnd) maxEnd = e;
      if (s < first) first = s;
    }
    out.push({
      device: a.device[rows[0]!]!,
      stream: a.stream[rows[0]!]!,
      activities: rows.length,
      spanNs: maxEnd - first,
      idleNs: hostWaitNs + kernelWaitNs + otherNs,
      hostWaitNs,
      kernelWaitNs,
      otherNs,
      hostWaitGaps,
      kernelWaitGaps,
      otherGaps,
      overlaps,
      maxOverlapNs,
    });
  }
  return out.sort((x, y) => x.device - y.device || x.stream - y.stream);
}
