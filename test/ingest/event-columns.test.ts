/**
 * EVENT_COLUMNS (src/ingest/event-columns.ts) is the one definition of the event columns: these
 * tests hold the two places that cannot loop over it to it — the native reader's column order
 * (native/fast-events.cc COLUMN_SLOTS, exported by the addon as `eventColumns`) and the readers'
 * row of an event that says nothing (written out by hand in the hot loops, here compared with
 * each column's `absent`).
 */
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '../../src/core/diagnostics.js';
import { ARG_NUMBERS, ColumnBatchWriter, EVENT_COLUMNS, eventsFromColumns, KEEP_ALL_ARGS, REQUIRED_COLUMNS, type EventColumns } from '../../src/ingest/event-columns.js';
import type { RawEvent } from '../../src/ingest/raw-event.js';
import { RawEventColumns } from '../../src/ingest/raw-event-columns.js';
import { nativeAddon, nativeEventReader } from '../../src/ingest/native-loader.js';
import { createColumnarTokenizer } from '../../src/ingest/tokenizer.js';

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
    expect(c.argNumbers[2 * ARG_NUMBERS + 4]).toBe(512);
  });
});

describe('ColumnBatchWriter.handOn', () => {
  /** Writes rows k (ph = k, tsNs = 10·k, every other column its absent value) after those already there. */
  const fill = (w: ColumnBatchWriter, rows: number) => {
    for (let r = 0; r < rows; r++) {
      const k = w.length;
      for (const c of REQUIRED_COLUMNS) w[c.name].fill(c.absent, k * c.width, (k + 1) * c.width);
      w.ph[k] = k;
      w.tsNs[k] = 10 * k;
      w.length++;
    }
  };

  it('a batch at most a quarter full goes on as a copy of its rows, and the writer keeps its arrays', () => {
    const w = new ColumnBatchWriter(16);
    const arrays = w.ph;
    fill(w, 4);
    const b = w.handOn(['x'], [], '5');
    expect([b.length, Array.from(b.ph), Array.from(b.tsNs)]).toEqual([4, [0, 1, 2, 3], [0, 10, 20, 30]]);
    // every column in one buffer of the four rows' size (a copy), none over the writer's arrays
    const rowBytes = REQUIRED_COLUMNS.reduce((s, c) => s + c.width * c.type.BYTES_PER_ELEMENT, 0);
    expect(b.ph.buffer.byteLength).toBe(4 * rowBytes);
    for (const c of REQUIRED_COLUMNS) expect(b[c.name].buffer).toBe(b.ph.buffer);
    expect(b.ph.buffer).not.toBe(arrays.buffer);
    expect([b.newLabels, b.originUs]).toEqual([['x'], '5']);
    expect(w.length).toBe(0);
    expect(w.ph).toBe(arrays);
    // the next rows overwrite the writer's arrays, not the batch handed on
    fill(w, 1);
    w.ph[0] = 99;
    expect(b.ph[0]).toBe(0);
  });

  it('a fuller batch goes on as the arrays themselves, and the writer takes fresh ones', () => {
    const w = new ColumnBatchWriter(16);
    const arrays = w.ph;
    fill(w, 5);
    const b = w.handOn([], [], undefined);
    expect([b.length, Array.from(b.tsNs)]).toEqual([5, [0, 10, 20, 30, 40]]);
    expect(b.ph.buffer).toBe(arrays.buffer);
    expect(w.ph).not.toBe(arrays);
    expect(w.length).toBe(0);
  });
});
