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
 * Handles: plain files given by path (gzip and streams are read on one thread, read-trace.ts).
 */
import { availableParallelism, loadavg } from 'node:os';
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DiagnosticSink, type Diagnostic } from '../core/diagnostics.js';
import { KinetoscopeError, type ErrorCode } from '../core/errors.js';
import type { ArgsPolicy, EventColumns } from './event-columns.js';
import type { JsonObject } from './raw-event.js';
import type { ReadResult } from './read-trace.js';
import { RangeParser, type RangeParserInit } from './range-parser.js';
import type { TokenizerResult } from './tokenizer.js';

export type ToWorker =
  | { type: 'parse'; seq: number; start: number; end: number; first: boolean; final: boolean; container: 'object' | 'array' }
  | { type: 'continue'; seq: number; start: number; end: number; final: boolean }
  | { type: 'end'; seq: number; earlierEvents: number; lastEventEnd: number }
  | { type: 'drop'; seq: number }
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
  /** Threads that tokenize, this one included (default: the cores available, at most 8). */
  workers?: number;
  /** Bytes per range (default: 8 MiB, fewer when the file is small). */
  rangeBytes?: number;
  diagnostics?: DiagnosticSink;
  /** Called as batches are handed on: text bytes covered so far (approximate) and events. */
  onProgress?: (bytes: number, events: number) => void;
  /** Filled in: how many ranges the file was cut into, and how many cuts proved not to be event boundaries. */
  stats?: { ranges: number; rejectedCuts: number };
}

/**
 * Ranges a thread may parse ahead of the one being handed on, per thread: a worker starts
 * ~0.1 s after this thread, cold, and this one keeps parsing meanwhile; its batches wait
 * (≤ LOOKAHEAD × threads × 8 MiB of text, about half of that in columns).
 */
const LOOKAHEAD = 4;

/**
 * Files smaller than this are read on one thread. A worker costs ~0.1 s of CPU to start and
 * every batch crosses threads; on the 2-core machine of docs/performance.md a worker made the
 * 169 MB load 7–12% slower and the 1 GB one 15% faster.
 */
export const PARALLEL_MIN_BYTES = 256 << 20;

const WORKER_URL = new URL('./parse-worker.js', import.meta.url);

/** Whether this build can start parse workers (not when running from TypeScript sources). */
export function canReadInParallel(): boolean {
  return WORKER_URL.protocol === 'file:' && existsSync(fileURLToPath(WORKER_URL));
}

/**
 * Threads to tokenize with: this one, plus a worker per idle core (cores − the 1-minute load
 * average, as `make -l` reads it, rounded), at most the cores and 8. On a busy machine workers
 * only take turns with its other work, and each costs ~0.1 s of CPU to start; measured on the
 * 2-core machine of docs/performance.md, a worker made the 1 GB load 18% faster at load 1.2–1.9
 * and 50–80% slower at load 3. KINETOSCOPE_THREADS=N overrides.
 */
export function defaultWorkers(): number {
  const forced = Number(process.env['KINETOSCOPE_THREADS']);
  if (Number.isInteger(forced) && forced >= 1) return Math.min(forced, 64);
  const cores = availableParallelism();
  return Math.max(1, Math.min(8, cores, 1 + Math.round(cores - loadavg()[0])));
}

/** A thread that parses ranges: a worker, or a RangeParser on this thread. */
interface Endpoint {
  postMessage(m: ToWorker): void;
  terminate(): void;
}

interface Range {
  seq: number;
  start: number;
  end: number;
  final: boolean;
  worker: number;
  /** Batches waiting for their turn (the range is not yet part of the proven read), and where each ends. */
  batches: EventColumns[];
  at: number[];
  status: Extract<ToMain, { type: 'parsed' }>[];
  ended?: Extract<ToMain, { type: 'ended' }>;
  error?: Extract<ToMain, { type: 'error' }>;
  dispatched: boolean;
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
  const nWorkers = Math.max(1, opts.workers ?? defaultWorkers());
  const rangeBytes = Math.max(1, opts.rangeBytes ?? Math.max(1 << 20, Math.min(8 << 20, Math.ceil(size / (nWorkers * 4)))));
  const cuts = await findCuts(path, size, rangeBytes);
  const ranges: Range[] = [];
  for (let k = 0; k < cuts.length - 1; k++) {
    ranges.push({ seq: k, start: cuts[k]!, end: cuts[k + 1]!, final: k === cuts.length - 2, worker: -1, batches: [], at: [], status: [], dispatched: false, dead: false });
  }

  if (opts.stats) opts.stats.ranges = ranges.length;
  // Thread 0 is this one (it starts on the first range at once, while workers start up).
  const init: RangeParserInit = { path, policy: opts.policy, readBytes: 1 << 20 };
  const onMessage: ((m: ToMain) => void)[] = [];
  const workers: Endpoint[] = Array.from({ length: Math.min(nWorkers, ranges.length) }, (_, i) => {
    if (i === 0) {
      const local = new RangeParser(init, (m) => onMessage[0]!(m));
      return { postMessage: (m: ToWorker) => void setImmediate(() => local.handle(m)), terminate: () => local.close() };
    }
    const w = new Worker(WORKER_URL, { workerData: init });
    w.on('message', (m: ToMain) => onMessage[i]!(m));
    w.on('error', (e) => fail(e));
    w.on('exit', (code) => fail(new Error(`parse worker exited with code ${code}`)));
    return { postMessage: (m: ToWorker) => w.postMessage(m), terminate: () => void w.terminate() };
  });
  let fail: (e: unknown) => void = () => undefined;
  const producers = workers.map(() => sink.producer());
  const busy = workers.map(() => 0);
  const diagSink = opts.diagnostics ?? new DiagnosticSink();

  return new Promise<ReadResult>((resolve, reject) => {
    let done = false;
    let owner = 0; // the range whose tokenizer holds the proven read
    let nextBytes = 1; // the first range whose bytes the owner has not been given
    let nextDispatch = 0;
    let events = 0;
    let chainStartEvents = 0;
    let prevLastEventEnd = 0;
    let globalOrigin: bigint | undefined;
    let header: JsonObject = {};
    let endRequested = false;
    const shifts = new Map<string, number>();

    const finishWith = (err: unknown, result?: ReadResult) => {
      if (done) return;
      done = true;
      for (const w of workers) w.terminate();
      if (err) reject(err);
      else resolve(result!);
    };

    const shiftOf = (origin: string | undefined): number => {
      if (origin === undefined) return 0;
      if (globalOrigin === undefined) globalOrigin = BigInt(origin);
      let s = shifts.get(origin);
      if (s === undefined) shifts.set(origin, (s = Number((BigInt(origin) - globalOrigin) * 1000n)));
      return s;
    };

    const dispatch = () => {
      // Keep each worker busy with one range, and at most a few ranges ahead of the consumer.
      while (nextDispatch < ranges.length && nextDispatch <= owner + LOOKAHEAD * workers.length) {
        const r = ranges[nextDispatch]!;
        if (r.dead) {
          nextDispatch++;
          continue;
        }
        // This thread takes the first range (workers are still starting) and afterwards only
        // what no worker is free for: it also hands every batch on and finishes the model.
        let w = -1;
        if (r.seq === 0) w = 0;
        else for (let i = workers.length - 1; i >= 0; i--) if (busy[i] === 0) { w = i; break; }
        if (w < 0) return;
        r.worker = w;
        r.dispatched = true;
        busy[w]!++;
        workers[w]!.postMessage({ type: 'parse', seq: r.seq, start: r.start, end: r.end, first: r.seq === 0, final: r.final, container } satisfies ToWorker);
        nextDispatch++;
      }
    };

    const mergeChain = (h: JsonObject, diags: readonly Diagnostic[]) => {
      header = { ...header, ...h };
      for (const d of diags) diagSink.add(d);
    };

    const pump = () => {
      while (!done) {
        const r = ranges[owner]!;
        const p = producers[r.worker]!;
        for (let k = 0; k < r.batches.length; k++) {
          const b = r.batches[k]!;
          p.consume(b, shiftOf(b.originUs));
          events += b.length;
          opts.onProgress?.(r.at[k]!, events);
        }
        r.batches.length = 0;
        r.at.length = 0;
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
        if (st === undefined) return; // wait for the worker
        if (st.final) {
          if (!endRequested) {
            endRequested = true;
            workers[r.worker]!.postMessage({ type: 'end', seq: r.seq, earlierEvents: chainStartEvents, lastEventEnd: prevLastEventEnd } satisfies ToWorker);
          }
          continue;
        }
        if (st.ok) {
          // The next range starts at a proven event boundary: its speculative read is the read.
          mergeChain(st.header, st.diagnostics);
          prevLastEventEnd = st.lastEventEnd;
          chainStartEvents = events;
          owner = nextBytes;
          nextBytes++;
          dispatch();
          if (!ranges[owner]!.dispatched) return;
          continue;
        }
        // Not a boundary: the owner's tokenizer reads on into the next range, whose own read is void.
        const nx = ranges[nextBytes]!;
        if (opts.stats) opts.stats.rejectedCuts++;
        nx.dead = true;
        nx.batches.length = 0;
        nx.at.length = 0;
        if (nx.dispatched) workers[nx.worker]!.postMessage({ type: 'drop', seq: nx.seq } satisfies ToWorker);
        busy[r.worker]!++;
        workers[r.worker]!.postMessage({ type: 'continue', seq: r.seq, start: nx.start, end: nx.end, final: nx.final } satisfies ToWorker);
        r.final = nx.final;
        nextBytes++;
        dispatch();
      }
    };

    fail = (e) => finishWith(e);
    workers.forEach((_, i) => {
      onMessage[i] = (m: ToMain) => {
        if (done) return;
        const r = ranges[m.seq]!;
        switch (m.type) {
          case 'batch':
            producers[i]!.register(m.batch); // always, in the order the parser made them
            if (!r.dead) {
              r.batches.push(m.batch);
              r.at.push(m.at);
            }
            break;
          case 'parsed':
            busy[i]!--;
            if (!r.dead) r.status.push(m);
            break;
          case 'ended':
            r.ended = m;
            break;
          case 'error':
            if (m.during === 'bytes') busy[i]!--;
            if (!r.dead) r.error = m;
            break;
        }
        try {
          dispatch();
          pump();
        } catch (e) {
          finishWith(e);
        }
      };
    });
    dispatch();
  });
}

/**
 * Size and root container of a plain (not gzipped) JSON file big enough to read in parallel;
 * undefined when it is not one (the serial reader then reports whatever is wrong with it).
 */
export async function sniffPlainFile(path: string, minBytes = PARALLEL_MIN_BYTES): Promise<{ size: number; container: 'object' | 'array' } | undefined> {
  try {
    const fh = await open(path, 'r');
    try {
      const st = await fh.stat();
      if (!st.isFile() || st.size < minBytes) return undefined;
      const head = new Uint8Array(4096);
      const n = (await fh.read(head, 0, head.length, 0)).bytesRead;
      if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return undefined;
      let i = 0;
      while (i < n && WS[head[i]!]) i++;
      if (head[i] === 0x7b) return { size: st.size, container: 'object' };
      if (head[i] === 0x5b) return { size: st.size, container: 'array' };
      return undefined;
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
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
