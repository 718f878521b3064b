/**
 * A trace model sent to another thread and back: V8's structured serialization (what
 * `postMessage` does), taken by hand so the bytes can be transferred rather than copied again.
 * The model is plain data — typed columns, arrays, plain objects — but for its string table, a
 * class whose methods the analyses call: its prototype is restored on arrival.
 */
import { deserialize, serialize } from 'node:v8';
import { StringTable } from './model/strings.js';
import type { TraceModel } from './model/trace-model.js';

/** The model as bytes (~25 MB for the 160 MB GPT-2 trace, ~50–90 ms). */
export function serializeModel(m: TraceModel): Uint8Array {
  return serialize(m);
}

export function deserializeModel(bytes: Uint8Array): TraceModel {
  const m = deserialize(bytes) as TraceModel;
  Object.setPrototypeOf(m.strings, StringTable.prototype);
  return m;
}
