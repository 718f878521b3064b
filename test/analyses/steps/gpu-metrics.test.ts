/**
 * Communication kernels (by name, case-insensitively, and by NCCL args) and the Communication
 * part of the step breakdown, on HTA's NCCL trace (2 ranks, all_reduce/broadcast; read from
 * ../shared, skipped when absent). Expected figures come from the raw events.
 */
import { describe, expect, it } from 'vitest';
import { classifyKernels } from '../../../src/analyses/steps/gpu-metrics.js';
import { isCommunicationKernelName } from '../../../src/analyses/facts/gpu-work-type.js';
import { mergeUnion, unionLengthInNs, unionOfMerged } from '../../../src/analyses/helpers/intervals.js';
import { computeStepBreakdown } from '../../../src/analyses/steps/step-breakdown.js';
import { loadTrace } from '../../../src/load-trace.js';
import { GpuKind } from '../../../src/model/trace-model.js';
import { HAS_HTA, HTA_DIR, loadRawJson } from '../../fixtures.js';

type Raw = { name: string; cat?: string; ph?: string; ts: number; dur: number; args?: Record<string, unknown> };

describe('communication kernel names', () => {
  it('NCCL ≤2.18 and ≥2.19, RCCL, any case; not ATen or copies', () => {
    for (const n of [
      'ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)',
      'ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
      'ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)',
      'NCCLKERNEL_SENDRECV',
      'rcclGenericKernel<1, false>',
      'void ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)',
    ]) {
      expect(isCommunicationKernelName(n), n).toBe(true);
    }
    for (const n of ['void at::native::reduce_kernel<512, 1>', 'Memcpy DtoD (Device -> Device)', 'nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT', 'triton_poi_fused_all_reduce_0']) {
      expect(isCommunicationKernelName(n), n).toBe(false);
    }
  });
});

describe('interval unions', () => {
  it('merge touching and nested intervals, survive a negative duration, and clip to a window', () => {
    const u = mergeUnion(Float64Array.from([10, 0, 5, 30, 40]), Float64Array.from([20, 5, 8, 35, 39]));
    expect([...u.starts]).toEqual([0, 10, 30, 40]);
    expect([...u.ends]).toEqual([8, 20, 35, 40]);
    expect(unionLengthInNs(u, 4, 32)).toBe(4 + 10 + 2);
    const v = unionOfMerged(u, mergeUnion(Float64Array.from([19, 100]), Float64Array.from([31, 101])));
    expect([...v.starts]).toEqual([0, 10, 40, 100]);
    expect([...v.ends]).toEqual([8, 35, 40, 101]);
  });
});

describe.skipIf(!HAS_HTA)("HTA's NCCL trace (nccl_parser_config)", () => {
  const path = `${HTA_DIR}/nccl_parser_config/nccl_data.json.gz`;

  it('every NCCL kernel is communication and nothing else is', async () => {
    const m = await loadTrace(path);
    const classes = classifyKernels(m);
    const raw = (loadRawJson(path).traceEvents as Raw[]).filter((e) => e.ph === 'X' && e.cat === 'kernel');
    const want = raw.filter((e) => /nccl/i.test(e.name) || (e.args && 'Collective name' in e.args)).length;
    let got = 0;
    for (let g = 0; g < m.gpu.length; g++) if (m.gpu.kind[g] === GpuKind.Kernel && classes.communication[g]) got++;
    expect(want).toBe(21);
    expect(got).toBe(want);
  });

  it("the Communication part is the NCCL kernels and nccl:* host spans not under a compute kernel, memcpy or memset", async () => {
    const a = computeStepBreakdown(await loadTrace(path));
    const raw = (loadRawJson(path).traceEvents as Raw[]).filter((e) => e.ph === 'X');
    const ns = (e: Raw): [number, number] => {
      const s = Math.round(e.ts * 1000);
      return [s, s + Math.round(e.dur * 1000)];
    };
    const comm = raw.filter((e) => (e.cat === 'kernel' && /nccl/i.test(e.name)) || ((e.cat === 'cpu_op' || e.cat === 'user_annotation') && /^(nccl|gloo):/.test(e.name))).map(ns);
    const above = raw.filter((e) => (e.cat === 'kernel' && !/nccl/i.test(e.name)) || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset').map(ns);
    const steps = raw.filter((e) => e.name.startsWith('ProfilerStep#')).sort((x, y) => x.ts - y.ts);
    expect(a.steps.map((s) => s.name)).toEqual(steps.map((e) => e.name));
    let total = 0;
    steps.forEach((st, k) => {
      const [lo, hi] = ns(st);
      // |comm \ above| inside the step, by elementary segments.
      const cuts = [...new Set([lo, hi, ...comm.flat(), ...above.flat()].filter((t) => t >= lo && t <= hi))].sort((x, y) => x - y);
      let want = 0;
      for (let j = 0; j + 1 < cuts.length; j++) {
        const mid = (cuts[j]! + cuts[j + 1]!) / 2;
        const inComm = comm.some(([s, e]) => s <= mid && mid < e);
        const inAbove = above.some(([s, e]) => s <= mid && mid < e);
        if (inComm && !inAbove) want += cuts[j + 1]! - cuts[j]!;
      }
      expect(Math.abs(a.steps[k]!.breakdown.communicationUs * 1000 - want)).toBeLessThanOrEqual(2);
      total += want;
    });
    expect(total).toBeGreaterThan(0);
  });
});

describe('mergeUnion with unreadable times', () => {
  it('leaves NaN intervals out instead of looping', () => {
    const u = mergeUnion(Float64Array.from([0, NaN, 10]), Float64Array.from([5, 3, NaN]));
    expect(Array.from(u.starts)).toEqual([0]);
    expect(Array.from(u.ends)).toEqual([5]);
  });
});
