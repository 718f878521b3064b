/**
 * A JSON value as a trace holds it: an event's `args`, a device's properties, the header's
 * keys. Defined here, below every layer, because the reader produces it (ingest/raw-event.ts),
 * the model keeps it (`host.args`, `gpu.args`) and the analyses read it.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** An args value as a number, the reading of the event columns' ARG_NUMBER_KEYS (and of the model's other numeric args): numbers as written, numeric strings through Number(), else NaN. */
export function argNumber(v: JsonValue | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : NaN;
  }
  return NaN;
}
