/**
 * Reads a trace (path, `-` for stdin, a stream or bytes) straight into the model:
 * the reader hands event columns to the model builder as they are tokenized, so the
 * raw events of a large trace are never all alive at once.
 */
import { readTraceColumns, type ReadOptions, type TraceInput } from './ingest/index.js';
import { createModelBuilder, MODEL_ARGS_POLICY } from './model/build-model.js';
import type { TraceModel } from './model/trace-model.js';

export async function loadTrace(input: TraceInput, opts?: ReadOptions): Promise<TraceModel> {
  const builder = createModelBuilder();
  const source = builder.source();
  const read = await readTraceColumns(
    input,
    (batch) => {
      source.register(batch);
      builder.addColumns(batch, source);
    },
    { ...opts, policy: MODEL_ARGS_POLICY, reuseBatches: true },
  );
  return builder.finish(read);
}
