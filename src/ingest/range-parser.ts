/**
 * Tokenizes byte ranges of one file (the parallel reader's protocol, read-parallel.ts): each
 * thread claims the next range itself from a shared counter, reads it, and posts its events as
 * column batches, then whether the range ended at an event boundary. Runs in a worker thread
 * (parse-worker.ts) or on the main thread.
 *
 * Claiming (rather than being handed ranges) keeps every thread busy: a worker never waits for
 * the main thread — which also builds the model — to notice it is free.
 *
 * One InternContext for every range it parses, so that each label and args object is handed on
 * once. A range's tokenizer is kept while it may still be handed the next range (its end was not
 * an event boundary, or it is the last range and waits for end).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { DiagnosticSink } from '../core/diagnostics.js';
import { isKinetoscopeError } from '../core/errors.js';
import { recycleBatchBuffer, type ArgsPolicy, type EventColumns } from './event-columns.js';
import type { ToMain, ToWorker } from './read-parallel.js';
import { createColumnarTokenizer, InternContext, type ColumnarTokenizer } from './tokenizer.js';
import { nativeEventReader } from './native-loader.js';
import { setReadLimits, type ReadLimits } from './limits.js';

export interface RangeParserInit {
  path: string;
  /** The reading thread's limits (limits.ts), in force on this one too. */
  limits?: ReadLimits;
  policy: ArgsPolicy;
  readBytes: number;
  /** Hand on each event's byte range too (EventColumns.offsets). */
  offsets?: boolean;
}

/**
 * The ranges every thread claims from, in shared memory: Int32 slots NEXT (the next range not
 * claimed), LIMIT (the last range that may be claimed now: the consumer bounds how far the
 * threads run ahead of it), then one flag per range (1: dead — a cut that proved not to be an
 * event boundary; its bytes are read by the range before).
 */
export const CLAIM_NEXT = 0;
export const CLAIM_LIMIT = 1;
export const CLAIM_DEAD = 2;

export interface RangePlan {
  /** Range k is [cuts[k], cuts[k+1]). */
  cuts: number[];
  control: SharedArrayBuffer;
  container: 'object' | 'array';
}

/**
 * Transfers (detaches) an empty ArrayBuffer, once per thread, before a parallel read begins.
 * The threads of a parallel read transfer batch buffers to each other; V8 compiles every
 * typed-array access on the assumption that no buffer has ever been detached in the process,
 * and the first transfer throws away every optimised function built on it — the tokenizer's
 * and the model builder's hot loops, mid-read (8 deopts on the 160 MB trace). Giving the
 * assumption up before anything is optimised costs a check per access instead (measured: about
 * 50 ms less wall time, 90 ms less CPU for the 160 MB trace on two threads). The serial read
 * transfers nothing and keeps the assumption.
 */
export function giveUpNoDetachAssumption(): void {
  if (detachedOnce) return;
  detachedOnce = true;
  const b = new ArrayBuffer(0);
  structuredClone(b, { transfer: [b] });
}
let detachedOnce = false;

/** claim(): no range is left. */
export const CLAIM_NONE = -1;
/** claim(): the next range lies past LIMIT; wait for the consumer. */
export const CLAIM_WAIT = -2;

export function claimRange(ctl: Int32Array<SharedArrayBuffer>, ranges: number): number {
  for (;;) {
    const n = Atomics.load(ctl, CLAIM_NEXT);
    if (n >= ranges) return CLAIM_NONE;
    if (n > Atomics.load(ctl, CLAIM_LIMIT)) return CLAIM_WAIT;
    if (Atomics.compareExchange(ctl, CLAIM_NEXT, n, n + 1) !== n) continue;
    if (Atomics.load(ctl, CLAIM_DEAD + n) !== 0) continue;
    return n;
  }
}

/** Atomics.waitAsync (Node ≥ 16; typed in TypeScript's es2024 lib, newer than ours). */
interface AtomicsWaitAsync {
  waitAsync(a: Int32Array<SharedArrayBuffer>, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

interface Job {
  tok: ColumnarTokenizer;
  sink: DiagnosticSink;
}

export class RangeParser {
  private readonly ctx: InternContext;
  private readonly fd: number;
  private readonly buf: Uint8Array;
  private readonly jobs = new Map<number, Job>();
  private plan: RangePlan | undefined;
  private ctl: Int32Array<SharedArrayBuffer> = new Int32Array(new SharedArrayBuffer(8));

  constructor(
    private readonly init: RangeParserInit,
    private readonly post: (msg: ToMain, transfer?: ArrayBuffer[]) => void,
  ) {
    if (init.limits) setReadLimits(init.limits);
    this.ctx = new InternContext(init.policy);
    this.fd = openSync(init.path, 'r');
    this.buf = new Uint8Array(init.readBytes);
  }

  close(): void {
    closeSync(this.fd);
  }

  setPlan(plan: RangePlan): void {
    this.plan = plan;
    this.ctl = new Int32Array(plan.control);
  }

  /** Claims the next range and parses it; the range's index, or CLAIM_NONE / CLAIM_WAIT. */
  parseNext(): number {
    const plan = this.plan!;
    const ranges = plan.cuts.length - 1;
    const k = claimRange(this.ctl, ranges);
    if (k < 0) return k;
    const final = k === ranges - 1;
    const seq = k;
    try {
      const sink = new DiagnosticSink();
      const tok: ColumnarTokenizer = createColumnarTokenizer(
        (batch: EventColumns) => this.post({ type: 'batch', seq, batch, at: tok.lastEventEnd() }, [batch.ph.buffer as ArrayBuffer]),
        sink,
        { policy: this.init.policy, context: this.ctx, offsets: this.init.offsets, native: nativeEventReader(), resume: k === 0 ? undefined : { container: plan.container, offset: plan.cuts[k]! } },
      );
      const job = { tok, sink };
      this.jobs.set(seq, job);
      this.feed(job, plan.cuts[k]!, plan.cuts[k + 1]!);
      this.status(seq, job, final);
    } catch (e) {
      this.fail(seq, 'bytes', e);
    }
    return k;
  }

  /** Waits (asynchronously) until LIMIT moves past `limit`: the consumer caught up. */
  waitForLimit(then: () => void): void {
    const limit = Atomics.load(this.ctl, CLAIM_LIMIT);
    if (Atomics.load(this.ctl, CLAIM_NEXT) <= limit) return void setImmediate(then);
    const w = (Atomics as unknown as AtomicsWaitAsync).waitAsync(this.ctl, CLAIM_LIMIT, limit);
    if (w.async) void w.value.then(then);
    else setImmediate(then);
  }

  handle(m: ToWorker): void {
    if (m.type === 'close') return this.close();
    if (m.type === 'plan') return this.setPlan(m.plan);
    if (m.type === 'recycle') return recycleBatchBuffer(m.buffer);
    const seq = m.seq;
    try {
      if (m.type === 'continue') {
        const job = this.jobs.get(seq)!;
        this.feed(job, m.start, m.end);
        this.status(seq, job, m.final);
      } else if (m.type === 'end') {
        const job = this.jobs.get(seq)!;
        this.jobs.delete(seq);
        job.tok.setEarlier(m.earlierEvents, m.lastEventEnd);
        const result = job.tok.end();
        this.post({ type: 'ended', seq, result, header: job.tok.header, diagnostics: job.sink.list() });
      } else if (m.type === 'drop') {
        this.jobs.delete(seq);
      }
    } catch (e) {
      this.fail(seq, m.type === 'end' ? 'end' : 'bytes', e);
    }
  }

  private fail(seq: number, during: 'bytes' | 'end', e: unknown): void {
    this.jobs.delete(seq);
    if (isKinetoscopeError(e)) this.post({ type: 'error', seq, during, code: e.code, message: e.message, byteOffset: e.byteOffset });
    else this.post({ type: 'error', seq, during, message: (e as Error)?.stack ?? String(e) });
  }

  private feed(job: Job, start: number, end: number): void {
    const buf = this.buf;
    for (let at = start; at < end; ) {
      const n = readSync(this.fd, buf, 0, Math.min(buf.length, end - at), at);
      if (n <= 0) throw new Error(`range parser: short read at byte ${at} of ${this.init.path}`);
      job.tok.push(n === buf.length ? buf : buf.subarray(0, n));
      at += n;
    }
  }

  private status(seq: number, job: Job, final: boolean): void {
    const ok = job.tok.atEventBoundary();
    this.post({
      type: 'parsed',
      seq,
      final,
      ok,
      ownEvents: job.tok.ownEventCount,
      lastEventEnd: job.tok.lastEventEnd(),
      header: final ? {} : job.tok.header,
      diagnostics: final ? [] : job.sink.list(),
    });
    // Kept only while it may be handed more bytes or asked for its end.
    if (!final && ok) this.jobs.delete(seq);
  }
}
