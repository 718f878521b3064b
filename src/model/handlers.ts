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
import { ChunkedTable, valuesColumn } from './columns.js';
import { IdTable } from './id-table.js';
import { StreamIds, TimeRuns } from './time-order.js';
import type { StringTable } from './strings.js';
import type { TableKernels } from './table-kernels.js';
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
  /** Another implementation of the table-wide loops, when there is one (table-kernels.ts). */
  readonly kernels?: TableKernels;
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
function argsOf(b: Batch, i: number): JsonObject | undefined {
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

/** Events whose ts could not be read (missing, a string, NaN) are left out: every analysis orders and nests by time. */
function reportMissingStarts(ctx: HandlerContext, count: number, what: string): void {
  if (count === 0) return;
  ctx.diagnostics.add({
    code: 'MISSING_TIMESTAMP',
    severity: 'warning',
    count,
    message: `${count} ${what} had no readable ts; left out.`,
  });
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

/*
 * Handlers are classes behind their factories: a method is one function for every trace, so what
 * V8 learns about it from the primer (primer.ts) holds for the next trace; closures made anew for
 * each trace would each start from nothing whenever V8 had not yet shared their feedback.
 */

/** (pid, tid) → thread index, shared by every handler that places events on host threads. */
export class ThreadRegistry {
  readonly threads: ThreadInfo[] = [];
  private readonly byKey = new Map<string, number>();
  /** Numeric (pid, tid), the common case, without building a key string per event. */
  private readonly byNumber = new Map<number, Map<number, number>>();

  indexOf(pid: number | string, tid: number | string): number {
    if (typeof pid === 'number' && typeof tid === 'number') {
      let m = this.byNumber.get(pid);
      if (m === undefined) this.byNumber.set(pid, (m = new Map()));
      let i = m.get(tid);
      if (i === undefined) {
        const key = `${pid}\u0000${tid}`;
        i = this.byKey.get(key) ?? this.add(pid, tid, key);
        m.set(tid, i);
      }
      return i;
    }
    const key = `${pid}\u0000${tid}`;
    return this.byKey.get(key) ?? this.add(pid, tid, key);
  }

  private add(pid: number | string, tid: number | string, key: string): number {
    const i = this.threads.length;
    this.threads.push({ pid, tid });
    this.byKey.set(key, i);
    return i;
  }
}

export function createThreadRegistry(): ThreadRegistry {
  return new ThreadRegistry();
}

// ---------------------------------------------------------------- metadata

export class MetadataHandler {
  private readonly processes = new Map<string, ProcessInfo>();
  private readonly seen = new Set<string>();
  private duplicates = 0;
  private count = 0;

  constructor(
    private readonly ctx: HandlerContext,
    private readonly threadReg: ThreadRegistry,
  ) {}

  /** Row i, an `M` record. */
  add(b: Batch, i: number): void {
    const name = b.labels[b.name[i]!]!;
    const pid = idOf(b, b.pid[i]!, b.pidLabel[i]!);
    const tid = idOf(b, b.tid[i]!, b.tidLabel[i]!);
    const args = argsOf(b, i);
    this.count++;
    const value = args?.['name'] ?? args?.['labels'] ?? args?.['sort_index'];
    const key = `${name}\u0000${pid}\u0000${tid}\u0000${JSON.stringify(value)}`;
    if (this.seen.has(key)) {
      this.duplicates++;
      return;
    }
    this.seen.add(key);
    const pkey = String(pid);
    switch (name) {
      case 'process_name':
      case 'process_labels':
      case 'process_sort_index': {
        let p = this.processes.get(pkey);
        if (!p) this.processes.set(pkey, (p = { pid }));
        if (name === 'process_name' && typeof value === 'string') p.name = value;
        if (name === 'process_labels' && typeof value === 'string') p.labels = value;
        if (name === 'process_sort_index') p.sortIndex = num(value);
        break;
      }
      case 'thread_name':
      case 'thread_sort_index': {
        const t = this.threadReg.threads[this.threadReg.indexOf(pid, tid)]!;
        if (name === 'thread_name' && typeof value === 'string') t.name = value;
        else t.sortIndex = num(value);
        break;
      }
    }
  }

  finalize(): { processes: ProcessInfo[]; count: number } {
    const duplicates = this.duplicates;
    if (duplicates > 0) {
      this.ctx.diagnostics.add({
        code: 'DUPLICATE_METADATA',
        severity: 'info',
        count: duplicates,
        message: `${duplicates} duplicate metadata (M) records were ignored (Kineto repeats thread and process names).`,
      });
    }
    return { processes: [...this.processes.values()], count: this.count };
  }
}

export function createMetadataHandler(ctx: HandlerContext, threadReg: ThreadRegistry): MetadataHandler {
  return new MetadataHandler(ctx, threadReg);
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
  /** Kept args of cpu_ops and user annotations. */
  args: valuesColumn<JsonObject | undefined>(),
} as const;

const STEP_RE = /^ProfilerStep#(\d+)$/;

/**
 * Besides the table, it keeps what `finish` would otherwise find by visiting every host event
 * again: each thread's rows and their runs in time order (nesting), the first runtime/driver
 * call of each correlation (linking), and the `ProfilerStep#N` annotations.
 */
export class HostEventsHandler {
  private readonly t = new ChunkedTable(HOST_COLUMNS);
  private readonly runs = new TimeRuns(true);
  private readonly byCorrelation = new IdTable();
  private readonly stepRows: number[] = [];
  /** Per string id: 1 a ProfilerStep#N name, 2 not, 0 not seen yet. Starts empty: see primer.ts on growing arrays. */
  private isStep = new Uint8Array(0);
  private negative = 0;
  private noTs = 0;

  constructor(private readonly ctx: HandlerContext) {}

  /** Row i of a cpu_op, user_annotation, runtime or driver class; `nameId`: a StringTable id; `thread`: a ThreadRegistry index. */
  add(b: Batch, i: number, cls: EventClass, nameId: number, thread: number): void {
    if (!Number.isFinite(b.tsNs[i]!)) {
      this.noTs++;
      return;
    }
    const o = i * ARG_NUMBERS;
    const k = HOST_KIND_OF[cls]!;
    let dur = b.durNs[i]!;
    if (!(dur >= 0)) {
      this.negative++;
      dur = 0;
    }
    const start = b.tsNs[i]! + b.shiftNs;
    const ext = b.argNumbers[o + AN_EXTERNAL_ID]!;
    const corr = b.argNumbers[o + AN_CORRELATION]!;
    const t = this.t;
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
    x.args[r] = k === HostKind.Op || k === HostKind.Annotation ? argsOf(b, i) : undefined;
    this.runs.add(thread, row, start, dur);
    if (k === HostKind.Annotation) {
      if (this.stepName(nameId)) this.stepRows.push(row);
    } else if (k !== HostKind.Op && Number.isFinite(corr)) this.byCorrelation.add(corr, row);
  }

  private stepName(nameId: number): boolean {
    if (nameId >= this.isStep.length) {
      const a = new Uint8Array(Math.max(nameId + 1, this.isStep.length * 2, 256));
      a.set(this.isStep);
      this.isStep = a;
    }
    if (this.isStep[nameId] === 0) this.isStep[nameId] = STEP_RE.test(this.ctx.strings.get(nameId)) ? 1 : 2;
    return this.isStep[nameId] === 1;
  }

  /** The table, its times less `originNs`. */
  finalize(originNs: number) {
    reportNegativeDurations(this.ctx, this.negative, 'host event(s)');
    reportMissingStarts(this.ctx, this.noTs, 'host event(s)');
    const length = this.t.length;
    const table = { length, ...this.t.trim({ startNs: originNs }) };
    return {
      table,
      /** Rows in (thread, start, end descending, row) order; undefined when a start is not finite. */
      order: this.runs.order(table.startNs, table.durNs, originNs, undefined, this.ctx.kernels)?.order,
      byCorrelation: this.byCorrelation,
      /** ProfilerStep#N annotations, in row order, and the pattern their names matched. */
      stepRows: this.stepRows,
      stepPattern: STEP_RE,
    };
  }
}

export function createHostEventsHandler(ctx: HandlerContext): HostEventsHandler {
  return new HostEventsHandler(ctx);
}

// ---------------------------------------------------------------- python frames

const PYTHON_COLUMNS = { name: Int32Array, thread: Int32Array, startNs: Float64Array, durNs: Float64Array } as const;

export class PythonFunctionsHandler {
  private readonly t = new ChunkedTable(PYTHON_COLUMNS);

  add(b: Batch, i: number, nameId: number, thread: number): void {
    const dur = b.durNs[i]!;
    const t = this.t;
    const r = t.row();
    const x = t.cur;
    x.name[r] = nameId;
    x.thread[r] = thread;
    x.startNs[r] = b.tsNs[i]! + b.shiftNs;
    x.durNs[r] = dur >= 0 ? dur : 0;
  }

  finalize(originNs: number) {
    const length = this.t.length;
    return { length, ...this.t.trim({ startNs: originNs }) };
  }
}

export function createPythonFunctionsHandler(): PythonFunctionsHandler {
  return new PythonFunctionsHandler();
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
  /** Kept args (handed on beside the table). */
  args: valuesColumn<JsonObject | undefined>(),
} as const;

/** Besides the table, it keeps each stream's rows and their runs in time order (overlaps, annotations). */
export class GpuActivitiesHandler {
  private readonly t = new ChunkedTable(GPU_COLUMNS);
  private readonly runs = new TimeRuns(false);
  private readonly streams = new StreamIds();
  private readonly annotations: GpuAnnotation[] = [];
  private readonly syncs: SyncEvent[] = [];
  private negative = 0;
  private noTs = 0;

  constructor(private readonly ctx: HandlerContext) {}

  /**
   * Row i of a kernel, memcpy or memset class. Device: the track's pid when it is a number,
   * else `args.device` (the same on CUDA; ROCm may differ, kineto-format.md §4); stream:
   * `args.stream`, else the tid when it is a number, else −1.
   */
  add(b: Batch, i: number, cls: EventClass, nameId: number): void {
    if (!Number.isFinite(b.tsNs[i]!)) {
      this.noTs++;
      return;
    }
    const an = b.argNumbers;
    const o = i * ARG_NUMBERS;
    let dur = b.durNs[i]!;
    if (!(dur >= 0)) {
      this.negative++;
      dur = 0;
    }
    const s = an[o + AN_STREAM]!;
    const start = b.tsNs[i]! + b.shiftNs;
    const t = this.t;
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
    x.args[r] = argsOf(b, i);
    this.runs.add(this.streams.idOf(x.device[r]!, x.stream[r]!), row, start, dur);
  }

  /** Row i of a gpu_user_annotation. */
  annotation(b: Batch, i: number): void {
    this.annotations.push({ ...trackSpan(b, i), externalId: b.argNumbers[i * ARG_NUMBERS + AN_EXTERNAL_ID]! });
  }

  /** Row i of a cuda_sync. */
  sync(b: Batch, i: number): void {
    this.syncs.push({ ...trackSpan(b, i), correlation: b.argNumbers[i * ARG_NUMBERS + AN_CORRELATION]!, args: argsOf(b, i) });
  }

  /** The tables, their times less `originNs`. */
  finalize(originNs: number) {
    reportNegativeDurations(this.ctx, this.negative, 'GPU activit(ies)');
    reportMissingStarts(this.ctx, this.noTs, 'GPU activit(ies)');
    const length = this.t.length;
    const { args, ...columns } = this.t.trim({ startNs: originNs });
    const table = { length, ...columns };
    const streams = this.streams;
    const byPair = streams.sorted();
    const o = this.runs.order(table.startNs, table.durNs, originNs, byPair, this.ctx.kernels);
    return {
      table,
      /** Rows by (device, stream), start, row; undefined when a start is not finite. */
      streams: o && { ...o, streams: byPair.map((k) => streams.pairs[k]!) },
      args,
      annotations: this.annotations.map((x) => ({ ...x, startNs: x.startNs - originNs })),
      syncs: this.syncs.map((x) => ({ ...x, startNs: x.startNs - originNs })),
    };
  }
}

export function createGpuActivitiesHandler(ctx: HandlerContext): GpuActivitiesHandler {
  return new GpuActivitiesHandler(ctx);
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

interface FlowEnd {
  pid: number | string;
  tid: number | string;
  ts: number;
  id: number | string;
}

/**
 * `ac2g` flows repeat what `correlation` says (kineto-format.md §3.3); they are kept only to
 * recover the link of a GPU activity written without `correlation`: the `f` end sits at the
 * activity's start on its (device, stream) track. Kept in chunks (never trimmed); the lookup
 * is built on first use (most traces never ask).
 */
export class FlowsHandler {
  private readonly ends: FlowEnd[] = [];
  private readonly t = new ChunkedTable(FLOW_END_COLUMNS);
  private count = 0;

  /** A flow event of any phase. */
  counted(): void {
    this.count++;
  }

  /** Row i, a flow's `f` end: kept when its category is `ac2g` or async and it has an id. */
  end(b: Batch, i: number): void {
    this.count++;
    const fid = b.flowId[i]!;
    const fidL = b.flowIdLabel[i]!;
    if (fid !== fid && fidL < 0) return;
    const cat = b.labels[b.cat[i]!]!;
    if (cat !== 'ac2g' && !cat.startsWith('async')) return;
    const ts = b.tsNs[i]! + b.shiftNs;
    if (b.pidLabel[i]! < 0 && b.tidLabel[i]! < 0 && fidL < 0) {
      const t = this.t;
      const r = t.row();
      const x = t.cur;
      x.pid[r] = b.pid[i]!;
      x.tid[r] = b.tid[i]!;
      x.ts[r] = ts;
      x.id[r] = fid;
    } else this.ends.push({ pid: idOf(b, b.pid[i]!, b.pidLabel[i]!), tid: idOf(b, b.tid[i]!, b.tidLabel[i]!), ts, id: fidL >= 0 ? b.labels[fidL]! : fid });
  }

  finalize() {
    let endAt: Map<string, number | string> | undefined;
    const t = this.t;
    const ends = this.ends;
    return {
      count: this.count,
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
  }
}

export function createFlowsHandler(): FlowsHandler {
  return new FlowsHandler();
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
  addr: Float64Array,
  outOfMemory: Uint8Array,
} as const;

export class InstantsHandler {
  private readonly t = new ChunkedTable(MEMORY_COLUMNS);
  private count = 0;

  /** An instant event of any name. */
  counted(): void {
    this.count++;
  }

  /** Row i, a `[memory]` / `[OutOfMemory]` record (before kineto 2022-04 they carried no `cat`: known by name). */
  memory(b: Batch, i: number, thread: number, outOfMemory: boolean): void {
    const an = b.argNumbers;
    const o = i * ARG_NUMBERS;
    const t = this.t;
    const r = t.row();
    const x = t.cur;
    x.thread[r] = thread;
    x.tsNs[r] = b.tsNs[i]! + b.shiftNs;
    x.bytes[r] = an[o + AN_BYTES]!;
    x.totalAllocated[r] = an[o + AN_TOTAL_ALLOCATED]!;
    x.totalReserved[r] = an[o + AN_TOTAL_RESERVED]!;
    x.deviceType[r] = an[o + AN_DEVICE_TYPE]!;
    x.deviceId[r] = an[o + AN_DEVICE_ID]!;
    // `Addr` is the one arg kept of a record (MEMORY_ARGS_DROPPED): it pairs a free with its allocation.
    const a = b.args[i]!;
    const addr = a >= 0 ? b.keptArgs[a]!['Addr'] : undefined;
    x.addr[r] = typeof addr === 'number' ? addr : NaN;
    x.outOfMemory[r] = outOfMemory ? 1 : 0;
  }

  /** The table, its times less `originNs`. */
  finalize(originNs: number) {
    const length = this.t.length;
    return { count: this.count, table: { length, ...this.t.trim({ tsNs: originNs }) } };
  }
}

export function createInstantsHandler(): InstantsHandler {
  return new InstantsHandler();
}
