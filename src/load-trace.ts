/**
 * Reads a trace (path, `-` for stdin, a stream or bytes) straight into the model:
 * the reader hands event batches to the model builder as they are tokenized, so the
 * raw events of a large trace are never all alive at once.
 */
import { readTrace, type ReadOptions, type TraceInput } from './ingest/index.js';
import { createModelBuilder } from './model/build-model.js';
import type { TraceModel } from './model/trace-model.js';

export async function loadTrace(input: TraceInput, opts?: ReadOptions): Promise<TraceModel> {
  const builder = createModelBuilder();
  const read = await readTrace(input, (batch) => builder.add(batch), opts);
  return builder.finish(read);
}
