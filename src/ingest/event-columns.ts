/**
 * The reader's fast contract with the model: events handed on as columns (struct of arrays),
 * with labels and args interned, instead of one object per event.
 *
 * A batch holds up to EVENT_BATCH_SIZE events. Strings are label ids into the producer's
 * LabelTable and args are ids into its ArgsTable; each batch carries the labels and args first
 * seen since the previous batch (`newLabels`, `newArgs`), so a consumer mirrors both tables by
 * appending — also across a worker boundary, where a batch is posted as a message.
 *
 * The same normalisations as RawEvent (raw-event.ts): exact integer-ns `tsNs`/`durNs` relative
 * to `originUs`, numeric-string and hex pids/tids as numbers.
 */
import type { JsonObject } from './raw-event.js';

/**
 * What to keep of each event's `args`. Kept args are interned by their bytes, minus the keys
 * dropped (per-event ids, whose values live in columns): that is what lets a million ops share
 * a few thousand args objects. Everything not kept is skipped without building any object
 * (python frames' ids, memory records' addresses, …); the numbers in ARG_NUMBER_KEYS are read
 * from every event's args regardless.
 */
export interface ArgsPolicy {
  /** Complete (`X`) events by `cat`: the keys dropped from the kept args. Other categories: args not kept. */
  readonly complete: Readonly<Record<string, readonly string[]>>;
  /** Other phases by `ph` (`M`, …): the keys dropped. Other phases: args not kept. */
  readonly phases: Readonly<Record<string, readonly string[]>>;
}

/** Keeps every event's args whole (tests, tools that want everything). */
export const KEEP_ALL_ARGS: ArgsPolicy = { complete: { '*': [] }, phases: { '*': [] } };

/**
 * Numbers read from every event's args into `argNumbers` (NaN when absent or not a number),
 * as the model's `num()` reads them: numbers as written, numeric strings through Number();
 * `stream` and `device` strings first through normaliseId (`"0x7"` → 7).
 * `External id` is `args['External id'] ?? args['external id']` (the lower-case spelling of
 * Kineto ≤ 2021-11).
 */
export const ARG_NUMBER_KEYS = [
  'External id',
  'correlation',
  'stream',
  'device',
  'Bytes',
  'Total Allocated',
  'Total Reserved',
  'Device Type',
  'Device Id',
] as const;
export const ARG_NUMBERS = ARG_NUMBER_KEYS.length;
export const AN_EXTERNAL_ID = 0;
export const AN_CORRELATION = 1;
export const AN_STREAM = 2;
export const AN_DEVICE = 3;
export const AN_BYTES = 4;
export const AN_TOTAL_ALLOCATED = 5;
export const AN_TOTAL_RESERVED = 6;
export const AN_DEVICE_TYPE = 7;
export const AN_DEVICE_ID = 8;

/** Label id of the empty string: an absent `ph`, `cat` or `name`. */
export const LABEL_EMPTY = 0;

export interface EventColumns {
  readonly length: number;
  /** Label ids (LABEL_EMPTY when absent). */
  readonly ph: Int32Array;
  readonly cat: Int32Array;
  readonly name: Int32Array;
  /** pid as a number, or NaN when it stays a string (then `pidLabel` is its label id, else −1). */
  readonly pid: Float64Array;
  readonly pidLabel: Int32Array;
  readonly tid: Float64Array;
  readonly tidLabel: Int32Array;
  /** Exact ns relative to `originUs` (NaN when absent). */
  readonly tsNs: Float64Array;
  readonly durNs: Float64Array;
  /** Flow id as a number (NaN when absent or a string: then `flowIdLabel` ≥ 0). */
  readonly flowId: Float64Array;
  readonly flowIdLabel: Int32Array;
  /** `bp` and `s` label ids, −1 when absent. */
  readonly bp: Int32Array;
  readonly s: Int32Array;
  /** ARG_NUMBERS numbers per event: event i's k-th at i·ARG_NUMBERS + k. */
  readonly argNumbers: Float64Array;
  /** Args id (into the producer's args table), −1 when not kept or absent. */
  readonly args: Int32Array;
  /** Only when asked for (ColumnarOptions.offsets): each event's first and past-last byte in the text, two per event. */
  readonly offsets?: Float64Array;
  /** Labels and args first seen since the previous batch. */
  readonly newLabels: string[];
  readonly newArgs: JsonObject[];
  /** The time origin of tsNs (integer µs as decimal text), once the producer has seen a ts. */
  readonly originUs: string | undefined;
}

/**
 * Buffers of batches already consumed, for the next batches of this thread (each thread has its
 * own module instance, hence its own pool). A consumer that is done with a batch hands its
 * buffer back — across threads by transferring it back to the producer — so a long read keeps
 * reusing a few buffers: fresh ones, dropped after one use, are garbage V8 collects only when
 * their external memory forces a full collection (tens of MB held, and GC time).
 */
const batchBufferPool: ArrayBuffer[] = [];
const BATCH_POOL_MAX = 64;

/** Returns a consumed batch's buffer (`batch.ph.buffer`) to this thread's pool. */
export function recycleBatchBuffer(buffer: ArrayBuffer): void {
  if (buffer.byteLength > 0 && batchBufferPool.length < BATCH_POOL_MAX) batchBufferPool.push(buffer);
}

function takeBatchBuffer(bytes: number): ArrayBuffer | undefined {
  for (let k = batchBufferPool.length - 1; k >= 0; k--) {
    const b = batchBufferPool[k]!;
    if (b.byteLength === bytes) {
      batchBufferPool[k] = batchBufferPool[batchBufferPool.length - 1]!;
      batchBufferPool.pop();
      return b;
    }
  }
  return undefined;
}

/** Growable column storage for one batch (the tokenizer's side). */
export class ColumnBatchWriter {
  length = 0;
  ph!: Int32Array;
  cat!: Int32Array;
  name!: Int32Array;
  pid!: Float64Array;
  pidLabel!: Int32Array;
  tid!: Float64Array;
  tidLabel!: Int32Array;
  tsNs!: Float64Array;
  durNs!: Float64Array;
  flowId!: Float64Array;
  flowIdLabel!: Int32Array;
  bp!: Int32Array;
  s!: Int32Array;
  argNumbers!: Float64Array;
  args!: Int32Array;
  offsets: Float64Array | undefined;

  constructor(
    readonly capacity: number,
    readonly withOffsets = false,
  ) {
    this.alloc();
  }

  /** Fresh arrays (the previous ones were handed on). */
  alloc(): void {
    const n = this.capacity;
    // One buffer per batch: a batch posted to another thread is one transfer.
    const f64 = 5 + ARG_NUMBERS + (this.withOffsets ? 2 : 0);
    const i32 = 9;
    const bytes = n * (8 * f64 + 4 * i32);
    const buf = takeBatchBuffer(bytes) ?? new ArrayBuffer(bytes);
    let o = 0;
    const F = (k: number) => {
      const a = new Float64Array(buf, o, n * k);
      o += 8 * n * k;
      return a;
    };
    const I = () => {
      const a = new Int32Array(buf, o, n);
      o += 4 * n;
      return a;
    };
    this.pid = F(1);
    this.tid = F(1);
    this.tsNs = F(1);
    this.durNs = F(1);
    this.flowId = F(1);
    this.argNumbers = F(ARG_NUMBERS);
    this.offsets = this.withOffsets ? F(2) : undefined;
    this.ph = I();
    this.cat = I();
    this.name = I();
    this.pidLabel = I();
    this.tidLabel = I();
    this.flowIdLabel = I();
    this.bp = I();
    this.s = I();
    this.args = I();
    this.length = 0;
  }

  /** The batch so far, as EventColumns over the current arrays (trimmed views). */
  view(newLabels: string[], newArgs: JsonObject[], originUs: string | undefined): EventColumns {
    const n = this.length;
    const t = <T extends Int32Array | Float64Array>(a: T, k = 1): T => (n === this.capacity ? a : (a.subarray(0, n * k) as T));
    return {
      length: n,
      ph: t(this.ph),
      cat: t(this.cat),
      name: t(this.name),
      pid: t(this.pid),
      pidLabel: t(this.pidLabel),
      tid: t(this.tid),
      tidLabel: t(this.tidLabel),
      tsNs: t(this.tsNs),
      durNs: t(this.durNs),
      flowId: t(this.flowId),
      flowIdLabel: t(this.flowIdLabel),
      bp: t(this.bp),
      s: t(this.s),
      argNumbers: t(this.argNumbers, ARG_NUMBERS),
      args: t(this.args),
      ...(this.offsets ? { offsets: t(this.offsets, 2) } : {}),
      newLabels,
      newArgs,
      originUs,
    };
  }
}
