/**
 * GPU activities: kernels, memcpys and memsets into one table with each stream's runs in time
 * order (overlaps, annotations); GPU user annotations and cuda_sync events beside it.
 *
 * A stream is the one the work ran on: torch's Python exporter can draw CUDA-graph work on a
 * display lane and keep the real stream as `args.original_stream` (docs/kineto-format.md §9.1),
 * and Kineto draws Stream Sync records on a row of their own, stream + 1,000,000 (§9.3).
 */
import { AN_CORRELATION, AN_DEVICE, AN_EXTERNAL_ID, AN_STREAM, ARG_NUMBERS } from '../../ingest/event-columns.js';
import type { JsonObject } from '../../ingest/raw-event.js';
import { EventClass } from '../classify.js';
import { ChunkedTable, valuesColumn } from '../columns.js';
import { StreamIds, TimeRuns } from '../time-order.js';
import { GpuKind, type GpuAnnotation, type SyncEvent } from '../trace-model.js';
import { argsOf, reportMissingStarts, reportNegativeDurations, type Batch, type HandlerContext } from './batch.js';

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

/** Kineto's sync rows: a Stream Sync of stream N is drawn on tid N + this (`kSyncStreamTidOffset`). */
export const SYNC_ROW_OFFSET = 1_000_000;

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
   * else `args.device` (the same on CUDA; ROCm may differ, docs/kineto-format.md §4); stream:
   * `args.original_stream` (work moved to a display lane, §9.1), else `args.stream`, else the tid
   * when it is a number, else −1.
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
    const args = argsOf(b, i);
    const moved = args?.['original_stream'];
    x.device[r] = b.pidLabel[i]! < 0 ? b.pid[i]! : an[o + AN_DEVICE]!;
    x.stream[r] = typeof moved === 'number' ? moved : Number.isFinite(s) ? s : b.tidLabel[i]! < 0 ? b.tid[i]! : -1;
    x.startNs[r] = start;
    x.durNs[r] = dur;
    x.correlation[r] = an[o + AN_CORRELATION]!;
    x.externalId[r] = an[o + AN_EXTERNAL_ID]!;
    x.args[r] = args;
    this.runs.add(this.streams.idOf(x.device[r]!, x.stream[r]!), row, start, dur);
  }

  /** Row i of a gpu_user_annotation. */
  annotation(b: Batch, i: number): void {
    this.annotations.push({ ...trackSpan(b, i), externalId: b.argNumbers[i * ARG_NUMBERS + AN_EXTERNAL_ID]! });
  }

  /**
   * Row i of a cuda_sync. Its stream is the track's, except on Kineto's sync rows
   * (kineto@`041e7ce9`, 2026-04-16: a Stream Sync is drawn on tid stream + 1,000,000, its
   * `args.stream` the stream it synchronized, §9.3): there, the stream it belongs to.
   */
  sync(b: Batch, i: number): void {
    const span = trackSpan(b, i);
    const o = i * ARG_NUMBERS;
    const argStream = b.argNumbers[o + AN_STREAM]!;
    if (span.stream >= SYNC_ROW_OFFSET && (argStream === span.stream - SYNC_ROW_OFFSET || (argStream !== argStream && span.name === 'Stream Sync'))) span.stream -= SYNC_ROW_OFFSET;
    this.syncs.push({ ...span, correlation: b.argNumbers[o + AN_CORRELATION]!, args: argsOf(b, i) });
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
