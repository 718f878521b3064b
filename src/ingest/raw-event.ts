/**
 * The contract between ingest and the model: one trace event as the reader hands it on.
 *
 * The reader normalises what every Kineto era spells differently, and nothing more:
 * - `ts`/`dur` become exact integer nanoseconds, parsed from the number's source text
 *   (never through a float µs value, which cannot hold ns digits past ~2^53 ns);
 *   `tsNs` is relative to the reader's time origin (see `ReadResult.timeOriginUs`).
 * - numeric-string `pid`/`tid` (`"25738"`) and hex stream ids (`"0x0"`) become numbers;
 *   label strings (`"Spans"`, `"stream 7 annotations"`) are kept as strings.
 * - integers in `args` beyond 2^53 are kept exact as decimal strings;
 *   the bare tokens some versions wrote (`inf`, `nan`, `N/A`) become numbers or strings.
 */

import type { JsonObject } from '../core/json.js';
export type { JsonObject, JsonValue } from '../core/json.js';

export interface RawEvent {
  /** Phase: `X`, `i`, `I`, `M`, `s`, `f`, `t`, `C`, `B`, `E`, … (`""` when absent). */
  ph: string;
  /** Category (`cpu_op`, `kernel`, legacy `Kernel`, …; `""` when absent). */
  cat: string;
  /** Event name (`""` when absent). */
  name: string;
  pid: number | string;
  tid: number | string;
  /** Start, exact ns relative to the reader's time origin; NaN when the event has no `ts`. */
  tsNs: number;
  /** Duration in exact ns; NaN when the event has no `dur`. */
  durNs: number;
  /** Flow id (`s`/`f`/`t` events), kept as written (number or string). */
  id?: number | string;
  /** Flow binding point (`"e"`), instant scope (`s`). */
  bp?: string;
  s?: string;
  args?: JsonObject;
  /** Offset of the event's opening `{` in the decompressed text. */
  byteOffset: number;
}
