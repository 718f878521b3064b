/**
 * Builds the trace model in one pass: each event is classified once and handed to the
 * handler that owns its class; `finish` rebases time to the profiler's start, nests host
 * events, links GPU work to launches and owners, and finds the profiler steps.
 *
 * Events come as the reader's columns (EventColumns: labels and args interned, one batch of
 * typed arrays per 4096 events) — `addColumns` — or as RawEvent objects — `add`, which turns
 * them into columns first: the handlers have one entry, the columns, so both build the same
 * model.
 *
 * `finish` runs once per trace, so its loops run mostly unoptimised (V8 optimises a loop only
 * after it has run a while): what can be kept while events are added — which rows are in time
 * order, the ids linking needs, the profiler steps — is kept then, in code that is hot.
 */
import { computeOwnedWork } from './owned-work.js';
import { DiagnosticSink, type Diagnostic } from '../core/diagnostics.js';
import { argNumber, type ArgsPolicy, type EventColumns } from '../ingest/event-columns.js';
import { RawEventColumns } from '../ingest/raw-event-columns.js';
import type { JsonObject, JsonValue, RawEvent } from '../ingest/raw-event.js';
import { EventClass, classifyLabels } from './classify.js';
import {
  createFlowsHandler,
  createGpuActivitiesHandler,
  createHostEventsHandler,
  createCountersHandler,
  createInstantsHandler,
  createMetadataHandler,
  createPythonFunctionsHandler,
  createThreadRegistry,
  Batch,
  type GpuActivitiesHandler,
  type HostEventsHandler,
  type MetadataHandler,
} from './handlers/index.js';
import { linkGpuActivities } from './linking.js';
import { unwidenGpuAnnotations } from './gpu-annotation-spans.js';
import { computeNesting } from './nesting.js';
import { primeModelBuilder } from './primer.js';
import { pdlCapableDevices, reportStreamOverlaps } from './stream-overlaps.js';
import { StringTable } from './strings.js';
import type { TableKernels } from './table-kernels.js';
import { OPTIONAL_TABLES, type DeviceProperties, type FwdBwdLink, type OptionalTable, type ProfilerStep, type TraceModel } from './trace-model.js';

/** What the reader knows once the input is consumed (a subset of ingest's ReadResult). */
export interface ReadInfo {
  readonly container: 'object' | 'array';
  readonly header: JsonObject;
  readonly timeOriginUs: number;
  readonly bytesRead: number;
  readonly truncated: boolean;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Keys of `args` the model does not keep: per-event ids whose values are columns of the model
 * (`External id` → `externalId`, `correlation` → `correlation`) or that no analysis reads
 * (`Record function id`, `Ev Idx`, `Sequence number`, `Fwd thread id`). Dropping them is what
 * lets events share one args object (docs/performance.md). Every other key of a cpu_op,
 * user_annotation, kernel, memcpy, memset or cuda_sync is kept as written.
 */
export const HOST_ARGS_DROPPED = ['External id', 'external id', 'Record function id', 'Ev Idx', 'Sequence number', 'Fwd thread id'] as const;
export const GPU_ARGS_DROPPED = ['External id', 'external id', 'correlation'] as const;

/** The args the model keeps (host.args, gpu.args, syncs, metadata); others are skipped unread. */
export const MODEL_ARGS_POLICY: ArgsPolicy = {
  complete: {
    cpu_op: HOST_ARGS_DROPPED,
    Operator: HOST_ARGS_DROPPED,
    user_annotation: HOST_ARGS_DROPPED,
    kernel: GPU_ARGS_DROPPED,
    Kernel: GPU_ARGS_DROPPED,
    mtia_ccp_events: GPU_ARGS_DROPPED,
    gpu_memcpy: GPU_ARGS_DROPPED,
    Memcpy: GPU_ARGS_DROPPED,
    gpu_memset: GPU_ARGS_DROPPED,
    Memset: GPU_ARGS_DROPPED,
    cuda_sync: [],
    xpu_sync: [],
  },
  // Counters (`C`) keep their args: the values (handlers/counters.ts).
  phases: { M: [], C: [] },
};

/**
 * Of a `[memory]` record's args, all but `Addr` are columns or unread (instants are the `i` phase):
 * kept, the address makes one args object per distinct block address (the caching allocator reuses them).
 */
export const MEMORY_ARGS_DROPPED = ['Bytes', 'Total Allocated', 'Total Reserved', 'Device Type', 'Device Id', 'Ev Idx', 'finished'] as const;

/** The args policy for a model that leaves out `omit`: MODEL_ARGS_POLICY, plus memory records' addresses when they are kept. */
export function modelArgsPolicy(omit: readonly OptionalTable[] | undefined): ArgsPolicy {
  if (omit?.includes('memory')) return MODEL_ARGS_POLICY;
  return { complete: MODEL_ARGS_POLICY.complete, phases: { ...MODEL_ARGS_POLICY.phases, i: MEMORY_ARGS_DROPPED } };
}

/**
 * One producer of column batches (the reader on this thread, or one worker): its labels and
 * args, mirrored from the batches' `newLabels` / `newArgs` in the order it made them.
 */
export class ColumnSource {
  readonly labels: string[] = [];
  readonly args: JsonObject[] = [];
  /** By label: its StringTable id, −1 until asked. Starts empty: see primer.ts on growing arrays. */
  private sid = new Int32Array(0);
  private readonly classes: Int32Array[] = [];

  constructor(private readonly strings: StringTable) {}

  /**
   * Appends a batch's new labels and args (call once per batch, in the order they were made).
   * Args objects are frozen: one object is shared by every event with the same args.
   */
  register(batch: EventColumns, freeze = true): void {
    for (const l of batch.newLabels) this.labels.push(l);
    for (const a of batch.newArgs) this.args.push(freeze ? deepFreeze(a) : a);
  }

  /** The StringTable id of a label. */
  stringId(label: number): number {
    if (label < this.sid.length) {
      const s = this.sid[label]!;
      if (s >= 0) return s;
    } else {
      const n = new Int32Array(Math.max(label + 1, this.sid.length * 2, 256)).fill(-1);
      n.set(this.sid);
      this.sid = n;
    }
    return (this.sid[label] = this.strings.intern(this.labels[label]!));
  }

  /** The event's class by its ph and cat labels (and name, for the one case that needs it). */
  classOf(ph: number, cat: number, name: number): EventClass {
    const row = this.classes[ph];
    if (row !== undefined && cat < row.length) {
      const c = row[cat]!;
      if (c > 0) return c - 1;
      if (c < 0) return this.classify(ph, cat, name);
    }
    const labels = this.labels;
    // Only `Operator` (torch ≤ 1.9) depends on the name: ProfilerStep#N is an annotation there.
    const byName = labels[ph] === 'X' && labels[cat] === 'Operator';
    const c = this.classify(ph, cat, name);
    let r = row;
    if (r === undefined || cat >= r.length) {
      const nr = new Int32Array(Math.max(64, (cat + 1) * 2));
      if (r !== undefined) nr.set(r);
      this.classes[ph] = r = nr;
    }
    r[cat] = byName ? -1 : c + 1;
    return c;
  }

  private classify(ph: number, cat: number, name: number): EventClass {
    const l = this.labels;
    return classifyLabels(l[ph]!, l[cat]!, l[name]!);
  }

  /** pid or tid as RawEvent holds it: a number, or the string that stays one. */
  idValue(n: number, label: number): number | string {
    return label >= 0 ? this.labels[label]! : n;
  }
}

function deepFreeze<T extends JsonValue>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

export interface ModelBuilder {
  /** RawEvent objects (e.g. from readTrace): turned into columns, then as addColumns. */
  add(batch: readonly RawEvent[]): void;
  /** A new producer of column batches (one per thread that tokenizes). */
  source(): ColumnSource;
  /**
   * A batch of columns from `source` (registered with source.register first), in file order.
   * `shiftNs` is added to every ts: a producer whose time origin differs from the file's.
   */
  addColumns(batch: EventColumns, source: ColumnSource, shiftNs?: number): void;
  /**
   * The model. `collect`, when given, is called once the builder's chunked tables have been
   * copied into the model's exact-size arrays (the chunks, as large as the model's columns, are
   * garbage from then on) and before nesting and linking allocate more: loadTrace passes a full
   * garbage collection for large inputs.
   */
  finish(read: ReadInfo, collect?: () => void): TraceModel;
}

export interface ModelBuilderOptions {
  /** Another implementation of the table-wide loops of `finish` (table-kernels.ts); the JavaScript ones without. */
  readonly kernels?: TableKernels;
  /** Optional tables to leave out (trace-model.ts, OptionalTable): their events are counted, their threads listed, nothing more. */
  readonly omit?: readonly OptionalTable[];
  /**
   * Whether to build the primer's small traces first (primer.ts), once per thread: it pays on a
   * large trace and is only cost on a small one (default true; loadTrace says false for a file
   * under PRIME_FROM_BYTES).
   */
  readonly prime?: boolean;
}

export function createModelBuilder(options: ModelBuilderOptions = {}): ModelBuilder {
  if (options.prime !== false) primeModelBuilder(createModelBuilder, (events) => new RawEventColumns(MODEL_ARGS_POLICY).fill(events));
  return new Builder(options.kernels, OPTIONAL_TABLES.filter((t) => options.omit?.includes(t)));
}

/**
 * A class, not closures: its methods are one function for every trace, so what V8 has learnt
 * about them (from the primer, primer.ts) holds for every builder.
 */
class Builder implements ModelBuilder {
  private readonly strings = new StringTable();
  private readonly diagnostics = new DiagnosticSink();
  private readonly threads = createThreadRegistry();
  private readonly metadata: MetadataHandler;
  private readonly hostEvents: HostEventsHandler;
  private readonly python = createPythonFunctionsHandler();
  private readonly gpu: GpuActivitiesHandler;
  private readonly flows = createFlowsHandler();
  private readonly instants = createInstantsHandler();
  private readonly counters = createCountersHandler();
  private readonly batch = new Batch();
  private spanStartNs = Infinity;
  private minHostNs = Infinity;
  private minAnyNs = Infinity;
  private events = 0;
  private ignored = 0;
  private rawSource: ColumnSource | undefined = undefined;
  private rawColumns: RawEventColumns | undefined = undefined;
  // The last (source, pid, tid) and its thread: host events come in long runs on one thread.
  private lastSrc: ColumnSource | undefined = undefined;
  private lastPid = NaN;
  private lastPidL = -2;
  private lastTid = NaN;
  private lastTidL = -2;
  private lastThread = -1;

  private readonly keepPython: boolean;
  private readonly keepMemory: boolean;
  private readonly fwdBwdEnds: { id: number; thread: number; tsNs: number; start: boolean }[] = [];

  constructor(
    private readonly kernels: TableKernels | undefined,
    private readonly omitted: readonly OptionalTable[],
  ) {
    this.keepPython = !omitted.includes('python');
    this.keepMemory = !omitted.includes('memory');
    const ctx = { strings: this.strings, diagnostics: this.diagnostics, kernels };
    this.metadata = createMetadataHandler(ctx, this.threads);
    this.hostEvents = createHostEventsHandler(ctx);
    this.gpu = createGpuActivitiesHandler(ctx);
  }

  source(): ColumnSource {
    return new ColumnSource(this.strings);
  }

  add(batch: readonly RawEvent[]): void {
    this.rawSource ??= new ColumnSource(this.strings);
    this.rawColumns ??= new RawEventColumns(modelArgsPolicy(this.omitted));
    const cols = this.rawColumns.fill(batch);
    this.rawSource.register(cols, false); // (their values belong to the caller's events)
    this.addColumns(cols, this.rawSource);
  }

  /**
   * Only the batch's columns are read here, into the one Batch (the batch objects have several
   * shapes): the loop over the rows, in its own function, sees one shape whatever the producer.
   */
  addColumns(batch: EventColumns, src: ColumnSource, shiftNs = 0): void {
    this.batch.load(batch, src.labels, src.args, shiftNs);
    this.addRows(this.batch, src);
  }

  private addRows(c: Batch, src: ColumnSource): void {
    const n = c.length;
    const shiftNs = c.shiftNs;
    const hostEvents = this.hostEvents;
    const python = this.python;
    const gpu = this.gpu;
    const keepPython = this.keepPython;
    const ph = c.ph;
    const cat = c.cat;
    const name = c.name;
    const tsNs = c.tsNs;
    let minHostNs = this.minHostNs;
    let minAnyNs = this.minAnyNs;
    this.events += n;
    for (let i = 0; i < n; i++) {
      const cls = src.classOf(ph[i]!, cat[i]!, name[i]!);
      switch (cls) {
        case EventClass.CpuOp:
        case EventClass.UserAnnotation:
        case EventClass.Runtime:
        case EventClass.Driver: {
          const ts = tsNs[i]! + shiftNs;
          if (ts < minHostNs) minHostNs = ts;
          hostEvents.add(c, i, cls, src.stringId(name[i]!), this.threadOf(src, c, i));
          break;
        }
        case EventClass.Overhead:
          // A host event, but not one that sets time zero: CUPTI's work, on a thread of its own.
          hostEvents.add(c, i, cls, src.stringId(name[i]!), this.threadOf(src, c, i));
          break;
        case EventClass.PythonFunction:
          // Left out, the frame's thread is still listed: `threads` is the same either way.
          if (keepPython) python.add(c, i, src.stringId(name[i]!), this.threadOf(src, c, i));
          else this.threadOf(src, c, i);
          break;
        case EventClass.Kernel:
        case EventClass.Memcpy:
        case EventClass.Memset: {
          const ts = tsNs[i]! + shiftNs;
          if (ts < minAnyNs && ts !== 0) minAnyNs = ts;
          gpu.add(c, i, cls, src.stringId(name[i]!));
          break;
        }
        case EventClass.GpuUserAnnotation: {
          const ts = tsNs[i]! + shiftNs;
          if (ts < minAnyNs && ts !== 0) minAnyNs = ts;
          gpu.annotation(c, i);
          break;
        }
        case EventClass.CudaSync: {
          const ts = tsNs[i]! + shiftNs;
          if (ts < minAnyNs && ts !== 0) minAnyNs = ts;
          gpu.sync(c, i);
          break;
        }
        case EventClass.FlowStart:
          if (this.keepPython) this.fwdBwdEnd(c, i, src, true);
          this.flows.counted();
          break;
        case EventClass.FlowStep:
          this.flows.counted();
          break;
        case EventClass.FlowEnd:
          if (this.keepPython) this.fwdBwdEnd(c, i, src, false);
          this.flows.end(c, i);
          break;
        case EventClass.Instant:
          this.instant(c, i, src);
          break;
        case EventClass.Metadata:
          this.metadata.add(c, i);
          break;
        case EventClass.Counter:
          // Not a thread, and its time sets neither time zero nor the end (counters.ts).
          this.counters.add(c, i);
          break;
        case EventClass.TraceSpan: {
          const ts = tsNs[i]! + shiftNs;
          if (ts < this.spanStartNs) this.spanStartNs = ts;
          break;
        }
        default:
          this.ignored++;
      }
    }
    this.minHostNs = minHostNs;
    this.minAnyNs = minAnyNs;
  }

  /** A `fwdbwd` flow's end (kept with the python frames: only the module tree reads them). */
  private fwdBwdEnd(c: Batch, i: number, src: ColumnSource, start: boolean): void {
    if (c.labels[c.cat[i]!] !== 'fwdbwd') return;
    const id = c.flowId[i]!;
    if (id !== id) return;
    this.fwdBwdEnds.push({ id, thread: this.threadOf(src, c, i), tsNs: c.tsNs[i]! + c.shiftNs, start });
  }

  private instant(c: Batch, i: number, src: ColumnSource): void {
    this.instants.counted();
    const name = c.labels[c.name[i]!]!;
    if (name !== '[memory]' && name !== '[OutOfMemory]') return;
    const thread = this.threadOf(src, c, i);
    if (this.keepMemory) this.instants.memory(c, i, thread, name === '[OutOfMemory]');
  }

  private threadOf(src: ColumnSource, c: Batch, i: number): number {
    const pid = c.pid[i]!;
    const pidL = c.pidLabel[i]!;
    const tid = c.tid[i]!;
    const tidL = c.tidLabel[i]!;
    const lastPid = this.lastPid;
    const lastTid = this.lastTid;
    if (src === this.lastSrc && pidL === this.lastPidL && tidL === this.lastTidL && (pid === lastPid || (pid !== pid && lastPid !== lastPid)) && (tid === lastTid || (tid !== tid && lastTid !== lastTid))) {
      return this.lastThread;
    }
    this.lastSrc = src;
    this.lastPid = pid;
    this.lastPidL = pidL;
    this.lastTid = tid;
    this.lastTidL = tidL;
    return (this.lastThread = this.threads.indexOf(src.idValue(pid, pidL), src.idValue(tid, tidL)));
  }

  finish(read: ReadInfo, collect?: () => void): TraceModel {
    const { strings, diagnostics, threads, metadata, hostEvents, python, gpu, flows, instants, spanStartNs, minHostNs, minAnyNs, events, ignored } = this;
    for (const d of read.diagnostics) diagnostics.add(d);
    // Time zero: the profiler span (torch's trace start), else the first host event.
    let origin = Number.isFinite(spanStartNs) ? spanStartNs : Number.isFinite(minHostNs) ? minHostNs : minAnyNs;
    if (!Number.isFinite(origin)) origin = 0;
    const host = hostEvents.finalize(origin);
    const hostData = host.table;
    const pyData = python.finalize(origin);
    const gpuData = gpu.finalize(origin);
    const flowData = flows.finalize();
    const instData = instants.finalize(origin);
    const metaData = metadata.finalize();
    const g = gpuData.table;
    const streams = gpuData.streams;
    collect?.();
    const gpuAnnotations = unwidenGpuAnnotations(gpuData.annotations, g, streams);
    const syncs = gpuData.syncs;

    const nesting = computeNesting(hostData, diagnostics, host.order, this.kernels);
    const hostTable = {
      length: hostData.length,
      kind: hostData.kind,
      name: hostData.name,
      thread: hostData.thread,
      startNs: hostData.startNs,
      durNs: hostData.durNs,
      externalId: hostData.externalId,
      correlation: hostData.correlation,
      args: hostData.args,
      parent: nesting.parent,
      depth: nesting.depth,
      firstChild: nesting.firstChild,
      nextSibling: nesting.nextSibling,
    };
    // Flow ends were keyed by reader-relative time; look them up the same way.
    const linking = linkGpuActivities(
      {
        host: hostTable,
        gpu: gpuData.table,
        byCorrelation: host.byCorrelation,
        flowEndAt: (d, s, ts) => flowData.flowEndAt(d, s, ts + origin),
        hostName: (i) => strings.get(hostTable.name[i]!),
        gpuName: (i) => strings.get(gpuData.table.name[i]!),
        kernels: this.kernels,
      },
      diagnostics,
    );

    const header = read.header;
    const devices: DeviceProperties[] = Array.isArray(header['deviceProperties'])
      ? (header['deviceProperties'].filter((d) => d && typeof d === 'object' && !Array.isArray(d)) as JsonObject[]).map(
          (d) => ({ ...d, id: argNumber(d['id']) }) as DeviceProperties,
        )
      : [];
    const gpuEndNs = reportStreamOverlaps(g, diagnostics, streams, pdlCapableDevices(devices), (i) => strings.get(g.name[i]!));
    const fwdBwd = bindFwdBwd(hostTable, this.fwdBwdEnds, origin, host.order);

    const traceEndNs = Math.max(nesting.latestEndNs, gpuEndNs);

    const steps: ProfilerStep[] = [];
    for (const i of host.stepRows) {
      const m = host.stepPattern.exec(strings.get(hostTable.name[i]!))!;
      steps.push({
        name: m[0],
        number: Number(m[1]),
        host: i,
        startNs: hostTable.startNs[i]!,
        endNs: hostTable.startNs[i]! + hostTable.durNs[i]!,
      });
    }
    steps.sort((a, b) => a.startNs - b.startNs);

    const dist = header['distributedInfo'];
    const flag = (k: string) => header[k] === 1 || header[k] === true;

    const owned = computeOwnedWork(linking.owner, gpuData.table.length, hostTable.length);
    return {
      strings,
      host: { ...hostTable, firstOwned: owned.firstOwned },
      gpu: { ...gpuData.table, launcher: linking.launcher, owner: linking.owner, nextOwned: owned.nextOwned, args: gpuData.args },
      python: pyData,
      fwdBwd,
      memory: instData.table,
      omitted: this.omitted,
      gpuAnnotations,
      syncs,
      counters: this.counters.finalize(origin),
      backwardSequences: host.backwardSequences,
      recordFunctionIds: host.recordFunctionIds,
      sequencedOps: host.sequencedOps,
      threads: threads.threads,
      processes: metaData.processes,
      devices,
      distributedInfo: dist && typeof dist === 'object' && !Array.isArray(dist) ? dist : undefined,
      flags: {
        recordShapes: flag('record_shapes'),
        profileMemory: flag('profile_memory'),
        withStack: flag('with_stack'),
        withFlops: flag('with_flops'),
        withModules: flag('with_modules'),
      },
      steps,
      ownerRule: linking.ownerRule,
      torchIdCollisions: linking.torchIdCollisions,
      traceStartNs: origin,
      traceEndNs,
      timeOriginUs: read.timeOriginUs,
      header,
      counts: { events, flows: flowData.count, instants: instData.count, metadata: metaData.count, ignored },
      source: { container: read.container, bytesRead: read.bytesRead, truncated: read.truncated },
      diagnostics: diagnostics.list(),
    };
  }
}

/**
 * `fwdbwd` flows (torch writes one per autograd node: `s` at the forward op's start on its thread,
 * `f` at the backward op's start on the autograd thread) bound to the host events they start
 * at: of several starting at the same time on that thread, the longest (the enclosing one).
 * `order`: the host rows by (thread, start), as the nesting walks them, when every start is finite.
 */
function bindFwdBwd(
  host: { length: number; thread: Int32Array; startNs: Float64Array; durNs: Float64Array },
  ends: readonly { id: number; thread: number; tsNs: number; start: boolean }[],
  originNs: number,
  order: Int32Array | undefined,
): FwdBwdLink[] {
  if (ends.length === 0) return [];
  const rowOf = order ? endRowsInOrder(host, ends, originNs, order) : endRowsByKey(host, ends, originNs);
  const fwd = new Map<number, number>();
  const bwd = new Map<number, number>();
  for (let k = 0; k < ends.length; k++) {
    const i = rowOf[k]!;
    if (i >= 0) (ends[k]!.start ? fwd : bwd).set(ends[k]!.id, i);
  }
  const links: FwdBwdLink[] = [];
  for (const [id, f] of fwd) {
    const b = bwd.get(id);
    if (b !== undefined) links.push({ fwd: f, bwd: b });
  }
  return links;
}

/**
 * Each end's host event (−1: none), looked for by binary search among its thread's rows in the
 * (thread, start) order: no lookup per host event. Every host start is finite here, so an end
 * at an unreadable time starts none.
 */
function endRowsInOrder(
  host: { thread: Int32Array; startNs: Float64Array; durNs: Float64Array },
  ends: readonly { thread: number; tsNs: number }[],
  originNs: number,
  order: Int32Array,
): Int32Array {
  const out = new Int32Array(ends.length).fill(-1);
  // Per thread met, where its rows lie in `order`: [first, end).
  const rowsOf = new Map<number, { first: number; end: number }>();
  for (let k = 0; k < ends.length; k++) {
    const t = ends[k]!.thread;
    const x = ends[k]!.tsNs - originNs;
    if (x !== x) continue;
    let rows = rowsOf.get(t);
    if (rows === undefined) rowsOf.set(t, (rows = { first: firstRowOfThread(host.thread, order, t), end: firstRowOfThread(host.thread, order, t + 1) }));
    // The first of the thread's rows that does not start before x…
    let lo = rows.first;
    let hi = rows.end;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (host.startNs[order[mid]!]! < x) lo = mid + 1;
      else hi = mid;
    }
    // …and those that start at x: order[lo, q).
    let q = lo;
    while (q < rows.end && host.startNs[order[q]!] === x) q++;
    if (q - lo === 1) out[k] = order[lo]!;
    else if (q > lo) {
      // In row order, a longer one replaces the one kept (endRowsByKey's rule).
      let cur = -1;
      for (const i of Array.from(order.subarray(lo, q)).sort((a, b) => a - b)) if (cur < 0 || host.durNs[i]! > host.durNs[cur]!) cur = i;
      out[k] = cur;
    }
  }
  return out;
}

/** The first position of `order` (rows by thread) whose row's thread is ≥ t. */
function firstRowOfThread(thread: Int32Array, order: Int32Array, t: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (thread[order[mid]!]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** endRowsInOrder without the order (some start is not finite): per thread, per start, the longest host event starting there. */
function endRowsByKey(
  host: { length: number; thread: Int32Array; startNs: Float64Array; durNs: Float64Array },
  ends: readonly { thread: number; tsNs: number }[],
  originNs: number,
): Int32Array {
  // Numbers as keys: Map's SameValueZero treats 0 and −0, and NaN, as the printed keys did,
  // with no text per event.
  const at = new Map<number, Map<number, number>>();
  for (const e of ends) {
    let byTs = at.get(e.thread);
    if (!byTs) at.set(e.thread, (byTs = new Map()));
    byTs.set(e.tsNs - originNs, -1);
  }
  for (let i = 0; i < host.length; i++) {
    const byTs = at.get(host.thread[i]!);
    if (byTs === undefined) continue;
    const ts = host.startNs[i]!;
    const cur = byTs.get(ts);
    if (cur === undefined) continue;
    if (cur < 0 || host.durNs[i]! > host.durNs[cur]!) byTs.set(ts, i);
  }
  return Int32Array.from(ends, (e) => at.get(e.thread)!.get(e.tsNs - originNs)!);
}
