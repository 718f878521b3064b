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
 * Pure: decides per event, by a rule per kind of event; the file is read and written by ingest
 * (write-subset.ts).
 */
import { DROP, FLOW_INSIDE, FLOW_OUTSIDE, KEEP, type SubsetSelector } from '../../core/subset-selector.js';
import { KinetoscopeError } from '../../core/errors.js';
import { EventClass, classifyLabels } from '../../model/classify.js';
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

/** How crop decides about an event of each class: its kinds of events for the writer (SubsetSelector). */
const enum CropRule {
  /** Metadata and the profiler span: always. */
  Always,
  /** GPU work and syncs: by the call that launched them, else by their start. */
  Launched,
  /** GPU user annotations: by the annotation with their External id, else by their start. */
  Annotation,
  /** ac2g flows: by the launch they bind (the id is its correlation), else by their start. */
  Ac2g,
  /** Other flows: kept whole when every event of the flow starts inside. */
  Flow,
  /** Instants: global ones always, else by their start. */
  Instant,
  /** Everything else: by its start; an event without one is kept. */
  Timed,
}

function ruleOf(cls: EventClass, cat: string): CropRule {
  switch (cls) {
    case EventClass.Metadata:
    case EventClass.TraceSpan:
      return CropRule.Always;
    case EventClass.Kernel:
    case EventClass.Memcpy:
    case EventClass.Memset:
    case EventClass.CudaSync:
      return CropRule.Launched;
    case EventClass.GpuUserAnnotation:
      return CropRule.Annotation;
    case EventClass.FlowStart:
    case EventClass.FlowEnd:
    case EventClass.FlowStep:
      return cat === 'ac2g' ? CropRule.Ac2g : CropRule.Flow;
    case EventClass.Instant:
      return CropRule.Instant;
    default:
      return CropRule.Timed;
  }
}

export function cropSelector(plan: CropPlan): SubsetSelector {
  const lo = plan.readerStartNs;
  const hi = plan.readerEndNs;
  const { launches, allLaunches, annotations, allAnnotations } = plan;
  return {
    // Only `Operator` (torch ≤ 1.9) is classified by its name (classifyLabels): ProfilerStep#N is an annotation there.
    byName: (ph, cat) => ph === 'X' && cat === 'Operator',
    kindOf: (ph, cat, name) => ruleOf(classifyLabels(ph, cat, name), cat),
    choose: (b, out) => {
      const { kind, tsNs, shiftNs, args, argWidth, correlationSlot, externalIdSlot } = b;
      for (let i = 0; i < b.length; i++) {
        const t = tsNs[i]! + shiftNs;
        const inside = t >= lo && t < hi;
        switch (kind[i] as CropRule) {
          case CropRule.Always:
            out[i] = KEEP;
            break;
          case CropRule.Launched: {
            const c = args[i * argWidth + correlationSlot]!;
            out[i] = (Number.isFinite(c) && allLaunches.has(c) ? launches.has(c) : inside) ? KEEP : DROP;
            break;
          }
          case CropRule.Annotation: {
            const x = args[i * argWidth + externalIdSlot]!;
            out[i] = (Number.isFinite(x) && allAnnotations.has(x) ? annotations.has(x) : inside) ? KEEP : DROP;
            break;
          }
          case CropRule.Ac2g: {
            const f = b.flowId(i);
            const id = typeof f === 'number' ? f : Number(f);
            out[i] = (allLaunches.has(id) ? launches.has(id) : inside) ? KEEP : DROP;
            break;
          }
          case CropRule.Flow:
            out[i] = inside ? FLOW_INSIDE : FLOW_OUTSIDE;
            break;
          case CropRule.Instant:
            out[i] = inside || b.s(i) === 'g' ? KEEP : DROP;
            break;
          default:
            out[i] = inside || Number.isNaN(t) ? KEEP : DROP;
        }
      }
    },
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
