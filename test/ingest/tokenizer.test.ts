/**
 * The tokenizer on its own: batching and streaming behaviour, the lenient corners of the
 * grammar, resynchronisation, and how each kind of bad input ends (thrown code or diagnostic).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DiagnosticSink, type Diagnostic } from '../../src/core/diagnostics.js';
import { isKinetoscopeError } from '../../src/core/errors.js';
import type { RawEvent } from '../../src/ingest/raw-event.js';
import { EVENT_BATCH_SIZE, createTraceTokenizer, normaliseId, type TokenizerResult } from '../../src/ingest/tokenizer.js';

const enc = new TextEncoder();

interface Run {
  events: RawEvent[];
  result: TokenizerResult;
  diagnostics: Diagnostic[];
}

function run(text: string | Uint8Array, chunk = 1 << 20): Run {
  const bytes = typeof text === 'string' ? enc.encode(text) : text;
  const events: RawEvent[] = [];
  const sink = new DiagnosticSink();
  const tok = createTraceTokenizer((b) => events.push(...b), sink);
  for (let i = 0; i < bytes.length; i += chunk) tok.push(bytes.subarray(i, Math.min(bytes.length, i + chunk)));
  const result = tok.end();
  return { events, result, diagnostics: sink.list() };
}

/** Runs whole, 1 byte and 3 bytes at a time; all three must agree. */
function runAll(text: string): Run {
  const whole = run(text);
  expect(run(text, 1)).toEqual(whole);
  expect(run(text, 3)).toEqual(whole);
  return whole;
}

function thrown(text: string, chunk?: number): { code: string; message: string; byteOffset?: number } {
  try {
    run(text, chunk);
  } catch (e) {
    if (isKinetoscopeError(e)) return { code: e.code, message: e.message, byteOffset: e.byteOffset };
    throw e;
  }
  throw new Error('expected a KinetoscopeError');
}

const ev = (i: number) => `{"ph": "X", "cat": "cpu_op", "name": "op${i}", "pid": 1, "tid": 1, "ts": ${100 + i}.5, "dur": 1}`;
const trace = (n: number) => `{"traceEvents": [${Array.from({ length: n }, (_, i) => ev(i)).join(',\n')}]}`;

describe('module', () => {
  it('is pure: no node: imports, so it runs in a browser or worker unchanged', () => {
    for (const file of ['tokenizer.ts', 'label-table.ts', 'args-table.ts', 'arg-keys.ts', 'json-bytes.ts', 'event-columns.ts']) {
      const src = readFileSync(join(import.meta.dirname, '../../src/ingest', file), 'utf8');
      expect(src, file).not.toMatch(/from\s+['"]node:/);
      expect(src, file).not.toMatch(/\brequire\(/);
      expect(src, file).not.toMatch(/\bBuffer\s*[.(]/);
      expect(src, file).not.toMatch(/\bprocess\./);
    }
  });
});

describe('streaming', () => {
  it('hands events on in batches of at most EVENT_BATCH_SIZE, during push', () => {
    const n = EVENT_BATCH_SIZE * 2 + 10;
    const bytes = enc.encode(trace(n));
    const sizes: number[] = [];
    const tok = createTraceTokenizer((b) => sizes.push(b.length), new DiagnosticSink());
    tok.push(bytes);
    // every complete event was handed on before push returned (the last batch at its end)
    expect(sizes).toEqual([EVENT_BATCH_SIZE, EVENT_BATCH_SIZE, 10]);
    const r = tok.end();
    expect(r.eventCount).toBe(n);
    expect(sizes).toEqual([EVENT_BATCH_SIZE, EVENT_BATCH_SIZE, 10]);
  });

  it('hands an event on as soon as the chunk completing it is pushed', () => {
    const text = trace(3);
    const cut = text.indexOf('op1') + 2;
    const got: string[] = [];
    const tok = createTraceTokenizer((b) => got.push(...b.map((e) => e.name)), new DiagnosticSink());
    tok.push(enc.encode(text.slice(0, cut)));
    expect(got).toEqual(['op0']);
    const end1 = text.indexOf('}', cut) + 1;
    tok.push(enc.encode(text.slice(cut, end1)));
    expect(got).toEqual(['op0', 'op1']);
    tok.push(enc.encode(text.slice(end1)));
    tok.end();
    expect(got).toEqual(['op0', 'op1', 'op2']);
  });

  it('does not hold on to the pushed chunk', () => {
    const text = trace(4);
    const bytes = enc.encode(text);
    const cut = text.indexOf('op2');
    const first = bytes.slice(0, cut);
    const names: string[] = [];
    const tok = createTraceTokenizer((b) => names.push(...b.map((e) => e.name)), new DiagnosticSink());
    tok.push(first);
    first.fill(0x20); // the caller reuses its buffer
    tok.push(bytes.slice(cut));
    tok.end();
    expect(names).toEqual(['op0', 'op1', 'op2', 'op3']);
  });

  it('splits UTF-8 sequences, escapes and numbers across any chunk boundary', () => {
    const text = '{"traceEvents": [{"name": "é日😀\\ud83d\\ude00\\u00e9", "ph": "X", "ts": 1234567.891, "dur": 12345.6789, "pid": "0x1f", "tid": "-3", "args": {"big": 123456789012345678901, "x": [1.5e3, -0.25, true, null]}}]}';
    const r = runAll(text);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]).toMatchObject({ name: 'é日😀😀é', tsNs: 891, durNs: 12345679, pid: 31, tid: -3 });
    expect(r.events[0].args).toEqual({ big: '123456789012345678901', x: [1500, -0.25, true, null] });
  });

  it('throws a programmer Error when used after end()', () => {
    const tok = createTraceTokenizer(() => undefined, new DiagnosticSink());
    tok.push(enc.encode('[]'));
    tok.end();
    expect(() => tok.push(enc.encode(' '))).toThrow(Error);
    expect(() => tok.end()).toThrow(Error);
  });
});

describe('values', () => {
  it('normaliseId: numbers from numeric and hex strings, labels kept', () => {
    expect(['25738', '-1', '0', '0x0', '0x1a', '0X1A', '4093687616'].map(normaliseId)).toEqual([25738, -1, 0, 0, 26, 26, 4093687616]);
    expect(['', 'Spans', 'stream 7', '0x', '0xZZ', '-', '1.5', ' 7', '9007199254740993', '0x12345678901234'].map(normaliseId)).toEqual([
      '', 'Spans', 'stream 7', '0x', '0xZZ', '-', '1.5', ' 7', '9007199254740993', '0x12345678901234',
    ]);
  });

  it('numbers in args parse exactly as JSON.parse does', () => {
    const nums = ['0', '-0', '1', '-1', '0.1', '1e21', '1E-7', '123456789012345', '1234567890123456', '9007199254740992', '0.30000000000000004', '2.5e-320', '1.7976931348623157e308', '123.456e-2', '-98765.4321e10'];
    const text = `{"traceEvents": [{"args": {"v": [${nums.join(', ')}]}}]}`;
    const r = runAll(text);
    expect(r.events[0].args!.v).toEqual(JSON.parse(`[${nums.join(',')}]`));
    expect(Object.is((r.events[0].args!.v as number[])[1], -0)).toBe(true);
  });

  it('ts/dur: integer, 1–3 decimals, more decimals rounded, negative, exponent, epoch µs', () => {
    const ts = ['1712195495519695.800', '1712195495519695', '1712195495519695.8', '1712195495519695.0005', '1712195495519695.0004999', '1712195495519694.999', '1.712195495519696e15'];
    const text = `[${ts.map((t) => `{"ts": ${t}, "dur": -1.5}`).join(',')}]`;
    const r = runAll(text);
    expect(r.result.timeOriginUs).toBe(1712195495519695);
    expect(r.events.map((e) => e.tsNs)).toEqual([800, 0, 800, 1, 0, -1, 1000]);
    expect(r.events.map((e) => e.durNs)).toEqual(Array(ts.length).fill(-1500));
  });

  it('a first ts that rounds up to the next µs: the origin is still its integer part, read whole or byte by byte', () => {
    // 5.9995 µs = 5999.5 ns, rounded half away from zero: 6000 ns; the origin is 5 µs.
    const r = runAll('{"traceEvents": [{"ph": "X", "ts": 5.9995, "dur": 1}, {"ph": "X", "ts": 7, "dur": 1}]}');
    expect(r.result.timeOriginUs).toBe(5);
    expect(r.events.map((e) => e.tsNs)).toEqual([1000, 2000]);
  });

  it('ts beyond 2^53 µs stays exact relative to the origin', () => {
    const r = runAll('[{"ts": 12345678901234567890.123}, {"ts": 12345678901234567891.5}]');
    expect(r.result.timeOriginUs).toBe(12345678901234567890);
    expect(r.events.map((e) => e.tsNs)).toEqual([123, 1500]);
  });

  it('a key named __proto__ is an own property, not a prototype', () => {
    const r = runAll('[{"args": {"__proto__": {"polluted": 1}, "a": 2}}]');
    const args = r.events[0].args!;
    expect(Object.keys(args)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('missing fields: "" for ph/cat/name/pid/tid, NaN for ts/dur, undefined for the optional ones', () => {
    const r = runAll('[{}]');
    expect(r.events[0]).toEqual({ ph: '', cat: '', name: '', pid: '', tid: '', tsNs: NaN, durNs: NaN, byteOffset: 1 });
    expect(r.result.timeOriginUs).toBe(0);
  });

  it('ignores other event keys, tolerates trailing commas', () => {
    const r = runAll('{"traceEvents": [{"ph": "X", "tts": 5, "cname": "good", "name": "a", "args": {"k": [1, 2,],},}, ], }');
    expect(r.events).toEqual([expect.objectContaining({ ph: 'X', name: 'a', args: { k: [1, 2] } })]);
    expect(r.diagnostics).toEqual([]);
  });

  it('args that are not an object are dropped with BAD_ARGS', () => {
    const r = runAll('[{"name": "a", "args": [1]}]');
    expect(r.events[0].args).toBeUndefined();
    expect(r.diagnostics.map((d) => d.code)).toEqual(['BAD_ARGS']);
  });

  it('a second args that is not an object is dropped, the first one stays', () => {
    const r = runAll('[{"ph": "X", "cat": "cpu_op", "args": {"a": 1}, "args": 7}]');
    expect(r.events[0].args).toEqual({ a: 1 });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['BAD_ARGS']);
  });

  it('each event has its own args object, even when the bytes repeat', () => {
    const r = runAll('[{"ph": "X", "cat": "cpu_op", "args": {"Input Dims": [[1, 2]]}}, {"ph": "X", "cat": "cpu_op", "args": {"Input Dims": [[1, 2]]}}]');
    expect(r.events[0].args).toEqual({ 'Input Dims': [[1, 2]] });
    expect(r.events[1].args).toEqual(r.events[0].args);
    expect(r.events[1].args).not.toBe(r.events[0].args);
  });

  it('flow ids as written: numbers, strings, and NaN from a bare nan (not "absent")', () => {
    const r = runAll('[{"ph": "s", "id": 12}, {"ph": "s", "id": "0x1f"}, {"ph": "f", "id": nan}, {"ph": "f"}]');
    expect(r.events.map((e) => e.id)).toEqual([12, '0x1f', NaN, undefined]);
  });
});

describe('repairs', () => {
  it('a missing comma between events: MISSING_COMMA, both events kept', () => {
    const text = '[{"name": "a"} {"name": "b"}]';
    const r = runAll(text);
    expect(r.events.map((e) => e.name)).toEqual(['a', 'b']);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'MISSING_COMMA', byteOffset: text.indexOf(' {') + 1 })]);
  });

  it('elements that are not objects: NON_OBJECT_EVENT, skipped', () => {
    const r = runAll('[{"name": "a"}, 5, "x", [1], {"name": "b"}]');
    expect(r.events.map((e) => e.name)).toEqual(['a', 'b']);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'NON_OBJECT_EVENT', count: 3 })]);
  });

  it('a second traceEvents array is read too: DUPLICATE_TRACE_EVENTS', () => {
    const r = runAll('{"traceEvents": [{"name": "a"}], "x": 1, "traceEvents": [{"name": "b"}]}');
    expect(r.events.map((e) => e.name)).toEqual(['a', 'b']);
    expect(r.result.header).toEqual({ x: 1 });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['DUPLICATE_TRACE_EVENTS']);
  });

  it('an unknown bare word is a syntax error, resynchronised at the next event', () => {
    const text = `{"traceEvents": [${ev(0)},\n{"name": "x", "args": {"dtype": ncclFloat32}},\n${ev(2)}]}`;
    const r = runAll(text);
    expect(r.events.map((e) => e.name)).toEqual(['op0', 'op2']);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'SYNTAX_ERROR', count: 1, byteOffset: text.indexOf('ncclFloat32') })]);
    expect(r.diagnostics[0].message).toContain('unexpected token "ncclFloat32"');
    expect(r.result.truncated).toBe(false);
  });

  it('a broken event with no event boundary after it: SYNTAX_ERROR and TRUNCATED', () => {
    const text = `{"traceEvents": [${ev(0)},\n{"name": "x"y", "pid": 1`;
    const r = runAll(text);
    expect(r.events.map((e) => e.name)).toEqual(['op0']);
    expect(r.result.truncated).toBe(true);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['SYNTAX_ERROR', 'TRUNCATED']);
    expect(r.diagnostics[0].byteOffset).toBe(text.indexOf('y"'));
    expect(r.diagnostics[1].byteOffset).toBe(text.length);
  });

  it('values nested deeper than 1000 levels are a syntax error, not a stack overflow', () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const text = `[{"name": "a"}, {"name": "deep", "args": {"v": ${deep}}}, {"name": "b"}]`;
    const r = run(text);
    expect(r.events.map((e) => e.name)).toEqual(['a', 'b']);
    expect(r.diagnostics[0].code).toBe('SYNTAX_ERROR');
    expect(r.diagnostics[0].message).toContain('nested deeper than 1000 levels');
  });
});

describe('how input ends', () => {
  it('whitespace only: EMPTY_INPUT', () => {
    expect(thrown(' \n\t ')).toEqual({ code: 'EMPTY_INPUT', message: 'empty input: the trace has only whitespace (4 bytes)', byteOffset: 4 });
    expect(thrown('')).toMatchObject({ code: 'EMPTY_INPUT', message: 'empty input: the trace has 0 bytes' });
  });

  it('binary input: NOT_JSON naming the byte', () => {
    const r = (() => {
      try {
        run(new Uint8Array([0x1f, 0x8b, 0x08]));
      } catch (e) {
        return e;
      }
    })();
    expect(isKinetoscopeError(r) && [r.code, r.message, r.byteOffset]).toEqual(['NOT_JSON', 'not JSON: expected "{" or "[" but found byte 0x1f at byte 0', 0]);
  });

  it('UTF-16 text (PowerShell redirect): NOT_JSON saying so', () => {
    const r = (() => {
      try {
        run(new Uint8Array([0xff, 0xfe, 0x7b, 0x00]), 1);
      } catch (e) {
        return e;
      }
    })();
    expect(isKinetoscopeError(r) && [r.code, r.byteOffset]).toEqual(['NOT_JSON', 0]);
    expect((r as Error).message).toContain('UTF-16');
  });

  it('an object whose header is broken and has no traceEvents: NOT_JSON at the error', () => {
    expect(thrown('{"a": 1, "b": nope}', 1)).toEqual({ code: 'NOT_JSON', message: 'not JSON: syntax error at byte 14: unexpected token "nope"', byteOffset: 14 });
  });

  it('traceEvents that is not an array: NOT_A_TRACE', () => {
    expect(thrown('{"traceEvents": {"a": 1}}')).toMatchObject({ code: 'NOT_A_TRACE', byteOffset: 16 });
  });

  it('an array of arrays (a memory timeline, not events): NOT_A_TRACE', () => {
    expect(thrown('[[1, "alloc", 64, 0], [2, "free", 64, 0]]')).toMatchObject({ code: 'NOT_A_TRACE' });
  });

  it('cut inside the header before traceEvents: TRUNCATED, no events', () => {
    const text = '{"schemaVersion": 1, "deviceProperties": [{"id": 0, "na';
    const r = runAll(text);
    expect(r.events).toEqual([]);
    expect(r.result.truncated).toBe(true);
    expect(r.result.header).toEqual({ schemaVersion: 1 });
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'TRUNCATED', byteOffset: text.length })]);
    expect(r.diagnostics[0].message).toContain('before any traceEvents array');
  });

  it('cut after the events array: TRUNCATED, every event read, later keys missing', () => {
    const text = `{"traceEvents": [${ev(0)}],\n"baseTimeNanoseconds": 17198538`;
    const r = runAll(text);
    expect(r.events).toHaveLength(1);
    expect(r.result.truncated).toBe(true);
    // a number cut at the end of the input is never taken as complete
    expect(r.result.header).toEqual({});
    expect(r.diagnostics[0].message).toContain('after the events array');
  });

  it('a complete root: truncated false, bytesRead counts every byte', () => {
    const text = `${trace(2)}\n\n`;
    const r = runAll(text);
    expect(r.result).toEqual({ container: 'object', header: {}, timeOriginUs: 100, eventCount: 2, bytesRead: enc.encode(text).length, truncated: false });
  });
});

describe('damaged input (seeded mutations of a real capture)', () => {
  it('never throws anything but a KinetoscopeError, and reads the same in any chunk size', () => {
    const base = gunzipSync(readFileSync(join(import.meta.dirname, '../../test/fixtures/traces/h200-torch2.11/linear.pt.trace.json.gz')));
    let seed = 20260704;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const alphabet = [...'{}[],:"\\ \n0123456789.-eExnN/'].map((c) => c.charCodeAt(0)).concat([0, 0x80, 0xff, 0xc3]);
    const outcome = (bytes: Uint8Array, chunk: number): string => {
      try {
        const r = run(bytes, chunk);
        return JSON.stringify([r.events.map((e) => [e.name, e.tsNs, e.byteOffset, e.args]), r.result, r.diagnostics]);
      } catch (e) {
        if (isKinetoscopeError(e)) return `${e.code} ${e.message}`;
        throw e;
      }
    };
    for (let t = 0; t < 150; t++) {
      const b = Uint8Array.from(base);
      let bytes: Uint8Array = b;
      const kind = t % 4;
      if (kind === 0) bytes = b.subarray(0, rnd(b.length));
      else {
        for (let j = 1 + rnd(5); j > 0; j--) {
          const at = rnd(b.length);
          if (kind === 1) b[at] = alphabet[rnd(alphabet.length)];
          else if (kind === 2) b.copyWithin(at, at + 1 + rnd(50));
          else b[at] = rnd(256);
        }
      }
      const whole = outcome(bytes, 1 << 20);
      expect(outcome(bytes, 7), `trial ${t}`).toBe(whole);
      expect(outcome(bytes, 1 + rnd(40)), `trial ${t}`).toBe(whole);
    }
  });
});
