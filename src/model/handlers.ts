/**
 * One-pass handlers: each owns one slice of the model and sees every event of its
 * classes exactly once, in file order. Handlers are made by factories and keep no
 * module-level state, so two traces can be built side by side (a diff).
 *
 * Handlers read each event straight out of the reader's columns (`Batch`, row `i`) into their
 * own: no object per event (a 10 GB trace has ~30 M events), and no number leaves a typed array
 * on the way (a double passed to a call may be boxed). RawEvent objects reach them the same way,
 * turned into columns by the builder first.
 *
 * Handled here: metadata (`M`), host events (cpu_op, user_annotation, runtime, driver),
 * python frames, GPU activities (kernel, memcpy, memset), GPU annotations, cuda_sync,
 * flows (`ac2g` — kept only as a fallback for activities without `correlation`),
 * instant events (`[memory]`, `[OutOfMemory]`), the profiler span (`Trace`).
 * Ignored: counters (`C`), overhead spans, `Iteration Start` / `Record Window End` markers
 * (counted, not stored).
 */
import type { DiagnosticSink } from '../core/diagnostics.js';
import {
  AN_BYTES,
  AN_CORRELATION,
  AN_DEVICE,
  AN_DEVICE_ID,
  AN_DEVICE_TYPE,
  AN_EXTERNAL_ID,
  AN_STREAM,
  AN_TOTAL_ALLOCATED,
  AN_TOTAL_RESERVED,
  ARG_NUMBERS,
  type EventColumns,
} from '../ingest/event-columns.js';
import type { JsonObject, JsonValue } from '../ingest/raw-event.js';
import { EventClass } from './classify.js';
import { ChunkedTable } from './columns.js';
import { IdTable } from './id-table.js';
import { StreamIds, TimeRuns } from './time-order.js';
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

const NO_INT32 = new Int32Array(0);
const NO_FLOAT64 = new Float64Array(0);

/**
 * The batch being added: the reader's columns (EventColumns), with its producer's labels and
 * kept args and its time shift, in one object of one class whoever made the batch. A batch
 * tokenized on this thread, one received from a worker (a plain object rebuilt by postMessage)
 * and RawColumns' have three hidden classes: handlers that read the batch object itself would be
 * optimised for the first and thrown away ("wrong map") when another arrives. The builder copies
 * the columns' references here once per batch (`load`), so every handler sees one shape whose
 * fields keep one type each.
 */
export class Batch {
  length = 0;
  ph: Int32Array = NO_INT32;
  cat: Int32Array = NO_INT32;
  name: Int32Array = NO_INT32;
  pid: Float64Array = NO_FLOAT64;
  pidLabel: Int32Array = NO_INT32;
  tid: Float64Array = NO_FLOAT64;
  tidLabel: Int32Array = NO_INT32;
  tsNs: Float64Array = NO_FLOAT64;
  durNs: Float64Array = NO_FLOAT64;
  flowId: Float64Array = NO_FLOAT64;
  flowIdLabel: Int32Array = NO_INT32;
  argNumbers: Float64Array = NO_FLOAT64;
  /** Args ids into `keptArgs` (−1: none kept). */
  args: Int32Array = NO_INT32;
  /** The producer's labels and kept args, by id. */
  labels: readonly string[] = [];
  keptArgs: readonly JsonObject[] = [];
  /**
   * Added to every ts: a producer whose time origin differs from the file's. It starts as a
   * double (−0), as a shift may be: a field whose representation changes deoptimises its readers.
   */
  shiftNs = -0;

  load(c: EventColumns, labels: readonly string[], keptArgs: readonly JsonObject[], shiftNs: number): void {
    this.length = c.length;
    this.ph = c.ph;
    this.cat = c.cat;
    this.name = c.name;
    this.pid = c.pid;
    this.pidLabel = c.pidLabel;
    this.tid = c.tid;
    this.tidLabel = c.tidLabel;
    this.tsNs = c.tsNs;
    this.durNs = c.durNs;
    this.flowId = c.flowId;
    this.flowIdLabel = c.flowIdLabel;
    this.argNumbers = c.argNumbers;
    this.args = c.args;
    this.labels = labels;
    this.keptArgs = keptArgs;
    this.shiftNs = shiftNs;
  }
}

/** Row i's kept args, if any. */
export function argsOf(b: Batch, i: number): JsonObject | undefined {
  const a = b.args[i]!;
  return a >= 0 ? b.keptArgs[a] : undefined;
}

/** pid or tid of row i as RawEvent holds it: a number, or the string that stays one. */
export function idOf(b: Batch, n: number, label: number): number | string {
  return label >= 0 ? b.labels[label]! : n;
}

export function num(v: JsonValue | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : NaN;
  }
  return NaN;
}

function reportNegativeDurations(ctx: HandlerContext, count: number, what: string): void {
  if (count === 0) return;
  ctx.diagnostics.add({
    code: 'NEGATIVE_DURATION',
    severity: 'warning',
    count,
    message: `${count} ${what} had a negative or missing duration; read as 0.`,
  });
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

export function createMetadataHandler(ctx: HandlerContext, threadReg: ThreadRegistry) {
  const processes = new Map<string, ProcessInfo>();
  const seen = new Set<string>();
  let duplicates = 0;
  let count = 0;
  return {
    /** Row i, an `M` record. */
    add(b: Batch, i: number): void {
      const name = b.labels[b.name[i]!]!;
      const pid = idOf(b, b.pid[i]!, b.pidLabel[i]!);
      const tid = idOf(b, b.tid[i]!, b.tidLabel[i]!);
      const args = argsOf(b, i);
      count++;
      const value = args?.['name'] ?? args?.['labels'] ?? args?.['sort_index'];
      const key = `${name}\u0000${pid}\u0000${tid}\u0000${JSON.stringify(value)}`;
      if (seen.has(key)) {
        duplicates++;
        return;
      }
      seen.add(key);
      const pkey = String(pid);
      switch (name) {
        case 'process_name':
        case 'process_labels':
        case 'process_sort_index': {
          let p = processes.get(pkey);
          if (!p) processes.set(pkey, (p = { pid }));
          if (name === 'process_name' && typeof value === 'string') p.name = value;
          if (name === 'process_labels' && typeof value === 'string') p.labels = value;
          if (name === 'process_sort_index') p.sortIndex = num(value);
          break;
        }
        case 'thread_name':
        case 'thread_sort_index': {
          const t = threadReg.threads[threadReg.indexOf(pid, tid)]!;
          if (name === 'thread_name' && typeof value === 'string') t.name = value;
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

/** EventClass → HostKind (−1: not a host event). */
const HOST_KIND_OF = new Int8Array(32).fill(-1);
HOST_KIND_OF[EventClass.CpuOp] = HostKind.Op;
HOST_KIND_OF[EventClass.UserAnnotation] = HostKind.Annotation;
HOST_KIND_OF[EventClass.Runtime] = HostKind.Runtime;
HOST_KIND_OF[EventClass.Driver] = HostKind.Driver;

const HOST_COLUMNS = {
  kind: Uint8Array,
  name: Int32Array,
  thread: Int32Array,
  startNs: Float64Array,
  durNs: Float64Array,
  externalId: Float64Array,
  correlation: Float64Array,
} as const;

const STEP_RE = /^ProfilerStep#(\d+)$/;

/**
 * Besides the table, it keeps what `finish` would otherwise find by visiting every host event
 * again: each thread's rows and their runs in time order (nesting), the first runtime/driver
 * call of each correlation (linking), and the `ProfilerStep#N` annotations.
 */
export function createHostEventsHandler(ctx: HandlerContext) {
  const t = new ChunkedTable(HOST_COLUMNS);
  const args: (JsonObject | undefined)[] = [];
  const runs = new TimeRuns(true);
  const byCorrelation = new IdTable();
  const stepRows: number[] = [];
  /** Per string id: 1 a ProfilerStep#N name, 2 not, 0 not seen yet. */
  let isStep = new Uint8Array(256);
  let negative = 0;
  const stepName = (nameId: number): boolean => {
    if (nameId >= isStep.length) {
      const a = new Uint8Array(Math.max(nameId + 1, isStep.length * 2));
      a.set(isStep);
      isStep = a;
    }
    if (isStep[nameId] === 0) isStep[nameId] = STEP_RE.test(ctx.strings.get(nameId)) ? 1 : 2;
    return isStep[nameId] === 1;
  };
  return {
    /** Row i of a cpu_op, user_annotation, runtime or driver class; `nameId`: a StringTable id; `thread`: a ThreadRegistry index. */
    add(b: Batch, i: number, cls: EventClass, nameId: number, thread: number): void {
      const o = i * ARG_NUMBERS;
      const k = HOST_KIND_OF[cls]!;
      let dur = b.durNs[i]!;
      if (!(dur >= 0)) {
        negative++;
        dur = 0;
      }
      const start = b.tsNs[i]! + b.shiftNs;
      const ext = b.argNumbers[o + AN_EXTERNAL_ID]!;
      const corr = b.argNumbers[o + AN_CORRELATION]!;
      const row = t.length;
      const r = t.row();
      const x = t.cur;
      x.kind[r] = k;
      x.name[r] = nameId;
      x.thread[r] = thread;
      x.startNs[r] = start;
      x.durNs[r] = dur;
      x.externalId[r] = ext;
      x.correlation[r] = corr;
      runs.add(thread, row, start, dur);
      if (k === HostKind.Annotation) {
        if (stepName(nameId)) stepRows.push(row);
      } else if (k !== HostKind.Op && Number.isFinite(corr)) byCorrelation.add(corr, row);
      args.push(k === HostKind.Op || k === HostKind.Annotation ? argsOf(b, i) : undefined);
    },
    /** The table, its times less `originNs`. */
    finalize(originNs: number) {
      reportNegativeDurations(ctx, negative, 'host event(s)');
      const length = t.length;
      const table = { length, ...t.trim({ startNs: originNs }), args };
      return {
        table,
        /** Rows in (thread, start, end descending, row) order; undefined when a start is not finite. */
        order: runs.order(table.startNs, table.durNs, originNs)?.order,
        byCorrelation,
        /** ProfilerStep#N annotations, in row order, and the pattern their names matched. */
        stepRows,
        stepPattern: STEP_RE,
      };
    },
  };
}

// ---------------------------------------------------------------- python frames

const PYTHON_COLUMNS = { name: Int32Array, thread: Int32Array, startNs: Float64Array, durNs: Float64Array } as const;

export function createPythonFunctionsHandler() {
  const t = new ChunkedTable(PYTHON_COLUMNS);
  return {
    add(b: Batch, i: number, nameId: number, thread: number): void {
      const dur = b.durNs[i]!;
      const r = t.row();
      const x = t.cur;
      x.name[r] = nameId;
      x.thread[r] = thread;
      x.startNs[r] = b.tsNs[i]! + b.shiftNs;
      x.durNs[r] = dur >= 0 ? dur : 0;
    },
    finalize(originNs: number) {
      const length = t.length;
      return { length, ...t.trim({ startNs: originNs }) };
    },
  };
}

// ---------------------------------------------------------------- GPU activities

/** EventClass → GpuKind. */
const GPU_KIND_OF = new Int8Array(32).fill(-1);
GPU_KIND_OF[EventClass.Kernel] = GpuKind.Kernel;
GPU_KIND_OF[EventClass.Memcpy] = GpuKind.Memcpy;
GPU_KIND_OF[EventClass.Memset] = GpuKind.Memset;

const GPU_COLUMNS = {
  kind: Uint8Array,
  name: Int32Array,
  device: Int32Array,
  stream: Int32Array,
  startNs: Float64Array,
  durNs: Float64Array,
  correlation: Float64Array,
  externalId: Float64Array,
} as const;

/** Besides the table, it keeps each stream's rows and their runs in time order (overlaps, annotations). */
export function createGpuActivitiesHandler(ctx: HandlerContext) {
  const t = new ChunkedTable(GPU_COLUMNS);
  const runs = new TimeRuns(false);
  const streams = new StreamIds();
  const args: (JsonObject | undefined)[] = [];
  const annotations: GpuAnnotation[] = [];
  const syncs: SyncEvent[] = [];
  let negative = 0;
  return {
    /**
     * Row i of a kernel, memcpy or memset class. Device: the track's pid when it is a number,
     * else `args.device` (the same on CUDA; ROCm may differ, kineto-format.md §4); stream:
     * `args.stream`, else the tid when it is a number, else −1.
     */
    add(b: Batch, i: number, cls: EventClass, nameId: number): void {
      const an = b.argNumbers;
      const o = i * ARG_NUMBERS;
      let dur = b.durNs[i]!;
      if (!(dur >= 0)) {
        negative++;
        dur = 0;
      }
      const s = an[o + AN_STREAM]!;
      const start = b.tsNs[i]! + b.shiftNs;
      const row = t.length;
      const r = t.row();
      const x = t.cur;
      x.kind[r] = GPU_KIND_OF[cls]!;
      x.name[r] = nameId;
      x.device[r] = b.pidLabel[i]! < 0 ? b.pid[i]! : an[o + AN_DEVICE]!;
      x.stream[r] = Number.isFinite(s) ? s : b.tidLabel[i]! < 0 ? b.tid[i]! : -1;
      x.startNs[r] = start;
      x.durNs[r] = dur;
      x.correlation[r] = an[o + AN_CORRELATION]!;
      x.externalId[r] = an[o + AN_EXTERNAL_ID]!;
      runs.add(streams.idOf(x.device[r]!, x.stream[r]!), row, start, dur);
      args.push(argsOf(b, i));
    },
    /** Row i of a gpu_user_annotation. */
    annotation(b: Batch, i: number): void {
      annotations.push({ ...trackSpan(b, i), externalId: b.argNumbers[i * ARG_NUMBERS + AN_EXTERNAL_ID]! });
    },
    /** Row i of a cuda_sync. */
    sync(b: Batch, i: number): void {
      syncs.push({ ...trackSpan(b, i), correlation: b.argNumbers[i * ARG_NUMBERS + AN_CORRELATION]!, args: argsOf(b, i) });
    },
    /** The tables, their times less `originNs`. */
    finalize(originNs: number) {
      reportNegativeDurations(ctx, negative, 'GPU activit(ies)');
      const length = t.length;
      const table = { length, ...t.trim({ startNs: originNs }) };
      const byPair = streams.sorted();
      const o = runs.order(table.startNs, table.durNs, originNs, byPair);
      return {
        table,
        /** Rows by (device, stream), start, row; undefined when a start is not finite. */
        streams: o && { ...o, streams: byPair.map((k) => streams.pairs[k]!) },
        args,
        annotations: annotations.map((x) => ({ ...x, startNs: x.startNs - originNs })),
        syncs: syncs.map((x) => ({ ...x, startNs: x.startNs - originNs })),
      };
    },
  };
}

/** Name, (device, stream) track and span of row i, a GPU annotation or sync: −1 for a track id that is a string. */
function trackSpan(b: Batch, i: number) {
  const dur = b.durNs[i]!;
  return {
    name: b.labels[b.name[i]!]!,
    device: b.pidLabel[i]! < 0 ? b.pid[i]! : -1,
    stream: b.tidLabel[i]! < 0 ? b.tid[i]! : -1,
    startNs: b.tsNs[i]! + b.shiftNs,
    durNs: dur >= 0 ? dur : 0,
  };
}

// ---------------------------------------------------------------- flows

const FLOW_END_COLUMNS = { pid: Float64Array, tid: Float64Array, ts: Float64Array, id: Float64Array } as const;

/**
 * `ac2g` flows repeat what `correlation` says (kineto-format.md §3.3); they are kept only to
 * recover the link of a GPU activity written without `correlation`: the `f` end sits at the
 * activity's start on its (device, stream) track. Kept in chunks (never trimmed); the lookup
 * is built on first use (most traces never ask).
 */
export function createFlowsHandler() {
  const ends: { pid: number | string; tid: number | string; ts: number; id: number | string }[] = [];
  const t = new ChunkedTable(FLOW_END_COLUMNS);
  let count = 0;
  return {
    count(): void {
      count++;
    },
    /** Row i, a flow's `f` end: kept when its category is `ac2g` or async and it has an id. */
    end(b: Batch, i: number): void {
      const fid = b.flowId[i]!;
      const fidL = b.flowIdLabel[i]!;
      if (fid !== fid && fidL < 0) return;
      const cat = b.labels[b.cat[i]!]!;
      if (cat !== 'ac2g' && !cat.startsWith('async')) return;
      const ts = b.tsNs[i]! + b.shiftNs;
      if (b.pidLabel[i]! < 0 && b.tidLabel[i]! < 0 && fidL < 0) {
        const r = t.row();
        const x = t.cur;
        x.pid[r] = b.pid[i]!;
        x.tid[r] = b.tid[i]!;
        x.ts[r] = ts;
        x.id[r] = fid;
      } else ends.push({ pid: idOf(b, b.pid[i]!, b.pidLabel[i]!), tid: idOf(b, b.tid[i]!, b.tidLabel[i]!), ts, id: fidL >= 0 ? b.labels[fidL]! : fid });
    },
    finalize() {
      let endAt: Map<string, number | string> | undefined;
      return {
        count,
        /** The flow id whose `f` binds at this (device, stream, ts). */
        flowEndAt(device: number, stream: number, tsNs: number): number | string | undefined {
          if (endAt === undefined) {
            const m = (endAt = new Map());
            t.forEachChunk((c, rows) => {
              for (let k = 0; k < rows; k++) m.set(`${c.pid[k]}\u0000${c.tid[k]}\u0000${c.ts[k]}`, c.id[k]!);
            });
            for (const e of ends) m.set(`${e.pid}\u0000${e.tid}\u0000${e.ts}`, e.id);
          }
          return endAt.get(`${device}\u0000${stream}\u0000${tsNs}`);
        },
      };
    },
  };
}

// ---------------------------------------------------------------- instants

const MEMORY_COLUMNS = {
  thread: Int32Array,
  tsNs: Float64Array,
  bytes: Float64Array,
  totalAllocated: Float64Array,
  totalReserved: Float64Array,
  deviceType: Int32Array,
  deviceId: Int32Array,
  outOfMemory: Uint8Array,
} as const;

export function createInstantsHandler() {
  const t = new ChunkedTable(MEMORY_COLUMNS);
  let count = 0;
  return {
    count(): void {
      count++;
    },
    /** Row i, a `[memory]` / `[OutOfMemory]` record (before kineto 2022-04 they carried no `cat`: known by name). */
    memory(b: Batch, i: number, thread: number, outOfMemory: boolean): void {
      const an = b.argNumbers;
      const o = i * ARG_NUMBERS;
      const r = t.row();
      const x = t.cur;
      x.thread[r] = thread;
      x.tsNs[r] = b.tsNs[i]! + b.shiftNs;
      x.bytes[r] = an[o + AN_BYTES]!;
      x.totalAllocated[r] = an[o + AN_TOTAL_ALLOCATED]!;
      x.totalReserved[r] = an[o + AN_TOTAL_RESERVED]!;
      x.deviceType[r] = an[o + AN_DEVICE_TYPE]!;
      x.deviceId[r] = an[o + AN_DEVICE_ID]!;
      x.outOfMemory[r] = outOfMemory ? 1 : 0;
    },
    /** The table, its times less `originNs`. */
    finalize(originNs: number) {
      const length = t.length;
      return { count, table: { length, ...t.trim({ tsNs: originNs }) } };
    },
  };
}
