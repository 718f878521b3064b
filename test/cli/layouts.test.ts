/**
 * Memory formats (issue 40 item 4) against the raw events: the NCHW↔NHWC transposes' µs per step
 * summed here by kernel name from the raw JSON, each kernel counted in the profiler step whose span
 * holds its launch call (the runtime/driver event of the same correlation); the NCHW batch-norm
 * kernels found here from the ops' recorded Input Strides and the kernels' External ids; the
 * channels_last stake recomputed from those sums and the H200's 4,800 GB/s. And silence where the
 * cause is absent: no convolution (gpt2_train), NHWC convolutions (the compiled CNN: Inductor hands
 * cuDNN channels_last tensors).
 */
import { describe, expect, it } from 'vitest';
import { computeLayouts, memoryFormatOf } from '../../src/analyses/layouts/memory-format.js';
import { context } from '../../src/analyses/explain/context.js';
import { rankActions } from '../../src/analyses/explain/actions/index.js';
import { channelsLastActions } from '../../src/analyses/explain/actions/channels-last.js';
import { h200Trace, loadModel, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

interface RawEvent {
  ph?: string;
  cat?: string;
  name: string;
  ts: number;
  dur: number;
  tid: number | string;
  args?: Record<string, unknown>;
}

const H200_BANDWIDTH_GBS = 4800;
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-6 * Math.max(1, Math.abs(b)));

/** The raw events, their profiler steps, and per GPU activity the step its launch call started in (-1: none). */
function rawSteps(name: string) {
  const events = (loadRawJson(h200Trace(name)).traceEvents as unknown as RawEvent[]).filter((e) => e.ph === 'X');
  const steps = events.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name)).sort((a, b) => a.ts - b.ts);
  const launches = new Map<unknown, RawEvent>();
  for (const e of events) if (e.cat === 'cuda_runtime' || e.cat === 'cuda_driver') launches.set(e.args?.['correlation'], e);
  const gpu = events.filter((e) => e.cat === 'kernel' || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset');
  const stepOf = (g: RawEvent) => {
    const l = launches.get(g.args?.['correlation']);
    const t = l ? l.ts : g.ts;
    return steps.findIndex((s) => t >= s.ts && t < s.ts + s.dur);
  };
  const inSteps = gpu.filter((g) => stepOf(g) >= 0);
  return { events, steps, inSteps };
}

describe('memoryFormatOf: the format from recorded strides', () => {
  it('contiguous is NCHW, channels_last is NHWC, size-1 dims take any stride, one channel says nothing', () => {
    expect(memoryFormatOf([64, 128, 32, 32], [131072, 1024, 32, 1])).toBe('nchw');
    expect(memoryFormatOf([64, 128, 32, 32], [131072, 1, 4096, 128])).toBe('nhwc');
    expect(memoryFormatOf([1, 128, 32, 32], [7, 1, 4096, 128])).toBe('nhwc');
    expect(memoryFormatOf([64, 128, 32, 32], [131072, 32, 4096, 1])).toBe('other');
    expect(memoryFormatOf([64, 1, 32, 32], [1024, 1024, 32, 1])).toBeUndefined();
    expect(memoryFormatOf([64, 128], [128, 1])).toBeUndefined();
  });
});

describe('layouts: cnn_train (NCHW convolutions and batch norm, fp16 autocast)', async () => {
  const { events, steps, inSteps } = rawSteps('cnn_train');
  const model = await loadModel(h200Trace('cnn_train'));
  const l = computeLayouts(model);
  const n = steps.length;

  it('the transposes: µs per step by kernel name, from the kernels launched in the steps', () => {
    expect(n).toBe(3);
    const toNhwc = inSteps.filter((k) => k.cat === 'kernel' && /nchwToNhwcKernel/.test(k.name));
    const toNchw = inSteps.filter((k) => k.cat === 'kernel' && /nhwcToNchwKernel/.test(k.name));
    expect(toNhwc.length + toNchw.length).toBeGreaterThan(0);
    const sum = (ks: RawEvent[]) => ks.reduce((s, k) => s + k.dur, 0);
    const byConversion = (c: string) => l.conversions.filter((x) => x.conversion === c).reduce((s, x) => s + x.usPerStep, 0);
    close(byConversion('nchw→nhwc'), sum(toNhwc) / n);
    close(byConversion('nhwc→nchw'), sum(toNchw) / n);
    close(l.formatConversionUsPerStep, (sum(toNhwc) + sum(toNchw)) / n);
    expect(l.conversions.reduce((s, x) => s + x.callsPerStep, 0)).toBe((toNhwc.length + toNchw.length) / n);
    close(l.gpuUsPerStep, sum(inSteps) / n);
    // 15.5% of the steps' GPU time (280.1 µs of 1.806 ms per step)
    expect(l.formatConversionUsPerStep / l.gpuUsPerStep).toBeCloseTo(0.155, 3);
  });

  it('the NCHW batch norms: ops whose input strides are contiguous 4-D, their kernels by External id, least bytes from the dims', () => {
    const norms = events.filter((e) => e.cat === 'cpu_op' && (e.name === 'aten::cudnn_batch_norm' || e.name === 'aten::cudnn_batch_norm_backward'));
    expect(norms.length).toBeGreaterThan(0);
    let us = 0;
    let floorAbove = 0;
    for (const op of norms) {
      const [n0, c, h, w] = (op.args!['Input Dims'] as number[][])[0]!;
      const strides = (op.args!['Input Strides'] as number[][])[0]!;
      expect(strides).toEqual([c! * h! * w!, h! * w!, w!, 1]); // every one NCHW in this capture
      const ks = inSteps.filter((k) => k.cat === 'kernel' && k.args?.['External id'] === op.args!['External id']);
      const t = ks.reduce((s, k) => s + k.dur, 0);
      us += t;
      if (!ks.length) continue;
      const bytes = (op.name === 'aten::cudnn_batch_norm' ? 2 : 3) * n0! * c! * h! * w! * 2; // fp16
      floorAbove += Math.max(0, t - bytes / (H200_BANDWIDTH_GBS * 1e3));
    }
    close(l.nchwNormUsPerStep, us / n);
    // The stake: the transposes plus the batch norms' time above their bandwidth floor (each
    // kernel name's calls summed before the floor is taken off, so per name here as well).
    expect(l.channelsLast).toBeDefined();
    close(l.channelsLast!.conversionsUs, l.formatConversionUsPerStep);
    expect(l.channelsLast!.normAboveFloorUs).toBeCloseTo(floorAbove / n, 3);
    close(l.channelsLast!.atStakeUs, l.channelsLast!.conversionsUs + l.channelsLast!.normAboveFloorUs);
    expect(l.nchwConvCallsPerStep).toBe(6);
    expect(l.nhwcConvCallsPerStep).toBe(0);
  });

  it('the channels-last action: that GPU time as an upper bound, and what it takes off the host-bound steps\' critical paths', () => {
    const c = context({ label: 'cnn_train', model });
    const [a] = channelsLastActions(c);
    expect(a).toBeDefined();
    expect(a!.id).toBe('channels-last');
    expect(a!.bound).toBe('upper-bound');
    close(a!.sentence.numbers['gpuUs'] as number, l.channelsLast!.atStakeUs);
    // The steps are host-bound (GPU busy 1.8 ms of ~4.1 ms): on their critical paths the step
    // shortens by less than the GPU time saved, and by something.
    expect(a!.atStakeUs).toBeGreaterThan(0);
    expect(a!.atStakeUs).toBeLessThan(0.5 * l.channelsLast!.atStakeUs);
    // the share of the mean step (explain/actions/step-share.ts): the steps' time over their count
    const meanStep = steps.reduce((t, s) => t + s.dur, 0) / steps.length;
    close(a!.stepShare, a!.atStakeUs / meanStep);
    expect(rankActions(c).advice.map((x) => x.id)).toContain('channels-last');
  });

  it('kernels prints the reading after its table, and --json carries it', async () => {
    const r = await runCli(['kernels', h200Trace('cnn_train')]);
    expect(r.stdout).toMatch(/cuDNN transposed NCHW↔NHWC around its convolutions: 280\.127 µs \(15\.5% of the GPU time\)/);
    expect(r.stdout).toMatch(/channels_last .* puts up to 932\.159 µs per step at stake/);
    const j = await runCli(['kernels', h200Trace('cnn_train'), '--json']);
    const doc = JSON.parse(j.stdout) as { layouts: { channelsLast: { atStakeUs: number } | null } };
    expect(doc.layouts.channelsLast?.atStakeUs).toBeCloseTo(l.channelsLast!.atStakeUs, 2);
  });
});

describe('layouts: silent where the cause is absent', () => {
  it('gpt2_train (no convolution): no cuDNN transpose, no NCHW batch norm, no channels_last advice', async () => {
    const model = await loadModel(h200Trace('gpt2_train'));
    const l = computeLayouts(model);
    expect(l.conversions.filter((x) => x.source === 'cudnn-transpose')).toHaveLength(0);
    expect(l.nchwNorm).toHaveLength(0);
    expect(l.channelsLast).toBeUndefined();
    expect(channelsLastActions(context({ label: 'gpt2_train', model }))).toHaveLength(0);
  });

  it('cnn_train_compile (Inductor gives cuDNN NHWC tensors): every convolution NHWC, no transpose, no advice', async () => {
    const { events } = rawSteps('cnn_train_compile');
    expect(events.some((e) => e.cat === 'kernel' && /nchwToNhwc|nhwcToNchw/.test(e.name))).toBe(false);
    const model = await loadModel(h200Trace('cnn_train_compile'));
    const l = computeLayouts(model);
    expect(l.nchwConvCallsPerStep).toBe(0);
    expect(l.nhwcConvCallsPerStep).toBeGreaterThan(0);
    expect(l.channelsLast).toBeUndefined();
    expect(channelsLastActions(context({ label: 'cnn_train_compile', model }))).toHaveLength(0);
  });
});
