/**
 * Counter (`C`) events, kept as one summary per series rather than as events: no analysis reads a
 * counter over time, and none may change a figure (docs/kineto-format.md §9.5).
 *
 * Kineto writes three kinds (§2.1): CUPTI PM sampling's hardware counters (kineto@`e8f56bd8`,
 * 2026-08-11: `pid` the string `"GPU <n> Counters"`, `cat` `hardware_counters`, one event per
 * metric and sample, named after the metric, `args` `{"": value}`), and MTIA's and XPU's counters
 * (a numeric pid, several values per event, one per args key). A series is one (track, name, key):
 * Chrome's rule, where each args key of a counter event is a series of its own. A counter track is
 * no process and no GPU: it names no thread, and its `ts` set neither time zero nor the trace's end.
 */
import { argNumber } from '../../ingest/event-columns.js';
import type { CounterSeries } from '../trace-model.js';
import { argsOf, idOf, type Batch } from './batch.js';

/** `"GPU 3 Counters"` → 3. */
const COUNTER_TRACK = /^GPU (\d+) Counters$/;

interface Acc {
  process: number | string;
  device: number;
  category: string;
  name: string;
  key: string;
  samples: number;
  firstNs: number;
  lastNs: number;
  min: number;
  max: number;
  sum: number;
}

export class CountersHandler {
  private readonly series = new Map<string, Acc>();

  /** Row i, a `C` event. */
  add(b: Batch, i: number): void {
    const ts = b.tsNs[i]! + b.shiftNs;
    const args = argsOf(b, i);
    if (!args || !Number.isFinite(ts)) return;
    const process = idOf(b, b.pid[i]!, b.pidLabel[i]!);
    const name = b.labels[b.name[i]!]!;
    const category = b.labels[b.cat[i]!] ?? '';
    for (const key of Object.keys(args)) {
      const v = argNumber(args[key]);
      if (!Number.isFinite(v)) continue;
      const k = `${process}\u0000${category}\u0000${name}\u0000${key}`;
      let s = this.series.get(k);
      if (!s) {
        const m = typeof process === 'string' ? COUNTER_TRACK.exec(process) : null;
        const device = m ? Number(m[1]) : -1;
        this.series.set(k, (s = { process, device, category, name, key, samples: 0, firstNs: ts, lastNs: ts, min: v, max: v, sum: 0 }));
      }
      s.samples++;
      s.sum += v;
      if (ts < s.firstNs) s.firstNs = ts;
      if (ts > s.lastNs) s.lastNs = ts;
      if (v < s.min) s.min = v;
      if (v > s.max) s.max = v;
    }
  }

  /** The series in the order first met, their times less `originNs`. */
  finalize(originNs: number): CounterSeries[] {
    return [...this.series.values()].map(({ sum, ...s }) => ({ ...s, firstNs: s.firstNs - originNs, lastNs: s.lastNs - originNs, mean: sum / s.samples }));
  }
}

export function createCountersHandler(): CountersHandler {
  return new CountersHandler();
}
