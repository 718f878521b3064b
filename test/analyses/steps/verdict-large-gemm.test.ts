/**
 * The verdict on a step dominated by one large GEMM (issue: "gpu-bound on a step dominated by
 * one large GEMM"): `linear_big`, one [8192,4096]×[4096,4096] addmm per step. The expected
 * busy share is computed here from the raw events: the GPU activities inside each step.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { computeStepBreakdown } from '../../../src/analyses/steps/step-breakdown.js';
import { loadTrace } from '../../../src/load-trace.js';
import { loadRawJson } from '../../fixtures.js';
import { TEST_DIR } from '../../helpers/paths.js';

const TRACE = join(TEST_DIR, 'fixtures/traces/h200-workloads/linear_big.pt.trace.json.gz');

it('linear_big: every step is gpu-bound, the GEMM kernel dominating its GPU time', async () => {
  const analysis = computeStepBreakdown(await loadTrace(TRACE));
  const raw = loadRawJson(TRACE).traceEvents;
  const steps = raw.filter((e) => String(e['name']).startsWith('ProfilerStep#'));
  const gpu = raw.filter((e) => ['kernel', 'gpu_memset', 'gpu_memcpy'].includes(String(e['cat'])));
  expect(analysis.steps.map((s) => s.name)).toEqual(steps.map((s) => String(s['name'])).sort());
  for (const row of analysis.steps) {
    const step = steps.find((s) => s['name'] === row.name)!;
    const [lo, hi] = [Number(step['ts']), Number(step['ts']) + Number(step['dur'])];
    const inside = gpu.filter((e) => Number(e['ts']) >= lo && Number(e['ts']) < hi);
    const gemm = inside.filter((e) => String(e['name']).startsWith('nvjet_'));
    expect(gemm).toHaveLength(1);
    const gemmUs = Number(gemm[0]!['dur']);
    const allUs = inside.reduce((s, e) => s + Number(e['dur']), 0);
    expect(gemmUs / allUs).toBeGreaterThan(0.99);
    expect(row.verdict).toBe('gpu-bound');
    expect(row.reason).toMatch(/GPU busy \d+% of the step/);
  }
});
