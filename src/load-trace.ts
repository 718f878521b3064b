/**
 * Reads a trace (path, `-` for stdin, a stream or bytes) straight into the model:
 * the reader hands event columns to the model builder as they are tokenized, so the
 * raw events of a large trace are never all alive at once. A large plain file is
 * tokenized on worker threads (ingest/read-parallel.ts), with the same result.
 */
import { stat } from 'node:fs/promises';
import { readTraceColumns, type ReadOptions, type ReadResult, type TraceInput } from './ingest/index.js';
import { nativeTableKernels } from './native-kernels.js';
import { defaultWorkers, planParallelRead } from './ingest/parallel-plan.js';
import { createModelBuilder, modelArgsPolicy } from './model/build-model.js';
import type { OptionalTable, TraceModel } from './model/trace-model.js';
import { collectGarbage } from './collect-garbage.js';
import type { SubsetRecording } from './ingest/write-subset.js';

/** Inputs of at least this many bytes get a full collection while the model is finished (collect-garbage.ts). */
const COLLECT_AFTER_BYTES = 32 << 20;

/**
 * Files of at least this many bytes (as stored, gzip or not) have the model builder primed first
 * (model/primer.ts). The primer's small builds cost ~10 ms of CPU, which a small trace pays for
 * nothing; what they save — the builder's loops optimised once instead of again at each new
 * event kind — pays back from a few MB of JSON (measured on the 2-core machine, `summary`, CPU
 * time: a 63 kB .gz of 0.8 MB JSON 16 ms faster unprimed, 180 kB of 3.1 MB 8 ms faster unprimed,
 * 0.8 MB of 12 MB 17 ms faster primed). Input of unknown size (standard input, a stream) is primed.
 * The same threshold for the JavaScript tokenizer's primer (ingest/tokenizer.ts), which runs
 * where the native reader is not built.
 */
export const PRIME_FROM_BYTES = 512 << 10;

export interface LoadOptions extends ReadOptions {
  /** Optional tables to leave out of the model (model/trace-model.ts, OPTIONAL_TABLES); none by default. */
  readonly omit?: readonly OptionalTable[];
  /**
   * Also keep what crop's writeTraceSubset chooses events by, with each event's byte range, so
   * that it need not read the input a second time to choose (only crop asks: it costs a copy).
   */
  readonly recordSubset?: SubsetRecording;
}

export async function loadTrace(input: TraceInput, opts: LoadOptions = {}): Promise<TraceModel> {
  // The model's table-wide loops natively where the addon is built (model/table-kernels.ts).
  const prime = (await inputBytes(input)) >= PRIME_FROM_BYTES;
  const builder = createModelBuilder({ kernels: nativeTableKernels(), omit: opts.omit, prime });
  const workers = opts.workers ?? defaultWorkers();
  const policy = modelArgsPolicy(opts.omit);
  const record = opts.recordSubset;
  let read: ReadResult | undefined;
  if (typeof input === 'string' && input !== '-' && opts.chunkSize === undefined) {
    const plain = await planParallelRead(input, workers, opts.parallel?.minBytes);
    if (plain) {
      // Loaded only for a parallel read: a serial one does not need the workers' machinery.
      const { readFileParallel } = await import('./ingest/read-parallel.js');
      read = await readFileParallel(
        input,
        plain.size,
        plain.container,
        {
          producer: () => {
            const source = builder.source();
            const recorder = record?.producer();
            return {
              register: (batch) => {
                source.register(batch);
                recorder?.register(batch);
              },
              consume: (batch, shiftNs) => {
                recorder?.consume(batch, shiftNs);
                builder.addColumns(batch, source, shiftNs);
              },
            };
          },
        },
        { policy, offsets: record !== undefined, workers, rangeBytes: opts.parallel?.rangeBytes, stats: opts.parallel?.stats, diagnostics: opts.diagnostics, onProgress: opts.onProgress },
      );
    }
  }
  if (read === undefined) {
    const source = builder.source();
    const recorder = record?.producer();
    read = await readTraceColumns(
      input,
      (batch) => {
        source.register(batch);
        if (recorder) {
          recorder.register(batch);
          recorder.consume(batch, 0);
        }
        builder.addColumns(batch, source);
      },
      { ...opts, policy, reuseBatches: true, offsets: record !== undefined, prime },
    );
  }
  if (record) record.read = read;
  const large = read.bytesRead >= COLLECT_AFTER_BYTES;
  // One collection, once the builder's chunked tables are copied into the model. A second one
  // when the model is done (for nesting's and linking's working arrays) no longer lowers the
  // peak: 123 MB at 169 MB and 370 MB at 1 GB either way, for ~5 ms (docs/performance.md).
  return builder.finish(read, large ? collectGarbage : undefined);
}

/** The input's size as stored, when it is known before reading: a file's, or the bytes'. */
async function inputBytes(input: TraceInput): Promise<number> {
  if (input instanceof Uint8Array) return input.byteLength;
  if (typeof input !== 'string' || input === '-') return Infinity;
  try {
    return (await stat(input)).size;
  } catch {
    return Infinity; // the read that follows says what is wrong with it
  }
}
