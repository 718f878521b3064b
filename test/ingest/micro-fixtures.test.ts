/**
 * One test per hand-made micro fixture (test/fixtures/micro/README.md): exactly which events are
 * kept, which diagnostics, which error code and byte offset. Expected values are written out by
 * hand or located in the fixture's own text (indexOf), never taken from the reader's output.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, constants as zc } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isKinetoscopeError, type KinetoscopeError } from '../../src/core/errors.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { readTraceEvents, type ReadOptions } from '../../src/ingest/read-trace.js';

const MICRO = join(import.meta.dirname, '../../test/fixtures/micro');
const path = (name: string) => join(MICRO, name);
const text = (name: string) => readFileSync(path(name), 'latin1'); // byte offsets = string indices
const read = (name: string, opts?: ReadOptions) => readTraceEvents(path(name), opts);

async function failure(name: string, opts?: ReadOptions): Promise<KinetoscopeError> {
  try {
    await read(name, opts);
  } catch (e) {
    if (isKinetoscopeError(e)) return e;
    throw e;
  }
  throw new Error(`${name}: expected a KinetoscopeError`);
}

function diag(ds: Diagnostic[], code: string): Diagnostic {
  const d = ds.find((x) => x.code === code);
  if (!d) throw new Error(`no ${code} diagnostic in ${JSON.stringify(ds)}`);
  return d;
}
const codes = (ds: Diagnostic[]) => Object.fromEntries(ds.map((d) => [d.code, d.count]));

describe('format variants', () => {
  it('bare-array.json: array root, no header, integer µs', async () => {
    const t = text('bare-array.json');
    const { events, result } = await read('bare-array.json');
    expect(result.container).toBe('array');
    expect(result.header).toEqual({});
    expect(result.truncated).toBe(false);
    expect(result.diagnostics).toEqual([]);
    expect(result.timeOriginUs).toBe(100);
    expect(events.map((e) => [e.ph, e.cat, e.name, e.pid, e.tid, e.tsNs, e.durNs])).toEqual([
      ['X', '', 'aten::add', 'CPU functions', 1, 0, 5000],
      ['X', '', 'aten::mul', 'CPU functions', 1, 7000, 3000],
      ['s', 'cpu_to_cuda', 'cudaLaunchKernel', 'CPU functions', 1, 8000, NaN],
    ]);
    expect(events[2].id).toBe(7);
    expect(events[0].args).toEqual({});
    expect(events.map((e) => e.byteOffset)).toEqual([1, t.indexOf('{"name": "aten::mul"'), t.indexOf('{"name": "cudaLaunchKernel"')]);
  });

  it('legacy-categories.json: 2021 categories kept as written, string tids, era-A µs', async () => {
    const { events, result } = await read('legacy-categories.json');
    expect(result.diagnostics).toEqual([]);
    expect(result.header).toEqual({ schemaVersion: 1 });
    expect(result.timeOriginUs).toBe(1623142623460111);
    expect(events.map((e) => e.cat)).toEqual(['Operator', 'Runtime', 'Kernel', 'Memcpy', 'Memset', '', '', 'Trace']);
    expect(events.map((e) => e.tid)).toEqual([4242, 4242, 'stream 7', 'stream 7', 'stream 7', 4242, 'Trace PyTorch Profiler', 'PyTorch Profiler']);
    expect(events.map((e) => e.tsNs)).toEqual([0, 9000, 19000, 49000, 54000, 59000, -11000, -11000]);
    expect(events.map((e) => e.durNs)).toEqual([900000, 6000, 25000, 2000, 0, NaN, NaN, 1000000]);
    expect(events[1].args).toEqual({ correlation: 11, 'external id': 1 });
    expect(events[4].args?.['memory bandwidth (GB/s)']).toBe('N/A');
    expect(events[5]).toMatchObject({ ph: 'i', s: 't', name: '[memory]', args: { 'Device Type': 1, 'Device Id': 0, Bytes: 4096 } });
    expect(events[6]).toMatchObject({ ph: 'i', s: 'g', pid: 'Traces', name: 'Iteration Start: PyTorch Profiler' });
  });

  it('string-tids.json: numeric strings become numbers, labels stay strings', async () => {
    const { events, result } = await read('string-tids.json');
    expect(result.diagnostics).toEqual([]);
    expect(events.map((e) => [e.pid, e.tid])).toEqual([
      [25738, 25738],
      [25738, 4093687616],
      [0, 'stream 7'],
      [0, 'stream 7 annotations'],
      [25738, 25738],
      [0, 7],
      ['Spans', 'PyTorch Profiler'],
      ['', ''],
      ['[TP00] 12345', -17],
    ]);
    expect(events[5]).toMatchObject({ ph: 'f', id: 5, bp: 'e' });
    expect(events[7]).toMatchObject({ name: 'Record Window End', s: 'g', tsNs: 20000 });
  });

  it('hex-stream-ids.json: ROCm hex stream ids and numeric strings in args.stream/args.device', async () => {
    const { events, result } = await read('hex-stream-ids.json');
    expect(result.diagnostics).toEqual([]);
    expect(result.header).toEqual({ schemaVersion: 1, roctracer_version: 4.1 });
    expect(events.map((e) => [e.args?.stream, e.args?.device])).toEqual([
      [0, 2],
      [26, undefined],
      [0, 2],
      ['0x', 'GPU 2'],
    ]);
    expect(events.map((e) => e.tid)).toEqual([812, 812, 26, '0xZZ']);
    // other string-typed numbers in args are left alone (only stream/device are ids)
    expect(events[1].args?.bytes).toBe('4096');
    expect(events.map((e) => [e.tsNs, e.durNs])).toEqual([
      [649, 4334],
      [12000, 12500],
      [7125, 30875],
      [42000, 1000],
    ]);
  });

  it('stream-minus-one.json: -1 pids, tids and streams, as numbers and strings', async () => {
    const { events, result } = await read('stream-minus-one.json');
    expect(result.diagnostics).toEqual([]);
    expect(events.map((e) => [e.pid, e.tid, e.args?.stream, e.args?.device])).toEqual([
      [0, -1, -1, 0],
      [-1, 0, undefined, undefined],
      [0, -1, -1, -1],
    ]);
    expect(events[1].args).toBeUndefined();
    expect(events.map((e) => e.tsNs)).toEqual([0, -100000, 100000]);
  });

  it('big-int-args.json: integers beyond 2^53 kept exact as decimal strings', async () => {
    const { events, result } = await read('big-int-args.json');
    expect(result.diagnostics).toEqual([]);
    expect(events[0].args).toEqual({ Addr: '140234567890123456789', Bytes: -512, 'Total Allocated': 9007199254740992, 'Device Id': -1 });
    expect(events[1].args).toEqual({
      'Comms Id': '10159970886766084423',
      Seq: '9007199254740993',
      neg: '-9007199254740993',
      nested: ['123456789012345678901234567890', 42, { deep: '18446744073709551615' }],
      pi: 3.141592653589793,
      tiny: 1e-7,
      huge: 1.5e300,
    });
    expect(events.map((e) => [e.tsNs, e.durNs])).toEqual([
      [0, NaN],
      [1500, 2250],
    ]);
  });

  it('ns-float-timestamps.json: exact ns from the source text, rounding past 3 decimals', async () => {
    const { events, result } = await read('ns-float-timestamps.json');
    expect(result.diagnostics).toEqual([]);
    // baseTimeNanoseconds exceeds 2^53: kept exact as a decimal string, like any such integer
    expect(result.header).toEqual({ schemaVersion: 1, deviceProperties: [], displayTimeUnit: 'ms', baseTimeNanoseconds: '1790857026000000000' });
    expect(result.timeOriginUs).toBe(5087106909750);
    expect(events.map((e) => [e.tsNs, e.durNs])).toEqual([
      [638, 275863], // 5087106909750.638, 275.863
      [21700, 5600], // .7 and 5.6 as a re-serialiser prints them
      [50000, 0], // integer ts, 0.000
      [50124, 0], // .12350 rounds half away from zero; 0.0004 → 0 ns
      [50123, 1], // .1234999 → 123; 0.0005 → 1 ns
      [-49999, 1], // .001 before the origin; 1e-3 µs
      [-5087106909750000, 1], // ts 0.000 (clamped cuda_event) relative to the origin
    ]);
  });

  it('epoch-us-ns-float.json: absolute epoch µs with ns decimals, exact', async () => {
    const { events, result } = await read('epoch-us-ns-float.json');
    expect(result.diagnostics).toEqual([]);
    expect(result.timeOriginUs).toBe(1712195495519695);
    // 1712195495519695.800 as a double is 1712195495519695.75: the ns must come from the text.
    expect(events.map((e) => [e.tsNs, e.durNs])).toEqual([
      [800, 12345],
      [1123, 250007],
      [-1, 1],
    ]);
  });

  it('string-timestamps.json: string ts/dur parsed, unreadable ones NaN with BAD_TIMESTAMP', async () => {
    const t = text('string-timestamps.json');
    const { events, result } = await read('string-timestamps.json');
    expect(result.timeOriginUs).toBe(5087106909750);
    expect(events.map((e) => [e.name, e.tsNs, e.durNs])).toEqual([
      ['a', 638, 1500],
      ['b', 1000, 2000],
      ['c', NaN, NaN],
    ]);
    expect(codes(result.diagnostics)).toEqual({ BAD_TIMESTAMP: 2 });
    expect(diag(result.diagnostics, 'BAD_TIMESTAMP').byteOffset).toBe(t.indexOf('"soon"'));
  });

  it('header-after-events.json: top-level keys after traceEvents are in the header', async () => {
    const { events, result } = await read('header-after-events.json');
    expect(result.diagnostics).toEqual([]);
    expect(Object.keys(result.header)).toEqual(['schemaVersion', 'deviceProperties', 'displayTimeUnit', 'baseTimeNanoseconds', 'distributedInfo', 'traceName']);
    expect(result.header.baseTimeNanoseconds).toBe('1719853884000000000');
    expect(result.header.traceName).toBe('/tmp/tmpab12cd.json');
    expect(result.header.distributedInfo).toMatchObject({ backend: 'nccl', rank: 0, world_size: 2, nccl_version: 'unknown' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ name: 'aten::mm', tsNs: 649, durNs: 4007334 });
  });

  it('escapes-and-utf8.json: escapes, surrogate pairs, UTF-8, invalid escapes kept', async () => {
    const t = text('escapes-and-utf8.json');
    const { events, result } = await read('escapes-and-utf8.json');
    expect(events.map((e) => e.name)).toEqual([
      'café \u{1F600} "q" back\\slash / nl\n',
      'café 日本語 😀',
      'C:\\Users\\me\train.py(12): main',
    ]);
    expect(events[1].args).toEqual({ Module: 'ünïcödé' });
    expect(codes(result.diagnostics)).toEqual({ BAD_ESCAPE: 2 });
    expect(diag(result.diagnostics, 'BAD_ESCAPE').byteOffset).toBe(t.indexOf('\\Users'));
  });

  it('utf8-bom.json: a byte-order mark is skipped', async () => {
    const { events, result } = await read('utf8-bom.json');
    expect(result.diagnostics).toEqual([]);
    expect(events).toHaveLength(1);
    expect(events[0].byteOffset).toBe(text('utf8-bom.json').indexOf('{"ph"'));
  });

  it('gzip-without-extension.trace: gzip sniffed by magic bytes, not by name', async () => {
    const raw = gunzipSync(readFileSync(path('gzip-without-extension.trace'))).toString('latin1');
    const { events, result } = await read('gzip-without-extension.trace');
    expect(result.diagnostics).toEqual([]);
    expect(result.bytesRead).toBe(raw.length);
    expect(result.header).toEqual({ schemaVersion: 1, traceName: '/tmp/w.json' });
    expect(events.map((e) => [e.name, e.pid, e.tid, e.tsNs, e.durNs, e.byteOffset])).toEqual([
      ['aten::relu', 3, 3, 250, 1125, raw.indexOf('{"ph": "X"')],
      ['Record Window End', '', '', 4000, NaN, raw.indexOf('{"name": "Record')],
    ]);
  });
});

describe('bad input, repaired with a diagnostic', () => {
  it('bare-na-token.json: bare N/A → "N/A", BARE_TOKEN', async () => {
    const t = text('bare-na-token.json');
    const { events, result } = await read('bare-na-token.json');
    expect(events.map((e) => e.args?.['memory bandwidth (GB/s)'])).toEqual(['N/A', 'N/A']);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'BARE_TOKEN', severity: 'warning', count: 2, byteOffset: t.indexOf('N/A}') }),
    ]);
  });

  it('bare-inf-token.json: inf, nan, NaN, Infinity → numbers, one BARE_TOKEN with count 9', async () => {
    const t = text('bare-inf-token.json');
    const { events, result } = await read('bare-inf-token.json');
    expect(events[0].args).toEqual({ 'blocks per SM': Infinity, 'warps per SM': Infinity, 'est. achieved occupancy %': 0 });
    expect(events[1].args).toEqual({ bytes: 8, 'memory bandwidth (GB/s)': Infinity });
    expect(events[2].args).toEqual({ a: NaN, b: Infinity, c: -Infinity, d: -Infinity, e: NaN, f: [Infinity, 1] });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'BARE_TOKEN', severity: 'warning', count: 9, byteOffset: t.indexOf('inf,') }),
    ]);
  });

  it('control-chars.json: raw control characters kept, CONTROL_CHAR_IN_STRING', async () => {
    const t = text('control-chars.json');
    const { events, result } = await read('control-chars.json');
    expect(events.map((e) => e.name)).toEqual(['tab\there', 'line one\nline two', 'fine']);
    expect(events[2].args).toEqual({ k: 'bell\x07' });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'CONTROL_CHAR_IN_STRING', severity: 'warning', count: 3, byteOffset: t.indexOf('\t') }),
    ]);
  });

  it('invalid-utf8.json: invalid bytes → U+FFFD, INVALID_UTF8', async () => {
    const t = text('invalid-utf8.json');
    const { events, result } = await read('invalid-utf8.json');
    expect(events.map((e) => e.name)).toEqual(['bad\uFFFD\uFFFDbytes', 'cut \uFFFD']);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'INVALID_UTF8', severity: 'warning', count: 2, byteOffset: t.indexOf('bad') }),
    ]);
  });

  it('unescaped-quote-in-name.json: each broken event costs only itself, SYNTAX_ERROR ×2', async () => {
    const t = text('unescaped-quote-in-name.json');
    const { events, result } = await read('unescaped-quote-in-name.json');
    expect(events.map((e) => e.name)).toEqual(['train.py(10): step', 'aten::add']);
    expect(events[1].byteOffset).toBe(t.indexOf('{"ph": "X", "cat": "cpu_op"'));
    expect(result.truncated).toBe(false);
    expect(result.header).toEqual({ schemaVersion: 1, traceName: '/tmp/z.json' });
    const d = diag(result.diagnostics, 'SYNTAX_ERROR');
    expect(d.count).toBe(2);
    expect(d.severity).toBe('warning');
    // first broken event: the parser stops at `device` after the stray quote
    expect(d.byteOffset).toBe(t.indexOf('device": "cpu"'));
    const brokenStart = t.indexOf('{"ph": "X", "cat": "python_function", "name": "<eval');
    const resumed = events[1].byteOffset;
    expect(d.message).toContain(`skipped 1 event (${resumed - brokenStart} bytes from byte ${brokenStart})`);
    expect(d.message).toContain(`at byte ${resumed}`);
    expect(codes(result.diagnostics)).toEqual({ SYNTAX_ERROR: 2 });
  });

  it('broken-header-metadata.json: resumes at "traceEvents", keys in between lost', async () => {
    const t = text('broken-header-metadata.json');
    const { events, result } = await read('broken-header-metadata.json');
    expect(events.map((e) => e.name)).toEqual(['aten::mm']);
    // `"run_note": "/"` parsed, then `quoted/""` is the error; trace_id is lost
    expect(result.header).toEqual({ schemaVersion: 1, run_note: '/', traceName: '/tmp/m.json' });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'SYNTAX_ERROR', count: 1, byteOffset: t.indexOf('quoted') }),
    ]);
    expect(result.diagnostics[0].message).toContain(`"traceEvents" at byte ${t.indexOf('"traceEvents"')}`);
  });

  it('trailing-data.json: the first of two concatenated traces, TRAILING_DATA', async () => {
    const t = text('trailing-data.json');
    const { events, result } = await read('trailing-data.json');
    expect(events.map((e) => e.name)).toEqual(['a']);
    expect(result.truncated).toBe(false);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'TRAILING_DATA', count: 1, byteOffset: t.indexOf('\n{') + 1 }),
    ]);
  });
});

describe('truncated input', () => {
  it('missing-closing-bracket.json: array without "]" keeps every event, TRUNCATED', async () => {
    const t = text('missing-closing-bracket.json');
    const { events, result } = await read('missing-closing-bracket.json');
    expect(events.map((e) => e.name)).toEqual(['aten::add', 'aten::mul']);
    expect(result.truncated).toBe(true);
    const lastEnd = t.lastIndexOf('}') + 1;
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'TRUNCATED', severity: 'warning', count: 1, byteOffset: t.length }),
    ]);
    expect(result.diagnostics[0].message).toContain(`ends at byte ${t.length}`);
    expect(result.diagnostics[0].message).toContain(`the ${t.length - lastEnd} bytes after the last complete event (from byte ${lastEnd})`);
  });

  it('truncated-mid-event.json: complete events kept, the cut one and traceName lost', async () => {
    const t = text('truncated-mid-event.json');
    const { events, result } = await read('truncated-mid-event.json');
    expect(events.map((e) => e.name)).toEqual(['aten::op0', 'aten::op1']);
    expect(events[1].args).toEqual({ 'External id': 1001, 'Record function id': 0, 'Ev Idx': 1 });
    expect(result.truncated).toBe(true);
    expect(result.header.traceName).toBeUndefined();
    expect(result.header.baseTimeNanoseconds).toBe('1790857026000000000');
    const cutEvent = t.lastIndexOf('{\n    "ph"');
    const lastEnd = t.lastIndexOf('}', cutEvent) + 1;
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'TRUNCATED', count: 1, byteOffset: t.length })]);
    const m = result.diagnostics[0].message;
    expect(m).toContain(`inside an event that starts at byte ${cutEvent}`);
    expect(m).toContain(`kept 2 complete events, the ${t.length - lastEnd} bytes after the last complete event (from byte ${lastEnd})`);
  });

  it('truncated.json.gz: every event decoded before the gzip cut is kept', async () => {
    // Oracle: what zlib can decode of the cut stream, repaired after its last complete event.
    const prefix = gunzipSync(readFileSync(path('truncated.json.gz')), { finishFlush: zc.Z_SYNC_FLUSH }).toString('latin1');
    const lastEnd = prefix.lastIndexOf('},') + 1;
    const oracle = JSON.parse(prefix.slice(0, lastEnd) + ']}') as { traceEvents: { name: string }[] };
    const { events, result } = await read('truncated.json.gz');
    expect(oracle.traceEvents.length).toBeGreaterThan(5);
    expect(events.map((e) => e.name)).toEqual(oracle.traceEvents.map((e) => e.name));
    expect(result.truncated).toBe(true);
    expect(result.bytesRead).toBe(prefix.length);
    const tr = diag(result.diagnostics, 'TRUNCATED');
    expect(tr.byteOffset).toBe(prefix.length);
    expect(tr.message).toContain(`the ${prefix.length - lastEnd} bytes after the last complete event (from byte ${lastEnd})`);
    expect(diag(result.diagnostics, 'TRUNCATED_GZIP').message).toContain('unexpected end of file');
  });
});

describe('input that is not a trace', () => {
  it('not-json.txt: NOT_JSON naming the byte and offset', async () => {
    const e = await failure('not-json.txt');
    expect(e.code).toBe('NOT_JSON');
    expect(e.byteOffset).toBe(2);
    expect(e.message).toBe('not JSON: expected "{" or "[" but found "<" at byte 2');
  });

  it('json-not-trace.json: NOT_A_TRACE', async () => {
    const e = await failure('json-not-trace.json');
    expect(e.code).toBe('NOT_A_TRACE');
    expect(e.message).toBe('a JSON object but not a Chrome trace: no traceEvents array');
  });

  it('empty.json: EMPTY_INPUT', async () => {
    const e = await failure('empty.json');
    expect(e.code).toBe('EMPTY_INPUT');
    expect(e.message).toBe('empty input: the trace has 0 bytes');
  });

  it('bad-gzip.json.gz: BAD_GZIP with the compressed offset', async () => {
    const size = readFileSync(path('bad-gzip.json.gz')).length;
    const e = await failure('bad-gzip.json.gz');
    expect(e.code).toBe('BAD_GZIP');
    // the error lies past the 10-byte gzip header, within the compressed bytes read so far
    expect(e.byteOffset).toBeGreaterThan(10);
    expect(e.byteOffset).toBeLessThanOrEqual(size);
    expect(e.message).toMatch(new RegExp(`^bad gzip data: .+ \\(within the first ${e.byteOffset} compressed bytes\\)$`));
    // read 7 bytes at a time, the error is located more precisely
    const e7 = await failure('bad-gzip.json.gz', { chunkSize: 7 });
    expect(e7.code).toBe('BAD_GZIP');
    expect(e7.byteOffset).toBeLessThanOrEqual(size);
  });
});

describe('every micro fixture reads the same 1 and 7 bytes at a time', () => {
  const names = readdirSync(MICRO).filter((n) => n !== 'README.md' && n !== 'bad-gzip.json.gz');
  for (const name of names) {
    it(name, async () => {
      const outcome = async (chunkSize?: number) => {
        try {
          return await read(name, { chunkSize });
        } catch (e) {
          if (isKinetoscopeError(e)) return { code: e.code, message: e.message, byteOffset: e.byteOffset };
          throw e;
        }
      };
      const whole = await outcome();
      expect(await outcome(7)).toEqual(whole);
      expect(await outcome(1)).toEqual(whole);
    });
  }
});
