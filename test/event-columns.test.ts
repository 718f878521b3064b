/**
 * EVENT_COLUMNS (src/ingest/event-columns.ts) is the one definition of the event columns: these
 * tests hold the two places that cannot loop over it to it — the native reader's column order
 * (native/fast-events.cc COLUMN_SLOTS, exported by the addon as `eventColumns`) and the readers'
 * row of an event that says nothing (written out by hand in the hot loops, here compared with
 * each column's `absent`).
 */
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '../src/core/diagnostics.js';
import { EVENT_COLUMNS, KEEP_ALL_ARGS, type EventColumns } from '../src/ingest/event-columns.js';
import { nativeAddon, nativeEventReader } from '../src/ingest/native-loader.js';
import { createColumnarTokenizer } from '../src/ingest/tokenizer.js';

const NATIVE = nativeEventReader();
if (NATIVE === undefined) console.warn('the native reader is not built (npm install builds it with node-gyp): its column-order check is skipped.');

/** Every column of the one event of `text`, as read by the JavaScript reader or the native one. */
function firstRow(text: string, native: boolean): Record<string, number[]> {
  const batches: EventColumns[] = [];
  const tok = createColumnarTokenizer((b) => batches.push(b), new DiagnosticSink(), {
    policy: KEEP_ALL_ARGS,
    offsets: true,
    native: native ? NATIVE : undefined,
  });
  tok.push(new TextEncoder().encode(text));
  tok.end();
  const b = batches.find((x) => x.length > 0)!;
  const row: Record<string, number[]> = {};
  for (const c of EVENT_COLUMNS) row[c.name] = Array.from(b[c.name]!.subarray(0, c.width));
  return row;
}

describe('EVENT_COLUMNS', () => {
  it('names each column once, 8-byte and 4-byte arrays only', () => {
    expect(new Set(EVENT_COLUMNS.map((c) => c.name)).size).toBe(EVENT_COLUMNS.length);
    for (const c of EVENT_COLUMNS) expect([Int32Array, Float64Array]).toContain(c.type);
  });

  it.skipIf(NATIVE === undefined)('is the order, types and widths the native reader takes (fast-events.cc COLUMN_SLOTS)', () => {
    const native = nativeAddon()!['eventColumns'];
    expect(native).toEqual(EVENT_COLUMNS.map((c) => ({ name: c.name, type: c.type.name, width: c.width, optional: 'optional' in c })));
  });

  // An event with none of the keys the columns hold: every slot its column's `absent` (offsets aside).
  const EMPTY = '[{"x": 1}]';
  const absent = Object.fromEntries(EVENT_COLUMNS.filter((c) => c.name !== 'offsets').map((c) => [c.name, new Array(c.width).fill(c.absent)]));

  it("gives an event that says nothing each column's absent value (the JavaScript reader)", () => {
    const { offsets, ...row } = firstRow(EMPTY, false);
    expect(row).toEqual(absent);
    expect(offsets).toEqual([1, 9]);
  });

  it.skipIf(NATIVE === undefined)("gives an event that says nothing each column's absent value (the native reader)", () => {
    const { offsets, ...row } = firstRow(EMPTY, true);
    expect(row).toEqual(absent);
    expect(offsets).toEqual([1, 9]);
  });
});
