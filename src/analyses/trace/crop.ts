/**
 * Which events of a trace a crop keeps (`kinetoscope crop`): a time window — some profiler
 * steps, or START:END µs from the trace start — and what belongs to it.
 *
 * Kept: host events (ops, annotations, runtime and driver calls, python frames), memory records,
 * counters and other timed events that start inside the window; the GPU work launched by the
 * runtime/driver calls kept (even when it runs after the window), and GPU work launched by no
 * call in the trace that starts inside the window; `cuda_sync` records likewise; the
 * `gpu_user_annotation` spans of the annotations kept (same External id); `ac2g` flows of the
 * launches kept; other flows (fwdbwd, …) whose every end starts inside the window; all metadata
 * (`M`), the profiler span (`Trace`) and global instants (`s: "g"`), unchanged.
 * Not kept: everything else, including an event that starts before the window and encloses it.
 *
 * Pure: decides per event; the file is read and written by ingest (write-subset.ts).
 */
import type { SubsetDecision, SubsetEvent } from '../../ingest/write-subset.js';
import { KinetoscopeError } from '../../core/errors.js';
import type { RawEvent } from '../../ingest/raw-event.js';
import { EventClass, classifyEvent } from '../../model/classify.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';

export type CropRange = { readonly steps: readonly [number, number] } | { readonly windowUs: readonly [number, number] };

export interface CropPlan {
  /** The window in the model's time (ns from the trace start), end exclusive. */
  readonly startNs: number;
  readonly endNs: number;
  /** The steps it holds (ProfilerStep#N numbers), for a steps crop. */
  readonly steps: readonly number[];
  /** The window in the reader's time (ns from the file's first ts): what the selector compares. */
  readonly readerStartNs: number;
  readonly readerEndNs: number;
  /** Correlation ids of the runtime/driver calls kept, and of all of them. */
  readonly launches: ReadonlySet<number>;
  readonly allLaunches: ReadonlySet<number>;
  /** External ids of the user annotations kept, and of all of them. */
  readonly annotations: ReadonlySet<number>;
  readonly allAnnotations: ReadonlySet<number>;
}

export function planCrop(m: TraceModel, range: CropRange): CropPlan {
  let startNs: number;
  let endNs: number;
  let steps: number[] = [];
  if ('steps' in range) {
    const [a, b] = range.steps;
    const chosen = m.steps.filter((s) => s.number >= a && s.number <= b);
    if (chosen.length === 0) {
      const have = m.steps.map((s) => s.number);
      throw new KinetoscopeError(
        'BAD_ARGUMENT',
        have.length === 0
          ? 'the trace has no ProfilerStep#N annotations: crop it with --window START:END (µs from the trace start)'
          : `no step ${a === b ? a : `${a}-${b}`} in the trace; it has steps ${have[0]}-${have[have.length - 1]}`,
      );
    }
    startNs = Math.min(...chosen.map((s) => s.startNs));
    endNs = Math.max(...chosen.map((s) => s.endNs));
    steps = chosen.map((s) => s.number);
  } else {
    const [a, b] = range.windowUs;
    if (!(Number.isFinite(a) && Number.isFinite(b) && b > a)) throw new KinetoscopeError('BAD_ARGUMENT', `--window needs START:END in µs with END > START, not ${a}:${b}`);
    startNs = Math.round(a * 1000);
    endNs = Math.round(b * 1000);
  }
  const { host } = m;
  const launches = new Set<number>();
  const allLaunches = new Set<number>();
  const annotations = new Set<number>();
  const allAnnotations = new Set<number>();
  for (let i = 0; i < host.length; i++) {
    const k = host.kind[i];
    const s = host.startNs[i]!;
    const inside = s >= startNs && s < endNs;
    if (k === HostKind.Runtime || k === HostKind.Driver) {
      const c = host.correlation[i]!;
      if (!Number.isFinite(c)) continue;
      allLaunches.add(c);
      if (inside) launches.add(c);
    } else if (k === HostKind.Annotation) {
      const x = host.externalId[i]!;
      if (!Number.isFinite(x)) continue;
      allAnnotations.add(x);
      if (inside) annotations.add(x);
    }
  }
  return {
    startNs,
    endNs,
    steps,
    readerStartNs: startNs + m.traceStartNs,
    readerEndNs: endNs + m.traceStartNs,
    launches,
    allLaunches,
    annotations,
    allAnnotations,
  };
}

/** One event as the selector sees it, and what it decides: the writer's own types (ingest/write-subset.ts). */
export type CropEvent = SubsetEvent;
export type CropDecision = SubsetDecision;

export function cropSelector(plan: CropPlan): (e: CropEvent) => CropDecision {
  // The class of each (cat, ph) — and name, for `Operator` events — decided once: looked up by
  // the strings the reader hands over, with no key text built per event.
  const classes = new Map<string, Map<string, EventClass | Map<string, EventClass>>>();
  const classOf = (e: CropEvent): EventClass => {
    let byPh = classes.get(e.cat);
    if (!byPh) classes.set(e.cat, (byPh = new Map()));
    let c = byPh.get(e.ph);
    if (e.cat !== 'Operator') {
      if (c === undefined) byPh.set(e.ph, (c = classifyEvent({ ph: e.ph, cat: e.cat, name: e.name } as RawEvent)));
      return c as EventClass;
    }
    if (c === undefined) byPh.set(e.ph, (c = new Map()));
    const byName = c as Map<string, EventClass>;
    let cls = byName.get(e.name);
    if (cls === undefined) byName.set(e.name, (cls = classifyEvent({ ph: e.ph, cat: e.cat, name: e.name } as RawEvent)));
    return cls;
  };
  const inside = (ts: number) => ts >= plan.readerStartNs && ts < plan.readerEndNs;
  return (e) => {
    const cls = classOf(e);
    switch (cls) {
      case EventClass.Metadata:
      case EventClass.TraceSpan:
        return true;
      case EventClass.Kernel:
      case EventClass.Memcpy:
      case EventClass.Memset:
      case EventClass.CudaSync: {
        const c = e.correlation;
        if (Number.isFinite(c) && plan.allLaunches.has(c)) return plan.launches.has(c);
        return inside(e.tsNs);
      }
      case EventClass.GpuUserAnnotation: {
        const x = e.externalId;
        if (Number.isFinite(x) && plan.allAnnotations.has(x)) return plan.annotations.has(x);
        return inside(e.tsNs);
      }
      case EventClass.FlowStart:
      case EventClass.FlowEnd:
      case EventClass.FlowStep: {
        if (e.cat === 'ac2g') {
          const id = typeof e.flowId === 'number' ? e.flowId : Number(e.flowId);
          return plan.allLaunches.has(id) ? plan.launches.has(id) : inside(e.tsNs);
        }
        return { flow: `${e.cat}\u0000${String(e.flowId)}`, inside: inside(e.tsNs) };
      }
      case EventClass.Instant:
        return e.s === 'g' || inside(e.tsNs);
      default:
        return Number.isNaN(e.tsNs) ? true : inside(e.tsNs);
    }
  };
}

/** `3-5` or `4` → [3, 5] / [4, 4]. */
export function parseStepRange(text: string): [number, number] {
  const m = /^\s*(\d+)\s*(?:[-:]\s*(\d+)\s*)?$/.exec(text);
  if (!m) throw new KinetoscopeError('BAD_ARGUMENT', `--steps expects N or A-B (ProfilerStep numbers), not "${text}"`);
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  if (b < a) throw new KinetoscopeError('BAD_ARGUMENT', `--steps ${text}: the last step comes before the first`);
  return [a, b];
}

/** `START:END` (µs from the trace start) → [START, END]. */
export function parseWindow(text: string): [number, number] {
  const m = /^\s*(-?[\d.]+(?:e[+-]?\d+)?)\s*:\s*(-?[\d.]+(?:e[+-]?\d+)?)\s*$/i.exec(text);
  if (!m) throw new KinetoscopeError('BAD_ARGUMENT', `--window expects START:END in µs from the trace start, not "${text}"`);
  return [Number(m[1]), Number(m[2])];
}
