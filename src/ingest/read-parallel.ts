/**
 * Reads a large uncompressed trace file on several threads: the file is cut into ranges at
 * what look like event boundaries (`}`, `,`, `{"` between two events of the events array),
 * worker threads tokenize the ranges at once, and the batches are handed on in file order.
 *
 * A cut is only a guess (the bytes may sit inside a string); it is proven when the range
 * before it, tokenized from a proven start, ends exactly after the `,` that follows an event.
 * When it does not, the range after the cut is thrown away and its bytes are fed to the
 * tokenizer of the range before, as one serial read would: the events, diagnostics, header
 * and errors are those of the serial reader, whatever the cuts.
 *
 * Handles: plain files given by path (gzip and streams are read on one thread, read-trace.ts);
 * whether a file is read here, and on how many threads, is parallel-plan.ts's to say.
 */
import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { DiagnosticSink, type Diagnostic } from '../core/diagnostics.js';
import { KinetoscopeError, type ErrorCode } from '../core/errors.js';
import { recycleBatchBuffer, type ArgsPolicy, type EventColumns } from './event-columns.js';
import { defaultWorkers, WORKER_URL } from './parallel-plan.js';
import type { JsonObject } from './raw-event.js';
import type { ReadResult } from './read-trace.js';
import { CLAIM_DEAD, CLAIM_LIMIT, giveUpNoDetachAssumption, RangeParser, type RangeParserInit, type RangePlan } from './range-parser.js';
import type { TokenizerResult } from './tokenizer.js';
import { originShiftNs } from './time-text.js';
import { limitError, readLimits } from './limits.js';

export type ToWorker =
  | { type: 'plan'; plan: RangePlan; seq?: undefined }
  | { type: 'continue'; seq: number; start: number; end: number; final: boolean }
  | { type: 'end'; seq: number; earlierEvents: number; lastEventEnd: number }
  | { type: 'drop'; seq: number }
  /** A consumed batch's buffer, back to the thread that made it (recycleBatchBuffer). */
  | { type: 'recycle'; buffer: ArrayBuffer; seq?: undefined }
  | { type: 'close'; seq?: undefined };

export type ToMain =
  | { type: 'batch'; seq: number; batch: EventColumns; at: number }
  | {
      type: 'parsed';
      seq: number;
      final: boolean;
      ok: boolean;
      ownEvents: number;
      lastEventEnd: number;
      header: JsonObject;
      diagnostics: Diagnostic[];
    }
  | { type: 'ended'; seq: number; result: TokenizerResult; header: JsonObject; diagnostics: Diagnostic[] }
  | { type: 'error'; seq: number; during: 'bytes' | 'end'; code?: ErrorCode; message: string; byteOffset?: number };

/** One producer of batches: the consumer mirrors its labels and args (see ColumnSource). */
export interface BatchSink {
  /** A new producer (one per worker); `register` is called with every batch it makes, in order. */
  producer(): { register(batch: EventColumns): void; consume(batch: EventColumns, shiftNs: number): void };
}

export interface ParallelOptions {
  policy: ArgsPolicy;
  /** Hand on each event's byte range too (EventColumns.offsets, absolute in the file). */
  offsets?: boolean;
  /** Threads that tokenize, this one included (default: defaultWorkers()). */
  workers?: number;
  /** Bytes per range (default: 4 MiB, fewer when the file is small). */
  rangeBytes?: number;
  diagnostics?: DiagnosticSink;
  /** Called as batches are handed on: text bytes covered so far (approximate) and events. */
  onProgress?: (bytes: number, events: number) => void;
  /** false: this thread only hands batches on, every range is read by a worker (tests); needs workers > 1. */
  localRanges?: boolean;
  stats?: ParallelStats;
}

/** Filled in by a parallel read: how many ranges the file was cut into, how many cuts proved not to be event boundaries, ranges parsed by each thread. */
export interface ParallelStats {
  ranges: number;
  rejectedCuts: number;
  parsedBy?: number[];
}

/**
 * Ranges the threads may run ahead of the one being handed on, per thread: their batches wait
 * in memory (≤ LOOKAHEAD × threads × 4 MiB of text, about half of that in columns).
 */
const LOOKAHEAD = 2;

interface Range {
  seq: number;
  start: number;
  end: number;
  final: boolean;
  /** The thread that parsed it (−1 until its first message). */
  worker: number;
  /** Batches waiting for their turn (the range is not yet part of the proven read), and where each ends. */
  batches: EventColumns[];
  at: number[];
  status: Extract<ToMain, { type: 'parsed' }>[];
  ended?: Extract<ToMain, { type: 'ended' }>;
  error?: Extract<ToMain, { type: 'error' }>;
  dead: boolean;
}

/**
 * Reads `path` (uncompressed JSON, `size` bytes, root container already sniffed) on worker
 * threads; `sink` receives the batches in file order. Resolves to the ReadResult the serial
 * reader would give.
 */
export async function readFileParallel(
  path: string,
  size: number,
  container: 'object' | 'array',
  sink: BatchSink,
  opts: ParallelOptions,
): Promise<ReadResult> {
  const nThreads = Math.max(1, opts.workers ?? defaultWorkers());
  const limits = readLimits();
  if (size > limits.maxInputBytes) throw limitError('maxInputBytes', limits.maxInputBytes);
  giveUpNoDetachAssumption();
  const rangeBytes = Math.max(1, opts.rangeBytes ?? Math.max(1 << 20, Math.min(4 << 20, Math.ceil(size / (nThreads * 8)))));
  // Workers start (~40 ms each) while the cuts are looked for.
  const init: RangeParserInit = { path, policy: opts.policy, readBytes: 1 << 20, offsets: opts.offsets, limits };
  const onMessage: ((m: ToMain) => void)[] = [];
  let fail: (e: unknown) => void = () => undefined;
  const workers: Worker[] = [];
  for (let i = 1; i < nThreads; i++) {
    const w = new Worker(WORKER_URL, { workerData: init });
    w.on('message', (m: ToMain) => onMessage[i]!(m));
    w.on('error', (e) => fail(e));
    w.on('exit', (code) => fail(new Error(`parse worker exited with code ${code}`)));
    workers.push(w);
  }
  let cuts: number[];
  try {
    cuts = await findCuts(path, size, rangeBytes);
  } catch (e) {
    for (const w of workers) void w.terminate();
    throw e;
  }
  const ranges: Range[] = [];
  for (let k = 0; k < cuts.length - 1; k++) {
    ranges.push({ seq: k, start: cuts[k]!, end: cuts[k + 1]!, final: k === cuts.length - 2, worker: -1, batches: [], at: [], status: [], dead: false });
  }
  if (opts.stats) {
    opts.stats.ranges = ranges.length;
    opts.stats.parsedBy = Array.from({ length: nThreads }, () => 0);
  }
  const control = new SharedArrayBuffer(4 * (CLAIM_DEAD + ranges.length));
  const ctl = new Int32Array(control);
  ctl[CLAIM_LIMIT] = LOOKAHEAD * nThreads;
  const plan: RangePlan = { cuts, control, container };
  // Thread 0 is this one: it claims ranges only when it has no batch to hand on.
  const local = new RangeParser(init, (m) => onMessage[0]!(m));
  local.setPlan(plan);
  const post = (i: number, m: ToWorker): void => {
    if (i === 0) setImmediate(() => local.handle(m));
    else workers[i - 1]!.postMessage(m);
  };
  /** The batch was copied by its consumer: its buffer goes back to the thread that made it. */
  const recycle = (i: number, batch: EventColumns): void => {
    const buffer = batch.ph.buffer as ArrayBuffer;
    if (i === 0) recycleBatchBuffer(buffer);
    else workers[i - 1]!.postMessage({ type: 'recycle', buffer } satisfies ToWorker, [buffer]);
  };
  for (const w of workers) w.postMessage({ type: 'plan', plan } satisfies ToWorker);
  const producers = Array.from({ length: nThreads }, () => sink.producer());
  const diagSink = opts.diagnostics ?? new DiagnosticSink();

  return new Promise<ReadResult>((resolve, reject) => {
    let done = false;
    let owner = 0; // the range whose tokenizer holds the proven read
    let nextBytes = 1; // the first range whose bytes the owner has not been given
    let events = 0;
    let chainStartEvents = 0;
    let prevLastEventEnd = 0;
    let globalOrigin: bigint | undefined;
    let header: JsonObject = {};
    let endRequested = false;
    let localScheduled = false;
    const shifts = new Map<string, number>();

    const finishWith = (err: unknown, result?: ReadResult) => {
      if (done) return;
      done = true;
      for (const w of workers) void w.terminate();
      local.close();
      if (err) reject(err);
      else resolve(result!);
    };

    const shiftOf = (origin: string | undefined): number => {
      if (origin === undefined) return 0;
      if (globalOrigin === undefined) globalOrigin = BigInt(origin);
      let s = shifts.get(origin);
      if (s === undefined) shifts.set(origin, (s = originShiftNs(origin, globalOrigin)));
      return s;
    };

    const setOwner = (k: number) => {
      owner = k;
      Atomics.store(ctl, CLAIM_LIMIT, owner + LOOKAHEAD * nThreads);
      Atomics.notify(ctl, CLAIM_LIMIT);
    };

    const mergeChain = (h: JsonObject, diags: readonly Diagnostic[]) => {
      header = { ...header, ...h };
      for (const d of diags) diagSink.add(d);
    };

    /** Hands on what can be, in file order; returns when it waits on a thread still parsing. */
    const pump = (): void => {
      while (!done) {
        const r = ranges[owner]!;
        if (r.worker >= 0) {
          const p = producers[r.worker]!;
          for (let k = 0; k < r.batches.length; k++) {
            const b = r.batches[k]!;
            p.consume(b, shiftOf(b.originUs));
            events += b.length;
            if (events > limits.maxEvents) {
              finishWith(limitError('maxEvents', r.at[k]!));
              return;
            }
            opts.onProgress?.(r.at[k]!, events);
            recycle(r.worker, b);
          }
          r.batches.length = 0;
          r.at.length = 0;
        }
        if (r.error) {
          const e = r.error;
          finishWith(e.code ? new KinetoscopeError(e.code, e.message, e.byteOffset) : new Error(`parse worker: ${e.message}`));
          return;
        }
        if (r.ended) {
          const x = r.ended;
          mergeChain(x.header, x.diagnostics);
          const t = x.result;
          finishWith(undefined, {
            container: t.container,
            header,
            timeOriginUs: globalOrigin === undefined ? 0 : Number(globalOrigin),
            eventCount: t.eventCount,
            bytesRead: t.bytesRead,
            truncated: t.truncated,
            diagnostics: diagSink.list(),
          });
          return;
        }
        const st = r.status.shift();
        if (st === undefined) return; // wait for the thread parsing it
        if (st.final) {
          if (!endRequested) {
            endRequested = true;
            post(r.worker, { type: 'end', seq: r.seq, earlierEvents: chainStartEvents, lastEventEnd: prevLastEventEnd });
          }
          continue;
        }
        if (st.ok) {
          // The next range starts at a proven event boundary: its speculative read is the read.
          mergeChain(st.header, st.diagnostics);
          prevLastEventEnd = st.lastEventEnd;
          chainStartEvents = events;
          setOwner(nextBytes);
          nextBytes++;
          continue;
        }
        // Not a boundary: the owner's tokenizer reads on into the next range, whose own read is void.
        const nx = ranges[nextBytes]!;
        if (opts.stats) opts.stats.rejectedCuts++;
        nx.dead = true;
        Atomics.store(ctl, CLAIM_DEAD + nx.seq, 1);
        for (const b of nx.batches) recycle(nx.worker, b);
        nx.batches.length = 0;
        nx.at.length = 0;
        // Already parsed: its tokenizer may be kept (for more bytes or its end); a later status is dropped on arrival.
        if (nx.status.length > 0) post(nx.worker, { type: 'drop', seq: nx.seq });
        post(r.worker, { type: 'continue', seq: r.seq, start: nx.start, end: nx.end, final: nx.final });
        r.final = nx.final;
        nextBytes++;
      }
    };

    /** This thread parses a range when it has nothing to hand on. */
    const maybeParseLocally = () => {
      if (done || localScheduled || (opts.localRanges === false && nThreads > 1)) return;
      const r = ranges[owner]!;
      if (r.batches.length > 0 || r.status.length > 0 || r.ended || r.error) return;
      localScheduled = true;
      setImmediate(() => {
        localScheduled = false;
        if (done) return;
        try {
          const k = local.parseNext();
          if (k >= 0) maybeParseLocally();
        } catch (e) {
          finishWith(e);
        }
      });
    };

    fail = (e) => finishWith(e);
    for (let i = 0; i < nThreads; i++) {
      onMessage[i] = (m: ToMain) => {
        if (done) return;
        const r = ranges[m.seq]!;
        if (r.worker < 0) {
          r.worker = i;
          if (opts.stats?.parsedBy) opts.stats.parsedBy[i]!++;
        }
        switch (m.type) {
          case 'batch':
            producers[i]!.register(m.batch); // always, in the order the parser made them
            if (!r.dead) {
              r.batches.push(m.batch);
              r.at.push(m.at);
            } else recycle(i, m.batch);
            break;
          case 'parsed':
            if (!r.dead) r.status.push(m);
            else post(i, { type: 'drop', seq: m.seq });
            break;
          case 'ended':
            r.ended = m;
            break;
          case 'error':
            if (!r.dead) r.error = m;
            break;
        }
        // A local range's messages arrive while it is parsed: hand them on at once (its
        // batches need not wait), and look for more work when it is done.
        try {
          pump();
          maybeParseLocally();
        } catch (e) {
          finishWith(e);
        }
      };
    }
    maybeParseLocally();
  });
}

// ---------------------------------------------------------------------------------------------

const WINDOW = 64 * 1024;
const WS = new Uint8Array(256);
WS[0x20] = WS[0x0a] = WS[0x0d] = WS[0x09] = 1;

/**
 * Offsets [0, c1, c2, …, size]: each cut ci is the `{` of what looks like an event that follows
 * `}` `,` (whitespace allowed), at or after i·rangeBytes.
 */
async function findCuts(path: string, size: number, rangeBytes: number): Promise<number[]> {
  const cuts = [0];
  const fh = await open(path, 'r');
  try {
    const buf = new Uint8Array(WINDOW);
    for (let target = rangeBytes; target < size - rangeBytes / 4; ) {
      let found = -1;
      // Look in windows from the target on, up to one range further.
      for (let at = target; at < Math.min(size, target + rangeBytes) && found < 0; at += WINDOW - 64) {
        const n = (await fh.read(buf, 0, Math.min(WINDOW, size - at), at)).bytesRead;
        found = findBoundary(buf, n);
        if (found >= 0) found += at;
        if (n < WINDOW) break;
      }
      if (found < 0) break;
      if (found > cuts[cuts.length - 1]!) cuts.push(found);
      target = found + rangeBytes;
    }
  } finally {
    await fh.close();
  }
  cuts.push(size);
  return cuts;
}

/** The index of the first `{` in b[0, n) preceded by `}` ws `,` ws and followed by ws `"`, or −1. */
export function findBoundary(b: Uint8Array, n: number): number {
  for (let i = 0; i < n; i++) {
    if (b[i] !== 0x7d) continue; // }
    let j = i + 1;
    while (j < n && WS[b[j]!]) j++;
    if (j >= n || b[j] !== 0x2c) continue; // ,
    j++;
    while (j < n && WS[b[j]!]) j++;
    if (j >= n || b[j] !== 0x7b) continue; // {
    let k = j + 1;
    while (k < n && WS[b[k]!]) k++;
    if (k >= n || b[k] !== 0x22) continue; // "
    return j;
  }
  return -1;
}
