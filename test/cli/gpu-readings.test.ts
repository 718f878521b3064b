/**
 * The roofline's GPU readings against the raw events (issue 37's "what matters most is missed",
 * issue 40 item 4): every figure recomputed here from the raw JSON — FLOPs from Input Dims with the
 * formulas, bytes as each operand read once and each result written once, kernel time by External
 * id, per step over the profiler steps, the H200's datasheet peaks (fp32 67.0, TF32 494.5, bf16
 * and fp16 989.5 TFLOP/s, 4,800 GB/s) — never against kinetoscope's earlier output.
 * - a conv row's time split into the layout transposes and the compute kernels (cnn_train);
 * - far below both roofs is latency-bound, and the action names it with its time at stake;
 * - fp32 matrix math told the device's own TF32 and bf16 peaks, with the time at stake
 *   (relu_mlp_fp32), and silence on bf16 work (mlp_train) and where nothing is far below (relu_mlp_fp32).
 */
import { describe, expect, it } from 'vitest';
import { computeRoofline } from '../../src/analyses/gemm/roofline.js';
import { computePrecisionReading } from '../../src/analyses/gemm/precision.js';
import { context } from '../../src/analyses/explain/context.js';
import { lowerPrecisionActions } from '../../src/analyses/explain/actions/lower-precision.js';
import { latencyBoundActions } from '../../src/analyses/explain/actions/latency-bound.js';
import { rankActions } from '../../src/analyses/explain/actions/index.js';
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

const PEAK = { fp32: 67.0, tf32: 494.5, fp16: 989.5, bf16: 989.5 };
const BANDWIDTH_GBS = 4800;
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-6 * Math.max(1, Math.abs(b)));
/** The least time of work on the H200's roofline, µs. */
const floorUs = (flops: number, bytes: number, peakTflops: number) => Math.max(flops / (peakTflops * 1e6), bytes / (BANDWIDTH_GBS * 1e3));

function raw(name: string) {
  const events = (loadRawJson(h200Trace(name)).traceEvents as unknown as RawEvent[]).filter((e) => e.ph === 'X');
  const steps = events.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name));
  const kernels = events.filter((e) => e.cat === 'kernel');
  const kernelsOf = (op: RawEvent) => kernels.filter((k) => k.args?.['External id'] === op.args?.['External id']);
  const inStep = (op: RawEvent) => steps.some((s) => op.ts >= s.ts && op.ts <= s.ts + s.dur);
  return { events, steps, kernels, kernelsOf, inStep };
}
const dims = (e: RawEvent) => e.args!['Input Dims'] as number[][];

describe('cnn_train: a conv row split into its layout transposes and its compute kernels', async () => {
  const { events, kernelsOf } = raw('cnn_train');
  const r = computeRoofline(await loadModel(h200Trace('cnn_train')));

  it('conv-fprop in [64,128,32,32] w [128,128,3,3]: the transposes apart, the convolution kernel alone at its own % of peak', () => {
    const ops = events.filter((e) => e.cat === 'cpu_op' && e.name === 'aten::cudnn_convolution' && JSON.stringify(dims(e).slice(0, 2)) === '[[64,128,32,32],[128,128,3,3]]');
    expect(ops.length).toBe(3);
    const ks = ops.flatMap(kernelsOf);
    const layout = ks.filter((k) => /nchwToNhwcKernel|nhwcToNchwKernel/.test(k.name));
    const compute = ks.filter((k) => !layout.includes(k));
    const sum = (xs: RawEvent[]) => xs.reduce((s, k) => s + k.dur, 0);
    // 2·N·K·Ho·Wo·C·R·S (stride 1, padding 1: Ho = Wo = 32)
    const flops = 2 * 64 * 128 * 32 * 32 * 128 * 3 * 3;
    const row = r.rows.find((x) => x.kind === 'conv-fprop' && x.shape.startsWith('in [64,128,32,32]'))!;
    expect(row.flops).toBe(flops);
    close(row.layoutKernelUs, sum(layout) / ops.length);
    close(row.computeOnly!.meanUs, sum(compute) / ops.length);
    close(row.computeOnly!.percentOfPeak!, (100 * flops) / (sum(compute) / ops.length) / 1e6 / PEAK.fp16);
    close(row.percentOfPeak!, (100 * flops) / (sum(ks) / ops.length) / 1e6 / PEAK.fp16);
    // The reading: the row at about a quarter of the peak, the kernel alone at about 41%.
    expect(row.percentOfPeak!).toBeLessThan(26);
    expect(row.computeOnly!.percentOfPeak!).toBeGreaterThan(40);
    expect(row.bound).toBe('compute');
  });

  it("the first layer's weight gradient (3 input channels): 0.3% of peak, under 10% of its roofline: latency-bound, ranked first, with its time above the floor at stake", () => {
    const ops = events.filter((e) => e.cat === 'cpu_op' && e.name === 'aten::convolution_backward' && JSON.stringify(dims(e)[1]) === '[64,3,64,64]');
    expect(ops.length).toBe(3);
    // output_mask [False, True, …]: the weight gradient alone, so every kernel of the op is its pass.
    expect(String((ops[0]!.args!['Concrete Inputs'] as string[])[10])).toMatch(/^\[False, True/);
    const ks = ops.flatMap(kernelsOf);
    const meanUs = ks.reduce((s, k) => s + k.dur, 0) / ops.length;
    const flops = 2 * 64 * 64 * 64 * 64 * 3 * 3 * 3;
    // weight-grad: reads grad_output [64,64,64,64] and input [64,3,64,64], writes grad_weight [64,3,3,3] (fp16)
    const bytes = (64 * 64 * 64 * 64 + 64 * 3 * 64 * 64 + 64 * 3 * 3 * 3) * 2;
    const row = r.rows.find((x) => x.kind === 'conv-wgrad' && x.shape.startsWith('in [64,3,64,64]'))!;
    expect(row.flops).toBe(flops);
    expect(row.bytes).toBe(bytes);
    close(row.meanUs!, meanUs);
    const tflops = flops / meanUs / 1e6;
    expect((100 * tflops) / PEAK.fp16).toBeLessThan(0.5);
    const attainable = Math.min(PEAK.fp16, ((flops / bytes) * BANDWIDTH_GBS) / 1000);
    const computeMean = row.computeOnly!.meanUs;
    expect(flops / computeMean / 1e6 / attainable).toBeLessThan(0.1);
    expect(row.roof).toBe('memory');
    // …and its kernel does not fill the GPU: fewer thread blocks than the H200's 132 SMs.
    const main = ks.filter((k) => /ImplicitGemmConvolution/.test(k.name))[0]!;
    expect((main.args!['grid'] as number[]).reduce((p, x) => p * x, 1)).toBeLessThan(132);
    expect(main.args!['blocks per SM'] as number).toBeLessThan(1);
    expect(row.bound).toBe('latency');
    close(row.atStakeUs!, (meanUs - floorUs(flops, bytes, PEAK.fp16)) * 1);
    expect(r.rows[0]).toBe(row);
  });

  it('the latency-bound-conv action names it, its stake that of the row, above the 1% of the step', async () => {
    const model = await loadModel(h200Trace('cnn_train'));
    const c = context({ label: 'cnn_train', model });
    const [a] = latencyBoundActions(c).filter((x) => x.id === 'latency-bound-conv');
    const row = r.rows.find((x) => x.kind === 'conv-wgrad' && x.shape.startsWith('in [64,3,64,64]'))!;
    // The GPU time at stake is the row's; the step's, its share on the host-bound steps' critical paths.
    close(a!.sentence.numbers['gpuUs'] as number, row.atStakeUs!);
    expect(a!.atStakeUs).toBeGreaterThan(0);
    expect(a!.atStakeUs).toBeLessThan(row.atStakeUs!);
    expect(a!.bound).toBe('upper-bound');
    expect(rankActions(c).advice.map((x) => x.id)).toContain('latency-bound-conv');
    // The tiny GEMMs of the classifier head are latency-bound too, and worth less than 1% of the step: not advice.
    expect(rankActions(c).minor.map((x) => x.id)).toContain('latency-bound-gemm');
  });
});

describe('far below both roofs on a full grid keeps its roof (gpt2_train\'s vocabulary GEMM)', () => {
  it('9.5% of the bf16 peak under the compute roof, 12,800 thread blocks: compute, not latency', async () => {
    const { events, kernelsOf } = raw('gpt2_train');
    const ops = events.filter((e) => e.cat === 'cpu_op' && e.name === 'aten::mm' && JSON.stringify(dims(e).slice(0, 2)) === '[[4096,768],[768,50257]]');
    expect(ops.length).toBe(3);
    const ks = ops.flatMap(kernelsOf);
    const flops = 2 * 4096 * 768 * 50257;
    const tflops = flops / (ks.reduce((s, k) => s + k.dur, 0) / ops.length) / 1e6;
    expect(tflops / PEAK.bf16).toBeLessThan(0.1);
    const blocks = (ks[0]!.args!['grid'] as number[]).reduce((p, x) => p * x, 1);
    expect(blocks).toBeGreaterThan(132);
    const r = computeRoofline(await loadModel(h200Trace('gpt2_train')));
    const row = r.rows.find((x) => x.kind === 'gemm' && x.shape.startsWith('[4096,768]×[768,50257]'))!;
    expect(row.roof).toBe('compute');
    expect(row.bound).toBe('compute');
  });
});

describe('relu_mlp_fp32: fp32 GEMMs told the device\'s TF32 and bf16 peaks', async () => {
  const { events, steps, kernelsOf, inStep } = raw('relu_mlp_fp32');
  const model = await loadModel(h200Trace('relu_mlp_fp32'));

  it('at stake per step: each addmm\'s time less its FLOPs at the bf16 (TF32) peak or its bytes, halved (as they are), at the bandwidth', () => {
    const ops = events.filter((e) => e.cat === 'cpu_op' && e.name === 'aten::addmm' && inStep(e));
    expect(ops.length).toBeGreaterThan(0);
    let us = 0;
    let bf16 = 0;
    let tf32 = 0;
    for (const op of ops) {
      const [bias, a, b] = dims(op) as [number[], number[], number[]];
      const [m, k] = a as [number, number];
      const n = b[1]!;
      const flops = 2 * m * n * k;
      const bytes = (bias[0]! + m * k + k * n + m * n) * 4;
      const t = kernelsOf(op).reduce((s, x) => s + x.dur, 0);
      us += t;
      bf16 += t - floorUs(flops, bytes / 2, PEAK.bf16);
      tf32 += t - floorUs(flops, bytes, PEAK.tf32);
    }
    const n = steps.length;
    const p = computePrecisionReading(computeRoofline(model))!;
    // Rows average their calls' time, so the per-step sums agree to rounding, not bit for bit.
    expect(p.fp32UsPerStep).toBeCloseTo(us / n, 6);
    expect(p.bf16AtStakeUs).toBeCloseTo(bf16 / n, 6);
    expect(p.tf32AtStakeUs!).toBeCloseTo(tf32 / n, 6);
    expect(p.peaks).toEqual({ fp32: PEAK.fp32, tf32: PEAK.tf32, bf16: PEAK.bf16 });
    const [act] = lowerPrecisionActions(context({ label: 'relu_mlp_fp32', model }));
    expect(act!.sentence.numbers['gpuUs'] as number).toBeCloseTo(bf16 / n, 6);
    // GPU-bound steps (the GEMMs are 98% of the kernel time, the host waits on them): nearly all of
    // it comes off the steps' critical paths, never more.
    expect(act!.atStakeUs).toBeLessThanOrEqual(bf16 / n + 1e-6);
    expect(act!.atStakeUs).toBeGreaterThan(0.9 * (bf16 / n));
    expect(act!.sentence.numbers['bf16OverTf32Ratio']).toBeCloseTo(PEAK.bf16 / PEAK.tf32, 9);
    expect(act!.sentence.numbers['tf32OverFp32Ratio']).toBeCloseTo(PEAK.tf32 / PEAK.fp32, 9);
  });

  it('gemm prints it with the ratios of this device', async () => {
    const out = (await runCli(['gemm', h200Trace('relu_mlp_fp32')])).stdout;
    expect(out).toMatch(/precision: fp32 matrix math on CUDA cores takes .* On this NVIDIA H200 SXM the dense peaks are fp32 67\.0, TF32 494\.5 \(7\.4× fp32\), bf16 989\.5 \(2\.0× TF32\) TFLOP\/s/);
  });

  it('nothing here is far below both roofs: no latency-bound action', () => {
    expect(latencyBoundActions(context({ label: 'relu_mlp_fp32', model }))).toHaveLength(0);
  });
});

describe('silent on bf16 matrix math (mlp_train: bf16 autocast)', () => {
  it('no precision reading, no lower-precision action, no precision line', async () => {
    const model = await loadModel(h200Trace('mlp_train'));
    expect(computePrecisionReading(computeRoofline(model))).toBeUndefined();
    expect(lowerPrecisionActions(context({ label: 'mlp_train', model }))).toHaveLength(0);
    expect((await runCli(['gemm', h200Trace('mlp_train')])).stdout).not.toMatch(/precision:/);
  });
});

describe('Inductor kernels named after a matrix product or attention are described as what they are', () => {
  it('gpt2_train_compile: the pad-and-transpose copy for the vocabulary mm is not "computing `mm`"; its buffers from its launch op', async () => {
    const { events, kernels } = raw('gpt2_train_compile');
    const name = 'triton_poi_fused_mm_t_view_1';
    const launch = events.find((e) => e.cat === 'cpu_op' && e.name === name)!;
    // The evidence in the raw events: 50257 beside 50264 (the pad), a transposed stride (the copy's layout).
    expect(dims(launch)).toEqual([[8, 512, 50257], [50264, 4096], [4096, 50264], []]);
    expect((launch.args!['Input Strides'] as number[][])[1]).toEqual([1, 50304]);
    const share = kernels.filter((k) => k.name === name).reduce((s, k) => s + k.dur, 0) / events.filter((e) => e.cat === 'kernel' || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset').reduce((s, k) => s + k.dur, 0);
    expect(share).toBeGreaterThan(0.03);
    const md = (await runCli(['explain', h200Trace('gpt2_train_compile'), '--full', '--wide'])).stdout;
    const line = md.split('\n').find((l) => l.startsWith(`- \`${name}\` is an Inductor`))!;
    expect(line).toContain('whose name holds `mm`, but not its product');
    expect(line).toContain('[8,512,50257], [50264,4096] (strides [1,50304]), [4096,50264] (strides [50304,1])');
    expect(md).not.toMatch(/computing `mm`/);
    const kt = (await runCli(['kernels', h200Trace('gpt2_train_compile'), '--json'])).stdout;
    const entry = (JSON.parse(kt) as { kernels: { name: string; decoded: { inductor?: { matrixOps?: string[] } } }[] }).kernels.find((k) => k.name === name)!;
    expect(entry.decoded.inductor?.matrixOps).toEqual(['mm']);
  });

  it('llm_decode_compile: the mask builder is not "fusing `_scaled_dot_product_cudnn_attention`": it builds with arange/le/where, the attention ran in cuDNN', async () => {
    const { kernels } = raw('llm_decode_compile');
    const builders = [...new Set(kernels.map((k) => k.name).filter((n) => /^triton_poi_fused__scaled_dot_product_cudnn_attention_/.test(n)))];
    expect(builders.length).toBeGreaterThan(0);
    for (const n of builders) expect(n).toMatch(/_arange_.*_le_.*_where_\d+$/);
    // The attention itself: cuDNN's SDPA kernels, in the same trace.
    expect(kernels.some((k) => /cudnn_generated_fort_native_sdpa/.test(k.name))).toBe(true);
    const md = (await runCli(['explain', h200Trace('llm_decode_compile'), '--full', '--wide'])).stdout;
    expect(md).not.toMatch(/fusing `_scaled_dot_product_cudnn_attention`/);
    expect(md).toMatch(/whose name holds `_scaled_dot_product_cudnn_attention`, `bmm`, but not their product/);
  });

  it('a template keeps "computing": relu_mlp_compile_ma_nograd\'s Triton template GEMMs', async () => {
    const md = (await runCli(['explain', h200Trace('relu_mlp_compile_ma_nograd'), '--full', '--wide'])).stdout;
    expect(md).toMatch(/`triton_tem_fused_addmm_t_view_0` is an Inductor Triton template computing `addmm`/);
    expect(md).not.toMatch(/whose name holds/);
  });
});

describe('grouped GEMMs (torch._grouped_mm, hand-made grouped-mm.json)', () => {
  it('2·M·N·K with the split dimension at its total, from Input Dims; an upper bound where offsets split it', async () => {
    const { join } = await import('node:path');
    const { MICRO_DIR } = await import('../fixtures.js');
    const { loadTrace } = await import('../../src/load-trace.js');
    const path = join(MICRO_DIR, 'grouped-mm.json');
    const events = (loadRawJson(path).traceEvents as unknown as RawEvent[]).filter((e) => e.cat === 'cpu_op');
    const r = computeRoofline(await loadTrace(path));
    const rowOf = (e: RawEvent) => r.rows.find((x) => x.inputDims === JSON.stringify(e.args!['Input Dims']))!;
    const [twoThree, twoTwo, threeThree] = events;
    // [M_total, K] × [G, K, N]: each token row goes through one expert's [K, N].
    const [m, k] = dims(twoThree!)[0] as [number, number];
    const [g, , n] = dims(twoThree!)[1] as [number, number, number];
    expect(rowOf(twoThree!).flops).toBe(2 * m * k * n);
    expect(rowOf(twoThree!).gemm?.shape?.grouped).toEqual({ groups: g, mode: '2d×3d', offsets: true });
    expect(rowOf(twoThree!).flopsBound).toBe('upper-bound');
    // bf16: A, all G experts' B, and the [M_total, N] output.
    expect(rowOf(twoThree!).bytes).toBe((m * k + g * k * n + m * n) * 2);
    // [M, K_total] × [K_total, N] → [G, M, N]: the weight gradient.
    const [m2, k2] = dims(twoTwo!)[0] as [number, number];
    const n2 = dims(twoTwo!)[1]![1]!;
    expect(rowOf(twoTwo!).flops).toBe(2 * m2 * k2 * n2);
    expect(rowOf(twoTwo!).bytes).toBe((m2 * k2 + k2 * n2 + g * m2 * n2) * 2);
    // [G, M, K] × [G, K, N]: batched, exact.
    const [g3, m3, k3] = dims(threeThree!)[0] as [number, number, number];
    expect(rowOf(threeThree!).flops).toBe(2 * g3 * m3 * k3 * dims(threeThree!)[1]![2]!);
    expect(rowOf(threeThree!).flopsBound).toBeUndefined();
  });
});

describe('MoE expert loop: tokens per expert from the recorded shapes (hand-made moe-expert-loop.json)', () => {
  it('per router call, the experts\' down-projection rows after aten::topk, summing to T·k; silent where they do not, and on every capture without MoE', async () => {
    const { join } = await import('node:path');
    const { readdirSync } = await import('node:fs');
    const { MICRO_DIR, H200_DIR } = await import('../fixtures.js');
    const { loadTrace } = await import('../../src/load-trace.js');
    const { findMoeExpertLoops } = await import('../../src/analyses/gemm/moe-experts.js');
    const path = join(MICRO_DIR, 'moe-expert-loop.json');
    const events = (loadRawJson(path).traceEvents as unknown as RawEvent[]).filter((e) => e.ph === 'X').sort((a, b) => a.ts - b.ts);
    const ops = events.filter((e) => e.cat === 'cpu_op');
    const mms = ops.filter((e) => e.name === 'aten::mm');
    const kernelUs = (op: RawEvent) => events.filter((e) => e.cat === 'kernel' && e.args?.['External id'] === op.args?.['External id']).reduce((s, e) => s + e.dur, 0);
    // Recomputed from the raw events: per topk, T and E from its input, k from Concrete Inputs, D
    // from the mm just before it; then each mm [n, F]×[F, D] (F ≠ D) is one expert's down projection.
    const expected: { tokens: number[]; us: number[]; t: number; e: number; k: number }[] = [];
    for (const topk of ops.filter((e) => e.name === 'aten::topk')) {
      const [t, e] = dims(topk)[0] as [number, number];
      const k = Number((topk.args!['Concrete Inputs'] as string[])[1]);
      const d = dims(mms.filter((x) => x.ts < topk.ts).at(-1)!)[0]![1]!;
      const tokens: number[] = [];
      const us: number[] = [];
      let pending = 0;
      for (const mm of mms.filter((x) => x.ts > topk.ts)) {
        const [[mRows, kk], [, nn]] = dims(mm) as [[number, number], [number, number]];
        if (mRows === t) break;
        pending += kernelUs(mm);
        if (nn === d && kk !== d) {
          tokens.push(mRows);
          us.push(pending);
          pending = 0;
        }
      }
      expected.push({ tokens, us, t, e, k });
    }
    expect(expected).toHaveLength(2);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    // The first layer's experts account for every routed slot; the second's do not (tokens dropped).
    expect(sum(expected[0]!.tokens)).toBe(expected[0]!.t * expected[0]!.k);
    expect(sum(expected[1]!.tokens)).not.toBe(expected[1]!.t * expected[1]!.k);
    const loops = findMoeExpertLoops(await loadTrace(path));
    expect(loops).toHaveLength(1);
    const [l] = loops;
    const x = expected[0]!;
    expect(l!.tokensPerExpert).toEqual(x.tokens);
    expect([l!.tokens, l!.experts, l!.topK]).toEqual([x.t, x.e, x.k]);
    expect(l!.imbalance).toBe(Math.max(...x.tokens) / ((x.t * x.k) / x.e));
    l!.gemmNsPerExpert.forEach((ns, i) => close(ns / 1000, x.us[i]!));
    // The command: one line per router call, and the JSON.
    const text = (await runCli(['gemm', path])).stdout;
    expect(text).toMatch(new RegExp(`MoE expert loop .*tokens per expert, in the loop's order: ${x.tokens.join(', ')} — max/mean ${(Math.max(...x.tokens) / ((x.t * x.k) / x.e)).toFixed(2)}`));
    expect(text.match(/MoE expert loop/g)).toHaveLength(1);
    const json = JSON.parse((await runCli(['gemm', path, '--json'])).stdout) as { moe: { tokensPerExpert: number[] }[] };
    expect(json.moe.map((m) => m.tokensPerExpert)).toEqual([x.tokens]);
    // Silence on the captures (no router, or no loop whose tokens add up).
    for (const dir of [H200_DIR, join(H200_DIR, '..', 'h200-workloads')]) {
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.pt.trace.json.gz'))) expect(findMoeExpertLoops(await loadModel(join(dir, f))), f).toEqual([]);
    }
  });
});
