/**
 * The model built from every H200 capture: integrity, independence from chunk boundaries,
 * and kernel ownership equal to torch's own per-event attribution (the oracle's
 * `events[].kernels`, which torch computed in-process, not from the JSON).
 */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadTrace } from '../../src/load-trace.js';
import { checkModelIntegrity } from '../../src/model/integrity.js';
import { HostKind } from '../../src/model/trace-model.js';
import { computeKernelCatalog } from '../../src/analyses/kernels/kernel-catalog.js';
import { computeProfilerTable } from '../../src/analyses/torch-table/profiler-table.js';
import { computeStepBreakdown } from '../../src/analyses/steps/step-breakdown.js';
import { H200_NAMES, HAS_HTA, HTA_DIR, h200Trace, loadModel, loadOracle, loadRawJson, openModel } from '../fixtures.js';
import { modelFingerprint } from '../model-fingerprint.js';
import { expectEqual } from '../helpers/expect-equal.js';
import { FULL_SWEEPS, TINY_READ_LARGE } from '../helpers/sweep-size.js';


describe('model of each H200 capture', () => {
  for (const name of H200_NAMES) {
    it(`${name}: integrity, counts from the raw JSON, ownership equal to torch's`, async () => {
      const m = await loadModel(h200Trace(name));
      expect(checkModelIntegrity(m)).toEqual([]);

      // Counts per category, from JSON.parse of the same file.
      const raw = loadRawJson(h200Trace(name)).traceEvents;
      const count = (cats: string[]) => raw.filter((e) => e['ph'] === 'X' && cats.includes(String(e['cat']))).length;
      // (CUPTI's `overhead` events are host events too: torch's table counts them as CPU events)
      expect(m.host.length).toBe(count(['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver', 'overhead']));
      expect(m.gpu.length).toBe(count(['kernel', 'gpu_memcpy', 'gpu_memset']));
      expect(m.python.length).toBe(count(['python_function']));
      expect(m.gpuAnnotations.length).toBe(count(['gpu_user_annotation']));
      expect(m.steps.map((s) => s.name)).toEqual(
        raw.filter((e) => String(e['name']).startsWith('ProfilerStep#')).map((e) => String(e['name'])).sort(),
      );

      // Ownership: torch's oracle lists, per CPU event, the kernels it attributed (name + duration).
      // Runtime calls and CUPTI's overhead events are excluded: torch's attribution to them is its id-collision bug.
      const oracle = loadOracle(name);
      const overhead = new Set(raw.filter((e) => e['cat'] === 'overhead').map((e) => String(e['name'])));
      const expected: string[] = [];
      for (const e of oracle.events) {
        if (e.device_type !== 'DeviceType.CPU' || /^(cuda|cu|hip)[A-Z]/.test(e.name) || overhead.has(e.name)) continue;
        for (const k of e.kernels) expected.push(`${e.name} ${Math.round(e.start_us * 1000)} ← ${k.name} ${Math.round(k.duration_us * 1000)}`);
      }
      const mine: string[] = [];
      for (let g = 0; g < m.gpu.length; g++) {
        const o = m.gpu.owner[g]!;
        if (o < 0) continue;
        mine.push(`${m.strings.get(m.host.name[o]!)} ${m.host.startNs[o]} ← ${m.strings.get(m.gpu.name[g]!)} ${m.gpu.durNs[g]}`);
      }
      // torch moves a single same-named child's kernels to its parent (_remove_dup_nodes);
      // compare the multiset of (kernel, duration) per owner name instead of exact starts there.
      const strip = (s: string) => s.replace(/ \d+ ←/, ' ←');
      expect(mine.map(strip).sort()).toEqual(expected.map(strip).sort());
      // torch 2.11: by External id; a trace with no GPU activity, or with no cpu_op, has nothing to tie by it
      const hasGpu = count(['kernel', 'gpu_memcpy', 'gpu_memset']) > 0;
      expect(m.ownerRule).toBe(!hasGpu ? 'none' : count(['cpu_op']) === 0 ? 'no-ops' : 'external-id');
    });
  }

  // Under `npm run test:full` only: in `npm test`, test/model/columnar.test.ts reads the same small
  // captures 7 bytes at a time and finds the model the whole read builds (both equal the object path's).
  it.skipIf(!FULL_SWEEPS)('is the same when the reader is fed 7 bytes at a time', async () => {
    // every capture but TINY_READ_LARGE (the next test)
    for (const name of H200_NAMES.filter((n) => n !== TINY_READ_LARGE)) {
      const whole = await loadModel(h200Trace(name));
      const tiny = await loadTrace(h200Trace(name), { chunkSize: 7 });
      expectEqual(modelFingerprint(tiny), modelFingerprint(whole), name);
    }
  });

  // a large capture in `npm test` (gpt2_train_compile), the largest under `npm run test:full`
  it(`${TINY_READ_LARGE} is the same when fed 7 bytes at a time`, async () => {
    const whole = await loadModel(h200Trace(TINY_READ_LARGE));
    const tiny = await loadTrace(h200Trace(TINY_READ_LARGE), { chunkSize: 7 });
    expectEqual(modelFingerprint(tiny), modelFingerprint(whole));
  });

  it('optional tables left out: python frames and memory records empty but counted, every other part and every analysis the same', async () => {
    for (const name of H200_NAMES) {
      // the worker's shared models: loadTrace's default, and every optional table left out (openModel keeping none)
      const full = await loadModel(h200Trace(name));
      const lean = await openModel(h200Trace(name), []);
      const raw = loadRawJson(h200Trace(name)).traceEvents;
      const memoryRecords = raw.filter((e) => e['ph'] === 'i' && (e['name'] === '[memory]' || e['name'] === '[OutOfMemory]')).length;
      expect(full.omitted).toEqual([]);
      expect(full.memory.length, name).toBe(memoryRecords);
      expect(lean.omitted).toEqual(['python', 'memory']);
      expect([lean.python.length, lean.memory.length]).toEqual([0, 0]);
      expect(checkModelIntegrity(lean)).toEqual([]);
      const { python: _p, memory: _m, ...rest } = modelFingerprint(lean);
      const { python: _fp, memory: _fm, ...fullRest } = modelFingerprint(full);
      expectEqual(rest, fullRest, name); // counts and threads included
      // The memory columns are the one thing the memory records add to the table.
      const { hasMemory: _h, rows: fullRows, ...fullTable } = computeProfilerTable(full);
      const { hasMemory: leanHas, rows: leanRows, ...leanTable } = computeProfilerTable(lean);
      expect(leanHas).toBe(false);
      expectEqual({ ...leanTable, rows: leanRows }, { ...fullTable, rows: fullRows.map(({ memory: _mem, ...r }) => r) }, name);
      expectEqual(computeStepBreakdown(lean), computeStepBreakdown(full), name);
      expectEqual(computeKernelCatalog(lean), computeKernelCatalog(full), name);
    }
    // The training trace has both tables, so the case is not vacuous.
    const gpt2 = await loadModel(h200Trace('gpt2_train'));
    expect(gpt2.python.length).toBeGreaterThan(1000);
    expect(gpt2.memory.length).toBeGreaterThan(1000);
  });

  it('time zero is the profiler span, as in torch (oracle start_us)', async () => {
    const m = await loadModel(h200Trace('linear'));
    const step2 = m.steps[0]!;
    const oracleStep = loadOracle('linear').events.find((e) => e.name === 'ProfilerStep*')!;
    expect(step2.startNs).toBe(Math.round(oracleStep.start_us * 1000));
  });

  it("GPU annotations lose Kineto's deliberate 1 ns widening: their spans equal torch's", async () => {
    for (const name of ['linear', 'geglu_mlp', 'gpt2_train']) {
      const m = await loadModel(h200Trace(name));
      const annotationNames = new Set(m.gpuAnnotations.map((a) => a.name));
      const torch = loadOracle(name)
        .events.filter((e) => e.device_type !== 'DeviceType.CPU' && annotationNames.has(e.name))
        .map((e) => Math.round((e.end_us - e.start_us) * 1000))
        .sort((a, b) => a - b);
      expect(m.gpuAnnotations.map((a) => a.durNs).sort((a, b) => a - b), name).toEqual(torch);
    }
  });

  it('a Triton kernel launched from Python belongs to no op (geglu_mlp_hand)', async () => {
    const m = await loadModel(h200Trace('geglu_mlp_hand'));
    const triton = [...Array(m.gpu.length).keys()].filter((g) => m.strings.get(m.gpu.name[g]!) === 'geglu_fwd');
    expect(triton.length).toBe(3);
    for (const g of triton) {
      expect(m.gpu.owner[g]).toBe(-1);
      expect(m.host.kind[m.gpu.launcher[g]!]).toBe(HostKind.Driver);
    }
  });
});

describe.skipIf(!HAS_HTA)("HTA's test traces (read from ../shared, never copied)", () => {
  it('trace_diff/test: 31 kernels overlap their predecessor on the same stream (docs/kineto-format.md §5.6 measured 31)', async () => {
    const m = await loadTrace(join(HTA_DIR, 'trace_diff/test/test.json.gz'));
    expect(m.diagnostics.find((d) => d.code === 'OVERLAPPING_KERNELS')?.count).toBe(31);
  });

  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.json(\.gz)?$/.test(e.name)) files.push(p);
    }
  };
  if (HAS_HTA) walk(HTA_DIR);
  // Execution Traces (`*_et.json`, PyTorch's ExecutionTraceObserver) are not Chrome traces.
  const isExecutionTrace = (f: string) => /_et\.json(\.gz)?$/.test(f);
  it.each(files.filter((f) => isExecutionTrace(f)).map((f) => [f.slice(HTA_DIR.length + 1), f]))('%s is refused as NOT_A_TRACE', async (_short, file) => {
    await expect(loadTrace(file)).rejects.toMatchObject({ code: 'NOT_A_TRACE' });
  });
  it.each(files.filter((f) => !isExecutionTrace(f)).map((f) => [f.slice(HTA_DIR.length + 1), f]))('%s builds a model that passes the integrity walk', async (_short, file) => {
    const m = await loadTrace(file);
    expect(checkModelIntegrity(m)).toEqual([]);
    expect(m.counts.events).toBeGreaterThan(0);
  });
});
