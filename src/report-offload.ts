/**
 * The report on two threads: a worker (report-worker.ts), started before the trace is read so
 * that its modules load meanwhile, computes the critical path, torch's table, memory and modules
 * (report/html/report-data.ts OFFLOADED_SECTIONS) from a copy of the model while the command's
 * thread computes the rest. The page is the same byte for byte as one thread's (tested).
 *
 * Worth it only on a large trace and with cores to spare (offloadWorthIt): the copy costs
 * ~50–90 ms here and the worker ~250 ms more CPU in all (its start, its modules, the copy's
 * decoding, its own JIT compilation), against ~0.5 s of analyses moved off this thread on the
 * 160 MB GPT-2 trace; and V8 already keeps a second core busy compiling this thread's hot
 * functions (~0.6 s of CPU on that trace), so on two cores the worker only adds work
 * (docs/performance.md). If the worker fails (it cannot start, it dies), the same sections are
 * computed here, after the rest: the page is the same, only later.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { serializeModel } from './model-transfer.js';
import type { TraceModel } from './model/trace-model.js';
import { buildOffloadedParts } from './report/html/report-data.js';
import { renderOffloaded, type OffloadedHtml } from './report/html/render-report.js';

/** Traces of at least this many bytes on disk are reported on two threads, where the machine has OFFLOAD_MIN_CORES cores. */
export const OFFLOAD_MIN_BYTES = 32 << 20;
/** Two JavaScript threads and V8's background compilation: a core each, and one for the rest. */
export const OFFLOAD_MIN_CORES = 4;

/** Whether a trace of `fileBytes` on disk is worth a second thread on this machine. */
export function offloadWorthIt(fileBytes: number | undefined, cores = availableParallelism()): boolean {
  return fileBytes !== undefined && fileBytes >= OFFLOAD_MIN_BYTES && cores >= OFFLOAD_MIN_CORES;
}

/** What report-worker.ts posts back. */
export type FromReportWorker = { readonly ok: true; readonly offloaded: OffloadedHtml } | { readonly ok: false; readonly error: string };

export interface ReportOffload {
  /** OFFLOADED_SECTIONS of `m`, rendered: computed by the worker, or here if it failed. Call once. */
  run(m: TraceModel): Promise<OffloadedHtml>;
  /** Stops the worker (after run, or when the command gives up). */
  close(): Promise<void>;
  /** Whether run's sections came from the worker (false: computed here). */
  readonly onWorker: boolean;
}

const WORKER_URL = new URL('./report-worker.js', import.meta.url);

/** Whether the worker's module is there to start (it is not when the sources run unbuilt, as the tests run them: then the work is done here). */
function canStartWorker(): boolean {
  return WORKER_URL.protocol === 'file:' && existsSync(fileURLToPath(WORKER_URL));
}

export function startReportOffload(): ReportOffload {
  let worker: Worker | undefined;
  // An error or exit before run() is kept: run() then computes here.
  let gone = false;
  if (canStartWorker()) {
    try {
      worker = new Worker(WORKER_URL);
      worker.once('error', () => (gone = true));
      worker.once('exit', () => (gone = true));
      worker.unref();
    } catch {
      gone = true;
    }
  }
  const here = (m: TraceModel) => renderOffloaded(buildOffloadedParts(m));
  let onWorker = false;
  return {
    get onWorker() {
      return onWorker;
    },
    run(m) {
      const w = worker;
      if (!w || gone) return Promise.resolve(here(m));
      return new Promise<OffloadedHtml>((resolve) => {
        const fallBack = () => {
          w.removeAllListeners();
          resolve(here(m));
        };
        w.once('message', (reply: FromReportWorker) => {
          w.removeAllListeners();
          onWorker = reply.ok;
          resolve(reply.ok ? reply.offloaded : here(m));
        });
        w.once('error', fallBack);
        w.once('exit', fallBack);
        const bytes = serializeModel(m);
        // (the bytes' own buffer is handed over, not copied, when it is theirs alone)
        const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
        w.postMessage(bytes, whole ? [bytes.buffer as ArrayBuffer] : []);
      });
    },
    async close() {
      if (worker && !gone) await worker.terminate();
    },
  };
}
