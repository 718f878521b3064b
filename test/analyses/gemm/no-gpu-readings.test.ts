/**
 * Work under which no GPU kernel ran (linear_cpu: a CPU-only capture) has no place on a GPU
 * roofline and no epilogue: the GEMM table, the roofline and the epilogue reading say so, where a
 * capture whose GEMM ran on the GPU (linear) gets its bound and its epilogue.
 */
import { describe, expect, it } from 'vitest';
import { computeGemmTable } from '../../../src/analyses/gemm/gemm.js';
import { computeRoofline } from '../../../src/analyses/gemm/roofline.js';
import { describeEpilogue } from '../../../src/analyses/gemm/epilogues.js';
import { computeOps } from '../../../src/analyses/host/ops.js';
import { h200Trace, loadModel, loadRawJson } from '../../fixtures.js';

describe('no GPU kernel, no GPU reading', () => {
  it('linear_cpu: its addmm rows carry intensity but no bound, no attainable rate, no epilogue', async () => {
    const raw = loadRawJson(h200Trace('linear_cpu')).traceEvents;
    expect(raw.some((e) => e['cat'] === 'kernel')).toBe(false);
    const m = await loadModel(h200Trace('linear_cpu'));
    const gemm = computeGemmTable(m);
    expect(gemm.rows.length).toBeGreaterThan(0);
    for (const r of gemm.rows) {
      expect(r.meanUs).toBeUndefined();
      expect(r.arithmeticIntensity).toBeGreaterThan(0);
      expect(r.bound).toBeUndefined();
      expect(r.roof).toBeUndefined();
      expect(r.attainableTflops).toBeUndefined();
    }
    for (const r of computeRoofline(m).rows) expect(r.bound).toBeUndefined();
    const ep = computeOps(m).epilogues;
    expect(ep.length).toBeGreaterThan(0);
    for (const e of ep) {
      expect(e.carried).toEqual([]);
      expect(describeEpilogue(e)).toMatch(/no GEMM kernel ran under the op/);
    }
  });

  it('linear: the same op on the GPU keeps its bound and its epilogue', async () => {
    const m = await loadModel(h200Trace('linear'));
    const r = computeGemmTable(m).rows.find((x) => x.op === 'aten::addmm')!;
    expect(r.meanUs).toBeGreaterThan(0);
    // Under the memory roof by its intensity; a 2.7 µs kernel of 128 blocks on 132 SMs far below
    // it, so latency-bound (gemm.test.ts checks the figures).
    expect(r.roof).toBe('memory');
    expect(r.bound).toBe('latency');
    const e = computeOps(m).epilogues.find((x) => x.op === 'aten::addmm')!;
    expect(e.carried).toContain('bias');
    expect(describeEpilogue(e)).not.toMatch(/no GEMM kernel/);
  });
});
