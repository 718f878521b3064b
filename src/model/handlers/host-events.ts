/**
 * Host events: cpu_op, user_annotation, cuda_runtime, cuda_driver and CUPTI's overhead, into one table with the
 * thread runs nesting needs, the runtime calls by correlation linking needs, and the
 * `ProfilerStep#N` annotations.
 */
import { AN_CORRELATION, AN_EXTERNAL_ID, AN_RECORD_FUNCTION_ID, AN_SEQUENCE_NUMBER, ARG_NUMBERS } from '../../ingest/event-columns.js';
import type { JsonObject } from '../../ingest/raw-event.js';
import { EventClass } from '../classify.js';
import { ChunkedTable, valuesColumn } from '../columns.js';
import { IdTable } from '../id-table.js';
import { TimeRuns } from '../time-order.js';
import { HostKind, type BackwardSequence } from '../trace-model.js';
import { argsOf, reportMissingStarts, reportNegativeDurations, type Batch, type HandlerContext } from './batch.js';

/** EventClass → HostKind (−1: not a host event). */
const HOST_KIND_OF = new Int8Array(32).fill(-1);
HOST_KIND_OF[EventClass.CpuOp] = HostKind.Op;
HOST_KIND_OF[EventClass.UserAnnotation] = HostKind.Annotation;
HOST_KIND_OF[EventClass.Runtime] = HostKind.Runtime;
HOST_KIND_OF[EventClass.Driver] = HostKind.Driver;
HOST_KIND_OF[EventClass.Overhead] = HostKind.Overhead;

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
/** The op autograd's engine runs a backward node as (torch's trace validator keys its rule 6 on this text). */
const BACKWARD_NODE_PREFIX = 'autograd::engine::evaluate_function:';

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
  /** Per string id: 1 a backward node's name, 2 not, 0 not seen yet. */
  private isBackwardNode = new Uint8Array(0);
  private readonly backwardSequences: BackwardSequence[] = [];
  /** Ops and annotations with a nonzero Record function id: their rows and ids (growing arrays). */
  private rfRows: number[] = [];
  private rfIds: number[] = [];
  /** cpu_ops other than `autograd::engine::evaluate_function: …` that carry a Sequence number, in row order. */
  private readonly sequencedOps: number[] = [];
  private negative = 0;
  private noTs = 0;

  constructor(private readonly ctx: HandlerContext) {}

  /** Row i of a cpu_op, user_annotation, runtime, driver or overhead class; `nameId`: a StringTable id; `thread`: a ThreadRegistry index. */
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
    if (k === HostKind.Op || k === HostKind.Annotation) {
      const rf = b.argNumbers[o + AN_RECORD_FUNCTION_ID]!;
      if (rf > 0) {
        this.rfRows.push(row);
        this.rfIds.push(rf);
      }
    }
    this.runs.add(thread, row, start, dur);
    if (k === HostKind.Annotation) {
      if (this.stepName(nameId)) this.stepRows.push(row);
    } else if (k === HostKind.Op) {
      const seq = b.argNumbers[o + AN_SEQUENCE_NUMBER]!;
      if (seq === seq) {
        if (this.backwardNodeName(nameId)) this.backwardSequences.push({ host: row, sequenceNr: seq });
        else this.sequencedOps.push(row);
      }
    } else if (Number.isFinite(corr)) this.byCorrelation.add(corr, row);
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

  private backwardNodeName(nameId: number): boolean {
    if (nameId >= this.isBackwardNode.length) {
      const a = new Uint8Array(Math.max(nameId + 1, this.isBackwardNode.length * 2, 256));
      a.set(this.isBackwardNode);
      this.isBackwardNode = a;
    }
    if (this.isBackwardNode[nameId] === 0) this.isBackwardNode[nameId] = this.ctx.strings.get(nameId).startsWith(BACKWARD_NODE_PREFIX) ? 1 : 2;
    return this.isBackwardNode[nameId] === 1;
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
      /** Backward nodes with a Sequence number, in row order. */
      backwardSequences: this.backwardSequences,
      recordFunctionIds: { rows: Int32Array.from(this.rfRows), ids: Float64Array.from(this.rfIds) },
      sequencedOps: Int32Array.from(this.sequencedOps),
    };
  }
}

export function createHostEventsHandler(ctx: HandlerContext): HostEventsHandler {
  return new HostEventsHandler(ctx);
}
