/**
 * Streaming, byte-level tokenizer for Kineto / Chrome-trace JSON.
 *
 * Handles: object roots (`{"schemaVersion":1, …, "traceEvents":[…], …}`, top-level keys before
 * and after the array) and bare-array roots (`[{…}, …]`, pre-Dec-2020 Kineto and the legacy
 * autograd exporter); bytes fed in chunks of any size (a UTF-8 sequence, a number or an event
 * may straddle chunks); exact integer-ns `ts`/`dur` from the number's source text; pid/tid and
 * `args.stream`/`args.device` normalisation; the invalid JSON Kineto is known to write (bare
 * `inf`/`nan`/`N/A`, raw control characters, unescaped `"` in names, truncated files), each
 * repaired and reported as a Diagnostic.
 *
 * Integers beyond ±2^53 become exact decimal strings wherever they are, in `args` and in the
 * header alike: `header.baseTimeNanoseconds` (≈1.7e18 ns) is such a string; use BigInt() on it.
 *
 * Ignores: event keys other than `ph cat name pid tid ts dur id bp s args` (they are parsed for
 * syntax, then dropped); anything after the root value closes (one TRAILING_DATA diagnostic).
 *
 * Output: columns (createColumnarTokenizer: typed-array batches, labels and args interned, args
 * an ArgsPolicy does not keep skipped without building anything; what loadTrace uses), or
 * RawEvent objects made from those batches (createTraceTokenizer: every key of every args).
 *
 * Each event is read by a fast path that takes the events as Kineto writes them in one pass
 * (fastEvent, fastArgs, skipPlain: plain ASCII strings, integer ids, decimal times) and gives
 * up on anything else, and then by the exact path (parseEvent), which makes every repair,
 * diagnostic and error. Both read times and labels with the same functions (plainTime, on
 * time-text.ts's rule, LabelTable.idOfPlain) and integers as parseNumber does (plainInt), so an
 * event reads the same whichever path took it, i.e. whatever the chunk size; they differ only
 * in how they read a value, and hand it to one switch from key to column (setEventValue).
 *
 * Pure: no `node:` imports, runs unchanged in a browser or a worker. It never holds the whole
 * text — only the bytes of the value currently being parsed when it straddles a chunk boundary
 * (V8 strings stop near 512 MB; traces reach 10 GB).
 */

import type { JsonObject, JsonValue, RawEvent } from './raw-event.js';
import { DiagnosticSink, type Severity } from '../core/diagnostics.js';
import { KinetoscopeError } from '../core/errors.js';
import { limitError, readLimits } from './limits.js';
import { ArgKeyTable } from './arg-keys.js';
import { ArgsTable } from './args-table.js';
import { ByteTable } from './byte-table.js';
import * as eventColumns from './event-columns.js';
import { ARG_NUMBER_KEYS, ColumnBatchWriter, eventsFromColumns, KEEP_ALL_ARGS, type ArgsPolicy, type EventColumns } from './event-columns.js';
import * as jsonBytes from './json-bytes.js';
import { LabelTable } from './label-table.js';
import { decimalUsToNs, exactTsNs, PlainUs, plainTsNs, plainWholeUs, readPlainUs, wholeUsOfNs } from './time-text.js';
import * as nativeReader from './native-reader.js';
import type { NativeEventReader, NativeEventReaderClass } from './native-reader.js';

// Imported bindings are read through a check on every use; module constants are folded into
// the optimised code, so the hot loops use these.
const { QUOTE, BACKSLASH, PLAIN } = jsonBytes;
const { AN_DEVICE, AN_EXTERNAL_ID, AN_STREAM, ARG_NUMBERS, LABEL_EMPTY } = eventColumns;
const { IO_A, IO_B, IO_COUNT, IO_LAST_END, IO_POS, IO_SIZE, NATIVE_AT_EVENT, NATIVE_FULL, NATIVE_NEED_ARGS, NATIVE_NEED_LABEL, NATIVE_STOPPED } = nativeReader;

export interface TokenizerResult {
  container: 'object' | 'array';
  /**
   * Every top-level key but `traceEvents` (empty for a bare-array root). Integers beyond 2^53
   * are decimal strings, e.g. `baseTimeNanoseconds: "1790857026000000000"`.
   */
  header: JsonObject;
  /** Integer µs: the integer part of the first `ts` seen; `event.tsNs = (ts − timeOriginUs)·1000` exactly. */
  timeOriginUs: number;
  eventCount: number;
  /** Bytes of (decompressed) text pushed. */
  bytesRead: number;
  /** The text ended before the root value closed (or a syntax error could not be resynchronised). */
  truncated: boolean;
}

export interface TraceTokenizer {
  /** Feeds the next bytes. The chunk is not retained after the call returns. */
  push(bytes: Uint8Array): void;
  /** Flushes the last events and reports how the text ended. Throws KinetoscopeError for non-traces. */
  end(): TokenizerResult;
  /** Events handed on so far. */
  readonly events: number;
}

/** Events are handed on in batches of at most this many (and at the end of every push). */
export const EVENT_BATCH_SIZE = 4096;

/**
 * The tokenizer handing on RawEvent objects: every key of every args, each event its own
 * object. The columnar tokenizer underneath (one grammar), made into objects batch by batch.
 */
export function createTraceTokenizer(
  onEvents: (batch: RawEvent[]) => void,
  diagnostics: DiagnosticSink,
): TraceTokenizer {
  let labels: string[] = [];
  // Args ids count up over the whole text; a batch's newArgs are those from argsBase on.
  let argsBase = 0;
  const toEvents = (c: EventColumns): void => {
    const out = eventsFromColumns(c, labels, (a) => c.newArgs[a - argsBase]);
    argsBase += c.newArgs.length;
    onEvents(out);
  };
  const t = new Tokenizer(toEvents, diagnostics, { policy: KEEP_ALL_ARGS, offsets: true, reuseBatches: true }, true);
  labels = t.labelStrings();
  return {
    push: (bytes: Uint8Array) => t.push(bytes),
    end: () => t.end(),
    get events() {
      return t.ownEvents;
    },
  };
}

/**
 * Interning state shared by the tokenizers of one producer (a worker parses many segments of a
 * file with one context, so that a label or an args object is handed on once, not per segment).
 */
export class InternContext {
  readonly labels = new LabelTable();
  readonly args = new ArgsTable();
  /** Labels already handed on in a batch. */
  labelsSent = 0;
  /** Args objects made since the last batch. */
  pendingArgs = argsList();
  /** Resolved args mode + 2 per (ph label, cat label); 0: not resolved yet. */
  readonly modeCache: Int32Array[] = [];
  readonly dropSets: { mask: number; keys: Set<string> }[] = [];
  readonly knownKeys: string[];
  readonly keySlot: Int32Array;
  private readonly completeModes = new Map<string, number>();
  private readonly phaseModes = new Map<string, number>();
  private readonly completeDefault: number;
  private readonly phaseDefault: number;
  /** Args keys seen, tagged with their known-key index (or −1). */
  readonly argKeys = new ArgKeyTable();
  /** Known keys by byte length: [key index, bytes] pairs. */
  readonly keysByLength: { index: number; bytes: Uint8Array }[][] = [];
  /** Each known key's bytes, by index. */
  readonly knownBytes: Uint8Array[] = [];
  /**
   * The known key of a given byte length (< 64) and first byte, at [length · 256 + first byte]:
   * its index, −1 for none, −2 for several (then knownKey decides).
   */
  readonly keyByLengthAndFirst = new Int8Array(64 * 256).fill(-1);

  /** The native fast path's reader, taught this context's ids (one per context: its tables mirror these). */
  private nativeState: NativeState | undefined;

  nativeOf(cls: NativeEventReaderClass): NativeState {
    if (this.nativeState === undefined) {
      const io = new Float64Array(IO_SIZE);
      const ranges = new Int32Array(512);
      const masks = Int32Array.from(this.dropSets, (d) => d.mask);
      const enc = new TextEncoder();
      const complete = [...this.completeModes];
      const phases = [...this.phaseModes];
      const reader = new cls(
        this.knownBytes,
        this.keySlot,
        masks,
        complete.map(([cat]) => enc.encode(cat)),
        Int32Array.from(complete, ([, m]) => m),
        phases.map(([ph]) => enc.encode(ph)),
        Int32Array.from(phases, ([, m]) => m),
        Int32Array.of(this.completeDefault, this.phaseDefault),
        io,
        ranges,
      );
      this.nativeState = { reader, io, ranges, columnsOf: undefined };
    }
    return this.nativeState;
  }

  constructor(readonly policy: ArgsPolicy) {
    // Keys compared by their bytes while args are read: the numbers lifted into columns and
    // every key a policy drops.
    const known: string[] = [...ARG_NUMBER_KEYS, 'external id'];
    for (const group of [policy.complete, policy.phases]) for (const drop of Object.values(group)) for (const k of drop) if (!known.includes(k)) known.push(k);
    if (known.length > 31) throw new Error('ArgsPolicy: at most 21 distinct dropped keys');
    this.knownKeys = known;
    this.keySlot = new Int32Array(known.length).fill(-1);
    for (let i = 0; i < ARG_NUMBERS; i++) this.keySlot[i] = i;
    this.keySlot[ARG_NUMBERS] = EXT_LOWER_SLOT;
    const enc = new TextEncoder();
    known.forEach((k, index) => {
      const bytes = enc.encode(k);
      (this.keysByLength[bytes.length] ??= []).push({ index, bytes });
      this.knownBytes.push(bytes);
      if (bytes.length < 64) {
        // The byte after an empty key is its closing quote.
        const at = (bytes.length << 8) | (bytes.length > 0 ? bytes[0]! : QUOTE);
        this.keyByLengthAndFirst[at] = this.keyByLengthAndFirst[at] === -1 ? index : -2;
      }
    });
    const modeOf = (drop: readonly string[]): number => {
      let mask = 0;
      for (const k of drop) mask |= 1 << known.indexOf(k);
      let m = this.dropSets.findIndex((d) => d.mask === mask);
      if (m < 0) {
        m = this.dropSets.length;
        this.dropSets.push({ mask, keys: new Set(drop) });
      }
      return m;
    };
    for (const [cat, drop] of Object.entries(policy.complete)) this.completeModes.set(cat, modeOf(drop));
    for (const [ph, drop] of Object.entries(policy.phases)) this.phaseModes.set(ph, modeOf(drop));
    this.completeDefault = this.completeModes.get('*') ?? MODE_SKIP;
    this.phaseDefault = this.phaseModes.get('*') ?? MODE_SKIP;
  }

  /** The args mode of events with these `ph` and `cat` labels (MODE_SKIP or a drop-set index). */
  modeOf(ph: number, cat: number): number {
    const row = this.modeCache[ph];
    if (row !== undefined && cat < row.length) {
      const m = row[cat]!;
      if (m !== 0) return m - 2;
    }
    return this.resolve(ph, cat);
  }

  private resolve(ph: number, cat: number): number {
    const phs = this.labels.strings[ph]!;
    const m = phs === 'X' ? (this.completeModes.get(this.labels.strings[cat]!) ?? this.completeDefault) : (this.phaseModes.get(phs) ?? this.phaseDefault);
    let row = this.modeCache[ph];
    if (row === undefined || cat >= row.length) {
      const nr = new Int32Array(Math.max(64, (cat + 1) * 2));
      if (row !== undefined) nr.set(row);
      this.modeCache[ph] = row = nr;
    }
    row[cat] = m + 2;
    return m;
  }

  /** The index of the known key b[s, e), or −1. */
  knownKey(b: Uint8Array, s: number, e: number): number {
    const cands = this.keysByLength[e - s];
    if (cands === undefined) return -1;
    for (let c = 0; c < cands.length; c++) {
      const k = cands[c]!.bytes;
      let i = 0;
      while (i < k.length && k[i] === b[s + i]) i++;
      if (i === k.length) return cands[c]!.index;
    }
    return -1;
  }

  knownKeyOfString(key: string): number {
    return this.knownKeys.indexOf(key);
  }
}

/** A native reader with the arrays it shares with the tokenizer (see InternContext.nativeOf). */
interface NativeState {
  readonly reader: NativeEventReader;
  readonly io: Float64Array;
  readonly ranges: Int32Array;
  /** The batch the reader writes (its `ph` column), to hand it the next one. */
  columnsOf: Int32Array | undefined;
}

export interface ColumnarOptions {
  /** What to keep of each event's args. */
  policy: ArgsPolicy;
  /** Share interning with other tokenizers of the same producer (else a fresh context). */
  context?: InternContext;
  /**
   * The consumer copies each batch before onColumns returns: reuse the batch's arrays
   * (else each batch gets fresh ones, e.g. to transfer them to another thread).
   */
  reuseBatches?: boolean;
  /**
   * Start inside the events array, at the `{` of an event at this absolute byte offset:
   * one segment of a text split at event boundaries (see atEventBoundary()).
   */
  resume?: { container: 'object' | 'array'; offset: number };
  /** Also hand on each event's byte range (EventColumns.offsets). */
  offsets?: boolean;
  /** The native fast path (native-reader.ts), where the host can load it. */
  native?: NativeEventReaderClass;
  /**
   * Read PRIMER first, where the JavaScript reader does the reading (default true). False for
   * a small input, which pays its ~10 ms of CPU and would not read long enough to gain them back.
   */
  prime?: boolean;
}

export interface ColumnarTokenizer extends TraceTokenizer {
  /** True when the bytes so far end just after the `,` that follows an event: the next segment may start here. */
  atEventBoundary(): boolean;
  /**
   * For the last segment of a split text, before end(): how many events the earlier segments
   * held and where the last of them ended, so that end()'s counts and messages are the file's.
   */
  setEarlier(events: number, lastEventEnd: number): void;
  /** Events handed on by this tokenizer. */
  readonly ownEventCount: number;
  /** Absolute offset just after the last complete event (or where the tokenizer started). */
  lastEventEnd(): number;
  /** Integer µs of the first ts this tokenizer saw (decimal text), if any. */
  originUs(): string | undefined;
  /** Top-level keys seen by this tokenizer (a segment sees those before or after the events). */
  readonly header: JsonObject;
  /**
   * Before pushing `bytes` (the very object to be pushed soon): where the native fast path is
   * there, its events are read ahead on another thread, unless this thread gets to them first;
   * the chunk must not change until it is pushed (or end()). Else nothing happens.
   */
  prepare(bytes: Uint8Array): void;
  /**
   * Where the native fast path is there: its prescan thread reads the plain file `fd` from its
   * start in chunks of chunkSize bytes (and prescans them), to be taken by nextChunk and pushed;
   * stopReading before the file is closed. False (nothing started) where it is not.
   */
  readFile(fd: number, chunkSize: number): boolean;
  /** The next chunk readFile read (waiting for it), or undefined at the end of the file; throws FILE_UNREADABLE on a read error. */
  nextChunk(): Uint8Array | undefined;
  stopReading(): void;
}

/**
 * The tokenizer in columnar mode: hands events on as EventColumns batches (labels and args
 * interned, args not kept skipped without building objects). Same grammar, repairs,
 * diagnostics and errors as createTraceTokenizer.
 */
export function createColumnarTokenizer(
  onColumns: (batch: EventColumns) => void,
  diagnostics: DiagnosticSink,
  opts: ColumnarOptions,
): ColumnarTokenizer {
  // With the native fast path, the JavaScript one reads only what it leaves: not worth priming.
  if (opts.native === undefined && opts.prime !== false) prime();
  const t = new Tokenizer(onColumns, diagnostics, opts, false);
  return {
    push: (bytes: Uint8Array) => t.push(bytes),
    end: () => t.end(),
    atEventBoundary: () => t.atEventBoundary(),
    setEarlier: (events: number, lastEventEnd: number) => t.setEarlier(events, lastEventEnd),
    get ownEventCount() {
      return t.ownEvents;
    },
    get events() {
      return t.ownEvents;
    },
    originUs: () => t.originText(),
    lastEventEnd: () => t.lastEventEndAt(),
    get header() {
      return t.headerObject();
    },
    prepare: (bytes: Uint8Array) => t.prepare(bytes),
    readFile: (fd: number, chunkSize: number) => t.readFile(fd, chunkSize),
    nextChunk: () => t.nextChunk(),
    stopReading: () => t.stopReading(),
  };
}

/** A new list of args objects (one allocation site: V8 learns that it holds objects). */
function argsList(): JsonObject[] {
  return [];
}

/** Args modes: skip (not kept), or keep everything the event has (ph/cat not known yet). */
const MODE_SKIP = -1;
const MODE_FULL = -2;
/** The key slot of the lower-case `external id`. */
const EXT_LOWER_SLOT = ARG_NUMBERS;
/** flowIdLabel of an id that is the number NaN (event-columns.ts). */
const NAN_ID = eventColumns.NAN_FLOW_ID;

/** An args value read as a number (event-columns.ts, ARG_NUMBER_KEYS' reading). */
const argNumber = eventColumns.argNumber;

/** An args object's `stream` and `device` strings as ids (`"0x7"` → 7), as ARG_NUMBER_KEYS reads them. */
function normaliseArgIds(obj: JsonObject): JsonObject {
  const st = obj.stream;
  if (typeof st === 'string') obj.stream = normaliseId(st);
  const dv = obj.device;
  if (typeof dv === 'string') obj.device = normaliseId(dv);
  return obj;
}

function deleteKeys(obj: JsonObject, keys: Set<string>): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj)) if (!keys.has(k)) setKey(out, k, obj[k]!);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Byte constants and tables (immutable module-level data; no state).

const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const SPACE = 0x20;

const MAX_SAFE = 9007199254740992; // 2^53: an accumulator below this is exact

const WS = new Uint8Array(256);
WS[0x20] = WS[0x0a] = WS[0x0d] = WS[0x09] = 1;

/** Bytes a bare token (`inf`, `NaN`, `N/A`, `true`, …) is made of. */
const BARE = new Uint8Array(256);
for (let c = 0x41; c <= 0x5a; c++) BARE[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) BARE[c] = 1;
BARE[0x2f] = 1; // '/' of N/A
for (let c = 0x30; c <= 0x39; c++) BARE[c] = 1; // digits and '_' so that an error names the whole word
BARE[0x5f] = 1;

const CHAR1: string[] = [];
for (let c = 0; c < 0x80; c++) CHAR1.push(String.fromCharCode(c));

/** Exact powers of ten (10^0 … 10^22 are exact doubles). */
const POW10: number[] = [];
for (let i = 0, v = 1; i <= 22; i++, v *= 10) POW10.push(v);

const TRACE_EVENTS_KEY = new Uint8Array([...'"traceEvents"'].map((c) => c.charCodeAt(0)));

// Event keys the reader keeps, grouped by the type of their value (see setEventValue): labels,
// then ids, then times.
const K_OTHER = 0;
const K_PH = 1;
const K_CAT = 2;
const K_NAME = 3;
const K_BP = 4;
const K_S = 5; // the last label
const K_PID = 6;
const K_TID = 7;
const K_ID = 8; // the last id
const K_TS = 9;
const K_DUR = 10;
const K_ARGS = 11;

/** Four bytes as DataView.getInt32(·, true) reads them. */
function word(text: string): number {
  return text.charCodeAt(0) | (text.charCodeAt(1) << 8) | (text.charCodeAt(2) << 16) | (text.charCodeAt(3) << 24);
}
// An event key as Kineto writes it, after its opening quote: the key, its closing quote, and
// for two-letter keys the colon.
const W_PH = word('ph":');
const W_TS = word('ts":');
const W_ID = word('id":');
const W_BP = word('bp":');
const W_CAT = word('cat"');
const W_PID = word('pid"');
const W_TID = word('tid"');
const W_DUR = word('dur"');
const W_NAME = word('name');
const W_ARGS = word('args');
const W_S = word('s": ');

function eventKeyCode(b: Uint8Array, s: number, len: number): number {
  switch (len) {
    case 1:
      return b[s] === 0x73 ? K_S : K_OTHER;
    case 2: {
      const c0 = b[s];
      const c1 = b[s + 1];
      if (c0 === 0x70 && c1 === 0x68) return K_PH; // ph
      if (c0 === 0x74 && c1 === 0x73) return K_TS; // ts
      if (c0 === 0x69 && c1 === 0x64) return K_ID; // id
      if (c0 === 0x62 && c1 === 0x70) return K_BP; // bp
      return K_OTHER;
    }
    case 3: {
      const c0 = b[s];
      const c1 = b[s + 1];
      const c2 = b[s + 2];
      if (c1 === 0x69 && c2 === 0x64) {
        if (c0 === 0x70) return K_PID; // pid
        if (c0 === 0x74) return K_TID; // tid
        return K_OTHER;
      }
      if (c0 === 0x63 && c1 === 0x61 && c2 === 0x74) return K_CAT; // cat
      if (c0 === 0x64 && c1 === 0x75 && c2 === 0x72) return K_DUR; // dur
      return K_OTHER;
    }
    case 4: {
      const c0 = b[s];
      if (c0 === 0x6e && b[s + 1] === 0x61 && b[s + 2] === 0x6d && b[s + 3] === 0x65) return K_NAME;
      if (c0 === 0x61 && b[s + 1] === 0x72 && b[s + 2] === 0x67 && b[s + 3] === 0x73) return K_ARGS;
      return K_OTHER;
    }
    default:
      return K_OTHER;
  }
}

function eventKeyCodeOfString(k: string): number {
  switch (k) {
    case 'ph': return K_PH;
    case 'cat': return K_CAT;
    case 'name': return K_NAME;
    case 'pid': return K_PID;
    case 'tid': return K_TID;
    case 'ts': return K_TS;
    case 'dur': return K_DUR;
    case 'id': return K_ID;
    case 'bp': return K_BP;
    case 's': return K_S;
    case 'args': return K_ARGS;
    default: return K_OTHER;
  }
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

/**
 * pid / tid / args.stream / args.device as written by different eras:
 * numeric strings (`"25738"`, PyTorch ≤ 1.9 string tids) and hex strings (`"0x0"`, ROCm stream
 * ids) become numbers; labels (`"Spans"`, `"stream 7 annotations"`, `""`) stay strings.
 */
export function normaliseId(str: string): number | string {
  const n = str.length;
  if (n === 0 || n > 24) return str;
  const c0 = str.charCodeAt(0);
  if (n > 2 && c0 === 48 && (str.charCodeAt(1) | 0x20) === 0x78) {
    if (n - 2 > 13) return str; // > 52 bits: not exact as a number
    let v = 0;
    for (let i = 2; i < n; i++) {
      const h = hexDigit(str.charCodeAt(i));
      if (h < 0) return str;
      v = v * 16 + h;
    }
    return v;
  }
  let i = c0 === MINUS ? 1 : 0;
  if (i === n) return str;
  let v = 0;
  for (; i < n; i++) {
    const d = str.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return str;
    v = v * 10 + d;
  }
  if (v >= MAX_SAFE) return str;
  return c0 === MINUS ? -v : v;
}

function describeByte(c: number): string {
  if (c >= 0x20 && c < 0x7f) return c === QUOTE ? '"\\""' : `"${String.fromCharCode(c)}"`;
  return `byte 0x${c.toString(16).padStart(2, '0')}`;
}

function setKey(obj: JsonObject, key: string, v: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[key] = v;
}

// ---------------------------------------------------------------------------------------------
// Parser states (top level).

const S_START = 0;
const S_OBJ_FIRST = 1; // after `{` of the root: a key or `}`
const S_OBJ_NEXT = 2; // after a top-level member: `,` or `}`
const S_OBJ_KEY = 3; // after `,` at the top level: a key
const S_EVENTS_FIRST = 4; // after `[` of the events array
const S_EVENTS_NEXT = 5; // after an event: `,` or `]`
const S_EVENTS_ELEM = 6; // after `,` in the events array: an event
const S_DONE = 7; // the root closed
const S_IGNORE = 8; // drop everything that follows
const S_RESYNC_EVENTS = 9; // after a syntax error in the events array: look for the next event boundary
const S_RESYNC_HEADER = 10; // after a syntax error before the events array: look for "traceEvents"

/** Thrown (never escapes) when the buffer ends inside a value: retry with more bytes. */
const INCOMPLETE = { incomplete: true };

/** Buffers readFile's chunks go round in: the one being pushed and three read ahead. */
const FILE_RING = 4;

/** An integer that may be past 2^53 (buildPlainArgs). */
const SIXTEEN_DIGITS = /\d{16}/;

class ParseError {
  constructor(
    readonly offset: number, // absolute
    readonly reason: string,
  ) {}
}

const NO_ERROR = new ParseError(-1, '');

interface PendingDiag {
  code: string;
  severity: Severity;
  message: string;
  byteOffset: number;
}

const INTERN_BITS = 13;
const INTERN_LIMIT = 1 << (INTERN_BITS - 1); // strings kept at most (then looked up, no longer added)
const INTERN_MAX_LABEL = 512; // ph/cat/name and object keys up to this many bytes are interned
const INTERN_MAX_VALUE = 40; // other string values

/**
 * A few events of every shape Kineto writes, each path of the reader taken once: V8 optimises
 * the hot functions after some thousand events, from the types it has seen so far, and a path
 * first taken later (a flow event, an integer past 2^31, a nested args value, ts with fewer
 * decimals) throws the optimised code away and compiles it again — tens of ms each, a large
 * share of reading a file once. Read by the first tokenizer of each thread.
 */
const PRIMER = `{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 150109880320}], "traceEvents": [
  {"name": "process_name", "ph": "M", "ts": 5087152085809.922, "pid": 599, "tid": 0, "args": {"name": "python3"}},
  {"name": "process_sort_index", "ph": "M", "ts": 5087152085809.9, "pid": 0, "tid": 0, "args": {"sort_index": 5000000}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 599, "tid": 644, "ts": 5087152102924.568, "dur": 254.939,
    "args": {"External id": 1537, "Record function id": 0, "Sequence number": 1901, "Fwd thread id": 1, "Concrete Inputs": ["", "1"], "Input type": ["float", "c10::BFloat16"], "Input Strides": [[2, 1], []], "Input Dims": [[1, 2], [3]], "Ev Idx": 0}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 599, "tid": 644, "ts": 5087152102925, "dur": 2,
    "args": {"External id": 1538, "Record function id": 0, "Sequence number": 1902, "Fwd thread id": 1, "Concrete Inputs": ["", "1"], "Input type": ["float", "c10::BFloat16"], "Input Strides": [[2, 1], []], "Input Dims": [[1, 2], [3]], "Ev Idx": 1}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 599, "tid": 644, "ts": 5087152102926.5, "dur": 2.25, "args": {"External id": 3, "Record function id": 0, "Ev Idx": 2, "nested": {"a": [true, false, null, -1.5e-3, 1E+2]}}},
  {"ph": "X", "cat": "python_function", "name": "capture.py(282): <module>", "pid": 599, "tid": 599, "ts": 5087152085725.001, "dur": 117853.329, "args": {"Python parent id": null, "Python id": 1, "Ev Idx": 15762}} ,
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 599, "tid": 644, "ts": 5087152102994.288,
    "args": {"Total Reserved": 6075449344, "Total Allocated": 4590720000, "Bytes": -824180736, "Device Id": 0, "Device Type": 1, "Addr": 140516163321856, "finished": false, "Ev Idx": 6588}},
  {"ph": "X", "cat": "kernel", "name": "void gemm<16, long>(char*, long)", "pid": 0, "tid": 7, "ts": 5087152087697.923, "dur": 8.096,
    "args": {"External id": 13, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 11734, "registers per thread": 32, "blocks per SM": 31.030304, "grid": [4096, 1, 1], "block": [192, 1, 1], "est. achieved occupancy %": 94}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "flops": 12, "ts" : 5087152085809, "dur":1, "args": {}} ,
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 599, "tid": 599, "ts": 5087152086996.113, "dur": 4.471, "args": {"cbid": 317, "correlation": 11714}},
  {"ph": "s", "id": 11714, "pid": 599, "tid": 599, "ts": 5087152086996.113, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 11714, "pid": 0, "tid": 7, "ts": 5087152087697.923, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "x", "pid": "Spans", "tid": "0x7", "ts": 5087152087697.92, "dur": 1e1, "id": "0x1", "args": {"stream": "0x7", "big": 123456789012345678901, "s": "\u00e9\n"}},
  {"args": {"External id": "12", "external id": 1}, "ph": "X", "cat": "cpu_op", "name": "a\"b", "ts": "12.5", "dur": null, "other": [1, {"k": "v"}]},
  {}
], "traceName": "primer", "baseTimeNanoseconds": 1790857026000000000}`;

let primed = false;

/** Reads PRIMER once per thread (see there). */
function prime(): void {
  if (primed) return;
  primed = true;
  const bytes = new TextEncoder().encode(PRIMER);
  const policy: ArgsPolicy = { complete: { cpu_op: ['External id', 'Ev Idx'], kernel: ['correlation'], user_annotation: [] }, phases: { M: [] } };
  const sink = new DiagnosticSink();
  for (let round = 0; round < 4; round++) {
    const t = new Tokenizer(() => undefined, sink, { policy, offsets: round === 3 }, false);
    // Whole, then in pieces (events cut by chunk ends).
    if (round < 3) t.push(bytes);
    else for (let i = 0; i < bytes.length; i += 97) t.push(bytes.subarray(i, Math.min(bytes.length, i + 97)));
    t.end();
  }
}

/**
 * The first value of the Tokenizer's byte-offset fields: a double, reset to 0 in the constructor.
 * Offsets pass 2^30 (V8's small-integer limit) in files over 1 GB, and a range of a file read in
 * parallel starts at an offset taken from an array of doubles: had these fields started as small
 * integers, the first such offset would give the instance a new hidden class and throw away
 * every optimised method of the tokenizer (measured: "wrong map" deopts at each new range, the
 * first 8–16 MB of each parallel range re-read at a tenth of the speed). Starting them as
 * doubles gives every instance the same map.
 */
const AS_DOUBLE = 0.5;

class Tokenizer {
  // Current buffer being parsed (a chunk, or the pending buffer) and its absolute offset.
  private buf: Uint8Array = new Uint8Array(0);
  private view: DataView = new DataView(this.buf.buffer);
  private lim = 0;
  private base = AS_DOUBLE;
  private pos = 0;
  private final = false;

  private state = S_START;
  private container: '' | 'object' | 'array' = '';
  private readonly header: JsonObject = {};
  private eventCount = 0;
  private bytesIn = AS_DOUBLE;
  private ended = false;

  // Time origin: integer µs of the first ts seen.
  // (Every field starts with a value of its final type: a field whose representation changes
  // later, e.g. undefined → number, deprecates the object's map and deoptimises every method.)
  private origin = 0.5;
  private hasOrigin = false;
  private originBig = 0n;
  private hasOriginBig = false;

  // Pending bytes of a value that straddles chunks.
  private pend = new Uint8Array(1024);
  private pendLen = 0;
  // Limits (limits.ts): a pending value longer than guardAt is scanned (guardPending) for an over-long string or number.
  private readonly maxStringBytes = readLimits().maxStringBytes;
  private readonly maxNumberChars = readLimits().maxNumberChars;
  private readonly maxDepth = readLimits().maxDepth;
  private readonly guardAt = Math.min(readLimits().maxStringBytes, readLimits().maxNumberChars);
  private gScan = 0;
  private gInStr = false;
  private gFrom = 0;
  private gNum = -1;
  private pendBase = AS_DOUBLE;
  private lastAttempt = 0;
  // Structural scanner over pending bytes: signals when the pending value may be complete.
  private scInStr = false;
  private scEsc = false;
  private scDepth = 0;
  private scTrust = true;

  // Diagnostics of the unit being parsed, committed only when the unit completes
  // (a unit cut by a chunk boundary is parsed again).
  private unitDiags: PendingDiag[] = [];

  private sawTraceEvents = false;
  private lastEventEnd = AS_DOUBLE; // absolute offset just after the last complete event (or the `[`)
  private lastUnitEnd = AS_DOUBLE; // absolute offset just after the last complete top-level unit
  private nonObjectElements = 0;
  private sawNonWhitespace = false;

  private resyncErr: ParseError = NO_ERROR;
  private resyncUnit = AS_DOUBLE;
  private headerErr: ParseError = NO_ERROR;
  private headerErrAfter = AS_DOUBLE;

  // Short repeated strings of the exact path (keys, short values), by their bytes: ids into iStr.
  private readonly iTable = new ByteTable(INTERN_BITS);
  private readonly iStr: string[] = [];
  private readonly iSpan = new Int32Array(2);

  private readonly utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  private readonly latin1 = new TextDecoder('latin1');
  private readonly utf8Fatal = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });

  // The batch being filled, the interning context, and the current event's external ids and
  // kept-member byte ranges.
  private readonly cw: ColumnBatchWriter;
  private readonly ctx: InternContext;
  private readonly reuse: boolean;
  private readonly native: NativeState | undefined;
  /** Whether the last nativeEvents ended after an event not followed by `,` `{`. */
  private nativeStopped = false;
  /** The event nativeEvents left does not close inside the buffer (NATIVE_AT_EVENT, io[IO_A] 1). */
  private nativePastEnd = false;
  /** Prescans of chunks not pushed yet (see prepare), by chunk. */
  private readonly prepared = new Map<Uint8Array, number>();
  /** readFile's buffers (their chunks come back from nextChunk). */
  private fileRing: Uint8Array[] = [];
  /** The prescan of the bytes being run: the chunk being pushed, not the pending bytes (−1: none). */
  private runPrescan = -1;
  ownEvents = 0;
  private resumeOffset = AS_DOUBLE;
  private extLower = NaN;
  private extUpperSet = false;
  private argsObj: JsonObject | null = null;
  private ranges = new Int32Array(64);
  private idNum = 0;
  private idLabel = 0;
  /** Where the number plainInt or plainTime read ends. */
  private numEnd = 0;
  /** The last number plainTime read. */
  private readonly time = new PlainUs();
  /** The keys of the event being read so far, a bit per K_ code (setEventValue). */
  private seen = 0;
  /** Where the key plainKey read ends (its closing quote). */
  private keyEnd = 0;

  /**
   * `rawArgs`: every event's args parsed whole into its own object (RawEvents), whatever the
   * policy; a non-object args after an object one leaves the object.
   */
  constructor(
    private readonly onColumns: (b: EventColumns) => void,
    private readonly sink: DiagnosticSink,
    opts: ColumnarOptions,
    private readonly rawArgs: boolean,
  ) {
    this.base = this.bytesIn = this.pendBase = this.lastEventEnd = this.lastUnitEnd = this.resyncUnit = this.headerErrAfter = 0;
    this.resumeOffset = -1;
    this.ctx = opts.context ?? new InternContext(opts.policy);
    this.reuse = opts.reuseBatches === true;
    this.cw = new ColumnBatchWriter(EVENT_BATCH_SIZE, opts.offsets === true);
    this.native = opts.native !== undefined && !rawArgs ? this.ctx.nativeOf(opts.native) : undefined;
    const r = opts.resume;
    if (r) {
      this.container = r.container;
      this.state = S_EVENTS_ELEM;
      this.sawTraceEvents = true;
      this.sawNonWhitespace = true;
      this.bytesIn = r.offset;
      this.lastEventEnd = r.offset;
      this.lastUnitEnd = r.offset;
      this.resumeOffset = r.offset;
    }
  }

  labelStrings(): string[] {
    return this.ctx.labels.strings;
  }

  // -------------------------------------------------------------------------------------------
  // Chunk handling.

  /** See ColumnarTokenizer.prepare. */
  prepare(bytes: Uint8Array): void {
    const nat = this.native;
    if (nat === undefined || bytes.length === 0 || this.ended) return;
    const handle = nat.reader.prescan(bytes);
    if (handle >= 0) this.prepared.set(bytes, handle);
  }

  /** See ColumnarTokenizer.readFile. */
  readFile(fd: number, chunkSize: number): boolean {
    const nat = this.native;
    if (nat === undefined || this.ended) return false;
    const ring = Array.from({ length: FILE_RING }, () => new Uint8Array(chunkSize));
    if (!nat.reader.readFile(fd, ring, chunkSize)) return false;
    this.fileRing = ring;
    return true;
  }

  /** See ColumnarTokenizer.nextChunk. */
  nextChunk(): Uint8Array | undefined {
    const nat = this.native!;
    const r = nat.reader.next();
    if (r === -1) return undefined;
    if (r < 0) throw new KinetoscopeError('FILE_UNREADABLE', `cannot read the trace file: ${nat.reader.errorText(nat.io[IO_A]!)}`);
    const bytes = this.fileRing[r]!.subarray(0, nat.io[IO_A]!);
    const handle = nat.io[IO_B]!;
    if (handle >= 0) this.prepared.set(bytes, handle);
    return bytes;
  }

  /** See ColumnarTokenizer.stopReading. */
  stopReading(): void {
    if (this.fileRing.length === 0) return;
    this.native!.reader.stopReading();
    this.fileRing = [];
  }

  push(bytes: Uint8Array): void {
    if (this.ended) throw new Error('TraceTokenizer.push() called after end()');
    const n = bytes.length;
    if (n === 0) return;
    if (this.prepared.size > 0) {
      const handle = this.prepared.get(bytes);
      if (handle !== undefined) {
        this.prepared.delete(bytes);
        try {
          this.pushChunk(bytes, n, handle);
        } finally {
          this.native!.reader.release(handle);
        }
        return;
      }
    }
    this.pushChunk(bytes, n, -1);
  }

  private pushChunk(bytes: Uint8Array, n: number, prescan: number): void {
    // Parse plain Uint8Arrays only: a subclass (Node's Buffer) has another map, and the byte
    // loops would go polymorphic (and deoptimise) between it and the pending buffer.
    const chunk = Object.getPrototypeOf(bytes) === Uint8Array.prototype ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, n);
    const chunkBase = this.bytesIn;
    this.bytesIn += n;
    let off = 0;
    while (this.pendLen > 0 && off < n) {
      const sig = this.scan(chunk, off, n, true);
      const stop = sig >= 0 ? sig + 1 : n;
      this.appendPending(chunk, off, stop);
      off = stop;
      if ((sig >= 0 && this.scTrust) || this.pendLen >= 2 * this.lastAttempt) {
        const before = this.pendLen;
        this.retryPending();
        // A signal that did not complete anything: stop trusting signals for this value
        // (doubling alone keeps the retries linear).
        if (sig >= 0 && this.pendLen === before) this.scTrust = false;
      }
    }
    if (off < n) {
      this.runPrescan = prescan;
      const c = this.run(chunk, off, n, chunkBase);
      this.runPrescan = -1;
      if (c < n) this.setPending(chunk, c, n, chunkBase + c);
    }
    this.flush();
  }

  end(): TokenizerResult {
    if (this.ended) throw new Error('TraceTokenizer.end() called twice');
    this.ended = true;
    if (this.native !== undefined) {
      for (const handle of this.prepared.values()) this.native.reader.release(handle);
      this.prepared.clear();
      this.native.reader.idle();
    }
    this.final = true;
    if (this.pendLen > 0) this.retryPending();
    this.flush();
    return this.finish();
  }

  private flush(): void {
    if (this.cw.length > 0) this.flushColumns();
  }

  private retryPending(): void {
    const c = this.run(this.pend, 0, this.pendLen, this.pendBase);
    const rest = this.pendLen - c;
    if (rest > 0 && c > 0) this.pend.copyWithin(0, c, this.pendLen);
    this.pendLen = rest;
    this.pendBase += c;
    if (c > 0) this.resetGuard();
    this.lastAttempt = rest;
    if (c > 0) this.scTrust = true;
    this.scInStr = false;
    this.scEsc = false;
    this.scDepth = 0;
    if (rest > 0) this.scan(this.pend, 0, rest, false);
  }

  private setPending(chunk: Uint8Array, from: number, to: number, abs: number): void {
    this.pendLen = 0;
    this.resetGuard();
    this.pendBase = abs;
    this.appendPending(chunk, from, to);
    this.lastAttempt = this.pendLen;
    this.scTrust = true;
    this.scInStr = false;
    this.scEsc = false;
    this.scDepth = 0;
    this.scan(this.pend, 0, this.pendLen, false);
  }

  private appendPending(src: Uint8Array, from: number, to: number): void {
    const add = to - from;
    const need = this.pendLen + add;
    if (need > this.pend.length) {
      let cap = this.pend.length * 2;
      while (cap < need) cap *= 2;
      const nb = new Uint8Array(cap);
      nb.set(this.pend.subarray(0, this.pendLen));
      this.pend = nb;
    }
    this.pend.set(src.subarray(from, to), this.pendLen);
    this.pendLen = need;
    if (need > this.guardAt) this.guardPending();
  }

  /**
   * The pending value is longer than guardAt (the smaller of the two limits): scans what was
   * appended since the last look (each byte once: linear) and throws LIMIT_EXCEEDED for a string
   * longer than maxStringBytes or a number token longer than maxNumberChars, open or closed. A
   * value that long always straddles chunks, so it is pending here before anything decodes it.
   */
  private guardPending(): void {
    const b = this.pend;
    const n = this.pendLen;
    let i = this.gScan;
    let inStr = this.gInStr;
    let from = this.gFrom;
    let num = this.gNum;
    for (; i < n; i++) {
      const c = b[i]!;
      if (inStr) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) {
          if (i - from > this.maxStringBytes) throw limitError('maxStringBytes', this.pendBase + from - 1);
          inStr = false;
        }
        continue;
      }
      if ((c >= 48 && c <= 57) || c === MINUS || c === PLUS || c === DOT || c === 0x65 || c === 0x45) {
        if (num < 0) num = i;
        continue;
      }
      if (num >= 0 && i - num > this.maxNumberChars) throw limitError('maxNumberChars', this.pendBase + num);
      num = -1;
      if (c === QUOTE) {
        inStr = true;
        from = i + 1;
      }
    }
    if (inStr && Math.min(i, n) - from > this.maxStringBytes) throw limitError('maxStringBytes', this.pendBase + from - 1);
    if (num >= 0 && n - num > this.maxNumberChars) throw limitError('maxNumberChars', this.pendBase + num);
    this.gScan = Math.min(i, n + 1);
    this.gInStr = inStr;
    this.gFrom = from;
    this.gNum = num;
  }

  /** The guard's scan starts over (the pending bytes now start at a value's start). */
  private resetGuard(): void {
    this.gScan = 0;
    this.gInStr = false;
    this.gFrom = 0;
    this.gNum = -1;
  }

  /**
   * Advances the structural scanner over b[from, to); returns the index of the first byte at
   * which the pending value may be complete (a `,` `}` `]` outside strings at depth ≤ 0), or −1.
   * Only a hint: a broken value (stray quote) may never signal; retries on doubling cover that.
   */
  private scan(b: Uint8Array, from: number, to: number, stop: boolean): number {
    let inStr = this.scInStr;
    let esc = this.scEsc;
    let depth = this.scDepth;
    let found = -1;
    for (let i = from; i < to; i++) {
      const c = b[i];
      if (inStr) {
        if (esc) esc = false;
        else if (c === BACKSLASH) esc = true;
        else if (c === QUOTE) inStr = false;
      } else if (c === QUOTE) inStr = true;
      else if (c === LBRACE || c === LBRACKET) depth++;
      else if (c === RBRACE || c === RBRACKET) {
        depth--;
        if (depth <= 0 && stop) { found = i; break; }
      } else if (c === COMMA && depth <= 0 && stop) { found = i; break; }
    }
    this.scInStr = inStr;
    this.scEsc = esc;
    this.scDepth = depth;
    return found;
  }

  // -------------------------------------------------------------------------------------------
  // Diagnostics.

  private unitNote(code: string, severity: Severity, message: string, byteOffset: number): void {
    this.unitDiags.push({ code, severity, message, byteOffset });
  }

  private commitUnit(): void {
    const d = this.unitDiags;
    if (d.length === 0) return;
    for (const x of d) this.sink.note(x.code, x.severity, () => x.message, x.byteOffset);
    d.length = 0;
  }

  private err(localPos: number, reason: string): ParseError {
    return new ParseError(this.base + localPos, reason);
  }

  private unexpected(localPos: number, expected: string): ParseError {
    return this.err(localPos, `expected ${expected} but found ${describeByte(this.buf[localPos])}`);
  }

  // -------------------------------------------------------------------------------------------
  // Top-level state machine. Returns the index of the first byte not consumed: the start of a
  // unit (event, top-level member, …) the buffer ends inside of.

  private run(buf: Uint8Array, start: number, end: number, base: number): number {
    if (this.buf !== buf) {
      this.buf = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    this.lim = end;
    this.base = base;
    let p = start;
    let unit = start;
    for (;;) {
      try {
        for (;;) {
          unit = p;
          switch (this.state) {
            case S_EVENTS_NEXT: {
              p = this.ws(p);
              if (p >= end) return p;
              unit = p;
              const c = buf[p];
              if (c === COMMA) { p++; this.state = S_EVENTS_ELEM; break; }
              if (c === RBRACKET) { p = this.closeEvents(p + 1); break; }
              if (c === LBRACE) {
                this.sink.note('MISSING_COMMA', 'warning', () => `missing "," between two events at byte ${base + p}: read on`, base + p);
                this.state = S_EVENTS_ELEM;
                break;
              }
              throw this.unexpected(p, '"," or "]" after an event');
            }
            case S_EVENTS_ELEM:
            case S_EVENTS_FIRST: {
              p = this.ws(p);
              if (p >= end) return p;
              const c = buf[p];
              unit = p;
              if (c === LBRACE) {
                // The hot loop: one event after another while `,` `{` follow.
                for (;;) {
                  if (this.native !== undefined) {
                    // As many events as the native fast path takes; then the one it left, here
                    // — unless it runs past a chunk and more input is to come: then it waits
                    // for the next chunk unread (read here, it would most often be found
                    // incomplete after its labels were interned and its start parsed). Not in
                    // the pending bytes: an event broken so that its brackets never close
                    // would wait there for the rest of the input.
                    p = this.nativeEvents(p);
                    if (this.nativeStopped) break;
                    unit = p;
                    if (this.nativePastEnd && !this.final && buf !== this.pend) throw INCOMPLETE;
                  }
                  this.parseEventColumns(p);
                  p = this.pos;
                  if (this.unitDiags.length > 0) this.commitUnit();
                  this.lastEventEnd = base + p;
                  this.state = S_EVENTS_NEXT;
                  let q = p;
                  while (q < end && WS[buf[q]!] === 1) q++;
                  if (q >= end || buf[q] !== COMMA) break;
                  q++;
                  while (q < end && WS[buf[q]!] === 1) q++;
                  if (q >= end || buf[q] !== LBRACE) break;
                  this.state = S_EVENTS_ELEM;
                  p = unit = q;
                }
                break;
              }
              if (c === RBRACKET) { p = this.closeEvents(p + 1); break; }
              if (c === COMMA && this.state === S_EVENTS_FIRST) throw this.unexpected(p, 'an event or "]"');
              this.pos = p;
              this.parseValue(0);
              p = this.pos;
              this.unitDiags.length = 0;
              this.nonObjectElements++;
              this.sink.note('NON_OBJECT_EVENT', 'warning', () => `an element of the events array at byte ${base + unit} is not an object: skipped`, base + unit);
              this.lastEventEnd = base + p;
              this.state = S_EVENTS_NEXT;
              break;
            }
            case S_OBJ_FIRST:
            case S_OBJ_KEY: {
              p = this.ws(p);
              if (p >= end) return p;
              const c = buf[p];
              if (c === RBRACE) { p++; this.state = S_DONE; this.lastUnitEnd = base + p; break; }
              if (c !== QUOTE) throw this.unexpected(p, this.state === S_OBJ_FIRST ? 'a key string or "}"' : 'a key string');
              unit = p;
              p = this.parseMember(p);
              break;
            }
            case S_OBJ_NEXT: {
              p = this.ws(p);
              if (p >= end) return p;
              const c = buf[p];
              if (c === COMMA) { p++; this.state = S_OBJ_KEY; break; }
              if (c === RBRACE) { p++; this.state = S_DONE; this.lastUnitEnd = base + p; break; }
              throw this.unexpected(p, '"," or "}" after a top-level value');
            }
            case S_START: {
              p = this.ws(p);
              if (p >= end) return p;
              const c = buf[p];
              if (c === 0xef && base + p === 0) {
                // UTF-8 byte-order mark (some Windows tools write one).
                if (end - p < 3 && !this.final) return p;
                if (buf[p + 1] === 0xbb && buf[p + 2] === 0xbf) { p += 3; break; }
              }
              this.sawNonWhitespace = true;
              if ((c === 0xff || c === 0xfe) && end - p < 2 && !this.final) return p;
              if ((c === 0xff && buf[p + 1] === 0xfe) || (c === 0xfe && buf[p + 1] === 0xff)) {
                // PowerShell's `>` writes UTF-16 with a byte-order mark.
                throw new KinetoscopeError('NOT_JSON', `not JSON as UTF-8: the text is UTF-16 (byte-order mark at byte ${base + p}); convert it to UTF-8`, base + p);
              }
              if (c === LBRACE) {
                this.container = 'object';
                this.state = S_OBJ_FIRST;
                p++;
                break;
              }
              if (c === LBRACKET) {
                this.container = 'array';
                this.state = S_EVENTS_FIRST;
                this.sawTraceEvents = true;
                p++;
                this.lastEventEnd = base + p;
                break;
              }
              throw new KinetoscopeError(
                'NOT_JSON',
                `not JSON: expected "{" or "[" but found ${describeByte(c)} at byte ${base + p}`,
                base + p,
              );
            }
            case S_DONE: {
              p = this.ws(p);
              if (p >= end) return p;
              const at = base + p;
              this.sink.note('TRAILING_DATA', 'warning', () => `unexpected data after the end of the JSON text at byte ${at}: ignored`, at);
              this.state = S_IGNORE;
              return end;
            }
            case S_IGNORE:
              return end;
            case S_RESYNC_EVENTS: {
              const r = this.resyncEvents(p);
              if (r < 0) return -r - 1; // keep the tail from there
              p = r;
              break;
            }
            case S_RESYNC_HEADER: {
              const r = this.resyncHeader(p);
              if (r < 0) return -r - 1;
              p = r;
              break;
            }
            default:
              throw new Error(`tokenizer: bad state ${this.state}`);
          }
        }
      } catch (e) {
        if (e === INCOMPLETE) {
          this.unitDiags.length = 0;
          return unit;
        }
        if (e instanceof ParseError) {
          this.unitDiags.length = 0;
          p = this.onSyntaxError(e, unit) - base;
          continue;
        }
        throw e;
      }
    }
  }

  /** Where to go on after a syntax error; returns the absolute offset to continue at. */
  private onSyntaxError(e: ParseError, unitLocal: number): number {
    const s = this.state;
    if (s === S_EVENTS_FIRST || s === S_EVENTS_NEXT || s === S_EVENTS_ELEM) {
      this.resyncErr = e;
      this.resyncUnit = this.base + unitLocal;
      this.state = S_RESYNC_EVENTS;
      // Scan from the error itself (it may be the `}` of a boundary); progress is certain since
      // the scan resumes only at a `{` or `]` after it.
      return e.offset;
    }
    if (!this.sawTraceEvents) {
      // Before the events array (user metadata can break the header, docs/kineto-format.md §5.4):
      // look for the "traceEvents" key and go on from there.
      if (this.headerErr === NO_ERROR) this.headerErr = e;
      this.headerErrAfter = this.lastUnitEnd;
      this.state = S_RESYNC_HEADER;
      return e.offset;
    }
    // After the events array: keep what we have, drop the rest of the header.
    this.sink.note(
      'SYNTAX_ERROR',
      'warning',
      () => `syntax error at byte ${e.offset} after the traceEvents array (${e.reason}): the rest of the top-level object is ignored`,
      e.offset,
    );
    this.state = S_IGNORE;
    return this.base + this.lim;
  }

  private closeEvents(pAfter: number): number {
    this.lastUnitEnd = this.base + pAfter;
    this.state = this.container === 'object' ? S_OBJ_NEXT : S_DONE;
    return pAfter;
  }

  /**
   * Looks for the next event boundary after a syntax error: `}` ws `,` ws `{` (resume at the `{`)
   * or `}` ws `]` (the array ends). Returns the local position to go on at, or −(tail+1) when
   * the buffer ends first (tail = where to keep bytes from).
   */
  private resyncEvents(p: number): number {
    const b = this.buf;
    const end = this.lim;
    for (;;) {
      while (p < end && b[p] !== RBRACE) p++;
      if (p >= end) return -end - 1;
      let q = this.ws(p + 1);
      if (q >= end) return -p - 1;
      let c = b[q];
      if (c === COMMA) {
        q = this.ws(q + 1);
        if (q >= end) return -p - 1;
        c = b[q];
        if (c === LBRACE) {
          this.resynced(q, 'resumed at the next event');
          this.state = S_EVENTS_ELEM;
          return q;
        }
      } else if (c === RBRACKET) {
        this.resynced(q, 'resumed at the end of the events array');
        this.lastEventEnd = this.base + q;
        return this.closeEvents(q + 1);
      }
      p++;
    }
  }

  private resynced(qLocal: number, how: string): void {
    const e = this.resyncErr;
    const unit = this.resyncUnit;
    const at = this.base + qLocal;
    this.sink.note(
      'SYNTAX_ERROR',
      'warning',
      () => `syntax error at byte ${e.offset} (${e.reason}): skipped 1 event (${at - unit} bytes from byte ${unit}) and ${how} at byte ${at}`,
      e.offset,
    );
    this.resyncErr = NO_ERROR;
  }

  private resyncHeader(p: number): number {
    const b = this.buf;
    const end = this.lim;
    const pat = TRACE_EVENTS_KEY;
    for (;;) {
      while (p < end && b[p] !== QUOTE) p++;
      if (p >= end) return -end - 1;
      if (end - p < pat.length) return -p - 1;
      let k = 1;
      while (k < pat.length && b[p + k] === pat[k]) k++;
      if (k === pat.length) {
        let q = this.ws(p + k);
        if (q >= end) return -p - 1;
        if (b[q] === COLON) {
          q = this.ws(q + 1);
          if (q >= end) return -p - 1;
          if (b[q] === LBRACKET) {
            const e = this.headerErr;
            const at = this.base + p;
            this.sink.note(
              'SYNTAX_ERROR',
              'warning',
              () => `syntax error at byte ${e.offset} in the top-level object (${e.reason}): skipped ${at - this.headerErrAfter} bytes of header up to "traceEvents" at byte ${at}; top-level keys in between are lost`,
              e.offset,
            );
            this.state = S_OBJ_KEY;
            return p;
          }
        }
      }
      p++;
    }
  }

  /** A top-level `"key": value` member of an object root. */
  private parseMember(p: number): number {
    const b = this.buf;
    this.pos = p;
    const key = this.parseString(INTERN_MAX_LABEL);
    p = this.valueAfterKey(this.pos);
    if (key === 'traceEvents') {
      if (b[p] !== LBRACKET) {
        throw new KinetoscopeError(
          'NOT_A_TRACE',
          `a JSON object but not a Chrome trace: "traceEvents" at byte ${this.base + p} is not an array`,
          this.base + p,
        );
      }
      if (this.sawTraceEvents) {
        const at = this.base + p;
        this.sink.note('DUPLICATE_TRACE_EVENTS', 'warning', () => `a second "traceEvents" array at byte ${at}: its events are read too`, at);
      }
      this.commitUnit();
      this.sawTraceEvents = true;
      this.state = S_EVENTS_FIRST;
      this.lastEventEnd = this.base + p + 1;
      return p + 1;
    }
    this.pos = p;
    const v = this.parseValue(0);
    this.commitUnit();
    setKey(this.header, key, v);
    this.state = S_OBJ_NEXT;
    this.lastUnitEnd = this.base + this.pos;
    return this.pos;
  }

  // -------------------------------------------------------------------------------------------
  // End of input.

  private finish(): TokenizerResult {
    const n = this.bytesIn;
    if (this.state === S_START) {
      if (this.pendLen > 0 && this.sawNonWhitespace) {
        // only a partial BOM
        throw new KinetoscopeError('NOT_JSON', `not JSON: expected "{" or "[" but found ${describeByte(this.pend[0])} at byte ${this.pendBase}`, this.pendBase);
      }
      throw new KinetoscopeError(
        'EMPTY_INPUT',
        n === 0 ? 'empty input: the trace has 0 bytes' : `empty input: the trace has only whitespace (${n} bytes)`,
        n,
      );
    }
    let truncated = false;
    const s = this.state;
    const lostAfterEvent = n - this.lastEventEnd;
    const kept = `kept ${this.eventCount} complete event${this.eventCount === 1 ? '' : 's'}`;
    if (s === S_EVENTS_FIRST || s === S_EVENTS_NEXT || s === S_EVENTS_ELEM) {
      truncated = true;
      const where =
        this.pendLen > 0 && this.pend[0] === LBRACE
          ? `inside an event that starts at byte ${this.pendBase}`
          : this.pendLen > 0
            ? `inside an element that starts at byte ${this.pendBase}`
            : 'before the closing "]" of the events array';
      this.sink.note(
        'TRUNCATED',
        'warning',
        () => `trace is truncated: the input ends at byte ${n} ${where}; ${kept}, the ${lostAfterEvent} bytes after the last complete event (from byte ${this.lastEventEnd}) are lost`,
        n,
      );
    } else if (s === S_RESYNC_EVENTS) {
      truncated = true;
      const e = this.resyncErr;
      this.sink.note(
        'SYNTAX_ERROR',
        'warning',
        () => `syntax error at byte ${e.offset} (${e.reason}) and no event boundary after it: skipped the ${n - this.resyncUnit} bytes from byte ${this.resyncUnit} to the end`,
        e.offset,
      );
      this.sink.note(
        'TRUNCATED',
        'warning',
        () => `trace is truncated: the input ends at byte ${n} while skipping a broken event; ${kept}, the ${lostAfterEvent} bytes after the last complete event (from byte ${this.lastEventEnd}) are lost`,
        n,
      );
    } else if (!this.sawTraceEvents) {
      if (this.headerErr !== NO_ERROR) {
        const e = this.headerErr;
        throw new KinetoscopeError('NOT_JSON', `not JSON: syntax error at byte ${e.offset}: ${e.reason}`, e.offset);
      }
      if (s === S_DONE || s === S_IGNORE) {
        throw new KinetoscopeError('NOT_A_TRACE', 'a JSON object but not a Chrome trace: no traceEvents array', 0);
      }
      truncated = true;
      this.sink.note(
        'TRUNCATED',
        'warning',
        () => `trace is truncated: the input ends at byte ${n} inside the top-level object, before any traceEvents array; no events`,
        n,
      );
    } else if (s === S_OBJ_FIRST || s === S_OBJ_NEXT || s === S_OBJ_KEY) {
      truncated = true;
      this.sink.note(
        'TRUNCATED',
        'warning',
        () => `trace is truncated: the input ends at byte ${n} after the events array, before the closing "}"; all ${this.eventCount} events were read, top-level keys after byte ${this.lastUnitEnd} (e.g. baseTimeNanoseconds, traceName) are missing`,
        n,
      );
    }
    if (this.container === 'array' && this.eventCount === 0 && this.nonObjectElements > 0) {
      throw new KinetoscopeError('NOT_A_TRACE', 'a JSON array but not a Chrome trace: its elements are not event objects', 0);
    }
    return {
      container: this.container === 'array' ? 'array' : 'object',
      header: this.header,
      timeOriginUs: this.hasOrigin ? this.origin : 0,
      eventCount: this.eventCount,
      bytesRead: n,
      truncated,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Values.

  // -------------------------------------------------------------------------------------------
  // Columnar mode.

  atEventBoundary(): boolean {
    return this.state === S_EVENTS_ELEM && this.pendLen === 0;
  }

  setEarlier(events: number, lastEventEnd: number): void {
    this.eventCount += events;
    if (this.ownEvents === 0 && this.lastEventEnd === this.resumeOffset) this.lastEventEnd = lastEventEnd;
  }

  lastEventEndAt(): number {
    return this.lastEventEnd;
  }

  originText(): string | undefined {
    if (!this.hasOrigin) return undefined;
    return this.hasOriginBig ? this.originBig.toString() : String(this.origin);
  }

  headerObject(): JsonObject {
    return this.header;
  }

  private flushColumns(): void {
    const ctx = this.ctx;
    const labels = ctx.labels.strings;
    const newLabels = ctx.labelsSent < labels.length ? labels.slice(ctx.labelsSent) : [];
    ctx.labelsSent = labels.length;
    const newArgs = ctx.pendingArgs;
    ctx.pendingArgs = argsList();
    if (this.reuse) {
      const batch = this.cw.view(newLabels, newArgs, this.originText());
      this.cw.length = 0;
      this.onColumns(batch);
    } else this.onColumns(this.cw.handOn(newLabels, newArgs, this.originText()));
  }

  /**
   * Events from the `{` at p through the native fast path (native-reader.ts) for as long as it
   * takes them, answering its questions from this tokenizer's tables. Returns the position of
   * the `{` of an event it left (nativeStopped false: parseEventColumns reads it, or the next
   * chunk when nativePastEnd), or the position after the last event it read when no `,` `{`
   * follows (nativeStopped true).
   */
  private nativeEvents(p: number): number {
    const nat = this.native!;
    const reader = nat.reader;
    const io = nat.io;
    const w = this.cw;
    const ctx = this.ctx;
    for (;;) {
      if (nat.columnsOf !== w.ph) {
        reader.setColumns(w.arrays());
        nat.columnsOf = w.ph;
      }
      const status = reader.run(this.buf, p, this.lim, w.length, w.capacity, this.base, this.hasOrigin, this.origin, this.runPrescan);
      const read = io[IO_COUNT]!;
      if (read > 0) {
        w.length += read;
        this.eventCount += read;
        this.ownEvents += read;
        this.lastEventEnd = this.base + io[IO_LAST_END]!;
        this.state = S_EVENTS_ELEM;
      }
      p = io[IO_POS]!;
      if (status === NATIVE_FULL) {
        this.flushColumns();
      } else if (status === NATIVE_NEED_LABEL) {
        const s = io[IO_A]!;
        const id = ctx.labels.idOfPlain(this.buf, this.view, s, this.lim);
        if (id < 0) {
          this.nativeStopped = false; // not plain after all: the event is read here
          this.nativePastEnd = false;
          return p;
        }
        reader.addLabel(this.buf, s, ctx.labels.scanEnd, id);
      } else if (status === NATIVE_NEED_ARGS) {
        const nr = io[IO_A]!;
        if (this.ranges.length < 2 * nr) this.ranges = new Int32Array(nat.ranges.length);
        this.ranges.set(nat.ranges.subarray(0, 2 * nr));
        reader.addArgs(this.internArgs(nr, true));
      } else {
        if (w.length >= w.capacity) this.flushColumns();
        this.nativeStopped = status === NATIVE_STOPPED;
        this.nativePastEnd = status === NATIVE_AT_EVENT && io[IO_A] === 1;
        if (this.nativeStopped) this.state = S_EVENTS_NEXT;
        return p;
      }
    }
  }

  /**
   * One event into the next row of the batch: the fast path when the event is as Kineto writes
   * it, else the exact one.
   */
  private parseEventColumns(start: number): void {
    const w = this.cw;
    const n = w.length;
    w.ph[n] = LABEL_EMPTY;
    w.cat[n] = LABEL_EMPTY;
    w.name[n] = LABEL_EMPTY;
    w.pid[n] = NaN;
    w.pidLabel[n] = LABEL_EMPTY;
    w.tid[n] = NaN;
    w.tidLabel[n] = LABEL_EMPTY;
    w.tsNs[n] = NaN;
    w.durNs[n] = NaN;
    w.flowId[n] = NaN;
    w.flowIdLabel[n] = -1;
    w.bp[n] = -1;
    w.s[n] = -1;
    w.args[n] = -1;
    const an = w.argNumbers;
    const o = n * ARG_NUMBERS;
    for (let k = 0; k < ARG_NUMBERS; k++) an[o + k] = NaN;
    const end = this.fastEvent(start, n);
    if (end >= 0) this.pos = end;
    else this.parseEvent(start, n);
    const off = w.offsets;
    if (off !== undefined) {
      off[2 * n] = this.base + start;
      off[2 * n + 1] = this.base + this.pos;
    }
    w.length = n + 1;
    this.eventCount++;
    this.ownEvents++;
    if (n + 1 >= w.capacity) this.flushColumns();
  }

  /**
   * The event at `start` into row `n` as Kineto writes it, in one pass: plain ASCII strings,
   * integer ids, decimal times, args of plain values (see skipPlain). Anything else (an
   * escape, a bare word, a string pid, args before ph, the end of the buffer, a syntax error)
   * returns −1 with the row half written, and parseEvent reads the event again with its notes
   * and errors. Labels interned on the way stay: parseEvent meets them in the same order.
   * Returns the position after the event's `}`.
   *
   * Why two loops over an event's keys, not one: they share the key codes, the value readers
   * of plain text and setEventValue, and differ at every step of the loop. This one takes a
   * key by its first four bytes, a value only in Kineto's plain form, and answers anything
   * else, the end of the buffer included, by giving up; parseEvent decodes escaped keys,
   * reads any value with its repairs (string pids, non-integer ids, exponents, bare words),
   * parses args that come before ph whole and settles them after, makes the notes and errors,
   * and throws INCOMPLETE at the end of the buffer so that the event is read again with more
   * bytes. One loop with a flag for the two was tried (2026-12-02): V8 then compiles the exact
   * path's code into the hot function — its TurboFan compile 80–150 ms against about 22 ms
   * for this one in three runs of four (V8's background thread on a busy machine), and a
   * one-shot CLI pays for compile time (compiler-flags.ts) — and `summary` of the 160 MB
   * trace with the JavaScript reader took 2–3% more CPU (median of 30 interleaved runs
   * 1.465 → 1.495 s), for a function no shorter than the two.
   */
  private fastEvent(start: number, n: number): number {
    const b = this.buf;
    const end = this.lim;
    const ctx = this.ctx;
    const labels = ctx.labels;
    this.seen = 0;
    let p = start + 1;
    while (p < end && WS[b[p]!] === 1) p++;
    if (p >= end) return -1;
    const view = this.view;
    for (;;) {
      if (b[p] !== QUOTE) return -1;
      const ks = p + 1;
      // The key by its first four bytes (and the colon after it); else scanned.
      let kc = K_OTHER;
      p = -1;
      if (ks + 6 <= end) {
        const k4 = view.getInt32(ks, true);
        if (k4 === W_PH) { kc = K_PH; p = ks + 4; }
        else if (k4 === W_CAT) { if (b[ks + 4] === COLON) { kc = K_CAT; p = ks + 5; } }
        else if (k4 === W_NAME) { if (b[ks + 4] === QUOTE && b[ks + 5] === COLON) { kc = K_NAME; p = ks + 6; } }
        else if (k4 === W_PID) { if (b[ks + 4] === COLON) { kc = K_PID; p = ks + 5; } }
        else if (k4 === W_TID) { if (b[ks + 4] === COLON) { kc = K_TID; p = ks + 5; } }
        else if (k4 === W_TS) { kc = K_TS; p = ks + 4; }
        else if (k4 === W_DUR) { if (b[ks + 4] === COLON) { kc = K_DUR; p = ks + 5; } }
        else if (k4 === W_ARGS) { if (b[ks + 4] === QUOTE && b[ks + 5] === COLON) { kc = K_ARGS; p = ks + 6; } }
        else if (k4 === W_ID) { kc = K_ID; p = ks + 4; }
        else if (k4 === W_BP) { kc = K_BP; p = ks + 4; }
        else if (k4 === W_S) { kc = K_S; p = ks + 3; }
      }
      if (p < 0) {
        p = this.plainKey(ks - 1);
        if (p < 0) return -1;
        kc = eventKeyCode(b, ks, this.keyEnd - ks);
      } else while (p < end && WS[b[p]!] === 1) p++;
      if (p >= end) return -1;
      const c = b[p]!;
      if (kc === K_OTHER) {
        p = this.skipPlain(p);
        if (p < 0) return -1;
      } else if (kc === K_ARGS) {
        if (c !== LBRACE || (this.seen & (1 << K_ARGS)) !== 0) return -1;
        const mode = this.argsModeSoFar(n);
        if (mode === MODE_FULL) return -1;
        p = this.fastArgs(p, mode, n);
        if (p < 0) return -1;
        this.seen |= 1 << K_ARGS;
      } else {
        // The value read plainly by its type: a plain string's label, an integer, decimal µs.
        let v = NaN;
        let label = -1;
        if (kc <= K_S) {
          if (c !== QUOTE) return -1;
          label = labels.idOfPlain(b, view, p + 1, end);
          if (label < 0) return -1;
          p = labels.scanEnd + 1;
        } else {
          if (kc <= K_ID) {
            v = this.plainInt(p);
            if (v !== v) return -1;
            p = this.numEnd;
          } else if (kc === K_DUR || this.hasOrigin) {
            // readPlainUs itself, not through plainTime: one call less in the CLI's loop,
            // which runs without inlining (compiler-flags.ts).
            const t = this.time;
            v = readPlainUs(b, p, end, kc === K_TS ? this.origin : 0, t);
            if (v !== v) return -1;
            p = t.end;
          } else {
            v = this.plainTime(p, true);
            if (v !== v) return -1;
            p = this.numEnd;
          }
        }
        this.setEventValue(kc, n, v, label);
      }
      // `, "` as Kineto writes it, without a call; else plainNext.
      if (p + 2 < end && b[p] === COMMA && b[p + 1] === SPACE && b[p + 2] === QUOTE) {
        p += 2;
        continue;
      }
      p = this.plainNext(p);
      if (p === -1) return -1;
      if (p < -1) return -p - 2; // the event's `}`
    }
  }

  /**
   * After a member of an event or its args read plainly, ending at p: the position of the next
   * key's quote after the `,`; −(q + 2) for the position q after the closing `}` (a trailing
   * comma before it tolerated); −1 for anything else or at the end of the buffer.
   */
  private plainNext(p: number): number {
    const b = this.buf;
    const end = this.lim;
    while (p < end && WS[b[p]!] === 1) p++;
    if (p >= end) return -1;
    const d = b[p];
    if (d === COMMA) {
      p++;
      while (p < end && WS[b[p]!] === 1) p++;
      if (p >= end) return -1;
      return b[p] === RBRACE ? -(p + 1) - 2 : p;
    }
    return d === RBRACE ? -(p + 1) - 2 : -1;
  }

  /**
   * The args mode of row n's event when its ph (and, for an X event, its cat) came before its
   * args, as Kineto writes them; else MODE_FULL: keep everything, settle it when the event is
   * complete (parseEvent), or read the event exactly (fastEvent).
   */
  private argsModeSoFar(n: number): number {
    const seen = this.seen;
    if (this.rawArgs || (seen & (1 << K_PH)) === 0) return MODE_FULL;
    const ph = this.cw.ph[n]!;
    if ((seen & (1 << K_CAT)) === 0 && this.ctx.labels.strings[ph] === 'X') return MODE_FULL;
    return this.ctx.modeOf(ph, this.cw.cat[n]!);
  }

  /**
   * The value of event key kc (not K_OTHER, K_ARGS) into row n, from either path: `v` the number
   * of a pid, tid, id, ts or dur; `label` the label id of a ph, cat, name, bp or s, or of a
   * pid, tid or id that stays a string (−1: none).
   */
  private setEventValue(kc: number, n: number, v: number, label: number): void {
    const w = this.cw;
    this.seen |= 1 << kc;
    switch (kc) {
      case K_PH: w.ph[n] = label; break;
      case K_CAT: w.cat[n] = label; break;
      case K_NAME: w.name[n] = label; break;
      case K_BP: w.bp[n] = label; break;
      case K_S: w.s[n] = label; break;
      case K_PID: w.pid[n] = v; w.pidLabel[n] = label; break;
      case K_TID: w.tid[n] = v; w.tidLabel[n] = label; break;
      case K_ID: w.flowId[n] = v; w.flowIdLabel[n] = label; break;
      case K_TS: w.tsNs[n] = v; break;
      case K_DUR: w.durNs[n] = v; break;
    }
  }

  /**
   * fastEvent's args (at the `{` at p) into row n: the numbers of ARG_NUMBER_KEYS when they are
   * integers, the kept members interned by their bytes (mode ≥ 0) or nothing kept (MODE_SKIP).
   * Returns the position after the `}`, or −1 (read the event again exactly).
   */
  private fastArgs(p: number, mode: number, n: number): number {
    const b = this.buf;
    const end = this.lim;
    const ctx = this.ctx;
    const view = this.view;
    const argKeys = ctx.argKeys;
    const an = this.cw.argNumbers;
    const o = n * ARG_NUMBERS;
    const byLenFirst = ctx.keyByLengthAndFirst;
    const keySlot = ctx.keySlot;
    const keyed = mode >= 0;
    const dropMask = keyed ? ctx.dropSets[mode]!.mask : 0;
    let extLower = NaN;
    let extUpperSet = false;
    let nr = 0;
    p++;
    while (p < end && WS[b[p]!] === 1) p++;
    if (p >= end) return -1;
    if (b[p] === RBRACE) p++;
    else {
      for (;;) {
        if (b[p] !== QUOTE) return -1;
        const ms = p;
        const ks = p + 1;
        let kc = -1;
        const seen = argKeys.find(view, ks, end);
        if (seen >= 0) {
          kc = argKeys.tag(seen);
          p = ks + argKeys.length(seen);
          while (p < end && WS[b[p]!] === 1) p++;
        } else {
          p = this.plainKey(ms);
          if (p < 0) return -1;
          const q = this.keyEnd;
          const len = q - ks;
          if (len < 64) {
            const k = byLenFirst[(len << 8) | b[ks]!]!;
            if (k >= 0) {
              const kb = ctx.knownBytes[k]!;
              let i = 1;
              while (i < len && kb[i] === b[ks + i]) i++;
              if (i >= len) kc = k;
            } else if (k === -2) kc = ctx.knownKey(b, ks, q);
          } else kc = ctx.knownKey(b, ks, q);
          // Learnt as written (`"key": `), away from the end of the buffer (where find may miss).
          if (q + 72 <= end && b[q + 1] === COLON && b[q + 2] === SPACE) argKeys.add(b, ks, q, kc);
        }
        if (p >= end) return -1;
        const slot = kc >= 0 ? keySlot[kc]! : -1;
        if (slot >= 0) {
          // The ids and sizes Kineto writes are integers; anything else is read exactly.
          const v = this.plainInt(p);
          if (v !== v) return -1;
          const e = this.numEnd;
          if (slot === EXT_LOWER_SLOT) extLower = v;
          else {
            an[o + slot] = v;
            if (slot === AN_EXTERNAL_ID) extUpperSet = true;
          }
          p = e;
        } else {
          p = this.skipPlain(p);
          if (p < 0) return -1;
        }
        if (keyed && (kc < 0 || (dropMask & (1 << kc)) === 0)) this.keepRange(nr++, ms, p);
        if (p + 2 < end && b[p] === COMMA && b[p + 1] === SPACE && b[p + 2] === QUOTE) {
          p += 2;
          continue;
        }
        p = this.plainNext(p);
        if (p === -1) return -1;
        if (p < -1) {
          p = -p - 2; // after the args' `}`
          break;
        }
      }
    }
    if (!extUpperSet) an[o + AN_EXTERNAL_ID] = extLower;
    if (keyed) this.cw.args[n] = this.internArgs(nr);
    return p;
  }

  /** Member k of the args kept (the key of an args object for internArgs) is b[from, to). */
  private keepRange(k: number, from: number, to: number): void {
    if (2 * k + 2 > this.ranges.length) {
      const grown = new Int32Array(this.ranges.length * 2);
      grown.set(this.ranges);
      this.ranges = grown;
    }
    this.ranges[2 * k] = from;
    this.ranges[2 * k + 1] = to;
  }

  /** The args id of the kept members ranges[0 … 2nr) (parsed into an object the first time). */
  private internArgs(nr: number, plain = false): number {
    const table = this.ctx.args;
    const id = table.lookup(this.buf, this.view, this.ranges, nr);
    if (id >= 0) return id;
    this.ctx.pendingArgs.push(plain ? this.buildPlainArgs(nr) : this.buildArgs(nr));
    return table.insert(this.buf, this.ranges, nr);
  }

  /**
   * buildArgs for members the native reader took, whose values are all plain (skipPlain's:
   * printable ASCII strings without escapes, numbers, true/false/null, arrays, objects): parsed
   * by JSON.parse, which reads them exactly as parseValue does — but for integers past 2^53,
   * which parseValue keeps as decimal text, so members with a run of 16 digits go to buildArgs,
   * and for what skipPlain tolerates and JSON.parse refuses (trailing commas, `1.`), which
   * buildArgs reads too.
   * JSON.parse is native: the few hundred distinct args of a trace do not make V8 compile the
   * exact path's parser (~80 ms of compile time on the 160 MB trace) for nothing else.
   */
  private buildPlainArgs(nr: number): JsonObject {
    const r = this.ranges;
    let text = '{';
    for (let k = 0; k < nr; k++) {
      if (k > 0) text += ',';
      text += this.latin1.decode(this.buf.subarray(r[2 * k]!, r[2 * k + 1]!));
    }
    text += '}';
    if (SIXTEEN_DIGITS.test(text)) return this.buildArgs(nr);
    let obj: JsonObject;
    try {
      obj = JSON.parse(text) as JsonObject;
    } catch {
      return this.buildArgs(nr); // what skipPlain takes and JSON does not: `[1, 2,]`, `1.`, `01`
    }
    return normaliseArgIds(obj);
  }

  /**
   * The exact path: every repair, note and error, into row n (defaults written by the caller).
   * A loop of its own beside fastEvent's: fastEvent says why.
   */
  private parseEvent(start: number, n: number): void {
    const b = this.buf;
    const end = this.lim;
    const ctx = this.ctx;
    const w = this.cw;
    this.seen = 0;
    this.extLower = NaN;
    this.extUpperSet = false;
    this.argsObj = null;
    let p = this.ws(start + 1);
    if (p >= end) throw INCOMPLETE;
    if (b[p] !== RBRACE) {
      for (;;) {
        if (b[p] !== QUOTE) throw this.unexpected(p, 'a key string in an event');
        // Key: compared by bytes, decoded only when it has escapes.
        const ks = p + 1;
        let q = ks;
        while (q < end && PLAIN[b[q]] === 1) q++;
        if (q >= end) throw INCOMPLETE;
        let kc: number;
        if (b[q] === QUOTE) {
          kc = eventKeyCode(b, ks, q - ks);
          p = q + 1;
        } else {
          this.pos = p;
          kc = eventKeyCodeOfString(this.parseString(0));
          p = this.pos;
        }
        this.pos = this.valueAfterKey(p);
        if (kc === K_OTHER) this.skipValue();
        else if (kc === K_ARGS) w.args[n] = this.argsColumnar(this.argsModeSoFar(n), n);
        else {
          // The value read exactly by its type, with every repair: any value as a label, a pid
          // or tid as idAt reads it, any id, any time.
          let v = NaN;
          let label = -1;
          if (kc <= K_NAME) label = this.labelAt();
          else if (kc <= K_S) {
            const x = this.parseValue(0);
            if (typeof x === 'string') label = ctx.labels.idOfString(x);
          } else if (kc < K_ID) {
            this.idAt();
            v = this.idNum;
            label = this.idLabel;
          } else if (kc === K_ID) {
            const x = this.parseValue(0);
            if (typeof x === 'number') {
              v = x;
              // (RawEvents tell a NaN id from none.)
              if (x !== x && this.rawArgs) label = NAN_ID;
            } else if (typeof x === 'string') label = ctx.labels.idOfString(x);
          } else v = this.parseTime(kc === K_TS);
          this.setEventValue(kc, n, v, label);
        }
        p = this.nextMember(RBRACE, '"," or "}" in an event');
        if (p < 0) break;
      }
    } else {
      this.pos = p + 1;
    }
    // Complete: nothing below throws INCOMPLETE.
    const obj = this.argsObj;
    if (obj !== null) {
      this.argsObj = null;
      const mode = ctx.modeOf(w.ph[n]!, w.cat[n]!);
      if (mode === MODE_SKIP) w.args[n] = -1;
      else {
        const drop = ctx.dropSets[mode]!;
        ctx.pendingArgs.push(drop.keys.size > 0 ? deleteKeys(obj, drop.keys) : obj);
        w.args[n] = ctx.args.addUnkeyed();
      }
    }
    if (!this.extUpperSet) w.argNumbers[n * ARG_NUMBERS + AN_EXTERNAL_ID] = this.extLower;
  }

  /** ph / cat / name as a label id (other types are stringified, null → ""). */
  private labelAt(): number {
    const b = this.buf;
    const end = this.lim;
    const labels = this.ctx.labels;
    if (b[this.pos] !== QUOTE) {
      const v = this.parseValue(0);
      return labels.idOfString(v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    const s = this.pos + 1;
    const id = labels.idOfPlain(b, this.view, s, end);
    const p = labels.scanEnd;
    if (id >= 0) {
      this.pos = p + 1;
      return id;
    }
    if (p >= end) throw INCOMPLETE;
    return labels.idOfString(this.parseStringSlow(s, p, 0));
  }

  /** pid / tid into idNum (a number) or idLabel (a string that stays one). */
  private idAt(): void {
    const labels = this.ctx.labels;
    let v: JsonValue;
    if (this.buf[this.pos] === QUOTE) {
      v = normaliseId(this.parseString(INTERN_MAX_VALUE));
    } else {
      v = this.parseValue(0);
      if (typeof v !== 'number' && typeof v !== 'string') v = v === null ? '' : String(v);
    }
    if (typeof v === 'number') {
      this.idNum = v;
      this.idLabel = -1;
    } else {
      this.idNum = NaN;
      this.idLabel = labels.idOfString(v);
    }
  }

  private setArgNumber(an: Float64Array, o: number, slot: number, v: JsonValue): void {
    if (slot === EXT_LOWER_SLOT) {
      this.extLower = argNumber(v);
      return;
    }
    if (slot === AN_EXTERNAL_ID) {
      // `args['External id'] ?? args['external id']`: a null falls through to the lower-case key.
      this.extUpperSet = v !== null;
      an[o + slot] = argNumber(v);
      return;
    }
    an[o + slot] = (slot === AN_STREAM || slot === AN_DEVICE) && typeof v === 'string' ? argNumber(normaliseId(v)) : argNumber(v);
  }

  /**
   * The event's args at pos, by mode: skipped (MODE_SKIP), interned by the bytes of the members
   * not dropped (a drop-set index), or parsed whole into argsObj (MODE_FULL). The numbers of
   * ARG_NUMBER_KEYS are read into row n in every mode. Returns the args id, or −1.
   */
  private argsColumnar(mode: number, n: number): number {
    const b = this.buf;
    const end = this.lim;
    const ctx = this.ctx;
    let p = this.pos;
    if (b[p] !== LBRACE && this.rawArgs) {
      // RawEvents keep the last args that is an object.
      const at = this.base + p;
      this.parseValue(0);
      this.unitNote('BAD_ARGS', 'warning', `event "args" at byte ${at} is not an object: dropped`, at);
      return -1;
    }
    const an = this.cw.argNumbers;
    const o = n * ARG_NUMBERS;
    for (let k = 0; k < ARG_NUMBERS; k++) an[o + k] = NaN;
    this.extLower = NaN;
    this.extUpperSet = false;
    this.argsObj = null;
    if (b[p] !== LBRACE) {
      const at = this.base + p;
      this.parseValue(0);
      this.unitNote('BAD_ARGS', 'warning', `event "args" at byte ${at} is not an object: dropped`, at);
      return -1;
    }
    const full = mode === MODE_FULL;
    const obj: JsonObject | null = full ? {} : null;
    const dropMask = mode >= 0 ? ctx.dropSets[mode]!.mask : 0;
    const keyed = mode >= 0;
    let nr = 0;
    p = this.ws(p + 1);
    if (p >= end) throw INCOMPLETE;
    if (b[p] !== RBRACE) {
      for (;;) {
        if (b[p] !== QUOTE) throw this.unexpected(p, 'a key string');
        const ms = p;
        let q = p + 1;
        while (q < end && PLAIN[b[q]] === 1) q++;
        if (q >= end) throw INCOMPLETE;
        let kc: number;
        let key = '';
        if (b[q] === QUOTE && !full) {
          kc = ctx.knownKey(b, p + 1, q);
          p = q + 1;
        } else {
          this.pos = p;
          key = this.parseString(INTERN_MAX_LABEL);
          kc = ctx.knownKeyOfString(key);
          p = this.pos;
        }
        this.pos = this.valueAfterKey(p);
        const slot = kc >= 0 ? ctx.keySlot[kc]! : -1;
        if (full) {
          const v = this.parseValue(0);
          if (key === '__proto__') setKey(obj!, key, v);
          else obj![key] = v;
          if (slot >= 0) this.setArgNumber(an, o, slot, v);
        } else if (slot >= 0) {
          this.setArgNumber(an, o, slot, this.parseValue(0));
        } else {
          this.skipValue();
        }
        if (keyed && (kc < 0 || (dropMask & (1 << kc)) === 0)) this.keepRange(nr++, ms, this.pos);
        p = this.nextMember(RBRACE, '"," or "}" in an object');
        if (p < 0) break;
      }
    } else {
      this.pos = p + 1;
    }
    if (full) {
      const st = obj!.stream;
      if (typeof st === 'string') obj!.stream = normaliseId(st);
      const dv = obj!.device;
      if (typeof dv === 'string') obj!.device = normaliseId(dv);
      this.argsObj = obj;
      return -1;
    }
    if (!keyed) return -1;
    const after = this.pos;
    const id = this.internArgs(nr);
    this.pos = after;
    return id;
  }

  /** The object of the kept members (ranges[0 … 2nr)), parsed again (their notes were made). */
  private buildArgs(nr: number): JsonObject {
    const notes = this.unitDiags.length;
    const obj: JsonObject = {};
    const r = this.ranges;
    for (let k = 0; k < nr; k++) {
      this.pos = r[2 * k]!;
      const key = this.parseString(INTERN_MAX_LABEL);
      let p = this.ws(this.pos);
      p = this.ws(p + 1); // the ':'
      this.pos = p;
      const v = this.parseValue(0);
      if (key === '__proto__') setKey(obj, key, v);
      else obj[key] = v;
    }
    this.unitDiags.length = notes;
    return normaliseArgIds(obj);
  }

  /**
   * parseValue without keeping the value: skipPlain, or (escapes, bare words, errors, the end
   * of the buffer) parseValue itself, for its notes and errors.
   */
  private skipValue(): void {
    const p = this.skipPlain(this.pos);
    if (p >= 0) this.pos = p;
    else this.parseValue(0);
  }

  /**
   * skipValue's fast path, one loop without calls: the value at p made only of plain strings
   * (printable ASCII, no escapes), numbers, true/false/null, arrays and objects up to 30 deep.
   * Returns the position after it; −1 for anything else (escapes, non-ASCII, control
   * characters, other bare words, a syntax error, the end of the buffer), and the exact path
   * reads the value again (its notes and errors).
   */
  private skipPlain(p: number): number {
    const b = this.buf;
    const end = this.lim;
    let depth = 0;
    let objects = 0; // bit per open level: 1 = object, 0 = array
    let c = 0;
    value: for (;;) {
      // A value at p.
      if (p >= end) return -1;
      c = b[p]!;
      if (c === QUOTE) {
        p++;
        while (p < end && PLAIN[b[p]!] === 1) p++;
        if (p >= end || b[p] !== QUOTE) return -1;
        p++;
      } else if ((c >= 48 && c <= 57) || c === MINUS) {
        if (c === MINUS) p++;
        const ds = p;
        while (p < end && b[p]! >= 48 && b[p]! <= 57) p++;
        if (p === ds || p >= end) return -1;
        c = b[p]!;
        if (c === DOT) {
          p++;
          while (p < end && b[p]! >= 48 && b[p]! <= 57) p++;
          if (p >= end) return -1;
          c = b[p]!;
        }
        if (c === 0x65 || c === 0x45) {
          p++;
          if (p < end && (b[p] === PLUS || b[p] === MINUS)) p++;
          const es = p;
          while (p < end && b[p]! >= 48 && b[p]! <= 57) p++;
          if (p === es || p >= end) return -1;
        }
      } else if (c === LBRACKET || c === LBRACE) {
        if (depth === 30) return -1;
        depth++;
        objects = c === LBRACE ? (objects << 1) | 1 : objects << 1;
        p++;
        while (p < end && WS[b[p]!] === 1) p++;
        if (p >= end) return -1;
        c = b[p]!;
        if (c === (objects & 1 ? RBRACE : RBRACKET)) {
          p++;
          depth--;
          objects >>>= 1;
        } else if (objects & 1) {
          p = this.plainKey(p);
          if (p < 0) return -1;
          continue value;
        } else continue value;
      } else {
        // true, false, null (followed by a byte that cannot go on a bare word)
        const n = c === 0x66 ? 5 : 4;
        if (p + n >= end || BARE[b[p + n]!] === 1) return -1;
        if (c === 0x6e) {
          if (b[p + 1] !== 0x75 || b[p + 2] !== 0x6c || b[p + 3] !== 0x6c) return -1;
        } else if (c === 0x74) {
          if (b[p + 1] !== 0x72 || b[p + 2] !== 0x75 || b[p + 3] !== 0x65) return -1;
        } else if (c === 0x66) {
          if (b[p + 1] !== 0x61 || b[p + 2] !== 0x6c || b[p + 3] !== 0x73 || b[p + 4] !== 0x65) return -1;
        } else return -1;
        p += n;
      }
      // After a value: close levels, or a comma and the next element.
      for (;;) {
        if (depth === 0) return p;
        while (p < end && WS[b[p]!] === 1) p++;
        if (p >= end) return -1;
        c = b[p]!;
        const close = objects & 1 ? RBRACE : RBRACKET;
        if (c === close) {
          p++;
          depth--;
          objects >>>= 1;
          continue;
        }
        if (c !== COMMA) return -1;
        p++;
        while (p < end && WS[b[p]!] === 1) p++;
        if (p >= end) return -1;
        if (b[p] === close) {
          // trailing comma: tolerated
          p++;
          depth--;
          objects >>>= 1;
          continue;
        }
        if (objects & 1) {
          p = this.plainKey(p);
          if (p < 0) return -1;
        }
        continue value;
      }
    }
  }

  /**
   * A plain key string at p, then `:`: the position of the value after it (keyEnd at the key's
   * closing quote), or −1 when not so simple.
   */
  private plainKey(p: number): number {
    const b = this.buf;
    const end = this.lim;
    if (b[p] !== QUOTE) return -1;
    p++;
    while (p < end && PLAIN[b[p]!] === 1) p++;
    if (p >= end || b[p] !== QUOTE) return -1;
    this.keyEnd = p;
    p++;
    while (p < end && WS[b[p]!] === 1) p++;
    if (p >= end || b[p] !== COLON) return -1;
    p++;
    while (p < end && WS[b[p]!] === 1) p++;
    return p;
  }

  /** After a key that ends at p: the position of its value, past the `:` (whitespace either side). */
  private valueAfterKey(p: number): number {
    const end = this.lim;
    p = this.ws(p);
    if (p >= end) throw INCOMPLETE;
    if (this.buf[p] !== COLON) throw this.unexpected(p, '":" after a key');
    p = this.ws(p + 1);
    if (p >= end) throw INCOMPLETE;
    return p;
  }

  /**
   * After a member of an object (or an element of an array) that ends at pos: the position of
   * the next one after its `,`; or −1 at the `close` (a trailing comma before it tolerated),
   * pos after the close.
   */
  private nextMember(close: number, expected: string): number {
    const b = this.buf;
    const end = this.lim;
    let p = this.ws(this.pos);
    if (p >= end) throw INCOMPLETE;
    const c = b[p];
    if (c === COMMA) {
      p = this.ws(p + 1);
      if (p >= end) throw INCOMPLETE;
      if (b[p] !== close) return p;
    } else if (c !== close) throw this.unexpected(p, expected);
    this.pos = p + 1;
    return -1;
  }

  private ws(p: number): number {
    const b = this.buf;
    const end = this.lim;
    while (p < end && WS[b[p]] === 1) p++;
    return p;
  }

  /** ts / dur → exact integer ns (ts relative to the time origin). */
  private parseTime(isTs: boolean): number {
    const start = this.pos;
    const v = this.plainTime(start, isTs);
    if (v === v) {
      this.pos = this.numEnd;
      return v;
    }
    const b = this.buf;
    let p = start;
    if (b[p] === MINUS) {
      p++;
      if (p >= this.lim) throw INCOMPLETE;
    }
    if (b[p] < 48 || b[p] > 57) return this.parseTimeOther(isTs);
    return this.parseTimeSlow(isTs, start);
  }

  /**
   * The integer of at most 15 digits at p (exact, as parseNumber reads it), numEnd after it;
   * NaN for anything else or at the end of the buffer.
   */
  private plainInt(p: number): number {
    const b = this.buf;
    const end = this.lim;
    const neg = b[p] === MINUS;
    let e = neg ? p + 1 : p;
    const ds = e;
    let acc = 0;
    while (e < end) {
      const d = b[e]! - 48;
      if (d < 0 || d > 9) break;
      acc = acc * 10 + d;
      e++;
    }
    const nd = e - ds;
    if (nd === 0 || nd > 15 || e >= end) return NaN;
    const t = b[e]!;
    if (t === DOT || t === 0x65 || t === 0x45) return NaN;
    this.numEnd = e;
    return neg ? -acc : acc;
  }

  /**
   * ts / dur at p as plain decimal µs (time-text.ts readPlainUs): exact integer ns, a ts
   * relative to the time origin (set by the first); numEnd after it. NaN for anything else or
   * at the end of the buffer (a number there may go on in the next chunk).
   */
  private plainTime(p: number, isTs: boolean): number {
    const t = this.time;
    if (isTs && !this.hasOrigin) {
      const first = readPlainUs(this.buf, p, this.lim, 0, t);
      if (first !== first) return NaN;
      this.hasOrigin = true;
      this.origin = plainWholeUs(t);
      this.numEnd = t.end;
      return plainTsNs(t, this.origin);
    }
    const v = readPlainUs(this.buf, p, this.lim, isTs ? this.origin : 0, t);
    if (v === v) this.numEnd = t.end;
    return v;
  }


  /** Exponent or more than 2^53 µs: exact via BigInt. */
  private parseTimeSlow(isTs: boolean, start: number): number {
    this.pos = start;
    const v = this.parseNumberText();
    const ns = decimalUsToNs(v);
    if (ns === null) {
      this.unitNote('BAD_TIMESTAMP', 'warning', `unreadable ${isTs ? 'ts' : 'dur'} "${v}" at byte ${this.base + start}: read as NaN`, this.base + start);
      return NaN;
    }
    return this.nsToResult(isTs, ns);
  }

  /** Exact ns (decimalUsToNs) as a dur, or as a ts relative to the time origin (set by the first). */
  private nsToResult(isTs: boolean, ns: bigint): number {
    if (!isTs) return Number(ns);
    if (!this.hasOrigin) {
      this.hasOrigin = true;
      this.originBig = wholeUsOfNs(ns);
      this.hasOriginBig = true;
      this.origin = Number(this.originBig);
    }
    if (!this.hasOriginBig) {
      this.originBig = BigInt(this.origin);
      this.hasOriginBig = true;
    }
    return exactTsNs(ns, this.originBig);
  }

  /** ts/dur written as a string (third-party rewriters), null, NaN, … */
  private parseTimeOther(isTs: boolean): number {
    const at = this.base + this.pos;
    const v = this.parseValue(0);
    if (typeof v === 'string') {
      const ns = decimalUsToNs(v);
      if (ns !== null) return this.nsToResult(isTs, ns);
    } else if (typeof v === 'number') {
      return v * 1000; // NaN / ±Infinity from a bare token
    }
    this.unitNote('BAD_TIMESTAMP', 'warning', `unreadable ${isTs ? 'ts' : 'dur'} ${JSON.stringify(v)} at byte ${at}: read as NaN`, at);
    return NaN;
  }

  private parseValue(depth: number): JsonValue {
    const b = this.buf;
    const p = this.pos;
    if (p >= this.lim) throw INCOMPLETE;
    const c = b[p];
    if (c === QUOTE) return this.parseString(INTERN_MAX_VALUE);
    if ((c >= 48 && c <= 57) || c === MINUS) {
      if (c === MINUS) {
        if (p + 1 >= this.lim) throw INCOMPLETE;
        const l = b[p + 1] | 0x20;
        if (l >= 0x61 && l <= 0x7a) return this.parseBare(); // -inf, -Infinity, -nan
      }
      return this.parseNumber();
    }
    if (c === LBRACE) return this.parseObject(depth + 1);
    if (c === LBRACKET) return this.parseArray(depth + 1);
    return this.parseBare();
  }

  /**
   * Into the object or array at pos, `depth` levels deep: the position of its first member or
   * element, or −1 when it is empty (pos after its `close`).
   */
  private openNested(depth: number, close: number): number {
    if (depth > this.maxDepth) throw this.err(this.pos, `values nested deeper than ${this.maxDepth} levels (the limit --max-depth)`);
    const p = this.ws(this.pos + 1);
    if (p >= this.lim) throw INCOMPLETE;
    if (this.buf[p] !== close) return p;
    this.pos = p + 1;
    return -1;
  }

  private parseObject(depth: number): JsonObject {
    const b = this.buf;
    const obj: JsonObject = {};
    let p = this.openNested(depth, RBRACE);
    if (p < 0) return obj;
    for (;;) {
      if (b[p] !== QUOTE) throw this.unexpected(p, 'a key string');
      this.pos = p;
      const key = this.parseString(INTERN_MAX_LABEL);
      this.pos = this.valueAfterKey(this.pos);
      const v = this.parseValue(depth);
      if (key === '__proto__') setKey(obj, key, v);
      else obj[key] = v;
      p = this.nextMember(RBRACE, '"," or "}" in an object');
      if (p < 0) return obj;
    }
  }

  private parseArray(depth: number): JsonValue[] {
    const arr: JsonValue[] = [];
    let p = this.openNested(depth, RBRACKET);
    if (p < 0) return arr;
    for (;;) {
      this.pos = p;
      arr.push(this.parseValue(depth));
      p = this.nextMember(RBRACKET, '"," or "]" in an array');
      if (p < 0) return arr;
    }
  }

  /** The text of the number at pos (validated), pos moved past it. */
  private parseNumberText(): string {
    const b = this.buf;
    const end = this.lim;
    const start = this.pos;
    let p = start;
    if (b[p] === MINUS) p++;
    const ds = p;
    while (p < end && b[p] >= 48 && b[p] <= 57) p++;
    if (p === ds && p < end) throw this.unexpected(p, 'a digit');
    if (p < end && b[p] === DOT) {
      p++;
      while (p < end && b[p] >= 48 && b[p] <= 57) p++;
    }
    if (p < end && (b[p] === 0x65 || b[p] === 0x45)) {
      p++;
      if (p < end && (b[p] === PLUS || b[p] === MINUS)) p++;
      const es = p;
      while (p < end && b[p] >= 48 && b[p] <= 57) p++;
      if (p === es && p < end) throw this.unexpected(p, 'a digit of an exponent');
    }
    if (p >= end) throw INCOMPLETE;
    if (p === ds) throw this.err(p, 'a number without digits');
    if (p - start > this.maxNumberChars) throw limitError('maxNumberChars', this.base + start);
    this.pos = p;
    return this.ascii(start, p);
  }

  private parseNumber(): number | string {
    const b = this.buf;
    const end = this.lim;
    const start = this.pos;
    let p = start;
    const neg = b[p] === MINUS;
    if (neg) p++;
    let acc = 0;
    const ds = p;
    while (p < end) {
      const d = b[p] - 48;
      if (d < 0 || d > 9) break;
      acc = acc * 10 + d;
      p++;
    }
    const nd = p - ds;
    if (p >= end) throw INCOMPLETE;
    const c = b[p];
    if (c === DOT || c === 0x65 || c === 0x45) return this.parseNumberGeneral(start);
    if (nd === 0) throw this.unexpected(p, 'a digit');
    this.pos = p;
    if (nd <= 15) return neg ? -acc : acc;
    // Beyond 2^53: keep the exact decimal text (pointers, `Comms Id` > int64 max).
    if (p - start > this.maxNumberChars) throw limitError('maxNumberChars', this.base + start);
    const text = this.ascii(start, p);
    const big = BigInt(text);
    if (big > 9007199254740992n || big < -9007199254740992n) return text;
    return Number(text);
  }

  private parseNumberGeneral(start: number): number {
    const text = this.parseNumberText();
    // Fast exact path (Clinger): ≤ 15 significant digits and a power of ten ≤ 22 are both exact
    // doubles, so one division or multiplication is correctly rounded, as JSON.parse would.
    const b = this.buf;
    const endNum = this.pos;
    let p = start;
    const neg = b[p] === MINUS;
    if (neg) p++;
    let mant = 0;
    let nd = 0;
    let nf = 0;
    let inFrac = false;
    for (; p < endNum; p++) {
      const c = b[p];
      if (c === DOT) { inFrac = true; continue; }
      if (c === 0x65 || c === 0x45) break;
      mant = mant * 10 + (c - 48);
      if (mant !== 0) nd++;
      if (inFrac) nf++;
    }
    let exp = 0;
    if (p < endNum) {
      p++;
      let eneg = false;
      if (b[p] === MINUS) { eneg = true; p++; } else if (b[p] === PLUS) p++;
      for (; p < endNum; p++) {
        exp = exp * 10 + (b[p] - 48);
        if (exp > 1000) break;
      }
      if (eneg) exp = -exp;
    }
    const e10 = exp - nf;
    if (nd <= 15 && e10 >= -22 && e10 <= 22) {
      const v = e10 < 0 ? mant / POW10[-e10] : mant * POW10[e10];
      return neg ? -v : v;
    }
    return Number(text);
  }

  /** Bare tokens: true/false/null and the non-JSON ones Kineto and Python wrote. */
  private parseBare(): JsonValue {
    const b = this.buf;
    const end = this.lim;
    const start = this.pos;
    let p = start;
    if (b[p] === MINUS || b[p] === PLUS) p++;
    while (p < end && BARE[b[p]] === 1) p++;
    if (p >= end) throw INCOMPLETE;
    const len = p - start;
    if (len === 0 || (len === 1 && (b[start] === MINUS || b[start] === PLUS))) throw this.unexpected(start + len, 'a value');
    const tok = this.ascii(start, p);
    this.pos = p;
    switch (tok) {
      case 'true': return true;
      case 'false': return false;
      case 'null': return null;
    }
    let v: JsonValue;
    switch (tok) {
      case 'inf': case '+inf': case 'Infinity': case '+Infinity': case 'INF':
        v = Infinity; break;
      case '-inf': case '-Infinity': case '-INF':
        v = -Infinity; break;
      case 'nan': case 'NaN': case '-nan': case '-NaN': case 'NAN':
        v = NaN; break;
      case 'N/A':
        v = 'N/A'; break;
      default:
        throw this.err(start, `unexpected token "${tok.length > 40 ? tok.slice(0, 40) + '…' : tok}"`);
    }
    const at = this.base + start;
    this.unitNote('BARE_TOKEN', 'warning', `bare token ${tok} (not valid JSON) at byte ${at} read as ${typeof v === 'string' ? `the string "${v}"` : String(v)}`, at);
    return v;
  }

  /** A string at pos; `intern` > 0: intern strings up to that many bytes. */
  private parseString(intern: number): string {
    const b = this.buf;
    const end = this.lim;
    const s = this.pos + 1;
    let p = s;
    while (p < end && PLAIN[b[p]] === 1) p++;
    if (p >= end) throw INCOMPLETE;
    if (b[p] === QUOTE) {
      this.pos = p + 1;
      const len = p - s;
      if (len === 0) return '';
      if (len === 1) return CHAR1[b[s]];
      if (len <= intern) return this.intern(s, len);
      return this.utf8.decode(b.subarray(s, p));
    }
    return this.parseStringSlow(s, p, intern);
  }

  private parseStringSlow(s: number, p: number, intern: number): string {
    const b = this.buf;
    const end = this.lim;
    let esc = false;
    let high = false;
    let ctl = -1;
    for (;;) {
      if (p >= end) throw INCOMPLETE;
      const c = b[p];
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        esc = true;
        p += 2;
        continue;
      }
      if (c < 0x20) {
        if (ctl < 0) ctl = p;
      } else if (c >= 0x80) high = true;
      p++;
    }
    this.pos = p + 1;
    if (ctl >= 0) {
      const at = this.base + ctl;
      this.unitNote('CONTROL_CHAR_IN_STRING', 'warning', `raw control character ${describeByte(b[ctl])} inside a string at byte ${at} (not valid JSON): kept as is`, at);
    }
    if (!esc) {
      if (!high) {
        const len = p - s;
        return len <= intern ? this.intern(s, len) : this.utf8.decode(b.subarray(s, p));
      }
      return this.decodeUtf8(s, p);
    }
    return this.decodeEscaped(s, p, high);
  }

  private decodeUtf8(s: number, e: number): string {
    const sub = this.buf.subarray(s, e);
    try {
      return this.utf8Fatal.decode(sub);
    } catch {
      const at = this.base + s;
      this.unitNote('INVALID_UTF8', 'warning', `invalid UTF-8 in a string at byte ${at}: replaced by U+FFFD`, at);
      return this.utf8.decode(sub);
    }
  }

  private decodeEscaped(s: number, e: number, high: boolean): string {
    const b = this.buf;
    let out = '';
    let run = s;
    let p = s;
    while (p < e) {
      if (b[p] !== BACKSLASH) { p++; continue; }
      if (p > run) out += high ? this.decodeUtf8(run, p) : this.ascii(run, p);
      const c = b[p + 1];
      let adv = 2;
      switch (c) {
        case QUOTE: out += '"'; break;
        case BACKSLASH: out += '\\'; break;
        case 0x2f: out += '/'; break;
        case 0x62: out += '\b'; break;
        case 0x66: out += '\f'; break;
        case 0x6e: out += '\n'; break;
        case 0x72: out += '\r'; break;
        case 0x74: out += '\t'; break;
        case 0x75: {
          let u = 0;
          let ok = p + 6 <= e;
          for (let k = 2; ok && k < 6; k++) {
            const h = hexDigit(b[p + k]);
            if (h < 0) ok = false;
            else u = u * 16 + h;
          }
          if (ok) {
            // Surrogate pairs combine by concatenation of their UTF-16 units.
            out += String.fromCharCode(u);
            adv = 6;
          } else {
            const at = this.base + p;
            this.unitNote('BAD_ESCAPE', 'warning', `invalid \\u escape in a string at byte ${at}: kept as written`, at);
            out += '\\u';
          }
          break;
        }
        default: {
          // e.g. Windows paths `C:\Users` written raw by old Kineto: keep the backslash.
          const at = this.base + p;
          this.unitNote('BAD_ESCAPE', 'warning', `invalid escape "\\${String.fromCharCode(c)}" in a string at byte ${at}: kept as written`, at);
          out += '\\';
          adv = 1;
        }
      }
      p += adv;
      run = p;
    }
    if (e > run) out += high ? this.decodeUtf8(run, e) : this.ascii(run, e);
    return out;
  }

  private ascii(s: number, e: number): string {
    const b = this.buf;
    const n = e - s;
    if (n <= 16) {
      let r = '';
      for (let i = s; i < e; i++) r += CHAR1[b[i]] ?? String.fromCharCode(b[i]);
      return r;
    }
    return this.utf8.decode(b.subarray(s, e));
  }

  /** ASCII bytes b[s, s+len) as a string, shared with earlier equal strings. */
  private intern(s: number, len: number): string {
    const b = this.buf;
    // A hash of the length and a few sampled bytes: the table's full comparison decides, so the
    // hash only has to spread the table, not to read every byte twice.
    const e = s + len;
    const m = s + (len >> 1);
    let h = Math.imul(len ^ (b[s] << 8) ^ (b[e - 1] << 16) ^ (b[m] << 24), 0x9e3779b1);
    h = Math.imul(h ^ (b[s + 1] | (b[e - 2] << 8) | (b[m - 1] << 16) | (b[s + (len >> 2)] << 24)), 0x85ebca6b);
    h ^= h >>> 15;
    const strs = this.iStr;
    const span = this.iSpan;
    span[0] = s;
    span[1] = e;
    const id = this.iTable.find(b, this.view, span, 1, len, h);
    if (id >= 0) return strs[id]!;
    const str = len <= 16 ? this.ascii(s, e) : this.utf8.decode(b.subarray(s, e));
    if (strs.length < INTERN_LIMIT) {
      this.iTable.add(b, span, 1, len, strs.length);
      strs.push(str);
    }
    return str;
  }
}
