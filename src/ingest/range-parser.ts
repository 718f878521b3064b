/**
 * Tokenizes byte ranges of one file on request (the parallel reader's protocol, read-parallel.ts):
 * reads each range itself and posts its events as column batches, then whether the range ended
 * at an event boundary. Runs in a worker thread (parse-worker.ts) or on the main thread.
 *
 * One InternContext for every range it parses, so that each label and args object is handed on
 * once. A range's tokenizer is kept while it may still be handed the next range (its end was not
 * an event boundary, or it is the last range and waits for end).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { DiagnosticSink } from '../core/diagnostics.js';
import { isKinetoscopeError } from '../core/errors.js';
import type { ArgsPolicy, EventColumns } from './event-columns.js';
import type { ToMain, ToWorker } from './read-parallel.js';
import { createColumnarTokenizer, InternContext, type ColumnarTokenizer } from './tokenizer.js';

export interface RangeParserInit {
  path: string;
  policy: ArgsPolicy;
  readBytes: number;
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

  constructor(
    private readonly init: RangeParserInit,
    private readonly post: (msg: ToMain, transfer?: ArrayBuffer[]) => void,
  ) {
    this.ctx = new InternContext(init.policy);
    this.fd = openSync(init.path, 'r');
    this.buf = new Uint8Array(init.readBytes);
  }

  close(): void {
    closeSync(this.fd);
  }

  handle(m: ToWorker): void {
    if (m.type === 'close') return this.close();
    const seq = m.seq;
    try {
      if (m.type === 'parse') {
        const sink = new DiagnosticSink();
        const tok: ColumnarTokenizer = createColumnarTokenizer(
          (batch: EventColumns) => this.post({ type: 'batch', seq, batch, at: tok.lastEventEnd() }, [batch.ph.buffer as ArrayBuffer]),
          sink,
          { policy: this.init.policy, context: this.ctx, resume: m.first ? undefined : { container: m.container, offset: m.start } },
        );
        const job = { tok, sink };
        this.jobs.set(seq, job);
        this.feed(job, m.start, m.end);
        this.status(seq, job, m.final);
      } else if (m.type === 'continue') {
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
      this.jobs.delete(seq);
      const during = m.type === 'end' ? 'end' : 'bytes';
      if (isKinetoscopeError(e)) this.post({ type: 'error', seq, during, code: e.code, message: e.message, byteOffset: e.byteOffset });
      else this.post({ type: 'error', seq, during, message: (e as Error)?.stack ?? String(e) });
    }
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
