/**
 * A JSON value as a trace holds it: an event's `args`, a device's properties, the header's
 * keys. Defined here, below every layer, because the reader produces it (ingest/raw-event.ts),
 * the model keeps it (`host.args`, `gpu.args`) and the analyses read it.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
