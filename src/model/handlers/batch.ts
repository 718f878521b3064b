/**
 * What every handler reads: the batch being added (`Batch`, the reader's columns in one shape),
 * the context handlers share, and the small readers of a row they all use.
 *
 * Handlers read each event straight out of the reader's columns (`Batch`, row `i`) into their
 * own: no object per event (a 10 GB trace has ~30 M events), and no number leaves a typed array
 * on the way (a double passed to a call may be boxed). RawEvent objects reach them the same way,
 * turned into columns by the builder first.
 */
import type { DiagnosticSink } from '../../core/diagnostics.js';
import { numberOrLabel, REQUIRED_COLUMNS, type ColumnArrays, type EventColumns, type RequiredColumnName } from '../../ingest/event-columns.js';
import type { JsonObject } from '../../ingest/raw-event.js';
import type { StringTable } from '../strings.js';
import type { TableKernels } from '../table-kernels.js';

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
 * and RawEventColumns' have three hidden classes: handlers that read the batch object itself would be
 * optimised for the first and thrown away ("wrong map") when another arrives. The builder copies
 * the columns' references here once per batch (`load`), so every handler sees one shape whose
 * fields keep one type each. Its columns are declared one by one so that V8 keeps them in the
 * object (see ColumnBatchWriter); `implements` holds the list to EVENT_COLUMNS.
 */
export class Batch implements Pick<ColumnArrays, RequiredColumnName> {
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
  bp: Int32Array = NO_INT32;
  s: Int32Array = NO_INT32;
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
    const self = this as Record<string, unknown>;
    for (const k of REQUIRED_COLUMNS) self[k.name] = c[k.name];
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
  return numberOrLabel(n, label, b.labels);
}

/** Events whose ts could not be read (missing, a string, NaN) are left out: every analysis orders and nests by time. */
export function reportMissingStarts(ctx: HandlerContext, count: number, what: string): void {
  if (count === 0) return;
  ctx.diagnostics.add({
    code: 'MISSING_TIMESTAMP',
    severity: 'warning',
    count,
    message: `${count} ${what} had no readable ts; left out.`,
  });
}

export function reportNegativeDurations(ctx: HandlerContext, count: number, what: string): void {
  if (count === 0) return;
  ctx.diagnostics.add({
    code: 'NEGATIVE_DURATION',
    severity: 'warning',
    count,
    message: `${count} ${what} had a negative or missing duration; read as 0.`,
  });
}
