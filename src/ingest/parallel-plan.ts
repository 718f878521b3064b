/**
 * Whether a trace file is read on several threads (read-parallel.ts) and on how many — decided
 * before the reading starts, apart from the parallel reader itself, so that a serial read (gzip,
 * a small file, a 2-core machine with the native reader) does not load the workers' machinery.
 */
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { nativeEventReader } from './native-loader.js';

/**
 * Files smaller than this are read on one thread. A worker reads its first ranges cold: its
 * bootstrap, V8's optimising compiles and its first ~16 MB at a tenth of the warm speed take
 * ~0.25 s of CPU, which on 2 cores this thread pays too. Measured on the 2-core machine
 * (docs/performance.md): the 169 MB trace tokenized in 0.56 s on one thread and two alike
 * (both threads at ~350 MB/s once warm); the 1 GB trace fully analysed in 3.4 s on one thread,
 * 3.0 s on two.
 */
export const PARALLEL_MIN_BYTES = 256 << 20;

/** The parse workers' script, beside this module (dist/ingest/). */
export const WORKER_URL = new URL('./parse-worker.js', import.meta.url);

/** Whether this build can start parse workers (not when running from TypeScript sources). */
function canReadInParallel(): boolean {
  return WORKER_URL.protocol === 'file:' && existsSync(fileURLToPath(WORKER_URL));
}

/**
 * Threads to tokenize with: this one plus a worker per further core, at most 8.
 * KINETOSCOPE_THREADS=N overrides. Ranges are claimed, not assigned, so a worker slowed by other
 * work on a busy machine takes fewer ranges instead of holding the read up.
 *
 * On two cores or fewer, one where the native reader is built: reading on this thread already
 * keeps two cores busy (its prescan thread reads the next chunks' events), without the
 * workers' start-up and messages. Measured on the 2-core machine (docs/performance.md): the
 * 1 GB trace fully analysed in 1.27 s on this thread against 1.31 s on two parse threads, the
 * 4 GB one in 4.9 s against 6.4–8.1 s, each with less memory.
 */
export function defaultWorkers(): number {
  const forced = forcedThreads();
  if (forced !== undefined) return forced;
  if (availableParallelism() <= 2 && nativeEventReader() !== undefined) return 1;
  return parseThreadsPerCore();
}

/**
 * Threads to tokenize with when what consumes the events is light (crop's selecting read, which
 * builds no model): a thread per core, at most 8, as the parse threads are then the whole work.
 * KINETOSCOPE_THREADS=N overrides.
 */
export function lightConsumerWorkers(): number {
  return forcedThreads() ?? parseThreadsPerCore();
}

function forcedThreads(): number | undefined {
  const forced = Number(process.env['KINETOSCOPE_THREADS']);
  return Number.isInteger(forced) && forced >= 1 ? Math.min(forced, 64) : undefined;
}

function parseThreadsPerCore(): number {
  return Math.max(1, Math.min(8, availableParallelism()));
}

/**
 * Size and root container of `path` when it is to be read on `workers` threads: more than one
 * thread asked for, a build that can start parse workers, and a plain file of `minBytes` or more.
 * Else undefined: read it on this thread.
 */
export async function planParallelRead(path: string, workers: number, minBytes?: number): Promise<{ size: number; container: 'object' | 'array' } | undefined> {
  if (workers <= 1 || !canReadInParallel()) return undefined;
  return sniffPlainFile(path, minBytes);
}

/**
 * Size and root container of a plain (not gzipped) JSON file big enough to read in parallel;
 * undefined when it is not one (the serial reader then reports whatever is wrong with it).
 */
async function sniffPlainFile(path: string, minBytes = PARALLEL_MIN_BYTES): Promise<{ size: number; container: 'object' | 'array' } | undefined> {
  try {
    const fh = await open(path, 'r');
    try {
      const st = await fh.stat();
      if (!st.isFile() || st.size < minBytes) return undefined;
      const head = new Uint8Array(4096);
      const n = (await fh.read(head, 0, head.length, 0)).bytesRead;
      if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return undefined;
      let i = 0;
      while (i < n && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
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
