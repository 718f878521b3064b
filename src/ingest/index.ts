/** ingest: bytes → raw events (gzip sniffing, streaming tokenizer, header, repairs + diagnostics). */
export type { RawEvent, JsonValue, JsonObject } from './raw-event.js';
export { createTraceTokenizer, normaliseId, EVENT_BATCH_SIZE } from './tokenizer.js';
export type { TraceTokenizer, TokenizerResult } from './tokenizer.js';
export { readTrace, readTraceEvents } from './read-trace.js';
export type { ReadResult, ReadOptions, TraceInput } from './read-trace.js';
