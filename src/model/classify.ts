/**
 * What kind of event is this? One place that knows every category spelling Kineto has
 * used (docs/kineto-format.md §2.2), so handlers switch on a small enum, not on strings.
 */
import type { RawEvent } from '../ingest/raw-event.js';

export const enum EventClass {
  Ignored = 0,
  CpuOp,
  UserAnnotation,
  PythonFunction,
  Runtime,
  Driver,
  Kernel,
  Memcpy,
  Memset,
  GpuUserAnnotation,
  CudaSync,
  CudaEvent,
  FlowStart,
  FlowEnd,
  FlowStep,
  Instant,
  Metadata,
  TraceSpan,
  Overhead,
  Counter,
  OtherComplete,
}

/** Host-side API categories besides CUDA's: ROCm reuses `cuda_runtime`; XPU, MTIA and custom backends have their own. */
const RUNTIME_CATS = new Set(['cuda_runtime', 'Runtime', 'xpu_runtime', 'privateuse1_runtime', 'mtia_runtime', 'glow_runtime']);
const DRIVER_CATS = new Set(['cuda_driver', 'xpu_driver', 'privateuse1_driver']);

export function classifyEvent(e: RawEvent): EventClass {
  return classifyLabels(e.ph, e.cat, e.name);
}

/** The class of an event with these `ph`, `cat` and `name`. */
export function classifyLabels(ph: string, cat: string, name: string): EventClass {
  switch (ph) {
    case 'X':
      return classifyComplete(cat, name);
    case 'M':
      return EventClass.Metadata;
    case 's':
      return EventClass.FlowStart;
    case 'f':
      return EventClass.FlowEnd;
    case 't':
      return EventClass.FlowStep;
    case 'i':
    case 'I':
      return EventClass.Instant;
    case 'C':
      return EventClass.Counter;
    default:
      return EventClass.Ignored;
  }
}

function classifyComplete(cat: string, name: string): EventClass {
  switch (cat) {
    case 'cpu_op':
    case 'Operator': // Kineto ≤ 2021-06 (≈ torch 1.9)
      // ≤ 1.9 wrote ProfilerStep#N as an Operator; it is a user annotation in every later version.
      return name.startsWith('ProfilerStep#') && cat === 'Operator' ? EventClass.UserAnnotation : EventClass.CpuOp;
    case 'user_annotation':
      return EventClass.UserAnnotation;
    case 'python_function':
      return EventClass.PythonFunction;
    case 'kernel':
    case 'Kernel': // Kineto < 2022-04
    case 'mtia_ccp_events': // MTIA device activities (compute jobs and `dma_request` copies), as in HTA's MTIA fixtures
      return EventClass.Kernel;
    case 'gpu_memcpy':
    case 'Memcpy':
      return EventClass.Memcpy;
    case 'gpu_memset':
    case 'Memset':
      return EventClass.Memset;
    case 'gpu_user_annotation':
    case 'gpu_user_Annotation': // typo until kineto 3db5c597 (2022-05)
    case 'User': // GPU user spans, early 2021
      return EventClass.GpuUserAnnotation;
    case 'cuda_sync':
    case 'xpu_sync':
      return EventClass.CudaSync;
    case 'cuda_event':
      return EventClass.CudaEvent;
    case 'Trace':
      return EventClass.TraceSpan;
    case 'overhead':
      return EventClass.Overhead;
    default:
      if (RUNTIME_CATS.has(cat)) return EventClass.Runtime;
      if (DRIVER_CATS.has(cat)) return EventClass.Driver;
      return EventClass.OtherComplete;
  }
}

export function isGpuActivityClass(c: EventClass): boolean {
  return c === EventClass.Kernel || c === EventClass.Memcpy || c === EventClass.Memset;
}
