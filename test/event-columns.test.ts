/**
 * EVENT_COLUMNS (src/ingest/event-columns.ts) is the one definition of the event columns: these
 * tests hold the two places that cannot loop over it to it — the native reader's column order
 * (native/fast-events.cc COLUMN_SLOTS, exported by the addon as `eventColumns`) and the readers'
 * row of an event that says nothing (written out by hand in the hot loops, here compared with
 * each column's `absent`).
 */
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '../src/core/diagnostics.js';
import { EVENT_COLUMNS, eventsFromColumns, KEEP_ALL_ARGS, type EventColumns } from '../src/ingest/event-columns.js';
import type { RawEvent } from '../src/ingest/raw-event.js';
import { RawEventColumns } from '../src/ingest/raw-event-columns.js';
import { nativeAddon, nativeEventReader } from '../src/ingest/native-loader.js';
import { createColumnarTokenizer } from '../src/ingest/tokenizer.js';

const ADDON = nativeAddon();
const NATIVE = nativeEventReader();
if (ADDON === undefined) console.warn('the native reader is not built (npm install builds it with node-gyp): its column-order check is skipped.');

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

  // Checked whenever the addon loads: a build from other sources fails here (nativeEventReader then leaves it unused).
  it.skipIf(ADDON === undefined)('is the order, types and widths the native reader takes (fast-events.cc COLUMN_SLOTS)', () => {
    const native = ADDON!['eventColumns'];
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

  it('reads RawEvents back from the columns RawEventColumns made of them (the object API, both ways through RAW_EVENT_FIELDS)', () => {
    const events: RawEvent[] = [
      { ph: 'X', cat: 'kernel', name: 'k', pid: 0, tid: 7, tsNs: 1500, durNs: 250, id: undefined, bp: undefined, s: undefined, args: { correlation: 9, stream: '0x7' }, byteOffset: 0 },
      { ph: 'f', cat: 'ac2g', name: 'ac2g', pid: 'Spans', tid: 'stream 7', tsNs: 1500, durNs: NaN, id: 'a1', bp: 'e', s: undefined, args: undefined, byteOffset: 0 },
      { ph: 'i', cat: '', name: '[memory]', pid: 1, tid: 2, tsNs: NaN, durNs: NaN, id: 3, bp: undefined, s: 't', args: { Bytes: '512' }, byteOffset: 0 },
    ];
    const c = new RawEventColumns({ complete: { kernel: [] }, phases: { i: [] } }).fill(events);
    const withOffsets = { ...c, offsets: new Float64Array(2 * c.length) };
    expect(eventsFromColumns(withOffsets, c.newLabels, (a) => c.newArgs[a])).toEqual(events);
    // The numbers read from the args as the tokenizer reads them: `stream` "0x7" → 7, `Bytes` "512" → 512.
    expect(c.argNumbers[2]).toBe(7);
    expect(c.argNumbers[2 * 9 + 4]).toBe(512);
  });
});
