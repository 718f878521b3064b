/**
 * `kinetoscope crop`: the cropped trace parses with JSON.parse, keeps the header, holds exactly
 * the events the crop rules pick (recomputed here from the raw JSON), and its summary is the
 * summary of those raw events; the GPU rows are checked against raw kernel sums as well.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { cropSelector, parseStepRange, parseWindow, planCrop } from '../../src/analyses/trace/crop.js';
import { computeProfilerTable } from '../../src/analyses/torch-table/profiler-table.js';
import { writeTraceSubset } from '../../src/ingest/write-subset.js';
import { loadTrace } from '../../src/load-trace.js';
import { ensureBuilt } from '../build-once.js';
import { runCli } from '../helpers/cli.js';
import { FULL_SWEEPS } from '../helpers/sweep-size.js';
import { MICRO_DIR, h200Trace, loadModel, loadRawJson } from '../fixtures.js';
import { expectEqual } from '../helpers/expect-equal.js';
import { TEST_DIR } from '../helpers/paths.js';

type Raw = { ph?: string; cat?: string; name?: string; ts?: number; dur?: number; id?: number; s?: string; args?: Record<string, unknown> };
const tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-crop-'));

const parseOut = (path: string) => {
  const b = readFileSync(path);
  return JSON.parse((b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b).toString('utf8'));
};

/** Exact ns of a µs double written with ≤ 3 decimals. */
const ns = (us: number) => Math.floor(us) * 1000 + Math.round((us - Math.floor(us)) * 1000);

/** The crop rules of analyses/trace/crop.ts, applied to the raw events of gpt2_train (what it contains). */
function expectedEvents(raw: Raw[], lo: number, hi: number): Raw[] {
  const inside = (e: Raw) => e.ts !== undefined && ns(e.ts) >= lo && ns(e.ts) < hi;
  const launch = (e: Raw) => e.ph === 'X' && (e.cat === 'cuda_runtime' || e.cat === 'cuda_driver');
  const keptCorr = new Set(raw.filter((e) => launch(e) && inside(e)).map((e) => e.args!['correlation']));
  const allCorr = new Set(raw.filter(launch).map((e) => e.args!['correlation']));
  const ann = (e: Raw) => e.ph === 'X' && e.cat === 'user_annotation';
  const keptAnn = new Set(raw.filter((e) => ann(e) && inside(e)).map((e) => e.args!['External id']));
  const flowIn = new Map<string, boolean>();
  for (const e of raw) {
    if (!['s', 'f', 't'].includes(e.ph!) || e.cat === 'ac2g') continue;
    const k = `${e.cat}/${e.id}`;
    flowIn.set(k, (flowIn.get(k) ?? true) && inside(e));
  }
  const flowCount = new Map<string, number>();
  for (const e of raw) if (['s', 'f', 't'].includes(e.ph!) && e.cat !== 'ac2g') flowCount.set(`${e.cat}/${e.id}`, (flowCount.get(`${e.cat}/${e.id}`) ?? 0) + 1);
  return raw.filter((e) => {
    if (e.ph === 'M' || (e.ph === 'X' && e.cat === 'Trace') || (e.ph === 'i' && e.s === 'g')) return true;
    if (e.ph === 'X' && ['kernel', 'gpu_memcpy', 'gpu_memset', 'cuda_sync'].includes(e.cat!)) {
      const c = e.args?.['correlation'];
      return allCorr.has(c) ? keptCorr.has(c) : inside(e);
    }
    if (e.ph === 'X' && e.cat === 'gpu_user_annotation') return keptAnn.has(e.args!['External id']);
    if (e.cat === 'ac2g') return keptCorr.has(e.id);
    if (['s', 'f', 't'].includes(e.ph!)) return flowIn.get(`${e.cat}/${e.id}`) === true && flowCount.get(`${e.cat}/${e.id}`)! >= 2;
    return inside(e);
  });
}

describe('crop gpt2_train to one step', () => {
  const src = h200Trace('gpt2_train');
  const raw = loadRawJson(src);
  const events = raw.traceEvents as Raw[];
  const step = events.find((e) => e.cat === 'user_annotation' && e.name === 'ProfilerStep#3')!;
  const lo = ns(step.ts!);
  const hi = lo + ns(step.dur!);
  const expected = expectedEvents(events, lo, hi);

  it('writes a trace JSON.parse reads, with the header and exactly the events of that step', async () => {
    const model = await loadModel(src);
    const out = join(tmp, 'step3.json.gz');
    const r = await writeTraceSubset(src, out, cropSelector(planCrop(model, { steps: [3, 3] })));
    const doc = parseOut(out);
    const { traceEvents, ...header } = doc;
    const { traceEvents: _all, ...rawHeader } = raw;
    expect(Object.keys(doc)).toEqual(Object.keys(raw));
    expect(header).toEqual(rawHeader);
    expectEqual(traceEvents, expected);
    expect(r.eventsOut).toBe(expected.length);
    expect(r.eventsIn).toBe(events.length);
    // it is a real cut: fewer events, kernels launched in the step all there
    expect(expected.length).toBeLessThan(events.length / 2);
  });

  it('a plain file read on several threads (tiny ranges) gives the same bytes and exactly the events of that step', async () => {
    ensureBuilt(); // the parallel reader's workers run the compiled JS
    const dist = (await import(pathToFileURL(join(TEST_DIR, '..', 'dist/ingest/write-subset.js')).href)) as typeof import('../../src/ingest/write-subset.js');
    const plain = join(tmp, 'gpt2_train.json');
    writeFileSync(plain, gunzipSync(readFileSync(src)));
    const select = () => cropSelector(planCrop(model, { steps: [3, 3] }));
    const model = await loadModel(src);
    const serialOut = join(tmp, 'serial.json');
    const serial = await dist.writeTraceSubset(plain, serialOut, select(), { workers: 1 });
    // ranges of 4 kB and 1 kB (10,000 cuts) under `npm run test:full`; of 64 kB and 10 kB in `npm test`
    const ranges = FULL_SWEEPS ? ([[2, 4096], [3, 997], [2, 1 << 20]] as const) : ([[2, 65536], [3, 9973], [2, 1 << 20]] as const);
    for (const [workers, rangeBytes] of ranges) {
      const out = join(tmp, `parallel-${workers}-${rangeBytes}.json`);
      const r = await dist.writeTraceSubset(plain, out, select(), { workers, parallel: { minBytes: 0, rangeBytes } });
      expect(r.eventsIn).toBe(events.length);
      expect(r.eventsOut).toBe(serial.eventsOut);
      expectEqual(parseOut(out).traceEvents, expected);
      expect(readFileSync(out).equals(readFileSync(serialOut)), `${workers} threads, ranges of ${rangeBytes} bytes`).toBe(true);
    }
  });

  it('choosing from what the model\'s load recorded (crop\'s way) gives the same bytes as choosing by reading the input again', async () => {
    ensureBuilt(); // the parallel reader's workers run the compiled JS
    const distUrl = (f: string) => pathToFileURL(join(TEST_DIR, '..', 'dist', f)).href;
    const dist = (await import(distUrl('ingest/write-subset.js'))) as typeof import('../../src/ingest/write-subset.js');
    const distLoad = (await import(distUrl('load-trace.js'))) as typeof import('../../src/load-trace.js');
    const plain = join(tmp, 'gpt2_train-recorded.json');
    writeFileSync(plain, gunzipSync(readFileSync(src)));
    const truncated = join(MICRO_DIR, 'truncated-mid-event.json');
    // the gzip file and the truncated one are loaded on this thread, the plain one on 3 threads in ranges of 9,973 bytes
    const cases = [
      { input: src, range: { steps: [3, 3] as [number, number] }, load: {} },
      { input: plain, range: { steps: [3, 3] as [number, number] }, load: { workers: 3, parallel: { minBytes: 0, rangeBytes: 9973 } } },
      { input: truncated, range: { windowUs: [-1e12, 1e12] as [number, number] }, load: {} },
    ];
    for (const [k, c] of cases.entries()) {
      const recorded = new dist.SubsetRecording();
      const m = await distLoad.loadTrace(c.input, { ...c.load, recordSubset: recorded });
      expect(recorded.read).toBeDefined();
      const again = join(tmp, `again-${k}.json`);
      const fromLoad = join(tmp, `from-load-${k}.json`);
      const a = await dist.writeTraceSubset(c.input, again, cropSelector(planCrop(m, c.range)), { workers: 1 });
      const b = await dist.writeTraceSubset(c.input, fromLoad, cropSelector(planCrop(m, c.range)), { recorded });
      expect([b.eventsIn, b.eventsOut]).toEqual([a.eventsIn, a.eventsOut]);
      expect(readFileSync(fromLoad).equals(readFileSync(again)), c.input).toBe(true);
    }
  });

  it("its summary is the original's restricted to that step", async () => {
    const out = join(tmp, 'step3.json');
    await writeTraceSubset(src, out, cropSelector(planCrop(await loadModel(src), { steps: [3, 3] })));
    const mine = computeProfilerTable(await loadTrace(out));
    const rawPath = join(tmp, 'step3-from-raw.json');
    writeFileSync(rawPath, JSON.stringify({ ...raw, traceEvents: expected }));
    const fromRaw = computeProfilerTable(await loadTrace(rawPath));
    const sortRows = (rows: typeof mine.rows) => [...rows].sort((a, b) => `${a.device}${a.name}`.localeCompare(`${b.device}${b.name}`));
    expect(sortRows(mine.rows)).toEqual(sortRows(fromRaw.rows));
    expect(mine.selfCpuTotalUs).toBeCloseTo(fromRaw.selfCpuTotalUs, 6);
    // GPU rows from the raw kernels launched in the step: calls and total per name.
    const launched = new Set(events.filter((e) => ['cuda_runtime', 'cuda_driver'].includes(e.cat!) && ns(e.ts!) >= lo && ns(e.ts!) < hi).map((e) => e.args!['correlation']));
    const byName = new Map<string, { calls: number; ns: number }>();
    for (const e of events) {
      if (!['kernel', 'gpu_memcpy', 'gpu_memset'].includes(e.cat!) || !launched.has(e.args!['correlation'])) continue;
      const a = byName.get(e.name!) ?? { calls: 0, ns: 0 };
      a.calls++;
      a.ns += ns(e.dur!);
      byName.set(e.name!, a);
    }
    const gpuRows = mine.rows.filter((r) => r.device === 'gpu' && r.category !== 'gpu_user_annotation');
    expect(gpuRows.length).toBe(byName.size);
    for (const row of gpuRows) {
      expect(row.calls, row.name).toBe(byName.get(row.name)!.calls);
      expect(row.selfDeviceUs, row.name).toBeCloseTo(byName.get(row.name)!.ns / 1000, 6);
    }
  });

  it('--window START:END over the same span writes the same file as --steps 3', async () => {
    const model = await loadModel(src);
    const s3 = model.steps.find((s) => s.number === 3)!;
    const a = join(tmp, 'a.json');
    const b = join(tmp, 'b.json');
    await writeTraceSubset(src, a, cropSelector(planCrop(model, { steps: [3, 3] })));
    await writeTraceSubset(src, b, cropSelector(planCrop(model, { windowUs: [s3.startNs / 1000, s3.endNs / 1000] })));
    expect(readFileSync(b).equals(readFileSync(a))).toBe(true);
  });

  it('steps 2-4 keep every step, and the cropped trace crops again to the same step 3', async () => {
    const model = await loadModel(src);
    const all = join(tmp, 'all.json');
    await writeTraceSubset(src, all, cropSelector(planCrop(model, { steps: [2, 4] })));
    expect((await loadTrace(all)).steps.map((s) => s.name)).toEqual(['ProfilerStep#2', 'ProfilerStep#3', 'ProfilerStep#4']);
    const again = join(tmp, 'again.json');
    await writeTraceSubset(all, again, cropSelector(planCrop(await loadTrace(all), { steps: [3, 3] })));
    expectEqual(parseOut(again).traceEvents, expected);
  });
});

describe('crop of odd inputs', () => {
  it('a truncated trace gives a complete one', async () => {
    const src = join(MICRO_DIR, 'truncated-mid-event.json');
    const out = join(tmp, 'trunc.json');
    const m = await loadTrace(src);
    await writeTraceSubset(src, out, cropSelector(planCrop(m, { windowUs: [-1e12, 1e12] })));
    expect(parseOut(out).traceEvents.length).toBe(m.counts.events);
  });

  it('ranges and windows are read strictly', () => {
    expect(parseStepRange('3-5')).toEqual([3, 5]);
    expect(parseStepRange('4')).toEqual([4, 4]);
    expect(() => parseStepRange('5-3')).toThrow(/before the first/);
    expect(() => parseStepRange('x')).toThrow(/--steps/);
    expect(parseWindow('100:250.5')).toEqual([100, 250.5]);
    expect(() => parseWindow('100')).toThrow(/START:END/);
  });
});

describe('kinetoscope crop (CLI)', () => {
  it('--json says what it wrote; the file is gzip when named .gz', async () => {
    const out = join(tmp, 'cli.json.gz');
    const r = await runCli(['crop', h200Trace('gpt2_train'), '--steps', '3-4', '-o', out, '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'output', 'steps', 'window', 'eventsIn', 'eventsOut', 'bytesOut']);
    expect(doc.steps).toEqual([3, 4]);
    expect(readFileSync(out).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(parseOut(out).traceEvents.length).toBe(doc.eventsOut);
  });

  it('exit 2 with one line for a missing step, no output, or both --steps and --window', async () => {
    const miss = await runCli(['crop', h200Trace('gpt2_train'), '--steps', '9', '-o', join(tmp, 'x.json')]);
    expect(miss.status).toBe(2);
    expect(miss.stderr).toMatch(/BAD_ARGUMENT: no step 9 in the trace; it has steps 2-4/);
    expect((await runCli(['crop', h200Trace('gpt2_train'), '--steps', '3'])).status).toBe(2);
    expect((await runCli(['crop', h200Trace('gpt2_train'), '--steps', '3', '--window', '0:1', '-o', join(tmp, 'y.json')])).status).toBe(2);
    const unwritable = await runCli(['crop', h200Trace('gpt2_train'), '--steps', '3', '-o', join(tmp, 'no/such/dir/z.json')]);
    expect(unwritable.status).toBe(2);
    expect(unwritable.stderr).toMatch(/FILE_UNWRITABLE: cannot write the cropped trace to .*z\.json \(ENOENT\)/);
  });
});
