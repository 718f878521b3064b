/**
 * The parallel reader (worker threads over ranges of a plain file) builds the model the serial
 * reader builds, wherever the ranges are cut: tiny ranges on every capture, and traces made to
 * mislead the cut finder (`}, {"` inside strings and args, a cut in the header, a syntax error
 * or the end of the file next to a cut). Runs the built dist/ (workers load compiled JS).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { TraceModel } from '../../src/model/trace-model.js';
import type { ReadOptions } from '../../src/ingest/read-trace.js';
import type { LoadOptions } from '../../src/load-trace.js';
import { ensureBuilt } from '../build-once.js';
import { H200_NAMES, h200Trace } from '../fixtures.js';
import { modelFingerprint } from '../model-fingerprint.js';
import { expectEqual } from '../helpers/expect-equal.js';
import { FULL_SWEEPS, captureCompare, tinyChunkRead } from '../helpers/sweep-size.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
type Load = (path: string, opts?: LoadOptions) => Promise<TraceModel>;
let loadTrace: Load;
let readFileParallel: typeof import('../../src/ingest/read-parallel.js').readFileParallel;
let MODEL_ARGS_POLICY: typeof import('../../src/model/build-model.js').MODEL_ARGS_POLICY;
const tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-parallel-'));

beforeAll(async () => {
  ensureBuilt();
  loadTrace = (await import(pathToFileURL(join(ROOT, 'dist/load-trace.js')).href)).loadTrace;
  readFileParallel = (await import(pathToFileURL(join(ROOT, 'dist/ingest/read-parallel.js')).href)).readFileParallel;
  MODEL_ARGS_POLICY = (await import(pathToFileURL(join(ROOT, 'dist/model/build-model.js')).href)).MODEL_ARGS_POLICY;
});


async function outcome(p: Promise<TraceModel>): Promise<unknown> {
  try {
    return modelFingerprint(await p);
  } catch (e) {
    const x = e as { code?: string; message: string };
    return { code: x.code, message: x.message };
  }
}

const parallel = (rangeBytes: number, workers = 2): ReadOptions => ({ workers, parallel: { minBytes: 0, rangeBytes } });

async function expectSameAsSerial(path: string, rangeSizes: number[]): Promise<void> {
  const serial = await outcome(loadTrace(path, { workers: 1 }));
  for (const r of rangeSizes) expectEqual(await outcome(loadTrace(path, parallel(r, r % 2 === 0 ? 2 : 3))), serial, `${path} in ranges of ${r} bytes`);
}

describe('parallel read = serial read', () => {
  // (every capture but the four largest in `npm test`: captureCompare; gpt2_train is read on a worker below)
  for (const [k, name] of H200_NAMES.filter((n) => captureCompare(h200Trace(n))).entries()) {
    it(`${name}: ranges of a few bytes to a few hundred kB`, async () => {
      const path = join(tmp, `${name}.json`);
      writeFileSync(path, gunzipSync(readFileSync(h200Trace(name))));
      const size = readFileSync(path).length;
      // Every range size on every capture under `npm run test:full`. In `npm test` one parallel
      // read per capture (each starts its worker threads: the cost is per read): on the small
      // captures (tinyChunkRead) ranges of a few bytes and the two-range cut, every other capture
      // each; on the large ones seven ranges of a few hundred kB.
      const tiny = [size > 1e6 ? 997 : 97, 4096];
      const large = [Math.ceil(size / 7), Math.ceil(size / 2)];
      const sizes = FULL_SWEEPS ? [...tiny, ...large] : tinyChunkRead(h200Trace(name)) ? [k % 2 === 0 ? tiny[0]! : large[1]!] : [large[0]!];
      await expectSameAsSerial(path, sizes);
    });
  }

  it('gpt2_train: a worker reads the ranges and the batches reach the model in order', async () => {
    const path = join(tmp, 'gpt2_train.json');
    writeFileSync(path, gunzipSync(readFileSync(h200Trace('gpt2_train'))));
    const size = readFileSync(path).length;
    const read = async (localRanges: boolean) => {
      const perProducer: number[] = [];
      const stats = { ranges: 0, rejectedCuts: 0, parsedBy: [] as number[] };
      const r = await readFileParallel(
        path,
        size,
        'object',
        {
          producer: () => {
            const k = perProducer.push(0) - 1;
            return { register: (b) => void (perProducer[k]! += b.length), consume: () => undefined };
          },
        },
        { policy: MODEL_ARGS_POLICY, workers: 2, rangeBytes: 1 << 20, localRanges, stats },
      );
      return { r, perProducer, stats };
    };
    // Only the worker reads: every event comes from it.
    const w = await read(false);
    expect(w.perProducer).toEqual([0, w.r.eventCount]);
    expect(w.stats.parsedBy).toEqual([0, w.stats.ranges]);
    expect(w.r.bytesRead).toBe(size);
    // Both threads claim ranges (how many each gets depends on timing): every range read once.
    const b = await read(true);
    expect(b.stats.parsedBy[0]! + b.stats.parsedBy[1]!).toBe(b.stats.ranges);
    expect(b.perProducer[0]! + b.perProducer[1]!).toBe(b.r.eventCount);
    expect(b.r.eventCount).toBe(w.r.eventCount);
    // And the model built through the worker is the serial one.
    expectEqual(modelFingerprint(await loadTrace(path, { workers: 2, parallel: { minBytes: 0, rangeBytes: 1 << 20 } })), modelFingerprint(await loadTrace(path, { workers: 1 })));
    // So is the model without the optional tables (as the CLI loads).
    const omit = ['python', 'memory'] as const;
    const leanParallel = await loadTrace(path, { omit, workers: 2, parallel: { minBytes: 0, rangeBytes: 1 << 20 } });
    expect(leanParallel.python.length + leanParallel.memory.length).toBe(0);
    expectEqual(modelFingerprint(leanParallel), modelFingerprint(await loadTrace(path, { omit, workers: 1 })));
  });
});

describe('cuts that are not event boundaries', () => {
  const ev = (i: number, name = `op${i}`, extra = '') =>
    `  {\n    "ph": "X", "cat": "cpu_op", "name": ${JSON.stringify(name)}, "pid": 1, "tid": 1,\n    "ts": ${1000 + i}.5, "dur": 0.25,\n    "args": {"External id": ${i}${extra}}\n  }`;
  const events = (n: number, f: (i: number) => string = (i) => ev(i)) => Array.from({ length: n }, (_, i) => f(i)).join(',\n');
  const write = (name: string, text: string) => {
    const path = join(tmp, name);
    writeFileSync(path, text);
    return path;
  };
  const sizes = [31, 64, 150, 400, 1000];

  it('"}, {" inside names and inside args', async () => {
    const tricky = (i: number) =>
      i % 3 === 0
        ? ev(i, `lambda}, {"ph": "X"} #${i}`)
        : i % 3 === 1
          ? ev(i, `op${i}`, `, "Input Dims": [{"a": 1}, {"b": 2}], "note": "},\\n  {\\"ph\\": 1"`)
          : ev(i);
    const path = write('tricky.json', `{"traceEvents": [\n${events(60, tricky)}\n], "traceName": "t"}`);
    await expectSameAsSerial(path, sizes);
    // The misleading cuts were taken, and proved wrong.
    const stats = { ranges: 0, rejectedCuts: 0 };
    const sink = { producer: () => ({ register: () => undefined, consume: () => undefined }) };
    await readFileParallel(path, readFileSync(path).length, 'object', sink, { policy: MODEL_ARGS_POLICY, workers: 2, rangeBytes: 64, stats });
    expect(stats.ranges).toBeGreaterThan(20);
    expect(stats.rejectedCuts).toBeGreaterThan(5);
  });

  it('a header with arrays of objects before the events, keys after them', async () => {
    const devices = Array.from({ length: 8 }, (_, i) => `{\n    "id": ${i}, "name": "GPU"\n  }`).join(',\n  ');
    const text = `{"schemaVersion": 1, "deviceProperties": [\n  ${devices}\n], "traceEvents": [\n${events(40)}\n], "traceName": "x", "baseTimeNanoseconds": 1790857026000000000}`;
    await expectSameAsSerial(write('header.json', text), sizes);
  });

  it('a bare-array root', async () => {
    await expectSameAsSerial(write('array.json', `[\n${events(40)}\n]`), sizes);
  });

  it('syntax errors next to cuts, bare tokens, a truncated end', async () => {
    const broken = (i: number) => (i % 7 === 3 ? ev(i).replace('"dur": 0.25', '"dur": 0.25,,') : i % 5 === 0 ? ev(i).replace('"dur": 0.25', '"dur": inf') : ev(i));
    const text = `{"traceEvents": [\n${events(50, broken)}\n], "traceName": "x"}`;
    await expectSameAsSerial(write('broken.json', text), sizes);
    await expectSameAsSerial(write('truncated.json', text.slice(0, Math.floor(text.length * 0.8))), sizes);
    await expectSameAsSerial(write('trailing.json', `${text}\n{"more": 1}`), sizes);
  });

  it('events whose ts starts later than the first range (time origin per range)', async () => {
    const late = (i: number) => ev(i).replace(`"ts": ${1000 + i}.5`, i < 20 ? `"ts": ${1000 + i}.5` : `"ts": ${5_000_000_000 + i}.125`);
    await expectSameAsSerial(write('late.json', `{"traceEvents": [\n  {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "p"}},\n${events(40, late)}\n]}`), sizes);
  });
});
