/**
 * The reader against an independent oracle: JSON.parse of the same text (gunzipped here with
 * zlib), with `ts`/`dur` and integers beyond 2^53 kept as their source text by a regex pass
 * before JSON.parse, and exact ns computed here with BigInt. Real H200 captures (committed) and
 * HTA's test traces (read from ../shared, never copied).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '../../src/core/diagnostics.js';
import { isKinetoscopeError } from '../../src/core/errors.js';
import type { JsonValue, RawEvent } from '../../src/ingest/raw-event.js';
import { readTraceEvents, type ReadResult } from '../../src/ingest/read-trace.js';
import { createTraceTokenizer } from '../../src/ingest/tokenizer.js';
import { LARGE_PEER_TRACE, peerTraceSweep, tinyChunkRead } from '../helpers/sweep-size.js';
import { expectEqual } from '../helpers/expect-equal.js';

const H200 = join(import.meta.dirname, '../../test/fixtures/traces/h200-torch2.11');
const HTA = join(import.meta.dirname, '../../../shared/peer-traces/hta');

// ---------------------------------------------------------------------------------------------
// The oracle.

type OEvent = Record<string, JsonValue | undefined>;
interface Oracle {
  container: 'object' | 'array';
  header: Record<string, JsonValue>;
  events: OEvent[];
  /** An object root without a traceEvents array (not a trace). */
  notATrace?: boolean;
}

const MAX = 9007199254740992n;

/** JSON.parse with ts/dur and big integers kept as text (they are re-read exactly below). */
function oracleParse(bytes: Buffer): Oracle {
  const text = bytes
    .toString('utf8')
    .replace(/"(ts|dur)"(\s*):(\s*)(-?\d+(?:\.\d+)?)(?=\s*[,}])/g, '"$1"$2:$3"\\u0000$4"')
    .replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, (m, pre: string, digits: string) => {
      const b = BigInt(digits);
      return b > MAX || b < -MAX ? `${pre}"${digits}"` : m;
    });
  const root = JSON.parse(text) as JsonValue;
  if (Array.isArray(root)) return { container: 'array', header: {}, events: root as OEvent[] };
  const { traceEvents, ...header } = root as Record<string, JsonValue>;
  if (!Array.isArray(traceEvents)) return { container: 'object', header, events: [], notATrace: true };
  return { container: 'object', header, events: traceEvents as OEvent[] };
}

/** Exact ns of a decimal µs text: integer part, 3 decimals, rounded half away from zero. */
function nsOf(text: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`oracle: unexpected number text ${text}`);
  const frac = (m[3] ?? '').padEnd(4, '0');
  let ns = BigInt(m[2]) * 1000n + BigInt(frac.slice(0, 3));
  if (frac.charCodeAt(3) >= 53) ns += 1n;
  return m[1] ? -ns : ns;
}

const timeText = (v: JsonValue | undefined): string | undefined =>
  typeof v === 'string' && v.startsWith('\u0000') ? v.slice(1) : undefined;

function normId(v: JsonValue | undefined): JsonValue {
  if (v === undefined) return '';
  if (typeof v !== 'string') return v;
  if (/^-?\d{1,15}$/.test(v)) return Number(v);
  if (/^0[xX][0-9a-fA-F]{1,13}$/.test(v)) return parseInt(v.slice(2), 16);
  return v;
}

function expectedArgs(a: JsonValue | undefined): JsonValue | undefined {
  if (a === undefined || a === null || typeof a !== 'object' || Array.isArray(a)) return undefined;
  const out = { ...a };
  if (typeof out.stream === 'string') out.stream = normId(out.stream);
  if (typeof out.device === 'string') out.device = normId(out.device);
  return out;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return false; // key order too
    if (!deepEqual((a as Record<string, unknown>)[ka[i]], (b as Record<string, unknown>)[kb[i]])) return false;
  }
  return true;
}

/** Compares every event field by field; returns the first few mismatches (empty = all equal). */
function compare(bytes: Buffer, oracle: Oracle, events: RawEvent[], result: ReadResult): string[] {
  const bad: string[] = [];
  const note = (s: string) => {
    if (bad.length < 8) bad.push(s);
  };
  if (events.length !== oracle.events.length) note(`count ${events.length} vs ${oracle.events.length}`);
  if (result.eventCount !== oracle.events.length) note(`eventCount ${result.eventCount}`);
  let origin: bigint | undefined;
  let prevOffset = -1;
  const n = Math.min(events.length, oracle.events.length);
  for (let i = 0; i < n; i++) {
    const e = events[i];
    const o = oracle.events[i];
    const str = (v: JsonValue | undefined) => (v === undefined ? '' : String(v));
    if (e.ph !== str(o.ph) || e.cat !== str(o.cat) || e.name !== str(o.name)) note(`#${i} ph/cat/name ${e.ph}/${e.cat}/${e.name}`);
    if (!Object.is(e.pid, normId(o.pid)) || !Object.is(e.tid, normId(o.tid))) note(`#${i} pid/tid ${e.pid}/${e.tid} vs ${o.pid}/${o.tid}`);
    const ts = timeText(o.ts);
    let want = NaN;
    if (ts !== undefined) {
      const ns = nsOf(ts);
      if (origin === undefined) origin = ns / 1000n; // BigInt division truncates toward zero
      want = Number(ns - origin * 1000n);
    }
    if (!Object.is(e.tsNs, want === 0 ? 0 : want)) note(`#${i} tsNs ${e.tsNs} vs ${want} (${ts})`);
    const dur = timeText(o.dur);
    const wantDur = dur === undefined ? NaN : Number(nsOf(dur));
    if (!Object.is(e.durNs, wantDur)) note(`#${i} durNs ${e.durNs} vs ${wantDur} (${dur})`);
    if (!deepEqual(e.args, expectedArgs(o.args))) note(`#${i} args ${JSON.stringify(e.args)} vs ${JSON.stringify(o.args)}`);
    const id = o.id === undefined ? undefined : o.id;
    if (!Object.is(e.id, id)) note(`#${i} id ${e.id} vs ${o.id}`);
    if (e.bp !== o.bp || e.s !== o.s) note(`#${i} bp/s`);
    if (bytes[e.byteOffset] !== 0x7b || e.byteOffset <= prevOffset) note(`#${i} byteOffset ${e.byteOffset}`);
    prevOffset = e.byteOffset;
  }
  if (origin !== undefined && BigInt(result.timeOriginUs) !== origin) note(`timeOriginUs ${result.timeOriginUs} vs ${origin}`);
  return bad;
}

function load(path: string): Buffer {
  const raw = readFileSync(path);
  return raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
}

function tokenize(bytes: Uint8Array, chunk: number): { events: RawEvent[]; diagnostics: string[] } {
  const events: RawEvent[] = [];
  const sink = new DiagnosticSink();
  const tok = createTraceTokenizer((b) => events.push(...b), sink);
  for (let i = 0; i < bytes.length; i += chunk) tok.push(bytes.subarray(i, Math.min(bytes.length, i + chunk)));
  tok.end();
  return { events, diagnostics: sink.list().map((d) => d.code) };
}

// ---------------------------------------------------------------------------------------------

describe('real H200 captures (torch 2.11) against JSON.parse', () => {
  const files = readdirSync(H200).filter((f) => f.endsWith('.pt.trace.json.gz')).sort();
  it('has the fixtures', () => expect(files.length).toBeGreaterThanOrEqual(14));

  for (const f of files) {
    it(f, async () => {
      const path = join(H200, f);
      const bytes = load(path);
      const oracle = oracleParse(bytes);
      const { events, result } = await readTraceEvents(path);
      expect(result.container).toBe(oracle.container);
      expect(result.diagnostics).toEqual([]);
      expect(result.truncated).toBe(false);
      expect(result.bytesRead).toBe(bytes.length);
      expect(Object.keys(result.header)).toEqual(Object.keys(oracle.header));
      expect(result.header).toEqual(oracle.header);
      expect(compare(bytes, oracle, events, result)).toEqual([]);
      // the same read 7 bytes at a time, through gunzip and the tokenizer (every capture under
      // `npm run test:full`, the small ones in `npm test`; gpt2_train in random chunks below)
      if (!tinyChunkRead(path)) return;
      const r7 = await readTraceEvents(path, { chunkSize: 7 });
      expect(r7.result).toEqual(result);
      expectEqual(r7.events, events);
    });
  }

  it('linear: the tokenizer fed 1 and 7 bytes at a time gives identical events', () => {
    const bytes = load(join(H200, 'linear.pt.trace.json.gz'));
    const whole = tokenize(bytes, bytes.length);
    expect(whole.events.length).toBe(oracleParse(bytes).events.length);
    expect(tokenize(bytes, 7)).toEqual(whole);
    expect(tokenize(bytes, 1)).toEqual(whole);
  });

  it('gpt2_train: random chunk sizes give identical events', () => {
    const bytes = load(join(H200, 'gpt2_train.pt.trace.json.gz'));
    const whole = tokenize(bytes, bytes.length);
    let seed = 12345;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 5000) + 1;
    const events: RawEvent[] = [];
    const tok = createTraceTokenizer((b) => events.push(...b), new DiagnosticSink());
    for (let i = 0; i < bytes.length; ) {
      const n = rnd();
      tok.push(bytes.subarray(i, Math.min(bytes.length, i + n)));
      i += n;
    }
    tok.end();
    expectEqual(events, whole.events);
  });
});

describe.skipIf(!existsSync(HTA))(`HTA test traces (${HTA}; skipped when ../shared is absent)`, () => {
  const files = existsSync(HTA)
    ? readdirSync(HTA, { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.json(\.gz)?$/.test(f))
        .sort()
    : [];

  // every one under `npm run test:full`; in `npm test` those under 1 MB (peerTraceSweep) and one
  // large one (LARGE_PEER_TRACE)
  for (const f of files) {
    it.skipIf(f !== LARGE_PEER_TRACE && !peerTraceSweep(join(HTA, f)))(f, async () => {
      const path = join(HTA, f);
      const bytes = load(path);
      let oracle: Oracle | undefined;
      try {
        oracle = oracleParse(bytes);
      } catch (e) {
        // Only a file JSON.parse itself rejects may go without an oracle (ours must still read it).
        let plainOk = true;
        try {
          JSON.parse(bytes.toString('utf8'));
        } catch {
          plainOk = false;
        }
        if (plainOk) throw e;
        oracle = undefined;
      }
      if (oracle?.notATrace) {
        // e.g. the Execution Trace (Chakra ET) beside the Kineto trace
        const err = await readTraceEvents(path).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isKinetoscopeError(err) && err.code).toBe('NOT_A_TRACE');
        return;
      }
      const { events, result } = await readTraceEvents(path);
      expect(result.eventCount).toBe(events.length);
      if (!oracle) return;
      expect(events.length).toBe(oracle.events.length);
      expect(result.diagnostics).toEqual([]);
      expect(Object.keys(result.header)).toEqual(Object.keys(oracle.header));
      expect(compare(bytes, oracle, events, result)).toEqual([]);
    });
  }

  it.skipIf(!existsSync(join(HTA, 'from_history')))('large_integer_trace: Comms Id above int64 max is exact', async () => {
    const path = join(HTA, 'from_history/large_integer_trace/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz');
    const text = load(path).toString('utf8');
    const written = /"Comms Id":\s*(\d+)/.exec(text)![1];
    expect(BigInt(written) > 2n ** 63n).toBe(true);
    const { events } = await readTraceEvents(path);
    expect(events.map((e) => e.args?.['Comms Id']).filter((v) => v !== undefined)).toEqual([written]);
  });
});
