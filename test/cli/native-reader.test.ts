/**
 * The native fast path (native/fast-events.cc) changes speed only: the tokenizer with it —
 * reading each chunk as it is pushed, or from records prescanned on another thread — hands
 * on the same rows — every number column bit for bit, every label and args column naming the
 * same labels and args, each row with the same time origin — and the same diagnostics, result
 * and errors as without it. What may differ is how the rows are numbered and cut: the
 * JavaScript reader interns labels as it reads, so it numbers the labels of a chunk's last event
 * when it finds the event incomplete, and reads a broken one at once; the native reader leaves an
 * event that runs past the chunk unread until the next chunk comes (native-reader.ts,
 * NATIVE_AT_EVENT), so its labels may be numbered later and its rows come in a later batch. The oracle is the
 * JavaScript tokenizer run on the same bytes; the inputs are every fixture, the HTA traces
 * beside the checkout, and texts mutated to hit every place the native path hands an event
 * back (escapes, non-ASCII, bare words, floats where integers are expected, args before `ph`,
 * cuts anywhere).
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '../../src/core/diagnostics.js';
import { EVENT_COLUMNS, KEEP_ALL_ARGS, type ArgsPolicy, type EventColumns } from '../../src/ingest/event-columns.js';
import type { JsonObject } from '../../src/ingest/raw-event.js';
import { nativeEventReader } from '../../src/ingest/native-loader.js';
import { readTraceColumns } from '../../src/ingest/read-trace.js';
import { createColumnarTokenizer } from '../../src/ingest/tokenizer.js';
import { MODEL_ARGS_POLICY } from '../../src/model/build-model.js';
import { H200_DIR, HAS_HTA, HTA_DIR, MICRO_DIR } from '../fixtures.js';
import { lcg } from '../random.js';
import { captureCompare, FULL_SWEEPS, peerTraceCompare, sweepSize, tinyChunkRead } from '../helpers/sweep-size.js';

/** Mutated texts compared between the readers: 45 in `npm test`, 600 in `npm run test:full`. */
const MUTATIONS = sweepSize(45, 600);

const NATIVE = nativeEventReader();
if (NATIVE === undefined) console.warn('the native reader is not built (npm install builds it with node-gyp): its tests are skipped.');

const NUMBER_COLUMNS = EVENT_COLUMNS.filter((c) => c.holds === 'number' || c.holds === 'offset').map((c) => c.name);
/** Label ids (negative: none, kept as they are). */
const LABEL_COLUMNS = EVENT_COLUMNS.filter((c) => c.holds === 'label').map((c) => c.name);

interface Run {
  /** Per column, over all the run's rows: a number column's bytes in hex, a label column's labels, the rows' args and time origins. */
  columns: Map<string, string[]>;
  rows: number;
  diagnostics: string;
  result: string;
}

/** JSON.stringify's replacer that tells −0, NaN and the infinities apart, and each value's type. */
function exactly(_key: string, v: unknown): unknown {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0 (number)' : Number.isFinite(v) ? v : `${v} (number)`;
  if (typeof v === 'string') return `"${v}"`;
  return v;
}

function bytesOf(a: Int32Array | Float64Array | undefined): string {
  return a === undefined ? '-' : Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');
}

/**
 * `native`: 'off' (the JavaScript reader), 'sync' (the native reader reading each chunk as it is
 * pushed) or 'prescan' (each chunk prepared three ahead, as readTrace does: its events read
 * on the prescan thread, or on this one when it gets there first).
 */
function recorder(run: Pick<Run, 'columns' | 'rows'>): (b: EventColumns) => void {
  const labels: string[] = [];
  const args: JsonObject[] = [];
  const add = (column: string, text: string) => {
    let parts = run.columns.get(column);
    if (parts === undefined) run.columns.set(column, (parts = []));
    parts.push(text);
  };
  return (b) => {
    labels.push(...b.newLabels);
    args.push(...b.newArgs);
    if (b.length === 0) return;
    for (const c of NUMBER_COLUMNS) add(c, b[c] === undefined ? '' : bytesOf(b[c]));
    for (const c of LABEL_COLUMNS) add(c, Array.from(b[c], (id) => JSON.stringify(id < 0 ? id : (labels[id] ?? `unknown label ${id}`))).join(','));
    add('args', Array.from(b.args, (id) => JSON.stringify(id < 0 ? id : (args[id] ?? `unknown args ${id}`), exactly)).join(','));
    add('origin', `${b.originUs},`.repeat(b.length));
    run.rows += b.length;
  };
}

/** A file read by readTraceColumns: with the native reader built, its own thread reads a plain regular file (readFile). */
async function readFileColumns(path: string, chunk: number, policy: ArgsPolicy, offsets: boolean): Promise<Run> {
  const run = { columns: new Map<string, string[]>(), rows: 0 };
  const sink = new DiagnosticSink();
  let result: string;
  try {
    const r = await readTraceColumns(path, recorder(run), { policy, offsets, chunkSize: chunk, diagnostics: sink });
    const { diagnostics: _, ...rest } = r;
    result = JSON.stringify(rest);
  } catch (e) {
    result = `error ${(e as Error).message}`;
  }
  return { ...run, diagnostics: JSON.stringify(sink.list()), result };
}

function tokenize(text: Uint8Array, chunk: number, policy: ArgsPolicy, offsets: boolean, native: 'off' | 'sync' | 'prescan'): Run {
  const run = { columns: new Map<string, string[]>(), rows: 0 };
  const sink = new DiagnosticSink();
  const onColumns = recorder(run);
  let result: string;
  try {
    const tok = createColumnarTokenizer(onColumns, sink, { policy, offsets, native: native === 'off' ? undefined : NATIVE });
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < text.length; i += chunk) chunks.push(text.subarray(i, Math.min(text.length, i + chunk)));
    const ahead = native === 'prescan' ? 3 : 0;
    for (let k = 0; k < Math.min(ahead, chunks.length); k++) tok.prepare(chunks[k]!);
    chunks.forEach((c, k) => {
      if (ahead > 0 && k + ahead < chunks.length) tok.prepare(chunks[k + ahead]!);
      tok.push(c);
    });
    result = JSON.stringify(tok.end());
  } catch (e) {
    result = `error ${(e as Error).message}`;
  }
  return { ...run, diagnostics: JSON.stringify(sink.list()), result };
}

/** The JavaScript reader and the native one (read as chunks are pushed, or prescanned) on one text; the first difference, if any, as a short message. */
function compare(text: Uint8Array, chunk: number, policy: ArgsPolicy, offsets: boolean): string | undefined {
  const js = tokenize(text, chunk, policy, offsets, 'off');
  for (const how of ['sync', 'prescan'] as const) {
    const diff = differ(js, tokenize(text, chunk, policy, offsets, how));
    if (diff !== undefined) return `${how}: ${diff}`;
  }
  return undefined;
}

function differ(js: Run, nat: Run): string | undefined {
  if (js.result !== nat.result) return `result: ${js.result.slice(0, 200)} ≠ ${nat.result.slice(0, 200)}`;
  if (js.diagnostics !== nat.diagnostics) return `diagnostics: ${js.diagnostics.slice(0, 300)} ≠ ${nat.diagnostics.slice(0, 300)}`;
  if (js.rows !== nat.rows) return `rows: ${js.rows} ≠ ${nat.rows}`;
  for (const [column, parts] of js.columns) {
    // Batches cut differently join to the same text: hex digits, or values each followed by `,`.
    const a = parts.join(column === 'origin' || NUMBER_COLUMNS.includes(column as never) ? '' : ',');
    const b = (nat.columns.get(column) ?? []).join(column === 'origin' || NUMBER_COLUMNS.includes(column as never) ? '' : ',');
    if (a === b) continue;
    let i = 0;
    while (a[i] === b[i]) i++;
    return `${column} from character ${i}: ${a.slice(i, i + 120)} ≠ ${b.slice(i, i + 120)}`;
  }
  return undefined;
}

function readText(path: string): Uint8Array {
  const raw = readFileSync(path);
  if (raw[0] !== 0x1f || raw[1] !== 0x8b) return new Uint8Array(raw);
  try {
    return new Uint8Array(gunzipSync(raw));
  } catch {
    return new Uint8Array(raw); // a broken gzip: its bytes as they are (both paths say NOT_JSON)
  }
}

const POLICIES: [string, ArgsPolicy][] = [
  ['model policy', MODEL_ARGS_POLICY],
  ['every args kept', KEEP_ALL_ARGS],
];

function files(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)).map((g) => join(f, g)) : [f]))
    .filter((f) => /\.(json|json\.gz|trace|txt)$/.test(f) && !f.endsWith('.table.txt') && !f.includes('oracle') && !f.endsWith('MANIFEST.md'));
}

describe.skipIf(NATIVE === undefined)('the native fast path reads as the JavaScript tokenizer does', () => {
  const h200 = files(H200_DIR).map((f) => join(H200_DIR, f));
  const micro = files(MICRO_DIR).map((f) => join(MICRO_DIR, f));

  // Every chunking of every capture under `npm run test:full`; in `npm test` the small ones
  // (tinyChunkRead) whole and in 4099-byte chunks, the large ones whole (the plain-file test
  // below reads gpt2_train and the micro fixtures in 64 KiB chunks).
  // (every capture but the four largest in `npm test`: captureCompare)
  it.each(h200.filter(captureCompare).map((p) => [p.slice(H200_DIR.length + 1), p]))('%s: whole, in 64 KiB and in 4099-byte chunks, both policies, with offsets', (_, path) => {
    const text = readText(path);
    for (const [, policy] of POLICIES) {
      for (const chunk of FULL_SWEEPS ? [text.length, 65536, 4099] : tinyChunkRead(path) ? [text.length, 4099] : [text.length]) expect(compare(text, chunk, policy, chunk === 4099)).toBeUndefined();
    }
  });

  it('every micro fixture (the repairs and errors), whole and byte by byte', () => {
    expect(micro.length).toBeGreaterThan(30);
    for (const path of micro) {
      const text = readText(path);
      for (const [, policy] of POLICIES) {
        for (const chunk of [text.length, 1, 13]) {
          const diff = compare(text, chunk, policy, chunk === 13);
          expect(diff, `${path} in ${chunk}-byte chunks`).toBeUndefined();
        }
      }
    }
  });

  it('a plain file read on the native reader\u2019s own thread (readTraceColumns on a path): the JavaScript reader\u2019s batches, results and errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ks-native-file-'));
    try {
      const plain = micro.filter((p) => readFileSync(p)[0] !== 0x1f);
      expect(plain.length).toBeGreaterThan(30);
      for (const name of ['geglu_mlp', 'gpt2_train']) {
        const path = join(dir, `${name}.json`);
        writeFileSync(path, readText(join(H200_DIR, `${name}.pt.trace.json.gz`)));
        plain.push(path);
      }
      let compared = 0;
      for (const path of plain) {
        const text = new Uint8Array(readFileSync(path));
        for (const chunk of [65536, 4099, 97]) {
          if (chunk === 97 && text.length > 1e6) continue;
          // gpt2_train in 4099-byte chunks under `npm run test:full` only (the micro fixtures take them in `npm test`)
          if (chunk === 4099 && text.length > 1e6 && !FULL_SWEEPS) continue;
          const policy = POLICIES[compared % 2]![1];
          const offsets = compared % 3 === 0;
          const want = tokenize(text, chunk, policy, offsets, 'off');
          const got = await readFileColumns(path, chunk, policy, offsets);
          const wantResult = withoutDiagnostics(want.result);
          expect(got.result, `${path} in ${chunk}-byte chunks`).toBe(wantResult);
          expect(differ({ ...want, result: wantResult }, got), `${path} in ${chunk}-byte chunks`).toBeUndefined();
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(process.platform === 'win32')('a named pipe (no seeking) is read in order, as the JavaScript reader reads it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ks-native-fifo-'));
    try {
      const fifo = join(dir, 'trace.json');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const text = readText(join(H200_DIR, 'geglu_mlp.pt.trace.json.gz'));
      createWriteStream(fifo).end(text);
      const got = await readFileColumns(fifo, 4099, MODEL_ARGS_POLICY, false);
      const want = tokenize(text, 4099, MODEL_ARGS_POLICY, false, 'off');
      const wantResult = withoutDiagnostics(want.result);
      expect(got.result).toBe(wantResult);
      expect(differ({ ...want, result: wantResult }, got)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // every one under `npm run test:full`, those under 200 kB in `npm test` (peerTraceCompare); there
  // each is read whole, its 64 KiB chunks only under `npm run test:full` (the captures above and
  // the plain-file test cut every chunking in `npm test`)
  it.skipIf(!HAS_HTA)('every HTA trace, whole and in 64 KiB chunks', () => {
    const hta = existsSync(HTA_DIR) ? files(HTA_DIR).filter((f) => /\.json(\.gz)?$/.test(f)) : [];
    expect(hta.length).toBeGreaterThan(20);
    for (const f of hta.filter((f) => peerTraceCompare(join(HTA_DIR, f)))) {
      const text = readText(join(HTA_DIR, f));
      for (const chunk of FULL_SWEEPS ? [text.length, 65536] : [text.length]) expect(compare(text, chunk, MODEL_ARGS_POLICY, false), `${f} in ${chunk}-byte chunks`).toBeUndefined();
    }
  });

  it('tricky times: both readers turn every ts and dur into the same ns (time-text.ts, native/json-scan.h)', () => {
    // Plain decimals the native reader takes, and what it hands back (exponents, a sign, past
    // 2^53 µs, many decimals, strings, bare words): the rows must not tell which reader read them.
    const times = [
      '0', '-0', '0.0005', '-0.0005', '0.00049', '1.9995', '1.99949', '1.', '01.5', '-12.3456',
      '5087152102924.568', '5087152102924.5685', '5087152102924.56849999', '5087152102924.999999',
      '1e3', '1.5E-3', '-2.5e+1', '5.087152102924568e12', '123.4567890123456789',
      '9007199254740991', '9007199254740992', '9007199254740993.5', '-9007199254740993', '12345678901234567890.123',
      '"12.5"', '" 7 "', '"x"', 'null', 'inf', '-inf', 'NaN',
    ];
    const event = (ts: string, dur: string) => `{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ${ts}, "dur": ${dur}, "args": {"correlation": 1}}`;
    for (const first of ['5087152085809.922', '5.087152085809922e12', '"5087152085809.9"', '-3.5']) {
      const events = [event(first, '1')];
      for (const [i, t] of times.entries()) events.push(event(t, times[(i * 7 + 3) % times.length]!));
      const text = new TextEncoder().encode(`{"traceEvents": [\n${events.join(',\n')}\n]}`);
      for (const [, policy] of POLICIES) {
        for (const chunk of [text.length, 7, 64]) expect(compare(text, chunk, policy, chunk === 7), `origin ${first} in ${chunk}-byte chunks`).toBeUndefined();
      }
    }
  });

  it(`${MUTATIONS} mutated texts: every way an event is handed back, cut anywhere`, () => {
    // Events as Kineto writes them, then edits that the fast path must hand back or take alike.
    const base = readText(join(H200_DIR, 'geglu_mlp.pt.trace.json.gz'));
    const source = new TextDecoder().decode(base);
    const edits: ((s: string, r: () => number) => string)[] = [
      (s, r) => at(s, r, '"name": "', '"name": "\\u00e9\\"x'),
      (s, r) => at(s, r, '"name": "', '"name": "é'),
      (s, r) => at(s, r, '"ts": ', '"ts": 1e3+'),
      (s, r) => at(s, r, '"ts": ', '"ts": -'),
      (s, r) => at(s, r, '"dur": ', '"dur": 1.23456789'),
      (s, r) => at(s, r, '"pid": ', '"pid": "12"'.slice(0, 7) + '"'),
      (s, r) => at(s, r, '"tid": ', '"tid": 0x'),
      (s, r) => at(s, r, '"External id": ', '"External id": 1.5, "x": '),
      (s, r) => at(s, r, '"correlation": ', '"correlation": "7", "c": '),
      (s, r) => at(s, r, '"args": {', '"args": {"v": [1, [2, {"a": null}], true, false, -0.5e-3], '),
      (s, r) => at(s, r, '"args": {', '"args": {"bad": inf, '),
      (s, r) => at(s, r, '"args": {', '"args": {"bad": NaN, '),
      (s, r) => at(s, r, '{"ph": ', '{"args": {"a": 1}, "ph": '),
      (s, r) => at(s, r, '"ph": "X", "cat": "', '"cat": "'),
      (s, r) => at(s, r, ', "', ' ,\n\t"'),
      (s, r) => at(s, r, '}, {', '},, {'),
      (s, r) => at(s, r, '}, {', '} {'),
      (s, r) => at(s, r, '"cat": "', '"cat": "new_cat_'),
      (s, r) => at(s, r, '"name": "', `"name": "n${Math.floor(r() * 5)}`),
      (s, r) => at(s, r, '"s": "', '"s"  :  "'),
      (s, r) => at(s, r, '"id": ', '"id": "0x1f"'.slice(0, 6) + '"0x1f", "q": '),
      (s, r) => at(s, r, '"Ev Idx": ', '"Ev Idx": 999999999999999999, "z": '),
      (s, r) => at(s, r, '"args": {', '"args": {"a\\"b": 1, '),
      (s, r) => at(s, r, '"Input Dims": [', `"Input Dims": [${['-0', '1e400', '-1.5e-7', '12345678901234567', '9007199254740993', '0.1', '1E5', '"12345678901234567"'][Math.floor(r() * 8)]}, `),
      (s, r) => at(s, r, '"Concrete Inputs": [', '"Concrete Inputs": [-0, 1.0, 2e2, [], {}, {"k": [null, true]}, '),
      (s, r) => at(s, r, '"Input type": [', `"Input type": [${['[1, 2,]', '{"a": 1,}', '1.', '01', '-0.0e0'][Math.floor(r() * 5)]}, `),
      (s, r) => at(s, r, ', "', ', "\u0001'),
      (s, r) => s.slice(0, Math.floor(r() * s.length)),
    ];
    const rand = lcg(20261201);
    let compared = 0;
    for (let k = 0; k < MUTATIONS; k++) {
      let s = source;
      const n = 1 + Math.floor(rand() * 4);
      for (let e = 0; e < n; e++) s = edits[Math.floor(rand() * edits.length)]!(s, rand);
      const text = new TextEncoder().encode(s);
      const chunk = [text.length, 1 + Math.floor(rand() * 300), 4096][k % 3]!;
      const policy = POLICIES[k % 2]![1];
      const diff = compare(text, chunk, policy, k % 5 === 0);
      expect(diff, `mutation ${k} (chunks of ${chunk})`).toBeUndefined();
      compared++;
    }
    expect(compared).toBe(MUTATIONS);
  });
});

/** A tokenizer's result as readTraceColumns reports it: without its diagnostics (they are the sink's). */
function withoutDiagnostics(result: string): string {
  if (result.startsWith('error')) return result;
  const { diagnostics: _, ...rest } = JSON.parse(result) as { diagnostics: unknown };
  return JSON.stringify(rest);
}

/** s with the occurrence of `find` nearest a random place replaced by `by`. */
function at(s: string, r: () => number, find: string, by: string): string {
  const i = s.indexOf(find, Math.floor(r() * s.length));
  const j = i >= 0 ? i : s.indexOf(find);
  return j < 0 ? s : s.slice(0, j) + by + s.slice(j + find.length);
}
