/**
 * The trace model: what one pass over a Kineto trace leaves behind, as typed tables.
 *
 * Bulk events (host ops and API calls, GPU activities, python frames, memory records)
 * are struct-of-arrays tables with interned names; small sets (threads, steps, GPU
 * annotations, device properties) are plain objects. All times are exact integer
 * nanoseconds relative to `traceStartNs` (the profiler's start, as torch counts it).
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { JsonObject, JsonValue } from '../ingest/raw-event.js';
import type { TorchIdCollision } from './linking.js';
import type { OpTensorTable } from './op-tensors.js';
import type { StringTable } from './strings.js';

/** The host-side events torch's op tree is made of. */
export const enum HostKind {
  /** `cpu_op`: an ATen op, a compiled-region frame, `record_param_comms`, … */
  Op = 0,
  /** `user_annotation`: `record_function` labels, `ProfilerStep#N`. */
  Annotation = 1,
  /** `cuda_runtime` (and ROCm's HIP calls, XPU/custom runtimes). */
  Runtime = 2,
  /** `cuda_driver`: `cuLaunchKernel`, `cuLaunchKernelEx`, … */
  Driver = 3,
  /**
   * `overhead`: CUPTI's own work (`Activity Buffer Request`, `Buffer Flush`), which Kineto writes
   * on a thread of its own (pid -1). torch's table counts these as CPU events of the thread
   * that collects the trace (analyses/facts/torch-placement.ts).
   */
  Overhead = 4,
}

export const HOST_KIND_NAMES = ['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver', 'overhead'] as const;

export interface HostEventTable {
  readonly length: number;
  readonly kind: Uint8Array;
  readonly name: Int32Array;
  /** Index into `TraceModel.threads`. */
  readonly thread: Int32Array;
  readonly startNs: Float64Array;
  readonly durNs: Float64Array;
  /** `External id` (lower-case `external id` in ≤ 1.10 traces); NaN when absent. */
  readonly externalId: Float64Array;
  /** CUPTI/roctracer `correlation` of runtime and driver calls; NaN when absent. */
  readonly correlation: Float64Array;
  /** Enclosing host event by interval nesting on the same thread (torch's rule), or -1. */
  readonly parent: Int32Array;
  readonly depth: Int32Array;
  /** Children in start order: first child and next sibling, -1 when none. */
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  /** The first GPU activity this op owns (GPU-table index, `gpu.nextOwned` for the rest), or -1 (owned-work.ts). */
  readonly firstOwned: Int32Array;
  /** The event's `args` for ops and annotations (Input Dims, Input type, …); undefined for API calls. */
  readonly args: ReadonlyArray<JsonObject | undefined>;
}

export const enum GpuKind {
  Kernel = 0,
  Memcpy = 1,
  Memset = 2,
}

export const GPU_KIND_NAMES = ['kernel', 'gpu_memcpy', 'gpu_memset'] as const;

export interface GpuActivityTable {
  readonly length: number;
  readonly kind: Uint8Array;
  readonly name: Int32Array;
  /** Device id (the event's `pid`). */
  readonly device: Int32Array;
  /** Stream id (the event's `tid`). */
  readonly stream: Int32Array;
  readonly startNs: Float64Array;
  readonly durNs: Float64Array;
  readonly correlation: Float64Array;
  readonly externalId: Float64Array;
  /** The runtime/driver call that launched it (host index), or -1. */
  readonly launcher: Int32Array;
  /** The `cpu_op` that owns it (host index), or -1 (a kernel launched outside any op belongs to none). */
  readonly owner: Int32Array;
  /** The next GPU activity with the same owner (GPU-table order), or -1: `host.firstOwned` starts each list. */
  readonly nextOwned: Int32Array;
  readonly args: ReadonlyArray<JsonObject | undefined>;
}

/** `python_function` frames (with_stack); kept apart from the op tree, as torch does. */
export interface PythonFunctionTable {
  readonly length: number;
  readonly name: Int32Array;
  readonly thread: Int32Array;
  readonly startNs: Float64Array;
  readonly durNs: Float64Array;
}

/** `[memory]` / `[OutOfMemory]` instant events (profile_memory). */
export interface MemoryEventTable {
  readonly length: number;
  readonly thread: Int32Array;
  readonly tsNs: Float64Array;
  /** Positive = allocation, negative = free. */
  readonly bytes: Float64Array;
  readonly totalAllocated: Float64Array;
  readonly totalReserved: Float64Array;
  /** c10 DeviceType: 0 CPU, 1 CUDA, 6 HIP. */
  readonly deviceType: Int32Array;
  readonly deviceId: Int32Array;
  /** The block's address (`Addr`): a free carries its allocation's; NaN when absent. */
  readonly addr: Float64Array;
  readonly outOfMemory: Uint8Array;
}

/** A forward op and the backward op autograd ran for it (a `fwdbwd` flow), as host indexes. */
export interface FwdBwdLink {
  readonly fwd: number;
  readonly bwd: number;
}

/** A `gpu_user_annotation`: Kineto's span of the GPU work launched under one annotation, per stream. */
export interface GpuAnnotation {
  readonly name: string;
  readonly device: number;
  readonly stream: number;
  readonly startNs: number;
  readonly durNs: number;
  readonly externalId: number;
}

/** `cuda_sync` records (`Stream Sync`, `Event Sync`, `Context Sync`, …). */
export interface SyncEvent {
  readonly name: string;
  readonly device: number;
  readonly stream: number;
  readonly startNs: number;
  readonly durNs: number;
  readonly correlation: number;
  readonly args: JsonObject | undefined;
}

/**
 * One counter series (a `C` event's name and args key, on one track), summarised
 * (handlers/counters.ts). Hardware counters of CUPTI PM sampling sit on the string pid
 * `"GPU <n> Counters"` (docs/kineto-format.md §9.5).
 */
export interface CounterSeries {
  /** The track's pid as written: `"GPU 0 Counters"`, or a number (MTIA, XPU). */
  readonly process: number | string;
  /** The device the track names (`GPU <n> Counters` → n), else −1 (a numeric pid is not read as a device). */
  readonly device: number;
  /** `hardware_counters`, `mtia_counters`, `xpu_scope_profiler`, … */
  readonly category: string;
  /** The event's name: the metric (`sm__cycles_active.avg`). */
  readonly name: string;
  /** The args key holding the value: `""` for hardware counters. */
  readonly key: string;
  readonly samples: number;
  /** First and last sample, relative to time zero. */
  readonly firstNs: number;
  readonly lastNs: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
}

/**
 * The ops and annotations whose `Record function id` is not 0, in host-table order: torch writes
 * the RecordFunction's handle there only while its execution trace observer records the same run,
 * and the ET's nodes carry the same number as `rf_id` (model/op-tensors.ts joins them).
 */
export interface RecordFunctionIds {
  readonly rows: Int32Array;
  readonly ids: Float64Array;
}

/** An `autograd::engine::evaluate_function: X` op and its `Sequence number` (torch trace validator rule 6, doctor). */
export interface BackwardSequence {
  readonly host: number;
  readonly sequenceNr: number;
}

export interface ThreadInfo {
  readonly pid: number | string;
  readonly tid: number | string;
  /** From `thread_name` metadata, e.g. `thread 416 (python3)` or `stream 7 `. */
  name?: string;
  sortIndex?: number;
}

export interface ProcessInfo {
  readonly pid: number | string;
  name?: string;
  labels?: string;
  sortIndex?: number;
}

export interface ProfilerStep {
  /** As written: `ProfilerStep#3`. */
  readonly name: string;
  readonly number: number;
  /** Index of the annotation in the host table. */
  readonly host: number;
  readonly startNs: number;
  readonly endNs: number;
}

/** How GPU activities were tied to the ops that launched them (docs/kineto-format.md §3.2). */
export type OwnerRule =
  /** torch ≥ 2.3 (and ≤ 1.10): the kernel's `External id` is the owning cpu_op's. */
  | 'external-id'
  /** torch ≈ 1.11–2.2: `External id` repeats the correlation; the owner is the innermost cpu_op around the launch. */
  | 'innermost-op'
  /** No GPU activity in the trace. */
  | 'none'
  /** GPU activity but no cpu_op: the profiler recorded the CUDA activity alone; GPU work is tied to its launch calls only. */
  | 'no-ops';

export interface ProfilerFlags {
  readonly recordShapes: boolean;
  readonly profileMemory: boolean;
  readonly withStack: boolean;
  readonly withFlops: boolean;
  readonly withModules: boolean;
}

export interface DeviceProperties {
  readonly id: number;
  readonly name?: string;
  readonly numSms?: number;
  readonly computeMajor?: number;
  readonly computeMinor?: number;
  readonly totalGlobalMem?: number;
  readonly [key: string]: JsonValue | undefined;
}

/**
 * The tables a caller may leave out of the model: `python` (`python_function` frames, with_stack)
 * and `memory` (`[memory]` records, profile_memory). Only `memory`, `modules` and the memory
 * columns of `summary` read them (they load them: cli/common.ts openTrace's `keep`), and
 * on a training trace they are two events in five (the 160 MB GPT-2 trace: 162 k frames and
 * 65 k records of 533 k events), so the CLI leaves both out. Left out, a table is empty; its
 * events are still counted (`counts`) and their threads still listed (`threads`), so every other
 * part of the model is the same. An analysis that comes to read one must check `omitted`.
 */
export type OptionalTable = 'python' | 'memory';
export const OPTIONAL_TABLES: readonly OptionalTable[] = ['python', 'memory'];

export interface TraceModel {
  readonly strings: StringTable;
  readonly host: HostEventTable;
  readonly gpu: GpuActivityTable;
  /** Empty when left out (`omitted`). */
  readonly python: PythonFunctionTable;
  /** The `fwdbwd` flows bound to host events; empty when the python table is left out (only the module tree reads them). */
  readonly fwdBwd: readonly FwdBwdLink[];
  /** Empty when left out (`omitted`). */
  readonly memory: MemoryEventTable;
  /** The optional tables the caller left out (createModelBuilder's `omit`), in OPTIONAL_TABLES order. */
  readonly omitted: readonly OptionalTable[];
  readonly gpuAnnotations: readonly GpuAnnotation[];
  readonly syncs: readonly SyncEvent[];
  /** Counter series (`C` events), summarised; none change a figure (handlers/counters.ts). */
  readonly counters: readonly CounterSeries[];
  /** Backward nodes with a Sequence number, in host-table order. */
  readonly backwardSequences: readonly BackwardSequence[];
  readonly recordFunctionIds: RecordFunctionIds;
  /**
   * The tensors each op read and wrote, by identity, when torch's execution trace of the same run
   * was joined to the trace (op-tensors.ts `withOpTensors`; `--et`); undefined otherwise.
   */
  readonly opTensors?: OpTensorTable;
  /**
   * The other cpu_ops that carry a `Sequence number`, in host-table order: torch records one where
   * grad mode was on as the op ran — a forward op building the autograd graph, and a backward
   * node's own op (`NativeDropoutBackward0`) — and none for the ops a backward formula runs. A
   * forward op inside backward (activation checkpointing's recompute) carries one
   * (analyses/host/recompute.ts).
   */
  readonly sequencedOps: Int32Array;
  readonly threads: readonly ThreadInfo[];
  readonly processes: readonly ProcessInfo[];
  readonly devices: readonly DeviceProperties[];
  readonly distributedInfo: JsonObject | undefined;
  readonly flags: ProfilerFlags;
  readonly steps: readonly ProfilerStep[];
  readonly ownerRule: OwnerRule;
  /** Runtime calls torch's key_averages wrongly credits with kernels (see linking.ts). */
  readonly torchIdCollisions: readonly TorchIdCollision[];
  /** Where time zero is: the profiler span's start, else the earliest host event (reader-relative ns). */
  readonly traceStartNs: number;
  /** Extent of the trace's events, relative to time zero. */
  readonly traceEndNs: number;
  /** The reader's origin: integer µs as written in the file (epoch µs in era A; relative to `baseTimeNanoseconds` in era B). */
  readonly timeOriginUs: number;
  readonly header: JsonObject;
  readonly counts: {
    readonly events: number;
    readonly flows: number;
    readonly instants: number;
    readonly metadata: number;
    readonly ignored: number;
  };
  readonly source: {
    readonly container: 'object' | 'array';
    readonly bytesRead: number;
    readonly truncated: boolean;
  };
  readonly diagnostics: readonly Diagnostic[];
}

/** Convenience accessors that keep callers from indexing string ids by hand. */
export function hostName(m: TraceModel, i: number): string {
  return m.strings.get(m.host.name[i]!);
}

export function gpuName(m: TraceModel, i: number): string {
  return m.strings.get(m.gpu.name[i]!);
}

export function hostEndNs(m: TraceModel, i: number): number {
  return m.host.startNs[i]! + m.host.durNs[i]!;
}

export function gpuEndNs(m: TraceModel, i: number): number {
  return m.gpu.startNs[i]! + m.gpu.durNs[i]!;
}
