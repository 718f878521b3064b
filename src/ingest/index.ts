/** ingest: bytes → raw events (gzip sniffing, streaming tokenizer, header, repairs + diagnostics). */
export type { RawEvent, JsonValue, JsonObject } from './raw-event.js';
export { createTraceTokenizer, normaliseId, EVENT_BATCH_SIZE } from './tokenizer.js';
export type { TraceTokenizer, TokenizerResult } from './tokenizer.js';
export { readTrace, readTraceColumns, readTraceEvents } from './read-trace.js';
export type { ReadResult, ReadOptions, ColumnReadOptions, TraceInput } from './read-trace.js';
export { createColumnarTokenizer, InternContext } from './tokenizer.js';
export type { ColumnarTokenizer, ColumnarOptions } from './tokenizer.js';
export { KEEP_ALL_ARGS, ARG_NUMBER_KEYS } from './event-columns.js';
export type { ArgsPolicy, EventColumns } from './event-columns.js';
