/**
 * The roofline of every compute op against the raw events: FLOPs computed here from each op's
 * Input Dims and Concrete Inputs with the formula (2·N·K·Ho·Wo·(C/groups)·R·S for a conv pass;
 * FlashAttention's 4·B·H·Sq·Sk·D, halved when causal, ×2.5 backward; 2·M·N·K for a GEMM), kernel
 * times summed here from the kernels whose External id is the op's — never against numbers the
 * code printed.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { computeRoofline, type RooflineRow } from '../../src/analyses/gemm/roofline.js';
import { loadTrace } from '../../src/load-trace.js';
import { H200_DIR, MICRO_DIR, h200Trace, loadRawJson, loadModel } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

interface RawEvent {
  ph?: string;
  cat?: string;
  name: string;
  ts: number;
  dur: number;
  pid: number | string;
  tid: number | string;
  args?: Record<string, unknown>;
}

const rawOf = (path: string) => loadRawJson(path).traceEvents as unknown as RawEvent[];
const xs = (events: RawEvent[], cat: string, name?: string | RegExp) =>
  events.filter((e) => e.ph === 'X' && e.cat === cat && (name === undefined || (typeof name === 'string' ? e.name === name : name.test(e.name))));
const dims = (e: RawEvent) => e.args!['Input Dims'] as number[][];
const concrete = (e: RawEvent) => e.args!['Concrete Inputs'] as string[];
const xid = (e: RawEvent) => e.args!['External id'] as number;
const inside = (e: RawEvent, outer: RawEvent) => e.tid === outer.tid && e.ts >= outer.ts && e.ts + e.dur <= outer.ts + outer.dur;
const ints = (s: string) => s.replace(/[[\]]/g, '').split(',').map((x) => Number(x.trim()));
const bools = (s: string) => s.replace(/[[\]]/g, '').split(',').map((x) => x.trim() === 'True');
const prod = (a: number[]) => a.reduce((p, x) => p * x, 1);
/** Kernels whose External id is one of these ops'. */
const kernelsOf = (events: RawEvent[], ops: RawEvent[]) => {
  const ids = new Set(ops.map(xid));
  return xs(events, 'kernel').filter((k) => ids.has(k.args?.['External id'] as number));
};
const sumDur = (ks: RawEvent[]) => ks.reduce((s, k) => s + k.dur, 0);
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-6 * Math.max(1, Math.abs(b)));

/** 2·N·K·Ho·Wo·(C/groups)·R·S from a conv-family op's input, weight and arguments. */
function convFlops(input: number[], weight: number[], stride: number[], padding: number[], dilation: number[], groups: number): number {
  const [n, c] = input as [number, number];
  const k = weight[0]!;
  expect(weight[1]! * groups).toBe(c);
  let positions = 1;
  for (let d = 0; d < weight.length - 2; d++) positions *= Math.floor((input[2 + d]! + 2 * padding[d]! - dilation[d]! * (weight[2 + d]! - 1) - 1) / stride[d]!) + 1;
  return 2 * n * k * positions * (c / groups) * prod(weight.slice(2));
}

/** The rows of this kind holding a call whose External id is one of these. */
function rowsFor(rows: RooflineRow[], kind: string, ids: Set<number>, model: { host: { externalId: Float64Array } }) {
  return rows.filter((r) => r.kind === kind && r.hosts.some((h) => ids.has(model.host.externalId[h]!)));
}

describe('roofline: cnn_train (cuDNN convolutions, fp16 autocast)', async () => {
  const events = rawOf(h200Trace('cnn_train'));
  const model = await loadModel(h200Trace('cnn_train'));
  const r = computeRoofline(model);

  it('every cudnn_convolution: one conv-fprop call, FLOPs from its Input Dims and Concrete Inputs, time from its kernels', () => {
    const convs = xs(events, 'cpu_op', 'aten::cudnn_convolution');
    expect(convs.length).toBe(9);
    for (const op of convs) {
      const [input, weight] = dims(op) as [number[], number[]];
      // cudnn_convolution(self, weight, padding, stride, dilation, groups, …)
      const c = concrete(op);
      const flops = convFlops(input, weight, ints(c[3]!), ints(c[2]!), ints(c[4]!), Number(c[5]));
      const row = rowsFor(r.rows, 'conv-fprop', new Set([xid(op)]), model);
      expect(row).toHaveLength(1);
      expect(row[0]!.flops).toBe(flops);
      expect(row[0]!.dtype).toBe('fp16');
      // The row's mean is over calls of the same shape: recompute it from those calls' kernels.
      const same = convs.filter((o) => JSON.stringify(dims(o)) === JSON.stringify(dims(op)));
      const us = sumDur(kernelsOf(events, same)) / same.length;
      close(row[0]!.meanUs!, us);
      close(row[0]!.tflops!, flops / us / 1e6);
      close(row[0]!.percentOfPeak!, (100 * flops) / us / 1e6 / 989.5); // H200 SXM fp16 dense
    }
  });

  it('every convolution_backward: a row per grad its output_mask asks for, FLOPs from grad_output dims, the kernels it launched itself', () => {
    const bwds = xs(events, 'cpu_op', 'aten::convolution_backward');
    expect(bwds.length).toBe(9);
    for (const op of bwds) {
      const [gradOut, input, weight] = dims(op) as [number[], number[], number[]];
      const c = concrete(op);
      const [needInput, needWeight] = bools(c[10]!);
      const flops = convFlops(input, weight, ints(c[4]!), ints(c[5]!), ints(c[6]!), Number(c[9]));
      // grad_output's spatial size is the forward's output: the formula over it agrees.
      expect(flops).toBe(2 * gradOut[0]! * prod(gradOut.slice(2)) * prod(weight));
      const passes = [...(needInput ? ['conv-dgrad'] : []), ...(needWeight ? ['conv-wgrad'] : [])];
      let rowUs = 0;
      for (const kind of passes) {
        const row = rowsFor(r.rows, kind, new Set([xid(op)]), model);
        expect(row).toHaveLength(1);
        expect(row[0]!.flops).toBe(flops);
        rowUs += row[0]!.totalUs / row[0]!.calls;
      }
      expect(rowsFor(r.rows, 'conv-bwd', new Set([xid(op)]), model)).toHaveLength(0);
      // The kernels launched by convolution_backward itself (not by aten::sum for the bias grad).
      const same = bwds.filter((o) => JSON.stringify(dims(o)) === JSON.stringify(dims(op)));
      const own = sumDur(kernelsOf(events, same)) / same.length;
      close(rowUs, own);
      if (passes.length === 2) {
        // Each pass holds the kernels whose names say so.
        const wgrad = rowsFor(r.rows, 'conv-wgrad', new Set([xid(op)]), model)[0]!;
        const dgrad = rowsFor(r.rows, 'conv-dgrad', new Set([xid(op)]), model)[0]!;
        for (const k of kernelsOf(events, [op])) {
          if (/wgrad/.test(k.name)) expect(wgrad.kernelNames).toContain(k.name);
          if (/dgrad/.test(k.name)) expect(dgrad.kernelNames).toContain(k.name);
        }
      }
    }
  });
});

describe('roofline: attention (cuDNN causal), efficient, GQA flash', () => {
  for (const [name, fwdOp, bwdOp, causalAt, bwdCausalAt] of [
    ['attention', 'aten::_scaled_dot_product_cudnn_attention', 'aten::_scaled_dot_product_cudnn_attention_backward', 6, 14],
    ['attention_efficient', 'aten::_scaled_dot_product_efficient_attention', 'aten::_scaled_dot_product_efficient_attention_backward', 6, 11],
    ['attention_gqa_flash', 'aten::_scaled_dot_product_flash_attention', 'aten::_scaled_dot_product_flash_attention_backward', 4, 11],
  ] as const) {
    it(`${name}: 4·B·H·Sq·Sk·D (halved when causal) forward, 2.5× backward; time = every kernel under the op`, async () => {
      const events = rawOf(h200Trace(name));
      const model = await loadModel(h200Trace(name));
      const r = computeRoofline(model);
      const ops = xs(events, 'cpu_op');
      for (const [opName, kind, causalIdx, qIdx, kIdx, factor] of [
        [fwdOp, 'attention-fwd', causalAt, 0, 1, 1],
        [bwdOp, 'attention-bwd', bwdCausalAt, 1, 2, 2.5],
      ] as const) {
        const calls = xs(events, 'cpu_op', opName);
        expect(calls.length).toBe(3);
        for (const op of calls) {
          const [b, h, sq, d] = dims(op)[qIdx]! as [number, number, number, number];
          const [, hk, sk] = dims(op)[kIdx]! as [number, number, number];
          const causal = concrete(op)[causalIdx] === 'True';
          expect(causal).toBe(true); // the workloads are causal
          if (name === 'attention_gqa_flash') expect(hk).toBeLessThan(h);
          const flops = ((4 * b * h * sq * sk * d) / (causal ? 2 : 1)) * factor;
          const row = rowsFor(r.rows, kind, new Set([xid(op)]), model);
          expect(row).toHaveLength(1);
          expect(row[0]!.flops).toBe(flops);
          // Kernels of the op and of every op inside it.
          const under = ops.filter((o) => inside(o, op));
          const us = sumDur(kernelsOf(events, under)) / 1;
          // Same-shape calls share the row: compare the sums over them.
          expect(row[0]!.calls).toBe(calls.length);
          const all = sumDur(kernelsOf(events, ops.filter((o) => calls.some((c) => inside(o, c)))));
          close(row[0]!.totalUs, all);
          expect(us).toBeGreaterThan(0);
        }
      }
    });
  }
});

describe('roofline: scaled_mm (fp8) against the fp8 dense peak', async () => {
  const events = rawOf(h200Trace('scaled_mm'));
  const model = await loadModel(h200Trace('scaled_mm'));
  const r = computeRoofline(model);
  it('2·M·N·K, fp8 e4m3 inputs, % of the H200 fp8 dense peak (1979 TFLOP/s)', () => {
    const calls = xs(events, 'cpu_op', 'aten::_scaled_mm');
    expect(calls.length).toBe(3);
    const [a, b] = dims(calls[0]!) as [number[], number[]];
    const flops = 2 * a[0]! * b[1]! * a[1]!;
    const row = r.rows.filter((x) => x.op === 'aten::_scaled_mm');
    expect(row).toHaveLength(1);
    expect(row[0]!.flops).toBe(flops);
    expect(row[0]!.peakDtype).toBe('fp8');
    const us = sumDur(kernelsOf(events, calls)) / calls.length;
    close(row[0]!.meanUs!, us);
    close(row[0]!.percentOfPeak!, (100 * flops) / us / 1e6 / 1979);
  });
});

describe('roofline: the alignment rule on gpt2_train (vocabulary GEMMs, N = 50257)', async () => {
  const events = rawOf(h200Trace('gpt2_train'));
  const model = await loadModel(h200Trace('gpt2_train'));
  const r = computeRoofline(model);
  it('names every GEMM with a dim of 50257 on an align1 kernel, with the padded size and its share of kernel time', () => {
    const mms = xs(events, 'cpu_op', 'aten::mm').filter((e) => dims(e).slice(0, 2).flat().includes(50257));
    expect(mms.length).toBe(9);
    const allKernelUs = sumDur(xs(events, 'kernel'));
    const findings = r.gemm.alignment.filter((f) => f.dims.some((d) => d.size === 50257));
    expect(findings).toHaveLength(3);
    for (const f of findings) {
      expect(f.dims.find((d) => d.size === 50257)!.padded).toBe(50264);
      expect(f.kernelAlignment).toBe(1);
      expect(f.kernel).toMatch(/align1/);
      const calls = mms.filter((e) => {
        const [a, b] = dims(e) as [number[], number[]];
        return a[0] === f.m && b[1] === f.n && a[1] === f.k;
      });
      expect(calls.length).toBe(f.calls);
      const us = sumDur(kernelsOf(events, calls));
      close(f.totalUs, us);
      close(f.shareOfKernelTime!, us / allKernelUs);
    }
    // Aligned GEMMs of the trace (every dim a multiple of 8) are not named.
    expect(r.gemm.alignment.every((f) => f.dims.length > 0)).toBe(true);
  });
});

describe('roofline: hand-made micro traces', () => {
  it('a Triton template GEMM: M, N, K from its kernel op\'s Input Dims; ambiguous arguments and graph replays declined', async () => {
    const path = join(MICRO_DIR, 'roofline-template-gemm.json');
    const events = rawOf(path);
    const r = computeRoofline(await loadTrace(path));
    const tem = xs(events, 'cpu_op', 'triton_tem_fused_addmm_t_view_0')[0]!;
    const [bias, a, w, out] = dims(tem) as [number[], number[], number[], number[]];
    const m = out[0]!;
    const n = out[1]!;
    const k = prod(a) / m;
    expect(w).toEqual([n, k]);
    const row = r.rows.find((x) => x.op === tem.name)!;
    expect(row.kind).toBe('gemm');
    expect(row.template).toBe(true);
    expect(row.gemm!.shape!.m).toBe(m);
    expect(row.gemm!.shape!.n).toBe(n);
    expect(row.gemm!.shape!.k).toBe(k);
    expect(row.flops).toBe(2 * m * n * k);
    expect(row.bytes).toBe((prod(bias) + prod(a) + prod(w) + prod(out)) * 2);
    close(row.meanUs!, sumDur(kernelsOf(events, [tem])));
    const amb = r.rows.find((x) => x.op === 'triton_tem_fused_mm_1')!;
    expect(amb.flops).toBeUndefined();
    expect(amb.declined).toBeDefined();
    const replay = r.rows.find((x) => x.op === 'triton_tem_fused_addmm_relu_t_view_2')!;
    expect(replay.kind).toBe('gemm');
    expect(replay.declined).toMatch(/CUDA graph/);
    close(replay.totalUs, sumDur(xs(events, 'kernel', 'triton_tem_fused_addmm_relu_t_view_2')));
  });

  it('a grouped, dilated conv forward and its backward split by pass; GQA causal flash; a masked attention counted dense', async () => {
    const path = join(MICRO_DIR, 'roofline-conv-attention.json');
    const events = rawOf(path);
    const model = await loadTrace(path);
    const r = computeRoofline(model);
    const conv = xs(events, 'cpu_op', 'aten::convolution')[0]!;
    const [input, weight] = dims(conv) as [number[], number[]];
    const c = concrete(conv);
    const groups = Number(c[8]);
    expect(groups).toBe(4);
    const flops = convFlops(input, weight, ints(c[3]!), ints(c[4]!), ints(c[5]!), groups);
    const fprop = r.rows.filter((x) => x.kind === 'conv-fprop');
    expect(fprop).toHaveLength(1);
    expect(fprop[0]!.flops).toBe(flops);
    // Only cudnn_convolution's kernel: the bias add_ is apart.
    const cudnn = xs(events, 'cpu_op', 'aten::cudnn_convolution');
    close(fprop[0]!.meanUs!, sumDur(kernelsOf(events, cudnn)));
    for (const k of kernelsOf(events, xs(events, 'cpu_op', 'aten::add_'))) expect(fprop[0]!.kernelNames).not.toContain(k.name);
    const bwd = xs(events, 'cpu_op', 'aten::convolution_backward')[0]!;
    const ks = kernelsOf(events, [bwd]).sort((x, y) => x.ts - y.ts);
    const dgrad = r.rows.find((x) => x.kind === 'conv-dgrad')!;
    const wgrad = r.rows.find((x) => x.kind === 'conv-wgrad')!;
    expect(dgrad.flops).toBe(flops);
    expect(wgrad.flops).toBe(flops);
    // The layout change before the dgrad kernel goes with it; the split-K reduce after wgrad with wgrad.
    close(dgrad.meanUs!, sumDur(ks.filter((k) => /nchwToNhwc|dgrad/.test(k.name))));
    close(wgrad.meanUs!, sumDur(ks.filter((k) => /wgrad|ReduceSplitK/.test(k.name))));

    const fa = xs(events, 'cpu_op', 'aten::_scaled_dot_product_flash_attention')[0]!;
    const [b, h, sq, d] = dims(fa)[0]! as [number, number, number, number];
    const [, hk, sk] = dims(fa)[1]! as [number, number, number];
    expect(hk).toBe(4);
    const fwdFlops = (4 * b * h * sq * sk * d) / 2;
    expect(r.rows.find((x) => x.kind === 'attention-fwd' && x.op === fa.name)!.flops).toBe(fwdFlops);
    expect(r.rows.find((x) => x.kind === 'attention-bwd')!.flops).toBe(2.5 * fwdFlops);
    // A bf16 mask on the fused op, no outer op saying otherwise: additive, so the dense count, exact.
    const eff = xs(events, 'cpu_op', 'aten::_scaled_dot_product_efficient_attention')[0]!;
    const [eb, eh, esq, ed] = dims(eff)[0]! as [number, number, number, number];
    const esk = dims(eff)[1]![2]!;
    const masked = r.rows.find((x) => x.op === 'aten::_scaled_dot_product_efficient_attention')!;
    expect(masked.flops).toBe(4 * eb * eh * esq * esk * ed);
    expect(masked.flopsBound).toBeUndefined();
    expect(masked.declined).toBeUndefined();
  });
});

describe('roofline: attention masks (hand-made, attention-masks.json)', () => {
  it('dense work counted: an additive mask exact; a boolean one (the outer op\'s attn_mask type) and an unknown backward an upper bound', async () => {
    const path = join(MICRO_DIR, 'attention-masks.json');
    const events = rawOf(path);
    const model = await loadTrace(path);
    const r = computeRoofline(model);
    /** 4·B·H·Sq·Sk·D from the op's query (at q) and key (at q + 1). */
    const dense = (e: RawEvent, q: number) => {
      const [b, h, sq, d] = dims(e)[q]! as [number, number, number, number];
      return 4 * b * h * sq * dims(e)[q + 1]![2]! * d;
    };
    const rowOf = (e: RawEvent) => {
      const found = rowsFor(r.rows, /backward/.test(e.name) ? 'attention-bwd' : 'attention-fwd', new Set([xid(e)]), model);
      expect(found).toHaveLength(1);
      return found[0]!;
    };
    const outer = xs(events, 'cpu_op', 'aten::scaled_dot_product_attention');
    expect((outer[0]!.args!['Input type'] as string[])[3]).toBe('bool');
    expect((outer[1]!.args!['Input type'] as string[])[3]).toBe('c10::BFloat16');
    const effFwd = xs(events, 'cpu_op', 'aten::_scaled_dot_product_efficient_attention')[0]!;
    const [effBwd, orphanBwd] = xs(events, 'cpu_op', 'aten::_scaled_dot_product_efficient_attention_backward');
    const cudnnFwd = xs(events, 'cpu_op', 'aten::_scaled_dot_product_cudnn_attention')[0]!;
    const cudnnBwd = xs(events, 'cpu_op', 'aten::_scaled_dot_product_cudnn_attention_backward')[0]!;
    // The boolean mask: dense FLOPs, an upper bound; its backward (same shapes) too.
    expect(rowOf(effFwd).flops).toBe(dense(effFwd, 0));
    expect(rowOf(effFwd).flopsBound).toBe('upper-bound');
    expect(rowOf(effFwd).attention?.mask?.kind).toBe('boolean');
    expect(rowOf(effBwd!).flops).toBe(2.5 * dense(effBwd!, 1));
    expect(rowOf(effBwd!).flopsBound).toBe('upper-bound');
    // The additive mask: exact, forward and backward; TFLOP/s from the kernel's duration.
    const cf = rowOf(cudnnFwd);
    expect(cf.flops).toBe(dense(cudnnFwd, 0));
    expect(cf.flopsBound).toBeUndefined();
    expect(cf.attention?.mask?.kind).toBe('additive');
    close(cf.tflops!, dense(cudnnFwd, 0) / sumDur(kernelsOf(events, [cudnnFwd])) / 1e6);
    expect(rowOf(cudnnBwd).flops).toBe(2.5 * dense(cudnnBwd, 1));
    expect(rowOf(cudnnBwd).flopsBound).toBeUndefined();
    // A masked backward whose forward is not in the trace: unknown, an upper bound.
    expect(rowOf(orphanBwd!).attention?.mask?.kind).toBe('unknown');
    expect(rowOf(orphanBwd!).flopsBound).toBe('upper-bound');
    // The bytes read the mask once: Q, K, V, the [4,1,1024,1024] mask and O, bf16.
    const n = prod(dims(cudnnFwd)[0]!);
    expect(cf.bytes).toBe((4 * n + prod(dims(cudnnFwd)[3]!)) * 2);
  });
});

const SHARED = join(H200_DIR, '../../../../../shared/traces/h200-torch2.11');
describe.skipIf(!existsSync(join(SHARED, 'vit_train.pt.trace.json.gz')))('roofline: vit_train (patch conv, non-causal cuDNN attention)', () => {
  it('the patch conv forward and weight-grad and the attention rows from the raw events', async () => {
    const path = join(SHARED, 'vit_train.pt.trace.json.gz');
    const events = rawOf(path);
    const r = computeRoofline(await loadTrace(path));
    const conv = xs(events, 'cpu_op', 'aten::convolution')[0]!;
    const c = concrete(conv);
    const [input, weight] = dims(conv) as [number[], number[]];
    const flops = convFlops(input, weight, ints(c[3]!), ints(c[4]!), ints(c[5]!), Number(c[8]));
    expect(r.rows.find((x) => x.kind === 'conv-fprop')!.flops).toBe(flops);
    const bwd = xs(events, 'cpu_op', 'aten::convolution_backward')[0]!;
    expect(bools(concrete(bwd)[10]!)).toEqual([false, true, true]);
    expect(r.rows.filter((x) => x.kind === 'conv-wgrad').map((x) => x.flops)).toEqual([flops]);
    expect(r.rows.some((x) => x.kind === 'conv-dgrad')).toBe(false);
    const fwd = xs(events, 'cpu_op', 'aten::_scaled_dot_product_cudnn_attention')[0]!;
    const [b, h, sq, d] = dims(fwd)[0]! as [number, number, number, number];
    expect(concrete(fwd)[6]).toBe('False');
    expect(r.rows.find((x) => x.kind === 'attention-fwd')!.flops).toBe(4 * b * h * sq * sq * d);
    expect(r.rows.find((x) => x.kind === 'attention-bwd')!.flops).toBe(2.5 * 4 * b * h * sq * sq * d);
  });
});

describe('check --write-expect counts Triton template GEMMs in gemms (relu_mlp_compile_ma_nograd)', () => {
  it('per step: the kernels named as GEMMs in the raw events, templates included', async () => {
    const { deriveExpectations } = await import('../../src/analyses/compare/expectations.js');
    const name = 'relu_mlp_compile_ma_nograd';
    const events = rawOf(h200Trace(name));
    const m = await loadModel(h200Trace(name));
    const steps = xs(events, 'user_annotation', /^ProfilerStep#/);
    const kernels = xs(events, 'kernel');
    // Per step: the template kernels (triton_tem_… with mm in their op list) and cuBLAS's nvjet.
    const perStep = steps.map((s) => kernels.filter((k) => k.ts >= s.ts && k.ts < s.ts + s.dur && (/^triton_tem_fused_.*mm/.test(k.name) || /^nvjet_/.test(k.name))).length);
    expect(new Set(perStep).size).toBe(1);
    expect(perStep[0]).toBe(3);
    expect(deriveExpectations(m, 'step').expectations.gemms).toBe(perStep[0]);
  });
});

describe('the alignment rule against the compiled GPT-2 (Inductor pads the vocabulary to 50264)', () => {
  it('each eager vocabulary GEMM is compared with the compiled trace\'s padded product, % of peak from its raw kernels', async () => {
    const { computeGemmTable } = await import('../../src/analyses/gemm/gemm.js');
    const compiled = rawOf(h200Trace('gpt2_train_compile'));
    const r = computeRoofline(await loadModel(h200Trace('gpt2_train')), { vs: computeGemmTable(await loadModel(h200Trace('gpt2_train_compile'))) });
    const padded = xs(compiled, 'cpu_op', 'aten::mm').filter((e) => dims(e).slice(0, 2).flat().includes(50264));
    expect(padded.length).toBe(9);
    const findings = r.alignment.filter((f) => f.dims.some((d) => d.size === 50257));
    expect(findings).toHaveLength(3);
    for (const f of findings) {
      const pad = (x: number) => (x === 50257 ? 50264 : x);
      const calls = padded.filter((e) => {
        const [a, b] = dims(e) as [number[], number[]];
        return a[0] === pad(f.m) && b[1] === pad(f.n) && a[1] === pad(f.k);
      });
      expect(calls.length).toBe(3);
      const us = sumDur(kernelsOf(compiled, calls)) / calls.length;
      const flops = 2 * pad(f.m) * pad(f.n) * pad(f.k);
      const there = f.compare.filter((c) => c.where === 'other trace');
      expect(there).toHaveLength(1);
      close(there[0]!.percentOfPeak!, (100 * flops) / us / 1e6 / 989.5);
      // Padded, the product ran well above the align1 kernel's share of peak.
      expect(there[0]!.percentOfPeak!).toBeGreaterThan(f.percentOfPeak!);
    }
  });
});

describe('roofline: a backward whose kernel names do not say the pass; fp32 with TF32 allowed', () => {
  it('one conv-bwd row with both passes\' FLOPs and all kernels; the forward against the TF32 peak', async () => {
    const path = join(MICRO_DIR, 'roofline-conv-undecided.json');
    const events = rawOf(path);
    const r = computeRoofline(await loadTrace(path));
    const fwd = xs(events, 'cpu_op', 'aten::cudnn_convolution')[0]!;
    const c = concrete(fwd);
    expect(c[8]).toBe('True'); // allow_tf32
    const [input, weight] = dims(fwd) as [number[], number[]];
    const flops = convFlops(input, weight, ints(c[3]!), ints(c[2]!), ints(c[4]!), Number(c[5]));
    const f = r.rows.find((x) => x.kind === 'conv-fprop')!;
    expect(f.flops).toBe(flops);
    expect(f.peakDtype).toBe('tf32');
    close(f.percentOfPeak!, (100 * flops) / sumDur(kernelsOf(events, [fwd])) / 1e6 / 494.5);
    const bwd = xs(events, 'cpu_op', 'aten::convolution_backward')[0]!;
    expect(bools(concrete(bwd)[10]!)).toEqual([true, true, true]);
    const b = r.rows.filter((x) => x.op === bwd.name);
    expect(b.map((x) => x.kind)).toEqual(['conv-bwd']);
    expect(b[0]!.flops).toBe(2 * flops);
    close(b[0]!.meanUs!, sumDur(kernelsOf(events, [bwd])));
  });
});

describe('roofline: the CLI', () => {
  it('--json: one row per kind and shape with stable keys; --kind filters; a bad --kind is exit 2 with one line', async () => {
    const r = await runCli(['roofline', join(MICRO_DIR, 'roofline-conv-attention.json'), '--json', '--kind', 'conv']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as { rows: Record<string, unknown>[]; alignment: unknown[] };
    expect(doc.rows.map((x) => x.kind).sort()).toEqual(['conv-dgrad', 'conv-fprop', 'conv-wgrad']);
    for (const row of doc.rows) for (const k of ['kind', 'op', 'flops', 'bytes', 'arithmeticIntensity', 'meanUs', 'tflops', 'percentOfPeak', 'bound', 'kernel', 'declined']) expect(row).toHaveProperty(k);
    const bad = await runCli(['roofline', join(MICRO_DIR, 'roofline-conv-attention.json'), '--kind', 'nope']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: --kind nope/);
  });
});

describe('convShapeOf: a transposed convolution is the input-grad of the convolution it transposes', () => {
  it('FLOPs equal the forward conv from its output back to its input; the output size from output_padding', async () => {
    const { convShapeOf } = await import('../../src/analyses/gemm/conv-shape.js');
    const f = 'float';
    // cudnn_convolution_transpose(self, weight, padding, output_padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)
    const res = convShapeOf('aten::cudnn_convolution_transpose', {
      'Input Dims': [[2, 16, 8, 8], [16, 8, 4, 4], [], [], [], [], [], [], [], []],
      'Input type': [f, f, 'ScalarList', 'ScalarList', 'ScalarList', 'ScalarList', 'Scalar', 'Scalar', 'Scalar', 'Scalar'],
      'Concrete Inputs': ['', '', '[1, 1]', '[0, 0]', '[2, 2]', '[1, 1]', '1', 'False', 'False', 'True'],
    });
    expect('shape' in res).toBe(true);
    const s = (res as { shape: import('../../src/analyses/gemm/conv-shape.js').ConvShape }).shape;
    // Output: (8 − 1)·2 − 2·1 + 1·(4 − 1) + 0 + 1 = 16.
    expect(s.output).toEqual([2, 8, 16, 16]);
    // The convolution it transposes: input [2,8,16,16], weight [16,8,4,4], stride 2, padding 1 → [2,16,8,8].
    expect(s.flopsPerPass).toBe(convFlops([2, 8, 16, 16], [16, 8, 4, 4], [2, 2], [1, 1], [1, 1], 1));
    expect(s.transposed).toBe(true);
    expect(s.bytes!.fprop).toBe((2 * 16 * 8 * 8 + 16 * 8 * 4 * 4 + 2 * 8 * 16 * 16) * 4);
  });
});

describe('roofline: flex attention (hand-made flex-attention.json, the buffers of torch 2.11\'s flex templates)', () => {
  it('a forward and backward template known by their buffers, counted dense over every block as an upper bound; a GEMM template and a pointwise kernel with 4-D inputs are not attention', async () => {
    const path = join(MICRO_DIR, 'flex-attention.json');
    const events = rawOf(path);
    const model = await loadTrace(path);
    const r = computeRoofline(model);
    const ops = xs(events, 'cpu_op', /^triton_/);
    const fwd = ops.find((e) => e.name === 'triton_tem_fused_0')!;
    const bwd = ops.find((e) => e.name === 'triton_tem_fused_zeros_1')!;
    // Q [B, H, Sq, D], K [B, Hkv, Sk, D]: 4·B·H·Sq·Sk·D over every block; the backward 2.5×.
    const [b, h, sq, d] = dims(fwd)[0]! as [number, number, number, number];
    const sk = dims(fwd)[1]![2]!;
    const dense = 4 * b * h * sq * sk * d;
    const f = rowsFor(r.rows, 'attention-fwd', new Set([xid(fwd)]), model);
    const g = rowsFor(r.rows, 'attention-bwd', new Set([xid(bwd)]), model);
    expect(f).toHaveLength(1);
    expect(g).toHaveLength(1);
    expect(f[0]!.flops).toBe(dense);
    expect(g[0]!.flops).toBe(2.5 * dense);
    for (const row of [f[0]!, g[0]!]) {
      expect(row.flopsBound).toBe('upper-bound');
      expect(row.attention?.backend).toBe('flex');
      expect(row.attention?.kvHeads).toBe(dims(fwd)[1]![1]);
    }
    // The block grid from KV_IDX's shape [.., .., Sq blocks, Sk blocks].
    expect(f[0]!.attention?.blockGrid).toEqual(dims(fwd)[5]!.slice(2));
    expect(g[0]!.attention?.blockGrid).toBeUndefined();
    close(f[0]!.meanUs!, sumDur(kernelsOf(events, [fwd])));
    close(g[0]!.meanUs!, sumDur(kernelsOf(events, [bwd])));
    // The GEMM template stays a GEMM row; the pointwise kernel is no row at all.
    expect(r.rows.find((x) => x.op === 'triton_tem_fused_mm_2')?.kind).toBe('gemm');
    expect(r.rows.some((x) => x.op.startsWith('triton_poi_'))).toBe(false);
    expect(r.rows.filter((x) => x.kind.startsWith('attention'))).toHaveLength(2);

    const cli = await runCli(['roofline', path, '--json']);
    expect(cli.status).toBe(0);
    const doc = JSON.parse(cli.stdout) as { rows: { op: string; flopsBound: string; attention: { backend: string; blockGrid: number[] | null } | null }[] };
    const jf = doc.rows.find((x) => x.op === fwd.name)!;
    expect(jf.flopsBound).toBe('upper-bound');
    expect(jf.attention).toMatchObject({ backend: 'flex', blockGrid: dims(fwd)[5]!.slice(2) });
    const text = await runCli(['roofline', path, '--wide']);
    expect(text.stdout).toMatch(new RegExp(`triton_tem_fused_0 .*flex blocks ${dims(fwd)[5]![2]}×${dims(fwd)[5]![3]}.*≤`));
  });
});
