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
import type { JsonObject, RawEvent } from './raw-event.js';
import { argNumber } from '../core/json.js';

/** (defined in core/json.ts, where the analyses read it too) */
export { argNumber };

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
 * as argNumber (below) reads them: numbers as written, numeric strings through Number();
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
  // torch's autograd sequence number: kept as a number, not as an arg, so that ops still share
  // their args objects; doctor reads it on backward nodes (torch trace validator rule 6).
  'Sequence number',
  // the RecordFunction handle: nonzero only while torch's execution trace observer records the
  // same run; it joins an op to its ET node (model/op-tensors.ts). A number, not an arg, for the
  // same reason.
  'Record function id',
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
export const AN_SEQUENCE_NUMBER = 9;
export const AN_RECORD_FUNCTION_ID = 10;

/** flowIdLabel of an id that is the number NaN (a bare `nan`): RawEvents tell it from no id (`rawArgs` readers only). */
export const NAN_FLOW_ID = -2;

/** A pid or tid as written (RawEvent's reading of a number column and its label column): the string it stayed, else the number. */
export function numberOrLabel(n: number, label: number, labels: readonly string[]): number | string {
  return label >= 0 ? labels[label]! : n;
}

/** A flow id as written (flowId, flowIdLabel): the string it stayed, the number, or undefined when there is none. */
export function flowIdOf(id: number, label: number, labels: readonly string[]): number | string | undefined {
  return label >= 0 ? labels[label] : label === NAN_FLOW_ID || id === id ? id : undefined;
}

/** Label id of the empty string: an absent `ph`, `cat` or `name`. */
export const LABEL_EMPTY = 0;

/**
 * The event columns, in order: the one definition from which the writer (ColumnBatchWriter),
 * the model's batch loader (model/handlers/batch.ts), the RawEvent adapter (raw-event-columns.ts)
 * and the native reader's column order (native/fast-events.cc, checked against this list by
 * test/ingest/event-columns.test.ts) are derived. `width`: slots per event (event i's k-th at
 * i·width + k); `absent`: the value of an event that does not say; `holds`: what a slot is —
 * a number, a label id (into the producer's LabelTable; −1 none), an args id (into its
 * ArgsTable; −1 none), a byte offset; `optional`: only when asked for (ColumnarOptions.offsets).
 */
export const EVENT_COLUMNS = [
  { name: 'ph', type: Int32Array, width: 1, absent: LABEL_EMPTY, holds: 'label', meaning: '`ph` (LABEL_EMPTY when absent)' },
  { name: 'cat', type: Int32Array, width: 1, absent: LABEL_EMPTY, holds: 'label', meaning: '`cat` (LABEL_EMPTY when absent)' },
  { name: 'name', type: Int32Array, width: 1, absent: LABEL_EMPTY, holds: 'label', meaning: '`name` (LABEL_EMPTY when absent)' },
  { name: 'pid', type: Float64Array, width: 1, absent: NaN, holds: 'number', meaning: 'pid as a number, or NaN when it stays a string (then `pidLabel`)' },
  { name: 'pidLabel', type: Int32Array, width: 1, absent: LABEL_EMPTY, holds: 'label', meaning: "a string pid's label, −1 when pid is a number (LABEL_EMPTY when absent)" },
  { name: 'tid', type: Float64Array, width: 1, absent: NaN, holds: 'number', meaning: 'tid as a number, or NaN when it stays a string (then `tidLabel`)' },
  { name: 'tidLabel', type: Int32Array, width: 1, absent: LABEL_EMPTY, holds: 'label', meaning: "a string tid's label, −1 when tid is a number (LABEL_EMPTY when absent)" },
  { name: 'tsNs', type: Float64Array, width: 1, absent: NaN, holds: 'number', meaning: 'exact ns relative to `originUs` (NaN when absent)' },
  { name: 'durNs', type: Float64Array, width: 1, absent: NaN, holds: 'number', meaning: 'exact ns (NaN when absent)' },
  { name: 'flowId', type: Float64Array, width: 1, absent: NaN, holds: 'number', meaning: 'flow id as a number (NaN when absent or a string: then `flowIdLabel` ≥ 0)' },
  { name: 'flowIdLabel', type: Int32Array, width: 1, absent: -1, holds: 'label', meaning: "a string flow id's label, −1 otherwise" },
  { name: 'bp', type: Int32Array, width: 1, absent: -1, holds: 'label', meaning: '`bp` (−1 when absent)' },
  { name: 's', type: Int32Array, width: 1, absent: -1, holds: 'label', meaning: '`s` (−1 when absent)' },
  { name: 'argNumbers', type: Float64Array, width: ARG_NUMBERS, absent: NaN, holds: 'number', meaning: 'the ARG_NUMBER_KEYS numbers of the args' },
  { name: 'args', type: Int32Array, width: 1, absent: -1, holds: 'args', meaning: 'kept args id, −1 when not kept or absent' },
  { name: 'offsets', type: Float64Array, width: 2, absent: NaN, holds: 'offset', optional: true, meaning: "the event's first and past-last byte in the text" },
] as const satisfies readonly EventColumnSpec[];

export interface EventColumnSpec {
  readonly name: string;
  readonly type: Int32ArrayConstructor | Float64ArrayConstructor;
  readonly width: number;
  readonly absent: number;
  readonly holds: 'number' | 'label' | 'args' | 'offset';
  readonly optional?: true;
  readonly meaning: string;
}

type Spec = (typeof EVENT_COLUMNS)[number];
/** A column's array type, from its descriptor. */
type ArrayOf<S extends Spec> = S['type'] extends Float64ArrayConstructor ? Float64Array : Int32Array;
export type EventColumnName = Spec['name'];
/** The columns every batch has. */
export type RequiredColumnName = Exclude<Spec, { optional: true }>['name'];
export type ColumnArrays = { -readonly [S in Spec as S['name']]: ArrayOf<S> };

/** The descriptors of the columns every batch has, in order. */
export const REQUIRED_COLUMNS = EVENT_COLUMNS.filter((c): c is Extract<Spec, { name: RequiredColumnName }> => !('optional' in c));

/** A batch of events as columns (EVENT_COLUMNS), with the labels and args first seen since the previous batch. */
export type EventColumns = Readonly<Pick<ColumnArrays, RequiredColumnName>> & {
  readonly length: number;
  /** Only when asked for (ColumnarOptions.offsets): each event's first and past-last byte in the text, two per event. */
  readonly offsets?: Float64Array;
  /** Labels and args first seen since the previous batch. */
  readonly newLabels: string[];
  readonly newArgs: JsonObject[];
  /** The time origin of tsNs (integer µs as decimal text), once the producer has seen a ts. */
  readonly originUs: string | undefined;
};

/**
 * Buffers of batches already consumed, for the next batches of this thread (each thread has its
 * own module instance, hence its own pool). A consumer that is done with a batch hands its
 * buffer back — across threads by transferring it back to the producer — so a long read keeps
 * reusing a few buffers: fresh ones, dropped after one use, are garbage V8 collects only when
 * their external memory forces a full collection (tens of MB held, and GC time).
 */
const batchBufferPool: ArrayBuffer[] = [];
const BATCH_POOL_MAX = 64;

/**
 * The buffer sizes of full batches (a ColumnBatchWriter's capacity, with or without offsets):
 * the only sizes the pool keeps. A compacted batch (ColumnBatchWriter.handOn) has a buffer of its
 * own size, which no writer could take again; pooled, such buffers would fill the pool.
 */
const batchBufferSizes = new Set<number>();

/** Returns a consumed batch's buffer (`batch.ph.buffer`) to this thread's pool. */
export function recycleBatchBuffer(buffer: ArrayBuffer): void {
  if (batchBufferSizes.has(buffer.byteLength) && batchBufferPool.length < BATCH_POOL_MAX) batchBufferPool.push(buffer);
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

/**
 * The columns of `specs` for n events, views into one buffer (a batch posted to another thread
 * is one transfer; `take`: a recycled buffer of that size, if any), 8-byte columns first so that
 * every view is aligned. Not filled: the writer writes every slot of a row it hands on.
 */
function allocColumns(specs: readonly Spec[], n: number, take: (bytes: number) => ArrayBuffer | undefined): Partial<ColumnArrays> {
  const bytes = columnBytes(specs, n);
  const buf = take(bytes) ?? new ArrayBuffer(bytes);
  const out: Record<string, Int32Array | Float64Array> = {};
  let o = 0;
  for (const size of [8, 4]) {
    for (const c of specs) {
      if (c.type.BYTES_PER_ELEMENT !== size) continue;
      out[c.name] = new c.type(buf, o, n * c.width);
      o += n * c.width * size;
    }
  }
  return out as Partial<ColumnArrays>;
}

/** The size of one buffer holding the columns of `specs` for n events. */
function columnBytes(specs: readonly Spec[], n: number): number {
  let bytes = 0;
  for (const c of specs) bytes += n * c.width * c.type.BYTES_PER_ELEMENT;
  return bytes;
}

/** Fresh columns for n events, each filled with its `absent` value (builders of batches from objects). */
export function createEventColumns(n: number, offsets = false): Omit<ColumnArrays, 'offsets'> & { offsets?: Float64Array } {
  const c = allocColumns(offsets ? EVENT_COLUMNS : REQUIRED_COLUMNS, n, () => undefined);
  for (const spec of EVENT_COLUMNS) c[spec.name]?.fill(spec.absent);
  return c as ColumnArrays;
}

/**
 * Growable column storage for one batch (the tokenizer's side). Its columns are declared one by
 * one, not merged in from EVENT_COLUMNS, because V8 keeps in the object only the fields its
 * class declares — the rest go to a side array, one more load for each of the tokenizer's
 * writes; `implements` has the compiler hold the list to the schema.
 */
export class ColumnBatchWriter implements Omit<ColumnArrays, 'offsets'> {
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
  /** Only when asked for (withOffsets). */
  offsets: Float64Array | undefined = undefined;
  private readonly specs: readonly Spec[];

  constructor(
    readonly capacity: number,
    readonly withOffsets = false,
  ) {
    this.specs = withOffsets ? EVENT_COLUMNS : REQUIRED_COLUMNS;
    batchBufferSizes.add(columnBytes(this.specs, capacity));
    this.alloc();
  }

  /** Fresh arrays (the previous ones were handed on). */
  alloc(): void {
    Object.assign(this, allocColumns(this.specs, this.capacity, takeBatchBuffer));
    this.length = 0;
  }

  /**
   * The batch so far, handed on: the current arrays (fresh ones take their place), or — for a
   * batch at most a quarter full — a copy in a buffer of its own size, the arrays kept. A reader
   * hands a batch on at the end of every chunk it is given, so a stream of small chunks (a pipe's
   * 64 KiB, a test's few bytes) would otherwise allocate and zero a whole batch per chunk.
   */
  handOn(newLabels: string[], newArgs: JsonObject[], originUs: string | undefined): EventColumns {
    const n = this.length;
    if (n * 4 > this.capacity) {
      const batch = this.view(newLabels, newArgs, originUs);
      this.alloc();
      return batch;
    }
    const copy = allocColumns(this.specs, n, () => undefined);
    for (const c of this.specs) copy[c.name]!.set(this[c.name]!.subarray(0, n * c.width));
    this.length = 0;
    return this.batchOf(n, (c) => copy[c.name]!, newLabels, newArgs, originUs);
  }

  /** The batch so far, as EventColumns over the current arrays (trimmed views). */
  view(newLabels: string[], newArgs: JsonObject[], originUs: string | undefined): EventColumns {
    const n = this.length;
    return this.batchOf(n, (c) => (n === this.capacity ? this[c.name]! : this[c.name]!.subarray(0, n * c.width)), newLabels, newArgs, originUs);
  }

  /** A batch of n rows over the columns `column` gives, its keys always in this order (one shape of batch for its readers). */
  private batchOf(n: number, column: (c: Spec) => Int32Array | Float64Array, newLabels: string[], newArgs: JsonObject[], originUs: string | undefined): EventColumns {
    const v: Record<string, unknown> = { length: n };
    for (const c of this.specs) v[c.name] = column(c);
    v.newLabels = newLabels;
    v.newArgs = newArgs;
    v.originUs = originUs;
    return v as EventColumns;
  }

  /** The current arrays in EVENT_COLUMNS order (undefined: offsets not asked for), as the native reader takes them. */
  arrays(): (Int32Array | Float64Array | undefined)[] {
    return EVENT_COLUMNS.map((c) => this[c.name]);
  }
}

/**
 * Where each RawEvent field (raw-event.ts) is held in the columns: the object API is an adapter
 * over the columns, and both its directions — eventsFromColumns here, RawEventColumns
 * (raw-event-columns.ts) — read this one table. `label`: a label id (`optional`: −1 when the
 * field is absent); `id`: a number column, or the label column when the value stayed a string;
 * `flowId` as `id`, absent when neither holds one; `number`: the number. `args` and
 * `byteOffset` come from the args and offsets columns.
 */
export const RAW_EVENT_FIELDS = [
  { field: 'ph', kind: 'label', column: 'ph' },
  { field: 'cat', kind: 'label', column: 'cat' },
  { field: 'name', kind: 'label', column: 'name' },
  { field: 'pid', kind: 'id', column: 'pid', label: 'pidLabel' },
  { field: 'tid', kind: 'id', column: 'tid', label: 'tidLabel' },
  { field: 'tsNs', kind: 'number', column: 'tsNs' },
  { field: 'durNs', kind: 'number', column: 'durNs' },
  { field: 'id', kind: 'flowId', column: 'flowId', label: 'flowIdLabel' },
  { field: 'bp', kind: 'optionalLabel', column: 'bp' },
  { field: 's', kind: 'optionalLabel', column: 's' },
] as const satisfies readonly RawEventField[];

export interface RawEventField {
  readonly field: Exclude<keyof RawEvent, 'args' | 'byteOffset'>;
  readonly kind: 'label' | 'optionalLabel' | 'id' | 'flowId' | 'number';
  readonly column: RequiredColumnName;
  /** The label column of an `id` or `flowId` field. */
  readonly label?: RequiredColumnName;
}

/**
 * A batch as RawEvent objects (in RawEvent's key order): `labels` every label so far by id,
 * `argsOf` the args of an args id.
 */
export function eventsFromColumns(c: EventColumns, labels: readonly string[], argsOf: (id: number) => JsonObject | undefined): RawEvent[] {
  const out: RawEvent[] = new Array(c.length);
  for (let i = 0; i < c.length; i++) {
    const e: Record<string, unknown> = {};
    for (const f of RAW_EVENT_FIELDS as readonly RawEventField[]) {
      const v = c[f.column][i]!;
      switch (f.kind) {
        case 'label':
          e[f.field] = labels[v];
          break;
        case 'optionalLabel':
          e[f.field] = v >= 0 ? labels[v] : undefined;
          break;
        case 'id':
          e[f.field] = numberOrLabel(v, c[f.label!][i]!, labels);
          break;
        case 'flowId':
          e[f.field] = flowIdOf(v, c[f.label!][i]!, labels);
          break;
        default:
          e[f.field] = v;
      }
    }
    const a = c.args[i]!;
    e.args = a >= 0 ? argsOf(a) : undefined;
    e.byteOffset = c.offsets![2 * i]!;
    out[i] = e as unknown as RawEvent;
  }
  return out;
}
