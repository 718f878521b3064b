/**
 * Writes a subset of a trace's events to a new file, each event's bytes exactly as they were
 * (numbers, key order, big integers untouched), inside the original's header: the bytes before
 * the first event and after the last, so every top-level key is kept as written.
 *
 * Two streaming reads of the input (a path; plain or gzip): the first tokenizes it and applies
 * `select` to each batch of events, remembering the byte ranges kept (on every core for a large
 * plain file, as loadTrace reads it); the second copies those ranges. When the model's load recorded
 * the events (SubsetRecording: crop), the first read is spared and the choice made from that.
 * Memory: two numbers per event kept. The output is gzipped when its name ends in `.gz`.
 *
 * Handles: flows kept only when complete (FLOW_INSIDE / FLOW_OUTSIDE). When the input is
 * truncated or has data after its root value, the header after the events cannot be copied:
 * the output closes the events array and the root itself (keys after the events are lost).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import { finished, pipeline } from 'node:stream/promises';
import { Transform, type Writable } from 'node:stream';
import { DiagnosticSink } from '../core/diagnostics.js';
import { KinetoscopeError } from '../core/errors.js';
import { DROP, FLOW_INSIDE, KEEP, type SubsetEvents, type SubsetSelector } from '../core/subset-selector.js';
import { AN_CORRELATION, AN_EXTERNAL_ID, ARG_NUMBERS, flowIdOf, type ArgsPolicy, type EventColumns } from './event-columns.js';
import { readTraceColumns, type ReadResult } from './read-trace.js';
import { lightConsumerWorkers, planParallelRead } from './parallel-plan.js';
import { readFileParallel } from './read-parallel.js';

/** A batch of events as a selector reads them (core/subset-selector.ts), one object reused from batch to batch. */
export class SubsetBatch implements SubsetEvents {
  length = 0;
  /** Each event's kind (SubsetSelector.kindOf). */
  kind: Int32Array = new Int32Array(0);
  /** The reader's times: tsNs[i] + shiftNs is ns from the file's first ts, NaN when absent. */
  tsNs: Float64Array = new Float64Array(0);
  shiftNs = 0;
  /** Event i's External id at args[i·argWidth + externalIdSlot], its correlation at … + correlationSlot (NaN when absent). */
  args: Float64Array = new Float64Array(0);
  argWidth = 0;
  externalIdSlot = 0;
  correlationSlot = 0;
  private flowIds: Float64Array = new Float64Array(0);
  private flowIdLabels: Int32Array = new Int32Array(0);
  private sLabels: Int32Array = new Int32Array(0);
  private labels: readonly string[] = [];

  /** Shows the columns `c`, their labels read in `labels`, their times shifted by `shiftNs`. */
  set(c: ChoiceColumns, labels: readonly string[], shiftNs: number, kind: Int32Array): void {
    this.length = c.length;
    this.kind = kind;
    this.tsNs = c.tsNs;
    this.shiftNs = shiftNs;
    this.args = c.argNumbers;
    this.argWidth = c.argWidth;
    this.externalIdSlot = c.externalIdSlot;
    this.correlationSlot = c.correlationSlot;
    this.flowIds = c.flowId;
    this.flowIdLabels = c.flowIdLabel;
    this.sLabels = c.s;
    this.labels = labels;
  }

  flowId(i: number): number | string | undefined {
    return flowIdOf(this.flowIds[i]!, this.flowIdLabels[i]!, this.labels);
  }

  s(i: number): string | undefined {
    const l = this.sLabels[i]!;
    return l >= 0 ? this.labels[l] : undefined;
  }
}

export interface SubsetResult {
  read: ReadResult;
  eventsIn: number;
  eventsOut: number;
  /** Bytes written (compressed when the output is gzipped). */
  bytesOut: number;
}

const SKIP_ALL_ARGS: ArgsPolicy = { complete: {}, phases: {} };

export interface SubsetOptions {
  /**
   * Threads for the selecting read (default: lightConsumerWorkers() in parallel-plan.ts; 1:
   * this thread only). A plain file of PARALLEL_MIN_BYTES or more is read on all of them.
   */
  workers?: number;
  /** Tuning of the parallel read (tests force tiny ranges): smallest file read in parallel, bytes per range. */
  parallel?: { minBytes?: number; rangeBytes?: number };
  /** Gzip the output (default: when its name ends in `.gz`; a temporary file's name does not say). */
  gzip?: boolean;
  /**
   * Rewrites the text of each event kept and of the header (--redact): given one whole event's
   * (or the header's) JSON text, returns text that is still valid JSON in its place.
   */
  transform?: (text: string) => string;
  /**
   * What the load of the model saw of each event (loadTrace's `recordSubset`): when whole, the
   * events are chosen from it and the input is read once more only to copy.
   */
  recorded?: SubsetRecording;
  /**
   * `output` was created by the caller (cli/safe-write.ts): it is opened without O_CREAT, so
   * that an open still under way when the caller removes the file cannot make it again.
   */
  outputExists?: boolean;
}

/**
 * The columns the chooser reads; of the args numbers, the external id and the correlation at
 * their slots of `argWidth` numbers per event (a recording keeps these two only).
 */
type ChoiceColumns = Pick<EventColumns, 'length' | 'ph' | 'cat' | 'name' | 'tsNs' | 'argNumbers' | 'flowId' | 'flowIdLabel' | 's' | 'offsets'> & {
  argWidth: number;
  externalIdSlot: number;
  correlationSlot: number;
};

/** A batch as the reader made it, seen as the chooser's columns (no copy). */
function choiceView(c: EventColumns): ChoiceColumns {
  const { length, ph, cat, name, tsNs, argNumbers, flowId, flowIdLabel, s, offsets } = c;
  return { length, ph, cat, name, tsNs, argNumbers, flowId, flowIdLabel, s, offsets, argWidth: ARG_NUMBERS, externalIdSlot: AN_EXTERNAL_ID, correlationSlot: AN_CORRELATION };
}

/**
 * The events of a read, as the chooser of writeTraceSubset is shown them, kept while the model is
 * loaded (crop reads the input for its model anyway): the model's load hands each producer's
 * batches here with their byte ranges, and the choosing read of the input is spared. Only asked
 * for by crop, so no other load pays for it; ~70 bytes per event.
 */
export class SubsetRecording {
  /** The read's result, set when it ended: until then the recording is not whole. */
  read: ReadResult | undefined;
  private readonly batches: { c: ChoiceColumns; labels: readonly string[]; shiftNs: number }[] = [];

  /** One producer of batches (a parse worker's, or the one serial read's): its labels, then its batches in file order. */
  producer(): { register(batch: EventColumns): void; consume(batch: EventColumns, shiftNs: number): void } {
    const labels: string[] = [];
    return {
      register: (batch) => {
        for (const l of batch.newLabels) labels.push(l);
      },
      consume: (b, shiftNs) => {
        const n = b.length;
        const ids = new Float64Array(2 * n);
        const args = b.argNumbers;
        for (let i = 0; i < n; i++) {
          ids[2 * i] = args[i * ARG_NUMBERS + AN_EXTERNAL_ID]!;
          ids[2 * i + 1] = args[i * ARG_NUMBERS + AN_CORRELATION]!;
        }
        const c: ChoiceColumns = {
          length: n,
          ph: b.ph.slice(0, n),
          cat: b.cat.slice(0, n),
          name: b.name.slice(0, n),
          tsNs: b.tsNs.slice(0, n),
          argNumbers: ids,
          flowId: b.flowId.slice(0, n),
          flowIdLabel: b.flowIdLabel.slice(0, n),
          s: b.s.slice(0, n),
          offsets: b.offsets!.slice(0, 2 * n),
          argWidth: 2,
          externalIdSlot: 0,
          correlationSlot: 1,
        };
        this.batches.push({ c, labels, shiftNs });
      },
    };
  }

  /** Shows every event recorded to the chooser, in file order. */
  replay(chooser: EventChooser): void {
    for (const b of this.batches) chooser.add(b.c, b.labels, b.shiftNs);
  }
}

/**
 * The comment in the gzip header (FCOMMENT) of a gzipped output: how a later run recognises a
 * file kinetoscope wrote (cli/safe-write.ts); gunzip, Python and Perfetto skip it.
 */
export const GZIP_COMMENT = 'written by kinetoscope crop';

export async function writeTraceSubset(input: string, output: string, select: SubsetSelector, opts: SubsetOptions = {}): Promise<SubsetResult> {
  if (resolve(input) === resolve(output)) throw new KinetoscopeError('BAD_ARGUMENT', `the output ${output} is the input: write the cropped trace to another file`);
  // Pass 1: decide.
  const chooser = new EventChooser(select);
  let read = opts.recorded?.read;
  if (read) opts.recorded!.replay(chooser);
  else read = await readForChoosing(input, chooser, opts);
  const { firstStart, lastEnd, eventsIn } = chooser;
  const ranges = chooser.keptRanges();

  // Pass 2: copy. Any error of the output (a full disk) ends the copy and is thrown from here.
  const out = createWriteStream(output, { flags: opts.outputExists ? 'r+' : 'w' });
  const gz = (opts.gzip ?? output.endsWith('.gz')) ? createGzip() : undefined;
  const dest: Writable = gz ?? out;
  const done = gz ? pipeline(gz, gzipHeaderComment(GZIP_COMMENT), out) : finished(out);
  let failed: unknown;
  const failure = done.then(
    () => undefined,
    (e: unknown) => {
      failed = e;
    },
  );
  // Each block waits for its write's callback: the file written, or the gzip stream done reading
  // it; then the writer may fill it again. A write that failed has failed the stream: its own
  // error (ENOSPC, EFBIG, …) is the one thrown.
  const buffered = new BufferedWriter(async (b) => {
    if (failed) throw failed;
    const written = new Promise<unknown>((res) => dest.write(b, res));
    if (await Promise.race([written, failure])) await failure;
    if (failed) throw failed;
  });
  const tf = opts.transform ?? ((t: string) => t);
  const copier = new RangeCopier(ranges, buffered, opts.transform);
  const prefix: Uint8Array[] = [];
  const tail: Uint8Array[] = [];
  let tailBytes = 0;
  let prefixWritten = false;
  // Each chunk is copied from synchronously (the chunk's buffer is reused for the next one): the
  // header's bytes and the events kept into the output's blocks; the full blocks written after.
  await forEachTextChunk(input, neededChunks(ranges, firstStart, lastEnd), async (chunk, at) => {
    if (firstStart >= 0) {
      // The header before the first event and after the last, as written (checked before use).
      if (at < firstStart) prefix.push(copyOf(chunk.subarray(0, Math.min(chunk.length, firstStart - at))));
      if (!prefixWritten && at + chunk.length >= firstStart) {
        prefixWritten = true;
        buffered.put(tf(headerBefore(prefix, read)));
      }
      copier.push(chunk, at);
      if (at + chunk.length > lastEnd && tailBytes <= MAX_TAIL) {
        const part = copyOf(chunk.subarray(Math.max(0, lastEnd - at)));
        tail.push(part);
        tailBytes += part.length;
      }
      await buffered.drain();
    }
  });
  if (firstStart < 0) {
    // No event at all: a minimal trace with the header the reader understood.
    buffered.put(tf(JSON.stringify({ ...read.header, traceEvents: [] })));
  } else {
    buffered.put(tf(tailBytes <= MAX_TAIL ? headerAfter(tail, read) : closing(read)));
  }
  await buffered.flush();
  dest.end();
  await failure;
  if (failed) throw failed;
  return { read, eventsIn, eventsOut: ranges.length / 2, bytesOut: out.bytesWritten };
}

/**
 * Pass 1: every event, with its byte range, shown to the chooser in file order — read on every
 * core when the input is a large plain file (the parallel reader: each thread's batches come
 * with that thread's labels and a shift of its time origin to the file's), else on this thread.
 */
async function readForChoosing(input: string, chooser: EventChooser, opts: SubsetOptions): Promise<ReadResult> {
  const diagnostics = new DiagnosticSink();
  const workers = opts.workers ?? lightConsumerWorkers();
  const plain = await planParallelRead(input, workers, opts.parallel?.minBytes);
  if (plain) {
    return readFileParallel(
      input,
      plain.size,
      plain.container,
      {
        producer: () => {
          const labels: string[] = [];
          return {
            register: (batch) => {
              for (const l of batch.newLabels) labels.push(l);
            },
            consume: (batch, shiftNs) => chooser.add(choiceView(batch), labels, shiftNs),
          };
        },
      },
      { policy: SKIP_ALL_ARGS, offsets: true, workers, rangeBytes: opts.parallel?.rangeBytes, diagnostics },
    );
  }
  const labels: string[] = [];
  const onColumns = (batch: EventColumns) => {
    for (const l of batch.newLabels) labels.push(l);
    chooser.add(choiceView(batch), labels, 0);
  };
  return readTraceColumns(input, onColumns, { policy: SKIP_ALL_ARGS, offsets: true, diagnostics, reuseBatches: true });
}

/** Pass 1's decisions: the byte ranges of the events kept, and of the flows kept only when complete. */
class EventChooser {
  eventsIn = 0;
  firstStart = -1;
  lastEnd = -1;
  /** [start, end) of each event kept, in file order. */
  private kept = new Float64Array(1 << 16);
  private nKept = 0;
  /** Each flow's index, by cat and then by id (flowKey); by index, whether all its events are inside, and how many. */
  private readonly flowIndex = new Map<string, Map<number | string, number>>();
  private flowInside = new Uint8Array(1024);
  private flowEvents = new Int32Array(1024);
  private nFlows = 0;
  /** [start, end, flow index] of each event inside of a flow, in file order. */
  private flowRanges = new Float64Array(3 * 1024);
  private nFlowRanges = 0;
  /** Each producer's kinds by label ids. */
  private readonly kinds = new Map<readonly string[], KindIndex>();
  /** What the selector is shown, and what it decides (grown to the largest batch, reused). */
  private readonly batch = new SubsetBatch();
  private kind = new Int32Array(0);
  private decided = new Uint8Array(0);

  constructor(private readonly select: SubsetSelector) {}

  /** A batch's events, its label ids read in `labels`, its times shifted by `shiftNs` to the file's time origin. */
  add(c: ChoiceColumns, labels: readonly string[], shiftNs: number): void {
    const n = c.length;
    if (n === 0) return;
    let index = this.kinds.get(labels);
    if (!index) this.kinds.set(labels, (index = new KindIndex(labels, this.select)));
    if (this.kind.length < n) {
      this.kind = new Int32Array(n);
      this.decided = new Uint8Array(n);
    }
    const kind = this.kind.subarray(0, n);
    const decided = this.decided.subarray(0, n);
    const { ph, cat, name } = c;
    for (let i = 0; i < n; i++) kind[i] = index.of(ph[i]!, cat[i]!, name[i]!);
    this.batch.set(c, labels, shiftNs, kind);
    decided.fill(DROP);
    this.select.choose(this.batch, decided);
    const off = c.offsets!;
    if (this.firstStart < 0) this.firstStart = off[0]!;
    this.lastEnd = off[2 * n - 1]!;
    this.eventsIn += n;
    for (let i = 0; i < n; i++) {
      const d = decided[i]!;
      if (d === KEEP) this.keep(off[2 * i]!, off[2 * i + 1]!);
      else if (d !== DROP) this.flowEvent(labels[cat[i]!]!, this.batch.flowId(i), d === FLOW_INSIDE, off[2 * i]!, off[2 * i + 1]!);
    }
  }

  /** [start, end) pairs of everything kept, in file order: the events, and the events of the flows whole inside. */
  keptRanges(): Float64Array {
    const ranges = this.kept.subarray(0, 2 * this.nKept);
    const fr = this.flowRanges;
    // The flows kept: every event inside, and at least two of them.
    const whole = (f: number) => this.flowInside[f] === 1 && this.flowEvents[f]! >= 2;
    let nf = 0;
    for (let j = 0; j < this.nFlowRanges; j++) if (whole(fr[3 * j + 2]!)) nf++;
    if (nf === 0) return ranges;
    // Both lists are in file order: merged.
    const all = new Float64Array(ranges.length + 2 * nf);
    let i = 0;
    let o = 0;
    for (let j = 0; j < this.nFlowRanges; j++) {
      if (!whole(fr[3 * j + 2]!)) continue;
      const s = fr[3 * j]!;
      while (i < ranges.length && ranges[i]! < s) {
        all[o++] = ranges[i++]!;
        all[o++] = ranges[i++]!;
      }
      all[o++] = s;
      all[o++] = fr[3 * j + 1]!;
    }
    all.set(ranges.subarray(i), o);
    return all;
  }

  private flowEvent(cat: string, id: number | string | undefined, inside: boolean, start: number, end: number): void {
    let byId = this.flowIndex.get(cat);
    if (!byId) this.flowIndex.set(cat, (byId = new Map()));
    const key = flowKey(id);
    let f = byId.get(key);
    if (f === undefined) {
      byId.set(key, (f = this.nFlows++));
      if (f === this.flowInside.length) {
        this.flowInside = grown(this.flowInside, new Uint8Array(2 * f));
        this.flowEvents = grown(this.flowEvents, new Int32Array(2 * f));
      }
      this.flowInside[f] = 1;
    }
    if (!inside) {
      this.flowInside[f] = 0;
      return;
    }
    this.flowEvents[f]++;
    if (3 * this.nFlowRanges + 3 > this.flowRanges.length) this.flowRanges = grown(this.flowRanges, new Float64Array(2 * this.flowRanges.length));
    const k = 3 * this.nFlowRanges++;
    this.flowRanges[k] = start;
    this.flowRanges[k + 1] = end;
    this.flowRanges[k + 2] = f;
  }

  private keep(start: number, end: number): void {
    if (2 * this.nKept + 2 > this.kept.length) this.kept = grown(this.kept, new Float64Array(2 * this.kept.length));
    this.kept[2 * this.nKept] = start;
    this.kept[2 * this.nKept + 1] = end;
    this.nKept++;
  }
}

/** `to` holding `from` at its start. */
function grown<T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/**
 * A flow id as a Map key that two ids share exactly when their text (String(id)) is the same:
 * the number itself, a string that is a number's text as that number, any other string as is.
 */
function flowKey(id: number | string | undefined): number | string {
  if (typeof id === 'number') return id;
  if (id === undefined) return 'undefined';
  const n = Number(id);
  return String(n) === id ? n : id;
}

/**
 * One producer's kinds of events (SubsetSelector.kindOf) by label ids: by ph, an array by cat of
 * the kind + 1 (0: not asked yet; −1: by name, in `named`).
 */
class KindIndex {
  private readonly byPh: (Int32Array | undefined)[] = [];
  private readonly named = new Map<number, Map<number, Map<number, number>>>();

  constructor(
    private readonly labels: readonly string[],
    private readonly select: SubsetSelector,
  ) {}

  /** The kind of an event with these label ids. */
  of(ph: number, cat: number, name: number): number {
    const row = this.byPh[ph];
    if (row !== undefined && cat < row.length) {
      const k = row[cat]!;
      if (k > 0) return k - 1;
      if (k < 0) return this.ofName(ph, cat, name);
    }
    const l = this.labels;
    if (this.select.byName(l[ph]!, l[cat]!)) {
      this.row(ph, cat)[cat] = -1;
      return this.ofName(ph, cat, name);
    }
    const k = this.select.kindOf(l[ph]!, l[cat]!, l[name]!);
    this.row(ph, cat)[cat] = k + 1;
    return k;
  }

  private ofName(ph: number, cat: number, name: number): number {
    let byCat = this.named.get(ph);
    if (!byCat) this.named.set(ph, (byCat = new Map()));
    let byName = byCat.get(cat);
    if (!byName) byCat.set(cat, (byName = new Map()));
    let k = byName.get(name);
    if (k === undefined) {
      const l = this.labels;
      byName.set(name, (k = this.select.kindOf(l[ph]!, l[cat]!, l[name]!)));
    }
    return k;
  }

  private row(ph: number, cat: number): Int32Array {
    const row = this.byPh[ph];
    if (row !== undefined && cat < row.length) return row;
    const grown = new Int32Array(Math.max(64, (cat + 1) * 2));
    if (row !== undefined) grown.set(row);
    return (this.byPh[ph] = grown);
  }
}

const MAX_TAIL = 64 << 20;

/** A copy of the bytes (a Buffer's slice() is a view). */
function copyOf(b: Uint8Array): Uint8Array {
  return new Uint8Array(b);
}
const utf8 = new TextDecoder();

function concatText(parts: Uint8Array[]): string {
  let s = '';
  for (const p of parts) s += utf8.decode(p, { stream: true });
  return s + utf8.decode();
}

/** The text before the first event when it opens the events array validly, else one rebuilt from the header read. */
function headerBefore(parts: Uint8Array[], read: ReadResult): string {
  const text = concatText(parts);
  try {
    JSON.parse(text + (read.container === 'array' ? ']' : ']}'));
    return text;
  } catch {
    if (read.container === 'array') return '[\n  ';
    const keys = JSON.stringify(read.header).slice(1, -1);
    return `{${keys}${keys ? ', ' : ''}"traceEvents": [\n  `;
  }
}

/** The text after the last event when it closes the events array and the root validly, else a plain closing. */
function headerAfter(parts: Uint8Array[], read: ReadResult): string {
  const text = concatText(parts);
  try {
    JSON.parse((read.container === 'array' ? '[' : '{"traceEvents": [') + text);
    return text;
  } catch {
    return closing(read);
  }
}

function closing(read: ReadResult): string {
  return read.container === 'array' ? '\n]\n' : '\n]}\n';
}

/**
 * Gathers the many small pieces of the output (one per event kept, and the `,` between them)
 * into 1 MiB blocks: written one by one, each went through the gzip stream as its own chunk
 * and its own wait for 'drain' — measured on a 169 MB trace cut to 38 k events: 4.7 s, most of
 * it waiting for those round trips. The pieces are put without waiting; the blocks they fill
 * are written by drain() (the one wait per input chunk).
 */
class BufferedWriter {
  private block: Uint8Array = new Uint8Array(BLOCK_BYTES);
  private used = 0;
  /** Full blocks not written yet; blocks written, to fill again. */
  private full: Uint8Array[] = [];
  private readonly spare: Uint8Array[] = [];
  private readonly encoder = new TextEncoder();

  /** `writeBlock` resolves once the block it was given may be overwritten. */
  constructor(private readonly writeBlock: (b: Uint8Array) => Promise<void>) {}

  /** Copies a piece in (a copy: the caller may reuse its bytes). */
  put(piece: Uint8Array | string): void {
    const b = typeof piece === 'string' ? this.encoder.encode(piece) : piece;
    if (this.used + b.length > this.block.length) this.cut();
    if (b.length >= this.block.length) {
      this.full.push(copyOf(b));
      return;
    }
    this.block.set(b, this.used);
    this.used += b.length;
  }

  /** Writes the full blocks, in order. */
  async drain(): Promise<void> {
    const full = this.full;
    if (full.length === 0) return;
    this.full = [];
    for (const b of full) {
      await this.writeBlock(b);
      if (b.byteOffset === 0 && b.buffer.byteLength === BLOCK_BYTES) this.spare.push(new Uint8Array(b.buffer, 0, BLOCK_BYTES));
    }
  }

  /** Writes everything put. */
  async flush(): Promise<void> {
    this.cut();
    await this.drain();
  }

  /** Ends the block being filled; the next is one already written, or a new one. */
  private cut(): void {
    if (this.used === 0) return;
    this.full.push(this.block.subarray(0, this.used));
    this.block = this.spare.pop() ?? new Uint8Array(BLOCK_BYTES);
    this.used = 0;
  }
}

const BLOCK_BYTES = 1 << 20;
/** Between two events of the output. */
const SEPARATOR = new TextEncoder().encode(',\n  ');

/** Copies the kept ranges out of the text as it streams by, with `,\n  ` between events. */
class RangeCopier {
  private k = 0;
  private first = true;
  private startedCurrent = false;

  /** With a transform: the pieces of the event being copied, written through it when whole. */
  private pieces: Uint8Array[] = [];

  constructor(
    private readonly ranges: Float64Array,
    private readonly out: BufferedWriter,
    private readonly transform?: (text: string) => string,
  ) {}

  private write(b: Uint8Array, last: boolean): void {
    if (!this.transform) return this.out.put(b);
    this.pieces.push(copyOf(b));
    if (!last) return;
    const text = concatText(this.pieces);
    this.pieces = [];
    this.out.put(this.transform(text));
  }

  /** Copies what the chunk (at offset `at`) holds of the ranges; its bytes are not kept. */
  push(chunk: Uint8Array, at: number): void {
    const r = this.ranges;
    const end = at + chunk.length;
    while (this.k < r.length / 2) {
      const s = r[2 * this.k]!;
      const e = r[2 * this.k + 1]!;
      if (s >= end) return;
      if (e <= at) {
        this.k++;
        continue;
      }
      if (s >= at && !this.startedCurrent) {
        if (!this.first) this.out.put(SEPARATOR);
        this.first = false;
        this.startedCurrent = true;
      }
      if (e > end) {
        this.write(chunk.subarray(Math.max(0, s - at), chunk.length), false);
        return; // continues in the next chunk
      }
      // The events after it in this chunk that the input already separates by exactly
      // SEPARATOR are copied with it as one piece (the same bytes: a crop of many steps is
      // mostly such runs).
      let runEnd = e;
      if (!this.transform && s >= at) {
        while (this.k + 1 < r.length / 2) {
          const ns = r[2 * this.k + 2]!;
          const ne = r[2 * this.k + 3]!;
          if (ne > end || !separatedBy(chunk, runEnd - at, ns - at)) break;
          runEnd = ne;
          this.k++;
        }
      }
      this.write(chunk.subarray(Math.max(0, s - at), runEnd - at), true);
      this.startedCurrent = false;
      this.k++;
    }
  }
}

const [SEP0, SEP1, SEP2, SEP3] = SEPARATOR;

/** Whether bytes [from, to) of `chunk` are SEPARATOR (its four bytes). */
function separatedBy(chunk: Uint8Array, from: number, to: number): boolean {
  return to - from === 4 && chunk[from] === SEP0 && chunk[from + 1] === SEP1 && chunk[from + 2] === SEP2 && chunk[from + 3] === SEP3;
}

/**
 * Sets a comment in the header of a gzip stream (createGzip writes a 10-byte header with no
 * flags): FLG gets FCOMMENT and the zero-terminated comment follows the header. The CRC and the
 * size at the end cover the uncompressed data only, so they stay right.
 */
function gzipHeaderComment(comment: string): Transform {
  let pending: Buffer | undefined = Buffer.alloc(0);
  const patched = (h: Buffer) => {
    const head = Buffer.from(h.subarray(0, 10));
    head[3] = head[3]! | 0x10;
    return Buffer.concat([head, Buffer.from(`${comment}\0`, 'latin1'), h.subarray(10)]);
  };
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (!pending) return cb(null, chunk);
      pending = Buffer.concat([pending, chunk]);
      if (pending.length < 10) return cb();
      const out = patched(pending);
      pending = undefined;
      cb(null, out);
    },
    flush(cb) {
      cb(null, pending && pending.length >= 10 ? patched(pending) : pending);
    },
  });
}

const COPY_CHUNK = 1 << 20;

/**
 * Which COPY_CHUNK-sized chunks of a plain input hold a byte the copy needs: the header before
 * the first event (and that event's first byte), the ranges kept, everything after the last event
 * (a crop of a few steps needs a few % of a large file: the rest is not read). None: read it all.
 */
function neededChunks(ranges: Float64Array, firstStart: number, lastEnd: number): ((at: number) => boolean) | undefined {
  if (firstStart < 0) return undefined;
  const needed = new Uint8Array(Math.floor(lastEnd / COPY_CHUNK) + 1);
  const mark = (s: number, e: number) => {
    for (let k = Math.floor(s / COPY_CHUNK); k <= Math.floor((e - 1) / COPY_CHUNK); k++) needed[k] = 1;
  };
  mark(0, firstStart + 1);
  for (let k = 0; k < ranges.length; k += 2) mark(ranges[k]!, ranges[k + 1]!);
  mark(lastEnd, lastEnd + 1);
  return (at) => {
    const k = at / COPY_CHUNK;
    return k >= needed.length || needed[k] === 1;
  };
}

/**
 * The input's text (gunzipped when it is gzip), chunk by chunk with each chunk's offset; of a
 * plain file, only the COPY_CHUNK-sized chunks `wanted` asks for (all of them without it).
 */
async function forEachTextChunk(path: string, wanted: ((at: number) => boolean) | undefined, fn: (chunk: Uint8Array, at: number) => Promise<void>): Promise<void> {
  const fh = await open(path, 'r');
  const magic = new Uint8Array(2);
  const n = (await fh.read(magic, 0, 2, 0)).bytesRead;
  await fh.close();
  const gzip = n === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  const raw = () => createReadStream(path, { highWaterMark: COPY_CHUNK });
  const chunks = gzip ? inOrder(raw().pipe(createGunzip({ chunkSize: 256 * 1024 }))) : wanted ? wantedChunks(path, wanted) : inOrder(raw());
  try {
    for await (const { chunk, at } of chunks) {
      try {
        await fn(chunk, at);
      } catch (e) {
        throw { ofOutput: e };
      }
    }
  } catch (err) {
    if (typeof err === 'object' && err !== null && 'ofOutput' in err) throw err.ofOutput; // the output's error, not the input's
    // The first read already reported a corrupt or cut gzip stream; keep what was copied.
    if (!(err as { code?: string }).code?.startsWith('Z_')) throw new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: ${(err as Error).message}`);
  }
}

/** A stream's chunks, each with its offset. */
async function* inOrder(stream: AsyncIterable<Buffer>): AsyncGenerator<{ chunk: Buffer; at: number }> {
  let at = 0;
  for await (const chunk of stream) {
    yield { chunk, at };
    at += chunk.length;
  }
}

/**
 * The chunks of a plain file that `wanted` asks for, each read where it lies, with its offset;
 * into one buffer, so a chunk is valid only until the next is asked for.
 */
async function* wantedChunks(path: string, wanted: (at: number) => boolean): AsyncGenerator<{ chunk: Uint8Array; at: number }> {
  const fh = await open(path, 'r');
  const b = new Uint8Array(COPY_CHUNK);
  try {
    for (let at = 0; ; at += COPY_CHUNK) {
      if (!wanted(at)) continue;
      const { bytesRead } = await fh.read(b, 0, COPY_CHUNK, at);
      if (bytesRead === 0) return;
      yield { chunk: b.subarray(0, bytesRead), at };
      if (bytesRead < COPY_CHUNK) return;
    }
  } finally {
    await fh.close();
  }
}
