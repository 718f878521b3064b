/**
 * A worker thread of the parallel reader (read-parallel.ts): tokenizes the byte ranges of one
 * file it is given, reading them itself, and posts the events back as column batches.
 *
 * One InternContext for every range it parses, so that each label and args object crosses to
 * the main thread once. A range's tokenizer is kept while the main thread may still hand it
 * the next range (its end was not an event boundary, or it is the last range and waits for end).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { DiagnosticSink } from '../core/diagnostics.js';
import { isKinetoscopeError } from '../core/errors.js';
import type { ArgsPolicy, EventColumns } from './event-columns.js';
import { createColumnarTokenizer, InternContext, type ColumnarTokenizer } from './tokenizer.js';
import type { ToMain, ToWorker } from './read-parallel.js';

interface Init {
  path: string;
  policy: ArgsPolicy;
  readBytes: number;
}

const init = workerData as Init;
const port = parentPort!;
const ctx = new InternContext(init.policy);
const fd = openSync(init.path, 'r');
const buf = new Uint8Array(init.readBytes);

interface Job {
  tok: ColumnarTokenizer;
  sink: DiagnosticSink;
}
const jobs = new Map<number, Job>();

function post(msg: ToMain, transfer?: ArrayBuffer[]): void {
  port.postMessage(msg, transfer);
}

function feed(seq: number, job: Job, start: number, end: number): void {
  for (let at = start; at < end; ) {
    const want = Math.min(buf.length, end - at);
    const n = readSync(fd, buf, 0, want, at);
    if (n <= 0) throw new Error(`parse worker: short read at byte ${at} of ${init.path}`);
    job.tok.push(n === buf.length ? buf : buf.subarray(0, n));
    at += n;
  }
  void seq;
}

function status(seq: number, job: Job, final: boolean): void {
  post({
    type: 'parsed',
    seq,
    final,
    ok: job.tok.atEventBoundary(),
    ownEvents: job.tok.ownEventCount,
    lastEventEnd: job.tok.lastEventEnd(),
    header: final ? {} : job.tok.header,
    diagnostics: final ? [] : job.sink.list(),
  });
}

function fail(seq: number, during: 'bytes' | 'end', e: unknown): void {
  jobs.delete(seq);
  if (isKinetoscopeError(e)) post({ type: 'error', seq, during, code: e.code, message: e.message, byteOffset: e.byteOffset });
  else post({ type: 'error', seq, during, message: (e as Error)?.stack ?? String(e) });
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'close') {
    closeSync(fd);
    port.close();
    return;
  }
  const seq = m.seq;
  try {
    if (m.type === 'parse') {
      const sink = new DiagnosticSink();
      const tok: ColumnarTokenizer = createColumnarTokenizer(
        (batch: EventColumns) => post({ type: 'batch', seq, batch, at: tok.lastEventEnd() }, [batch.ph.buffer as ArrayBuffer]),
        sink,
        { policy: init.policy, context: ctx, resume: m.first ? undefined : { container: m.container, offset: m.start } },
      );
      const job = { tok, sink };
      jobs.set(seq, job);
      feed(seq, job, m.start, m.end);
      status(seq, job, m.final);
      // Kept only while the main thread may hand it more bytes or ask for its end.
      if (!m.final && tok.atEventBoundary()) jobs.delete(seq);
    } else if (m.type === 'continue') {
      const job = jobs.get(seq)!;
      feed(seq, job, m.start, m.end);
      status(seq, job, m.final);
      if (!m.final && job.tok.atEventBoundary()) jobs.delete(seq);
    } else if (m.type === 'end') {
      const job = jobs.get(seq)!;
      jobs.delete(seq);
      job.tok.setEarlier(m.earlierEvents, m.lastEventEnd);
      const result = job.tok.end();
      post({ type: 'ended', seq, result, header: job.tok.header, diagnostics: job.sink.list() });
    } else if (m.type === 'drop') {
      jobs.delete(seq);
    }
  } catch (e) {
    fail(seq, m.type === 'end' ? 'end' : 'bytes', e);
  }
});
