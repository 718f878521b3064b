/**
 * readTrace's shell around the tokenizer: inputs (path, '-', stream, bytes), gzip sniffing and
 * its failure modes, file errors.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { isKinetoscopeError } from '../../src/core/errors.js';
import { readTrace, readTraceEvents, type ReadOptions, type TraceInput } from '../../src/ingest/read-trace.js';

const MICRO = join(import.meta.dirname, '../../test/fixtures/micro');
const tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-ingest-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const enc = new TextEncoder();
const ev = (i: number) => `{"ph": "X", "cat": "cpu_op", "name": "op${i}", "pid": 1, "tid": 1, "ts": ${1000 + i}.250, "dur": 2.5}`;
const traceText = (n: number) => `{"schemaVersion": 1, "traceEvents": [\n${Array.from({ length: n }, (_, i) => ev(i)).join(',\n')}\n], "traceName": "t"}\n`;

async function failure(input: TraceInput, opts?: ReadOptions) {
  try {
    await readTraceEvents(input, opts);
  } catch (e) {
    if (isKinetoscopeError(e)) return { code: e.code, message: e.message, byteOffset: e.byteOffset };
    throw e;
  }
  throw new Error('expected a KinetoscopeError');
}

describe('inputs', () => {
  const text = traceText(50);
  const gz = gzipSync(enc.encode(text));

  it('a path, plain and gzip, give the same events', async () => {
    writeFileSync(join(tmp, 'a.json'), text);
    writeFileSync(join(tmp, 'a.json.gz'), gz);
    const plain = await readTraceEvents(join(tmp, 'a.json'));
    const zipped = await readTraceEvents(join(tmp, 'a.json.gz'));
    expect(plain.events.map((e) => e.name)).toEqual(Array.from({ length: 50 }, (_, i) => `op${i}`));
    expect(plain.events[49]).toMatchObject({ tsNs: 49250, durNs: 2500 });
    expect(zipped).toEqual(plain);
    expect(plain.result).toMatchObject({ container: 'object', eventCount: 50, bytesRead: enc.encode(text).length, truncated: false, diagnostics: [] });
    expect(plain.result.header).toEqual({ schemaVersion: 1, traceName: 't' });
  });

  it('a stream (Buffers or strings) and bytes, in any chunk size', async () => {
    const base = await readTraceEvents(enc.encode(text));
    expect(base.events).toHaveLength(50);
    expect(await readTraceEvents(Readable.from([Buffer.from(gz.subarray(0, 10)), Buffer.from(gz.subarray(10))]))).toEqual(base);
    expect(await readTraceEvents(Readable.from([text.slice(0, 100), text.slice(100)]))).toEqual(base);
    expect(await readTraceEvents(gz, { chunkSize: 1 })).toEqual(base);
    expect(await readTraceEvents(enc.encode(text), { chunkSize: 5 })).toEqual(base);
  });

  it("'-' reads standard input", async () => {
    const saved = Object.getOwnPropertyDescriptor(process, 'stdin')!;
    Object.defineProperty(process, 'stdin', { value: Readable.from([Buffer.from(gz)]), configurable: true });
    try {
      const { events } = await readTraceEvents('-');
      expect(events).toHaveLength(50);
    } finally {
      Object.defineProperty(process, 'stdin', saved);
    }
  });

  it('onEvents receives batches as they are parsed', async () => {
    const batches: number[] = [];
    const r = await readTrace(enc.encode(traceText(10000)), (b) => batches.push(b.length), { chunkSize: 64 * 1024 });
    expect(r.eventCount).toBe(10000);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(10000);
    expect(batches.length).toBeGreaterThan(3);
    expect(Math.max(...batches)).toBeLessThanOrEqual(4096);
  });

  it('a stream that fails: FILE_UNREADABLE', async () => {
    const broken = new Readable({
      read() {
        this.destroy(new Error('EIO: i/o error'));
      },
    });
    expect(await failure(broken)).toMatchObject({ code: 'FILE_UNREADABLE', message: 'cannot read the input stream: EIO: i/o error' });
  });

  it('a multi-member gzip (concatenated .gz files) is read whole', async () => {
    const cut = text.indexOf('op25');
    const two = Buffer.concat([gzipSync(text.slice(0, cut)), gzipSync(text.slice(cut))]);
    const { events, result } = await readTraceEvents(two);
    expect(events).toHaveLength(50);
    expect(result.diagnostics).toEqual([]);
  });

  it('rejects a bad chunkSize as a programmer error', async () => {
    await expect(readTraceEvents(enc.encode(text), { chunkSize: 0 })).rejects.toThrow(Error);
  });
});

describe('gzip trouble', () => {
  const text = traceText(200);
  const gz = gzipSync(enc.encode(text));

  it('a stream cut in the middle keeps every event decoded before the cut', async () => {
    const { events, result } = await readTraceEvents(gz.subarray(0, Math.floor(gz.length / 2)));
    expect(events.length).toBeGreaterThan(10);
    expect(events.length).toBeLessThan(200);
    expect(events.map((e) => e.name)).toEqual(Array.from({ length: events.length }, (_, i) => `op${i}`));
    expect(result.truncated).toBe(true);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['TRUNCATED', 'TRUNCATED_GZIP']);
  });

  it('only the gzip trailer missing: all events, TRUNCATED says the JSON is complete', async () => {
    const { events, result } = await readTraceEvents(gz.subarray(0, gz.length - 8));
    expect(events).toHaveLength(200);
    expect(result.truncated).toBe(true);
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'TRUNCATED', severity: 'warning' })]);
    expect(result.diagnostics[0].message).toContain('JSON text decoded so far is complete');
  });

  it('a bad CRC after good data: the events are kept, BAD_GZIP as an error diagnostic', async () => {
    const bad = Buffer.from(gz);
    bad[bad.length - 8] ^= 0xff; // CRC32 of the trailer
    const { events, result } = await readTraceEvents(bad);
    expect(events).toHaveLength(200);
    expect(result.truncated).toBe(true);
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'BAD_GZIP', severity: 'error' })]);
    expect(result.diagnostics[0].message).toContain(`within the first ${bad.length} compressed bytes`);
  });

  it('a corrupt header: BAD_GZIP thrown', async () => {
    const bad = Buffer.from(gz);
    bad[2] = 0x63; // compression method 99
    const f = await failure(bad);
    expect(f.code).toBe('BAD_GZIP');
    expect(f.message).toMatch(/^bad gzip data: unknown compression method \(within the first \d+ compressed bytes\)$/);
  });

  it('gzip of something that is not JSON: NOT_JSON at the decompressed offset', async () => {
    expect(await failure(gzipSync('\n\nPK\u0003\u0004'))).toEqual({ code: 'NOT_JSON', message: 'not JSON: expected "{" or "[" but found "P" at byte 2', byteOffset: 2 });
  });

  it('a lone 0x1f byte is not taken for gzip', async () => {
    expect((await failure(new Uint8Array([0x1f]))).code).toBe('NOT_JSON');
  });
});

describe('file errors', () => {
  it('missing file: FILE_NOT_FOUND', async () => {
    const p = join(tmp, 'nope.json');
    expect(await failure(p)).toEqual({ code: 'FILE_NOT_FOUND', message: `no such file: ${p}`, byteOffset: undefined });
  });

  it('a directory: FILE_UNREADABLE', async () => {
    expect(await failure(tmp)).toMatchObject({ code: 'FILE_UNREADABLE', message: `cannot read ${tmp}: it is a directory` });
  });

  it.skipIf(process.getuid?.() === 0)('no read permission: FILE_UNREADABLE (skipped as root, who may read anything)', async () => {
    const p = join(tmp, 'locked.json');
    writeFileSync(p, '[]');
    chmodSync(p, 0o000);
    expect(await failure(p)).toMatchObject({ code: 'FILE_UNREADABLE', message: `cannot read ${p}: permission denied` });
  });

  it('a micro fixture read by path and by bytes gives the same result', async () => {
    const p = join(MICRO, 'truncated.json.gz');
    expect(await readTraceEvents(readFileSync(p))).toEqual(await readTraceEvents(p));
  });
});
