/**
 * One-pass handlers: each owns one slice of the model and sees every event of its
 * classes exactly once, in file order. Handlers are made by factories and keep no
 * module-level state, so two traces can be built side by side (a diff).
 *
 * Handlers take plain values (the builder reads them out of the reader's columns), never an
 * object per event: a 10 GB trace has ~30 M events.
 *
 * Handled here: metadata (`M`), host events (cpu_op, user_annotation, runtime, driver),
 * python frames, GPU activities (kernel, memcpy, memset), GPU annotations, cuda_sync,
 * flows (`ac2g` — kept only as a fallback for activities without `correlation`),
 * instant events (`[memory]`, `[OutOfMemory]`), the profiler span (`Trace`).
 * Ignored: counters (`C`), overhead spans, `Iteration Start` / `Record Window End` markers
 * (counted, not stored).
 */
import type { DiagnosticSink } from '../core/diagnostics.js';
import type { JsonObject, JsonValue } from '../ingest/raw-event.js';
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
  const byKey = new Map<string, number>();
  // Numeric (pid, tid), the common case, without building a key string per event.
  const byNumber = new Map<number, Map<number, number>>();
  const threads: ThreadInfo[] = [];
  const add = (pid: number | string, tid: number | string, key: string): number => {
    const i = threads.length;
    threads.push({ pid, tid });
    byKey.set(key, i);
    return i;
  };
  return {
    threads,
    indexOf(pid: number | string, tid: number | string): number {
      if (typeof pid === 'number' && typeof tid === 'number') {
        let m = byNumber.get(pid);
        if (m === undefined) byNumber.set(pid, (m = new Map()));
        let i = m.get(tid);
        if (i === undefined) {
          const key = `${pid}\u0000${tid}`;
          i = byKey.get(key) ?? add(pid, tid, key);
          m.set(tid, i);
        }
        return i;
      }
      const key = `${pid}\u0000${tid}`;
      return byKey.get(key) ?? add(pid, tid, key);
    },
  };
}
export type ThreadRegistry = ReturnType<typeof createThreadRegistry>;

// ---------------------------------------------------------------- metadata

export interface MetadataEvent {
  readonly name: string;
  readonly pid: number | string;
  readonly tid: number | string;
  readonly args: JsonObject | undefined;
}

export function createMetadataHandler(ctx: HandlerContext, threadReg: ThreadRegistry) {
  const processes = new Map<string, ProcessInfo>();
  const seen = new Set<string>();
  let duplicates = 0;
  let count = 0;
  return {
    handleEvent(e: MetadataEvent): void {
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

export function createHostEventsHandler(ctx: HandlerContext) {
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
    /** `nameId`: a StringTable id; `thread`: a ThreadRegistry index. */
    add(cls: EventClass, nameId: number, threadIndex: number, ts: number, dur: number, ext: number, corr: number, a: JsonObject | undefined): void {
      const k = HOST_KIND_OF[cls]!;
      if (!(dur >= 0)) {
        negative++;
        dur = 0;
      }
      kind.push(k);
      name.push(nameId);
      thread.push(threadIndex);
      startNs.push(ts);
      durNs.push(dur);
      externalId.push(ext);
      correlation.push(corr);
      args.push(k === HostKind.Op || k === HostKind.Annotation ? a : undefined);
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

export function createPythonFunctionsHandler() {
  const name = i32();
  const thread = i32();
  const startNs = f64();
  const durNs = f64();
  return {
    add(nameId: number, threadIndex: number, ts: number, dur: number): void {
      name.push(nameId);
      thread.push(threadIndex);
      startNs.push(ts);
      durNs.push(dur >= 0 ? dur : 0);
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
    /**
     * A kernel, memcpy or memset. `dev`: the track's pid when it is a number, else `args.device`
     * (the same on CUDA; ROCm may differ, kineto-format.md §4); `str`: `args.stream`, else the
     * tid when it is a number, else −1.
     */
    add(cls: EventClass, nameId: number, dev: number, str: number, ts: number, dur: number, corr: number, ext: number, a: JsonObject | undefined): void {
      if (!(dur >= 0)) {
        negative++;
        dur = 0;
      }
      kind.push(GPU_KIND_OF[cls]!);
      name.push(nameId);
      device.push(dev);
      stream.push(str);
      startNs.push(ts);
      durNs.push(dur);
      correlation.push(corr);
      externalId.push(ext);
      args.push(a);
    },
    annotation(a: GpuAnnotation): void {
      annotations.push(a);
    },
    sync(s: SyncEvent): void {
      syncs.push(s);
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
 * activity's start on its (device, stream) track. Stored as columns; the lookup is built on
 * first use (most traces never ask).
 */
export function createFlowsHandler() {
  const ends: { pid: number | string; tid: number | string; ts: number; id: number | string }[] = [];
  const numPid = f64();
  const numTid = f64();
  const numTs = f64();
  const numId = f64();
  let count = 0;
  return {
    count(): void {
      count++;
    },
    /** An `f` end of an `ac2g` / async flow. */
    end(pid: number | string, tid: number | string, ts: number, id: number | string): void {
      if (typeof pid === 'number' && typeof tid === 'number' && typeof id === 'number') {
        numPid.push(pid);
        numTid.push(tid);
        numTs.push(ts);
        numId.push(id);
      } else ends.push({ pid, tid, ts, id });
    },
    finalize() {
      let endAt: Map<string, number | string> | undefined;
      const cols = { pid: numPid.trim(), tid: numTid.trim(), ts: numTs.trim(), id: numId.trim() };
      return {
        count,
        /** The flow id whose `f` binds at this (device, stream, ts). */
        flowEndAt(device: number, stream: number, tsNs: number): number | string | undefined {
          if (endAt === undefined) {
            endAt = new Map();
            for (let k = 0; k < cols.pid.length; k++) endAt.set(`${cols.pid[k]}\u0000${cols.tid[k]}\u0000${cols.ts[k]}`, cols.id[k]!);
            for (const e of ends) endAt.set(`${e.pid}\u0000${e.tid}\u0000${e.ts}`, e.id);
          }
          return endAt.get(`${device}\u0000${stream}\u0000${tsNs}`);
        },
      };
    },
  };
}

// ---------------------------------------------------------------- instants

export function createInstantsHandler() {
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
    count(): void {
      count++;
    },
    /** A `[memory]` / `[OutOfMemory]` record (before kineto 2022-04 they carried no `cat`: known by name). */
    memory(threadIndex: number, ts: number, outOfMemory: boolean, b: number, alloc: number, reserved: number, devType: number, devId: number): void {
      thread.push(threadIndex);
      tsNs.push(ts);
      bytes.push(b);
      totalAllocated.push(alloc);
      totalReserved.push(reserved);
      deviceType.push(devType);
      deviceId.push(devId);
      oom.push(outOfMemory ? 1 : 0);
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
