/**
 * Reads many rank traces on all cores with bounded memory: a pool of worker threads, each of
 * which loads one trace, reduces it to its `RankSummary` (analyses/ranks/ranks.ts) and lets the model
 * go before it takes the next file. At most `jobs` models are alive at once, whatever the number
 * of ranks; what stays is the summaries (steps, collective calls, overlap totals).
 *
 * Without a build to start workers from (running from TypeScript sources), or with one job,
 * the traces are read one after the other on this thread, with the same result.
 */
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { isKinetoscopeError, KinetoscopeError, type ErrorCode } from './core/errors.js';
import { summariseRank, type RankSummary } from './analyses/ranks/ranks.js';
import { loadTrace } from './load-trace.js';
import { OPTIONAL_TABLES } from './model/trace-model.js';
import { defaultWorkers } from './ingest/parallel-plan.js';
import { nativeEventReader } from './ingest/native-loader.js';

const WORKER_URL = new URL('./rank-worker.js', import.meta.url);

export interface RankJobResult {
  readonly file: string;
  readonly summary: RankSummary;
}

/** Messages from rank-worker.ts. */
export type FromRankWorker =
  | { readonly type: 'done'; readonly index: number; readonly summary: RankSummary }
  | { readonly type: 'failed'; readonly index: number; readonly code?: ErrorCode; readonly message: string };

export interface PoolOptions {
  /** Threads reading traces at once (default: defaultJobs, fewer for small traces: poolJobs). */
  readonly jobs?: number;
  /** Called as each trace is done (in completion order). */
  readonly onDone?: (done: number, total: number, file: string) => void;
  /**
   * Opens a file for its read (the command line's input gate, cli/input-files.ts): a path that
   * reads exactly what was opened and checked, closed once the trace is read. Without it, the
   * file's own path.
   */
  readonly open?: (file: string) => OpenedRankFile;
}

/** A rank file opened for its read: `readPath` reads it (on this thread or a worker) until closed. */
export interface OpenedRankFile {
  readonly readPath: string;
  close(): void;
}

const openByPath = (file: string): OpenedRankFile => ({ readPath: file, close: () => undefined });

/** One trace read and reduced on this thread (tokenized on `workers` threads: 1 inside the pool). */
export async function summariseFile(file: string, workers = 1): Promise<RankSummary> {
  const model = await loadTrace(file, { omit: OPTIONAL_TABLES, workers });
  return summariseRank(model);
}

/**
 * Traces read at once when --jobs is not given: a read per core, or per two cores where the
 * native reader is built (its prescan thread keeps a second core busy for each read: on two
 * cores, two reads at once took 1.65 s for two 160 MB traces against 1.40–1.60 s one after the
 * other). KINETOSCOPE_THREADS=N overrides.
 */
export function defaultJobs(): number {
  const forced = Number(process.env['KINETOSCOPE_THREADS']);
  if (Number.isInteger(forced) && forced > 0) return forced;
  const cores = availableParallelism();
  return nativeEventReader() === undefined ? cores : Math.max(1, Math.floor(cores / 2));
}

/**
 * A worker thread's start (its own module loading and compilation) costs ~0.27 s of CPU: two
 * workers took eight 44 kB traces from 0.55 s (read one after the other here) to 0.76 s, and
 * 0.65 s of CPU to 1.2 s — about what this thread spends reading 100 MB of JSON on that two-core
 * machine. So, unless --jobs says otherwise, a worker per 64 MB of input at most, none below 128 MB.
 */
const BYTES_PER_WORKER = 64 << 20;

/** The jobs a read of these files gets: `asked` (--jobs), or defaultJobs bounded by the input's size. */
export function poolJobs(files: readonly string[], asked: number | undefined): number {
  if (asked !== undefined) return Math.max(1, Math.min(files.length, asked));
  let bytes = 0;
  for (const f of files) {
    try {
      bytes += statSync(f).size;
    } catch {
      // the read reports what is wrong with it
    }
  }
  return Math.max(1, Math.min(files.length, defaultJobs(), Math.floor(bytes / BYTES_PER_WORKER)));
}

function canStartWorkers(): boolean {
  return WORKER_URL.protocol === 'file:' && existsSync(fileURLToPath(WORKER_URL));
}

/** Every file's summary, in the order of `files`; the first unreadable file fails the whole read. */
export async function summariseFiles(files: readonly string[], opts: PoolOptions = {}): Promise<RankJobResult[]> {
  const jobs = poolJobs(files, opts.jobs);
  const open = opts.open ?? openByPath;
  const out: RankSummary[] = new Array(files.length);
  let done = 0;
  if (jobs === 1 || !canStartWorkers()) {
    for (let i = 0; i < files.length; i++) {
      const file = open(files[i]!);
      try {
        // A lone trace gets the reader's own parallel read (a large file on several threads).
        out[i] = await summariseFile(file.readPath, files.length === 1 ? defaultWorkers() : 1);
      } catch (e) {
        throw isKinetoscopeError(e) && file.readPath !== files[i] ? new KinetoscopeError(e.code, e.message.split(file.readPath).join(files[i]!), e.byteOffset) : e;
      } finally {
        file.close();
      }
      done++;
      opts.onDone?.(done, files.length, files[i]!);
    }
    return files.map((file, i) => ({ file, summary: out[i]! }));
  }
  let next = 0;
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const workers: Worker[] = [];
    /** The file each worker is reading, and its opened file (closed when the worker is done with it). */
    const pending = new Map<Worker, number>();
    const opened = new Map<Worker, OpenedRankFile>();
    const release = (w: Worker) => {
      opened.get(w)?.close();
      opened.delete(w);
    };
    const finish = (e?: Error) => {
      if (settled) return;
      settled = true;
      // (terminated before their files are closed: no read of a closed descriptor's number)
      void Promise.all(workers.map((w) => w.terminate())).finally(() => {
        for (const w of workers) release(w);
      });
      if (e) reject(e);
      else resolve();
    };
    const feed = (w: Worker) => {
      if (next < files.length) {
        let file: OpenedRankFile;
        try {
          file = open(files[next]!);
        } catch (e) {
          finish(e as Error);
          return;
        }
        pending.set(w, next);
        opened.set(w, file);
        w.postMessage({ index: next++, file: file.readPath });
      } else void w.terminate();
    };
    for (let k = 0; k < jobs; k++) {
      const w = new Worker(WORKER_URL);
      workers.push(w);
      w.on('message', (m: FromRankWorker) => {
        if (settled) return;
        pending.delete(w);
        const readPath = opened.get(w)?.readPath;
        release(w);
        if (m.type === 'failed') {
          const message = readPath !== undefined ? m.message.split(readPath).join(files[m.index]!) : m.message;
          finish(m.code ? new KinetoscopeError(m.code, `${files[m.index]}: ${message}`) : new Error(`${files[m.index]}: ${message}`));
          return;
        }
        out[m.index] = m.summary;
        done++;
        opts.onDone?.(done, files.length, files[m.index]!);
        if (done === files.length) finish();
        else feed(w);
      });
      w.on('error', (e) => finish(e));
      // A worker that dies (out of memory, a crash) with a file unfinished fails the read.
      w.on('exit', (code) => {
        const i = pending.get(w);
        if (i !== undefined) finish(new Error(`the reader of ${files[i]} stopped (exit code ${code})`));
      });
      feed(w);
    }
  });
  return files.map((file, i) => ({ file, summary: out[i]! }));
}
