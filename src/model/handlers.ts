/**
 * One-pass handlers: each owns one slice of the model and sees every event of its
 * classes exactly once, in file order. Handlers are made by factories and keep no
 * module-level state, so two traces can be built side by side (a diff).
 *
 * Handled here: metadata (`M`), host events (cpu_op, user_annotation, runtime, driver),
 * python frames, GPU activities (kernel, memcpy, memset), GPU annotations, cuda_sync,
 * flows (`ac2g` — kept only as a fallback for activities without `correlation`),
 * instant events (`[memory]`, `[OutOfMemory]`), the profiler span (`Trace`).
 * Ignored: counters (`C`), overhead spans, `Iteration Start` / `Record Window End` markers
 * (counted, not stored).
 */
import type { DiagnosticSink } from '../core/diagnostics.js';
import type { JsonObject, JsonValue, RawEvent } from '../ingest/raw-event.js';
import { EventClass } from './classify.js';
import { f64, i32, u8 } from './columns.js';
import type { StringTable } from './strings.js';
import {
  GpuKind,
  HostKind,
  type GpuAnnotation,
  type ProcessInfo,
  type SyncEvent,
  type ThreadInfo,
} from './trace-model.js';

export interface HandlerContext {
  readonly strings: StringTable;
  readonly diagnostics: DiagnosticSink;
}

export function num(v: JsonValue | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : NaN;
  }
  return NaN;
}

/** `External id`, or the lower-case `external id` of Kineto ≤ 2021-11. */
export function externalIdOf(args: JsonObject | undefined): number {
  if (!args) return NaN;
  const v = args['External id'] ?? args['external id'];
  return num(v);
}

// ---------------------------------------------------------------- threads

/** (pid, tid) → thread index, shared by every handler that places events on host threads. */
export function createThreadRegistry() {
  const index = new Map<string, number>();
  const threads: ThreadInfo[] = [];
  return {
    threads,
    indexOf(pid: number | string, tid: number | string): number {
      const key = `${pid}\u0000${tid}`;
      let i = index.get(key);
      if (i === undefined) {
        i = threads.length;
        threads.push({ pid, tid });
        index.set(key, i);
      }
      return i;
    },
  };
}
export type ThreadRegistry = ReturnType<typeof createThreadRegistry>;

// ---------------------------------------------------------------- metadata

export function createMetadataHandler(ctx: HandlerContext, threadReg: ThreadRegistry) {
  const processes = new Map<string, ProcessInfo>();
  const seen = new Set<string>();
  let duplicates = 0;
  let count = 0;
  return {
    handleEvent(e: RawEvent): void {
      count++;
      const value = e.args?.['name'] ?? e.args?.['labels'] ?? e.args?.['sort_index'];
      const key = `${e.name}\u0000${e.pid}\u0000${e.tid}\u0000${JSON.stringify(value)}`;
      if (seen.has(key)) {
        duplicates++;
        return;
      }
      seen.add(key);
      const pkey = String(e.pid);
      switch (e.name) {
        case 'process_name':
        case 'process_labels':
        case 'process_sort_index': {
          let p = processes.get(pkey);
          if (!p) processes.set(pkey, (p = { pid: e.pid }));
          if (e.name === 'process_name' && typeof value === 'string') p.name = value;
          if (e.name === 'process_labels' && typeof value === 'string') p.labels = value;
          if (e.name === 'process_sort_index') p.sortIndex = num(value);
          break;
        }
        case 'thread_name':
        case 'thread_sort_index': {
          const t = threadReg.threads[threadReg.indexOf(e.pid, e.tid)]!;
          if (e.name === 'thread_name' && typeof value === 'string') t.name = value;
          else t.sortIndex = num(value);
          break;
        }
      }
    },
    finalize(): { processes: ProcessInfo[]; count: number } {
      if (duplicates > 0) {
        ctx.diagnostics.add({
          code: 'DUPLICATE_METADATA',
          severity: 'info',
          count: duplicates,
          message: `${duplicates} duplicate metadata (M) records were ignored (Kineto repeats thread and process names).`,
        });
      }
      return { processes: [...processes.values()], count };
    },
  };
}

// ---------------------------------------------------------------- host events

const HOST_KIND_OF: Partial<Record<EventClass, HostKind>> = {
  [EventClass.CpuOp]: HostKind.Op,
  [EventClass.UserAnnotation]: HostKind.Annotation,
  [EventClass.Runtime]: HostKind.Runtime,
  [EventClass.Driver]: HostKind.Driver,
};

export function createHostEventsHandler(ctx: HandlerContext, threadReg: ThreadRegistry) {
  const kind = u8();
  const name = i32();
  const thread = i32();
  const startNs = f64();
  const durNs = f64();
  const externalId = f64();
  const correlation = f64();
  const args: (JsonObject | undefined)[] = [];
  let negative = 0;
  return {
    handleEvent(e: RawEvent, cls: EventClass): void {
      const k = HOST_KIND_OF[cls]!;
      let dur = e.durNs;
      if (!(dur >= 0)) {
        negative++;
        dur = 0;
      }
      kind.push(k);
      name.push(ctx.strings.intern(e.name));
      thread.push(threadReg.indexOf(e.pid, e.tid));
      startNs.push(e.tsNs);
      durNs.push(dur);
      externalId.push(externalIdOf(e.args));
      correlation.push(num(e.args?.['correlation']));
      args.push(k === HostKind.Op || k === HostKind.Annotation ? e.args : undefined);
    },
    finalize() {
      if (negative > 0) {
        ctx.diagnostics.add({
          code: 'NEGATIVE_DURATION',
          severity: 'warning',
          count: negative,
          message: `${negative} host event(s) had a negative or missing duration; read as 0.`,
        });
      }
      return {
        length: kind.length,
        kind: kind.trim(),
        name: name.trim(),
        thread: thread.trim(),
        startNs: startNs.trim(),
        durNs: durNs.trim(),
        externalId: externalId.trim(),
        correlation: correlation.trim(),
        args,
      };
    },
  };
}

// ---------------------------------------------------------------- python frames

export function createPythonFunctionsHandler(ctx: HandlerContext, threadReg: ThreadRegistry) {
  const name = i32();
  const thread = i32();
  const startNs = f64();
  const durNs = f64();
  return {
    handleEvent(e: RawEvent): void {
      name.push(ctx.strings.intern(e.name));
      thread.push(threadReg.indexOf(e.pid, e.tid));
      startNs.push(e.tsNs);
      durNs.push(e.durNs >= 0 ? e.durNs : 0);
    },
    finalize() {
      return { length: name.length, name: name.trim(), thread: thread.trim(), startNs: startNs.trim(), durNs: durNs.trim() };
    },
  };
}

// ---------------------------------------------------------------- GPU activities

const GPU_KIND_OF: Partial<Record<EventClass, GpuKind>> = {
  [EventClass.Kernel]: GpuKind.Kernel,
  [EventClass.Memcpy]: GpuKind.Memcpy,
  [EventClass.Memset]: GpuKind.Memset,
};

function intId(v: number | string): number {
  return typeof v === 'number' ? v : -1;
}

export function createGpuActivitiesHandler(ctx: HandlerContext) {
  const kind = u8();
  const name = i32();
  const device = i32();
  const stream = i32();
  const startNs = f64();
  const durNs = f64();
  const correlation = f64();
  const externalId = f64();
  const args: (JsonObject | undefined)[] = [];
  const annotations: GpuAnnotation[] = [];
  const syncs: SyncEvent[] = [];
  let negative = 0;
  return {
    handleEvent(e: RawEvent, cls: EventClass): void {
      if (cls === EventClass.GpuUserAnnotation) {
        annotations.push({
          name: e.name,
          device: intId(e.pid),
          stream: intId(e.tid),
          startNs: e.tsNs,
          durNs: e.durNs >= 0 ? e.durNs : 0,
          externalId: externalIdOf(e.args),
        });
        return;
      }
      if (cls === EventClass.CudaSync) {
        syncs.push({
          name: e.name,
          device: intId(e.pid),
          stream: intId(e.tid),
          startNs: e.tsNs,
          durNs: e.durNs >= 0 ? e.durNs : 0,
          correlation: num(e.args?.['correlation']),
          args: e.args,
        });
        return;
      }
      let dur = e.durNs;
      if (!(dur >= 0)) {
        negative++;
        dur = 0;
      }
      kind.push(GPU_KIND_OF[cls]!);
      name.push(ctx.strings.intern(e.name));
      // Device from the track (pid); `args.device` is the same on CUDA, but ROCm may differ (kineto-format.md §4).
      device.push(typeof e.pid === 'number' ? e.pid : num(e.args?.['device']));
      const s = num(e.args?.['stream']);
      stream.push(Number.isFinite(s) ? s : intId(e.tid));
      startNs.push(e.tsNs);
      durNs.push(dur);
      correlation.push(num(e.args?.['correlation']));
      externalId.push(externalIdOf(e.args));
      args.push(e.args);
    },
    finalize() {
      if (negative > 0) {
        ctx.diagnostics.add({
          code: 'NEGATIVE_DURATION',
          severity: 'warning',
          count: negative,
          message: `${negative} GPU activit(ies) had a negative or missing duration; read as 0.`,
        });
      }
      return {
        table: {
          length: kind.length,
          kind: kind.trim(),
          name: name.trim(),
          device: device.trim(),
          stream: stream.trim(),
          startNs: startNs.trim(),
          durNs: durNs.trim(),
          correlation: correlation.trim(),
          externalId: externalId.trim(),
        },
        args,
        annotations,
        syncs,
      };
    },
  };
}

// ---------------------------------------------------------------- flows

/**
 * `ac2g` flows repeat what `correlation` says (kineto-format.md §3.3); they are kept only to
 * recover the link of a GPU activity written without `correlation`: the `f` end sits at the
 * activity's start on its (device, stream) track.
 */
export function createFlowsHandler() {
  const endAt = new Map<string, number | string>();
  let count = 0;
  return {
    handleEvent(e: RawEvent, cls: EventClass): void {
      count++;
      if (cls === EventClass.FlowEnd && e.id !== undefined && (e.cat === 'ac2g' || e.cat.startsWith('async'))) {
        endAt.set(`${e.pid}\u0000${e.tid}\u0000${e.tsNs}`, e.id);
      }
    },
    finalize() {
      return {
        count,
        /** The flow id whose `f` binds at this (device, stream, ts). */
        flowEndAt(device: number, stream: number, tsNs: number): number | string | undefined {
          return endAt.get(`${device}\u0000${stream}\u0000${tsNs}`);
        },
      };
    },
  };
}

// ---------------------------------------------------------------- instants

export function createInstantsHandler(threadReg: ThreadRegistry) {
  const thread = i32();
  const tsNs = f64();
  const bytes = f64();
  const totalAllocated = f64();
  const totalReserved = f64();
  const deviceType = i32();
  const deviceId = i32();
  const oom = u8();
  let count = 0;
  return {
    handleEvent(e: RawEvent): void {
      count++;
      // Before kineto 2022-04 these carried no `cat`: identify them by name.
      if (e.name !== '[memory]' && e.name !== '[OutOfMemory]') return;
      const a = e.args;
      thread.push(threadReg.indexOf(e.pid, e.tid));
      tsNs.push(e.tsNs);
      bytes.push(num(a?.['Bytes']));
      totalAllocated.push(num(a?.['Total Allocated']));
      totalReserved.push(num(a?.['Total Reserved']));
      deviceType.push(num(a?.['Device Type']));
      deviceId.push(num(a?.['Device Id']));
      oom.push(e.name === '[OutOfMemory]' ? 1 : 0);
    },
    finalize() {
      return {
        count,
        table: {
          length: thread.length,
          thread: thread.trim(),
          tsNs: tsNs.trim(),
          bytes: bytes.trim(),
          totalAllocated: totalAllocated.trim(),
          totalReserved: totalReserved.trim(),
          deviceType: deviceType.trim(),
          deviceId: deviceId.trim(),
          outOfMemory: oom.trim(),
        },
      };
    },
  };
}
