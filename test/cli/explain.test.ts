/**
 * `explain` on the H200 captures: each number a sentence states is checked against a figure
 * computed here from the raw events (JSON.parse, test/raw-scopes.ts) or torch's oracle, and
 * each rule's sentence is checked to appear exactly when its condition holds on the trace.
 * Tests are named by the reading they check (S1…S12: docs/readings.md).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeExplanation, EXPLAIN_SECTIONS, type ExplainSentence, type ExplainValue, type Explanation } from '../../src/analyses/explain/explain.js';
import { explainJson, renderExplainMarkdown, renderSentence } from '../../src/report/explain-markdown.js';
import { H200_NAMES, h200Trace, loadOracle, loadRawJson, loadModel } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { mean, rawTrace, type RawEvent } from '../raw-scopes.js';
import { traceBuilder } from '../helpers/trace-builder.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const WORKLOADS_DIR = join(ROOT, 'test/fixtures/traces/h200-workloads');
const workloadTrace = (name: string) => join(WORKLOADS_DIR, `${name}.pt.trace.json.gz`);

const load = loadModel;
const h200 = (name: string) => load(h200Trace(name));

async function explain(name: string, vs: string[] = []): Promise<Explanation> {
  return computeExplanation({ label: name, model: await h200(name) }, { vs: await Promise.all(vs.map(async (v) => ({ label: v, model: await h200(v) }))) });
}

const sentences = (e: Explanation, id: string): ExplainSentence[] => e.sections.flatMap((s) => s.sentences.filter((x) => x.id === id));
const one = (e: Explanation, id: string): ExplainSentence => {
  const xs = sentences(e, id);
  expect(xs.map((x) => x.id)).toEqual([id]);
  return xs[0]!;
};
const num = (s: ExplainSentence, key: string) => s.numbers[key] as number;

const ns = (us: number) => Math.round(us * 1000);
const GPU_CATS = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);

/** Length of the union of [s, e) intervals clipped to [lo, hi), in ns. */
function unionNs(intervals: [number, number][], lo: number, hi: number): number {
  const xs = intervals.map(([s, e]) => [Math.max(s, lo), Math.min(e, hi)] as [number, number]).filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let cs = -Infinity;
  let ce = -Infinity;
  for (const [s, e] of xs) {
    if (s > ce) {
      if (ce > cs) total += ce - cs;
      cs = s;
      ce = e;
    } else ce = Math.max(ce, e);
  }
  if (ce > cs) total += ce - cs;
  return total;
}

describe('explain: numbers against the raw events and the oracle', () => {
  it('S1: kernels, launches, GPU time and GPU extent per mlp_fwd from the raw events (geglu_mlp)', async () => {
    const e = await explain('geglu_mlp');
    const inst = rawTrace('geglu_mlp').instances('mlp_fwd');
    expect(inst.length).toBe(3);
    const s = sentences(e, 'steps.annotation').find((x) => x.numbers['name'] === 'mlp_fwd')!;
    expect(num(s, 'instances')).toBe(3);
    expect(num(s, 'kernels')).toBe(mean(inst.map((i) => i.kernels.length)));
    expect(num(s, 'kernels')).toBe(5);
    expect(num(s, 'launches')).toBe(mean(inst.map((i) => i.launches)));
    expect(num(s, 'gpuTimeUs')).toBeCloseTo(mean(inst.map((i) => i.gpu.reduce((a, g) => a + ns(g.dur), 0) / 1000)), 6);
    const extent = (i: (typeof inst)[number]) => (Math.max(...i.gpu.map((g) => ns(g.ts) + ns(g.dur))) - Math.min(...i.gpu.map((g) => ns(g.ts)))) / 1000;
    expect(num(s, 'gpuExtentUs')).toBeCloseTo(mean(inst.map(extent)), 6);
    expect(num(s, 'cpuExtentUs')).toBeCloseTo(mean(inst.map((i) => ns(i.root.dur) / 1000)), 6);
  });

  it('S1: a launch is a call that launched kernels; memsets are named beside, not counted as launches (gpt2_train)', async () => {
    const e = await explain('gpt2_train');
    const inst = rawTrace('gpt2_train').instances('train_step');
    const s = sentences(e, 'steps.annotation').find((x) => x.numbers['name'] === 'train_step')!;
    const memsets = inst.map((i) => i.gpu.filter((g) => g.cat === 'gpu_memset').length);
    const copies = inst.map((i) => i.gpu.filter((g) => g.cat === 'gpu_memcpy').length);
    expect(num(s, 'kernels')).toBe(mean(inst.map((i) => i.kernels.length)));
    expect(num(s, 'launches')).toBe(mean(inst.map((i) => i.launches)));
    expect(num(s, 'memsets')).toBe(mean(memsets));
    expect(num(s, 'memsets')).toBeGreaterThan(0);
    // The cuBLAS/cuDNN memsets were once counted as launches: kernels + memsets calls.
    expect(num(s, 'launches')).toBeLessThan(num(s, 'kernels') + num(s, 'memsets'));
    const text = renderSentence(s);
    expect(text).toContain(`plus ${mean(memsets)} memsets`);
    if (mean(copies) === 0) expect(text).not.toMatch(/cop(y|ies)/);
    // linear launches no memset and no copy (raw): no "plus" clause.
    const lin = rawTrace('linear').instances('linear_fwd');
    expect(lin.flatMap((i) => i.gpu).filter((g) => g.cat !== 'kernel')).toEqual([]);
    const g = sentences(await explain('linear'), 'steps.annotation').find((x) => x.numbers['name'] === 'linear_fwd')!;
    expect(num(g, 'launches')).toBe(mean(lin.map((i) => i.launches)));
    expect(renderSentence(g)).not.toContain('plus');
  });

  it('S7: FLOPs of each GEMM equal 2·M·N·K from the raw aten::mm Input Dims (geglu_mlp)', async () => {
    const e = await explain('geglu_mlp');
    const raw = rawTrace('geglu_mlp').events.filter((x) => x.cat === 'cpu_op' && x.name === 'aten::mm');
    const byShape = new Map<string, number>();
    for (const x of raw) {
      const [a, b] = x.args!['Input Dims'] as number[][];
      byShape.set(`[${a!.join(',')}]×[${b!.join(',')}]`, 2 * a![0]! * a![1]! * b![1]!);
    }
    const rows = sentences(e, 'gemms.row');
    expect(rows.map((r) => r.numbers['shape']).sort()).toEqual([...byShape.keys()].sort());
    for (const r of rows) expect(num(r, 'flops')).toBe(byShape.get(r.numbers['shape'] as string));
    expect(rows.every((r) => num(r, 'flops') === 38_654_705_664)).toBe(true);
    // calls per shape from the raw events
    for (const r of rows) expect(num(r, 'calls')).toBe(raw.filter((x) => `[${(x.args!['Input Dims'] as number[][])[0]!.join(',')}]` === (r.numbers['shape'] as string).split('×')[0]).length);
  });

  it('S12: each step\'s GPU idle share from the union of its GPU activities in the raw events', async () => {
    for (const name of ['geglu_mlp', 'tiny_ops', 'linear']) {
      const e = await explain(name);
      const events = rawTrace(name).events;
      const gpu = events.filter((x) => GPU_CATS.has(x.cat ?? '')).map((x) => [ns(x.ts), ns(x.ts) + ns(x.dur)] as [number, number]);
      const steps = events.filter((x) => x.cat === 'user_annotation' && x.name.startsWith('ProfilerStep#')).sort((a, b) => a.ts - b.ts);
      // One summary sentence; the per-step figures ride in its numbers.
      const said = one(e, 'verdict.summary').numbers['perStep'] as { [k: string]: ExplainValue }[];
      expect(said.map((s) => s['name'])).toEqual(steps.map((s) => s.name));
      for (const [k, st] of steps.entries()) {
        const lo = ns(st.ts);
        const hi = lo + ns(st.dur);
        const busy = unionNs(gpu, lo, hi);
        expect(said[k]!['gpuIdleShare'] as number).toBeCloseTo(1 - busy / (hi - lo), 9);
        expect(said[k]!['gpuBusyUs'] as number).toBeCloseTo(busy / 1000, 6);
        // The verdict follows from the share (GPU-bound when busy for at least half the step).
        expect(said[k]!['verdict']).toMatch(busy / (hi - lo) >= 0.5 ? /^gpu-bound/ : /^overhead-bound/);
      }
    }
  });

  it('S12: one verdict across the steps, read at the median step\'s GPU busy share from the raw events; split steps said once, no per-step bullets', async () => {
    const shares = (name: string) => {
      const events = rawTrace(name).events;
      const gpu = events.filter((x) => GPU_CATS.has(x.cat ?? '')).map((x) => [ns(x.ts), ns(x.ts) + ns(x.dur)] as [number, number]);
      return events
        .filter((x) => x.cat === 'user_annotation' && x.name.startsWith('ProfilerStep#'))
        .sort((a, b) => a.ts - b.ts)
        .map((st) => ({ name: st.name, share: unionNs(gpu, ns(st.ts), ns(st.ts) + ns(st.dur)) / ns(st.dur) }));
    };
    // gpt2_train: the three steps straddle 50% busy; one gpu-bound verdict, borderline, at the median step.
    const g = shares('gpt2_train');
    const sorted = [...g].sort((a, b) => a.share - b.share);
    expect(sorted[0]!.share).toBeLessThan(0.5);
    expect(sorted[2]!.share).toBeGreaterThanOrEqual(0.5);
    const e = await explain('gpt2_train');
    const sum = one(e, 'verdict.summary');
    expect(sum.numbers['medianStep']).toBe(sorted[1]!.name);
    expect(num(sum, 'medianStepBusyShare')).toBeCloseTo(sorted[1]!.share, 9);
    expect([num(sum, 'busyMinShare'), num(sum, 'busyMaxShare')].map((x) => x.toFixed(9))).toEqual([sorted[0]!.share.toFixed(9), sorted[2]!.share.toFixed(9)]);
    expect(sum.numbers['verdict']).toBe(sorted[1]!.share >= 0.5 ? 'gpu-bound (borderline)' : 'overhead-bound (borderline)');
    one(e, 'verdict.split');
    expect(sentences(e, 'verdict.step')).toEqual([]);
    // A borderline GPU-bound reading does not claim host-side work cannot help.
    expect(sentences(e, 'next.gpu-bound')).toEqual([]);
    // tiny_ops: every step overhead-bound, far from the line: no split, no per-step sentence.
    expect(shares('tiny_ops').every((x) => x.share < 0.4)).toBe(true);
    const t = await explain('tiny_ops');
    expect(one(t, 'verdict.summary').numbers['verdict']).toBe('overhead-bound');
    expect(sentences(t, 'verdict.split')).toEqual([]);
    expect(sentences(t, 'verdict.step')).toEqual([]);
    expect(t.sections.find((x) => x.id === 'verdict')!.sentences.map((x) => x.id)).toEqual(['verdict.summary', 'verdict.meaning.overhead']);
  });

  it('S12: 40 steps straddling the line make one verdict, one split sentence and no per-step bullets; one odd step is named alone (trace builder)', async () => {
    // Step k (100 µs) runs one kernel of 45 µs (even k) or 55 µs (odd k): busy 45% or 55%.
    const build = (odd: (k: number) => number) => {
      const t = traceBuilder({ deviceName: 'NVIDIA H200', major: 9 });
      for (let k = 0; k < 40; k++) {
        const t0 = k * 100;
        t.step(k + 1, t0, 100);
        const op = t.op('aten::mul', t0 + 1, 5);
        t.launch(op, 'cudaLaunchKernel', t0 + 2, 2).kernel('mul_kernel', t0 + 10, odd(k));
      }
      return t.load();
    };
    const e = computeExplanation({ label: 'forty', model: await build((k) => (k % 2 ? 55 : 45)) });
    const v = e.sections.find((x) => x.id === 'verdict')!;
    expect(v.sentences.map((x) => x.id)).toEqual(['verdict.summary', 'verdict.split', expect.stringMatching(/^verdict\.meaning\./)]);
    const sum = one(e, 'verdict.summary');
    // 20 steps at 45%, 20 at 55%: the lower middle of the 40 sorted shares is a 45% step.
    expect(num(sum, 'medianStepBusyShare')).toBeCloseTo(0.45, 9);
    expect(sum.numbers['verdict']).toBe('overhead-bound (borderline)');
    // 39 steps at 20% busy, one at 90%: overhead-bound, the one gpu-bound step named alone.
    const e2 = computeExplanation({ label: 'one-odd', model: await build((k) => (k === 7 ? 90 : 20)) });
    expect(one(e2, 'verdict.summary').numbers['verdict']).toBe('overhead-bound');
    expect(sentences(e2, 'verdict.split')).toEqual([]);
    expect(sentences(e2, 'verdict.step').map((x) => [x.numbers['name'], x.numbers['verdict']])).toEqual([['ProfilerStep#8', 'gpu-bound']]);
  });

  it('S3: view calls that launched nothing equal torch\'s events of those names with no device time (oracle)', async () => {
    for (const name of ['geglu_mlp', 'linear']) {
      const e = await explain(name);
      const views = one(e, 'views.launched-nothing');
      const oracle = loadOracle(name).events;
      const names = (views.numbers['views'] as { name: string }[]).map((v) => v.name);
      for (const v of views.numbers['views'] as { name: string; calls: number }[]) {
        expect(v.calls).toBe(oracle.filter((x) => x.name === v.name && x.device_total_us === 0 && x.kernels.length === 0).length);
      }
      expect(num(views, 'viewCalls')).toBe(oracle.filter((x) => names.includes(x.name) && x.device_total_us === 0).length);
    }
  });

  it('S8: eager vs compiled nn.Linear — the same kernel byte for byte, the views gone, pre-ops added (raw events)', async () => {
    // `linear_compile --vs linear` reads the baseline linear (A, before) → linear_compile (B, after)
    const e = await explain('linear_compile', ['linear']);
    const ka = new Set(rawTrace('linear').instances('linear_fwd').flatMap((i) => i.kernels.map((k) => k.name)));
    const kb = new Set(rawTrace('linear_compile').instances('linear_fwd').flatMap((i) => i.kernels.map((k) => k.name)));
    const same = sentences(e, 'comparison.same-kernel').map((s) => s.numbers['kernel']);
    expect(same).toEqual([...ka].filter((k) => kb.has(k)));
    expect(same).toEqual(['nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT']);
    const removedViews = one(e, 'comparison.views-removed').numbers['views'];
    expect(removedViews).toEqual(['aten::t', 'aten::transpose', 'aten::as_strided']);
    const opsB = new Set(rawTrace('linear_compile').events.filter((x) => x.cat === 'cpu_op' || x.cat === 'user_annotation').map((x) => x.name));
    for (const v of removedViews as string[]) expect(opsB.has(v)).toBe(false);
    expect(one(e, 'comparison.compile-pre-ops').numbers['preOps']).toContain('TorchDynamo Cache Lookup');
  });

  it('S9: the fused gelu·mul kernel replaces the two eager kernels; the intermediate is [64,128,3072] bf16 from the raw Input Dims', async () => {
    const e = await explain('geglu_mlp_compile', ['geglu_mlp']);
    const rep = one(e, 'comparison.replaced');
    expect(rep.numbers['kernel']).toBe('triton_poi_fused__unsafe_view_gelu_mul_0');
    expect((rep.numbers['replaced'] as { op: string }[]).map((r) => r.op)).toEqual(['aten::gelu', 'aten::mul']);
    const mul = rawTrace('geglu_mlp').events.find((x) => x.cat === 'cpu_op' && x.name === 'aten::mul')!;
    const dims = (mul.args!['Input Dims'] as number[][])[0]!;
    expect(mul.args!['Input type']).toEqual(['c10::BFloat16', 'c10::BFloat16']);
    const bytes = dims.reduce((a, b) => a * b, 1) * 2;
    expect(bytes).toBe(50_331_648);
    const hbm = one(e, 'comparison.hbm-saved');
    expect(num(hbm, 'intermediateBytes')).toBe(bytes);
    expect(num(hbm, 'hbmSavedBytes')).toBe(2 * bytes);
    // eager and fused time per occurrence, from the raw kernels
    const eager = rawTrace('geglu_mlp').instances('mlp_fwd');
    const eagerUs = mean(eager.map((i) => i.kernels.filter((k) => /Gelu|MulFunctor/.test(k.name)).reduce((a, k) => a + ns(k.dur), 0) / 1000));
    expect(num(rep, 'replacedUs')).toBeCloseTo(eagerUs, 6);
  });

  it('S11: hand-written geglu_fwd against Inductor\'s kernel, times from the raw kernels', async () => {
    const e = await explain('geglu_mlp_hand', ['geglu_mlp_compile']);
    const s = one(e, 'comparison.hand-vs-inductor');
    const kernelMean = (name: string, pick: (k: RawEvent) => boolean) => mean(rawTrace(name).instances('mlp_fwd').flatMap((i) => i.kernels.filter(pick).map((k) => ns(k.dur) / 1000)));
    expect(s.numbers['hand']).toBe('geglu_fwd');
    expect(num(s, 'handUs')).toBeCloseTo(kernelMean('geglu_mlp_hand', (k) => k.name === 'geglu_fwd'), 6);
    expect(num(s, 'inductorUs')).toBeCloseTo(kernelMean('geglu_mlp_compile', (k) => k.name.startsWith('triton_')), 6);
  });

  it('conclusions: one row per trace with kernels, GPU and CPU time per instance from the raw events', async () => {
    const names = ['linear', 'linear_compile', 'geglu_mlp', 'geglu_mlp_compile'];
    const e = await explain('geglu_mlp_hand', names);
    const table = e.sections.find((s) => s.id === 'conclusions')!.tables[0]!;
    expect(table.rows.map((r) => r['trace'])).toEqual(['geglu_mlp_hand', ...names]);
    for (const r of table.rows) {
      const name = r['trace'] as string;
      const inst = rawTrace(name).instances(r['scope'] as string);
      expect(r['kernels']).toBe(mean(inst.map((i) => i.kernels.length)));
      expect(r['gpuUs'] as number).toBeCloseTo(mean(inst.map((i) => i.gpu.reduce((a, g) => a + ns(g.dur), 0) / 1000)), 6);
      expect(r['cpuUs'] as number).toBeCloseTo(mean(inst.map((i) => ns(i.root.dur) / 1000)), 6);
      expect(r['compiled']).toBe(rawTrace(name).events.some((x) => x.name.startsWith('Torch-Compiled Region')));
    }
    expect(table.rows.map((r) => r['kernels'])).toEqual([4, 1, 1, 5, 4]);
  });
});

describe('explain: a sentence only where its condition holds', () => {
  it('S4/S7: a GEMM op under which no kernel ran (linear_cpu: a CPU-only trace) has no epilogue and no row in the GEMM table, only a count', async () => {
    const cpu = await explain('linear_cpu');
    const raw = loadRawJson(h200Trace('linear_cpu')).traceEvents;
    expect(raw.some((x) => x['cat'] === 'kernel')).toBe(false);
    const addmm = raw.filter((x) => x['cat'] === 'cpu_op' && x['name'] === 'aten::addmm').length;
    const nk = one(cpu, 'gemms.no-kernel');
    expect(nk.numbers).toMatchObject({ calls: addmm, ops: 'aten::addmm' });
    expect(sentences(cpu, 'bias.epilogue')).toEqual([]);
    expect(sentences(cpu, 'gemms.row')).toEqual([]);
    expect(cpu.sections.find((x) => x.id === 'gemms')!.tables).toEqual([]);
    // where the GEMM ran on the GPU: its row, and no such count
    const gpu = await explain('linear');
    expect(sentences(gpu, 'gemms.no-kernel')).toEqual([]);
    one(gpu, 'gemms.row');
  });

  it('S1: a trace of the CUDA activity alone says why it has no steps, without claiming step() was not called', async () => {
    const cuda = await explain('mlp_train_cuda_only');
    const raw = loadRawJson(h200Trace('mlp_train_cuda_only')).traceEvents;
    expect(raw.some((x) => x['cat'] === 'cpu_op' || x['cat'] === 'user_annotation')).toBe(false);
    one(cuda, 'steps.no-cpu-activity');
    expect(sentences(cuda, 'steps.none')).toEqual([]);
    // a trace with CPU activity and steps says neither
    const linear = await explain('linear');
    expect(sentences(linear, 'steps.no-cpu-activity')).toEqual([]);
    expect(sentences(linear, 'steps.none')).toEqual([]);
  });

  it('S4: bias in the epilogue for nn.Linear, a separate add for matmul+add, no bias at all for the GeGLU block', async () => {
    const linear = await explain('linear');
    const ep = one(linear, 'bias.epilogue');
    expect(ep.numbers['op']).toBe('aten::addmm');
    expect(ep.numbers['kernel']).toBe('nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT');
    expect(rawTrace('linear').events.some((x) => x.name === 'aten::add')).toBe(false);
    one(linear, 'bias.no-add-op');
    expect(sentences(linear, 'bias.separate-add')).toEqual([]);

    const geglu = await explain('geglu_mlp');
    // geglu's Linears have no bias: the raw GEMMs are aten::mm, and no sentence places a bias anywhere.
    expect(new Set(rawTrace('geglu_mlp').events.filter((x) => x.cat === 'cpu_op' && /addmm|^aten::mm$/.test(x.name)).map((x) => x.name))).toEqual(new Set(['aten::mm']));
    expect(sentences(geglu, 'bias.epilogue')).toEqual([]);
    expect(sentences(geglu, 'bias.no-add-op')).toEqual([]);
    expect(sentences(geglu, 'action.bias-epilogue')).toEqual([]);
    expect(num(one(geglu, 'bias.none'), 'gemmCalls')).toBe(rawTrace('geglu_mlp').events.filter((x) => x.name === 'aten::mm').length);
    const text = renderExplainMarkdown(geglu);
    expect(text).not.toMatch(/bias is added in the GEMM's epilogue/);

    const ma = await explain('matmul_add');
    const sep = one(ma, 'bias.separate-add');
    expect(sep.numbers['addOp']).toBe('aten::add');
    expect(sentences(ma, 'bias.epilogue')).toEqual([]);
    one(ma, 'action.bias-epilogue');
  });

  it('S4: a separate bias add only after a forward GEMM; a pointwise Inductor add gets compile-side wording; a backward mm or a layer-norm-backward reduction gets none (epilogue-premises.json)', async () => {
    const path = join(ROOT, 'test/fixtures/micro/epilogue-premises.json');
    const e = computeExplanation({ label: 'epilogue-premises', model: await load(path) });
    const raw = (loadRawJson(path) as unknown as { traceEvents: RawEvent[] }).traceEvents;
    const kernelUs = (opName: string) => raw.filter((k) => k.cat === 'kernel' && k.args!['External id'] === raw.find((o) => o.cat === 'cpu_op' && o.name === opName)!.args!['External id']).map((k) => k.dur);
    const seps = sentences(e, 'bias.separate-add');
    expect(seps.map((x) => x.numbers['addOp'])).toEqual(['aten::add', 'triton_poi_fused_add_0', 'triton_poi_fused_add_gelu_1']);
    expect(seps.map((x) => x.numbers['addMeanUs'])).toEqual([kernelUs('aten::add')[0], ...kernelUs('triton_poi_fused_add_0'), ...kernelUs('triton_poi_fused_add_gelu_1')]);
    expect(renderSentence(seps[0]!)).toMatch(/takes no bias; the next op/);
    expect(renderSentence(seps[1]!)).toMatch(/inside the compiled graph runs without its bias; Inductor adds it in a pointwise kernel of its own/);
    expect(renderSentence(seps[2]!)).toMatch(/together with `gelu`: that kernel reads the product for those ops anyway/);
    // The backward mm ([1024,32]×[32,64] again, under MmBackward0) and the reduction after [8192,32]×[32,512]: no sentence.
    expect(seps.filter((x) => x.numbers['shape'] === '[8192,32]×[32,512]')).toEqual([]);
    expect(seps.filter((x) => x.numbers['shape'] === '[1024,32]×[32,64]')).toHaveLength(1);
    // (the actions' own sentences, in the rows' order: the ranking orders them by time at stake)
    const next = [...e.actions.advice, ...e.actions.minor].filter((a) => a.id === 'bias-epilogue').map((a) => renderSentence(a.sentence)).sort();
    expect(next).toHaveLength(2);
    expect(next[0]).toMatch(/^In the compiled graph, `aten::mm` \[\[2048,32\],\[32,128\],\[2048,128\]\] runs on cuBLAS without its bias and `triton_poi_fused_add_0` adds it/);
    expect(next[1]).toMatch(/^Let the bias ride in the GEMM: `aten::mm` \[\[1024,32\],\[32,64\]\] followed by `aten::add`/);
    expect(next.join(' ')).not.toContain('gelu');
    const rows = (await import('../../src/analyses/host/ops.js')).computeOps(await load(path)).epilogues;
    // Five bias-less GEMMs: the forward eager one and the two compiled ones with a pointwise add have a row; the backward mm and the one before a reduction have nothing to report.
    expect(rows.map((r) => [r.inputDims, r.backward, r.separateAdd?.op])).toEqual([
      ['[[1024,32],[32,64]]', false, 'aten::add'],
      ['[[2048,32],[32,128],[2048,128]]', false, 'triton_poi_fused_add_0'],
      ['[[4096,32],[32,256],[4096,256]]', false, 'triton_poi_fused_add_gelu_1'],
    ]);
  });

  it('S4: the compiled GPT-2 training step: no bias advice for its backward mm calls, whose next op is a layer-norm-backward reduction (gpt2_train_compile)', async () => {
    const raw = rawTrace('gpt2_train_compile').events;
    // The premise the old advice stood on: backward aten::mm calls followed, as the next op, by a
    // persistent reduction fusing `add` whose inputs include a [768] operand.
    const ops = raw.filter((x) => x.cat === 'cpu_op').sort((a, b) => a.ts - b.ts);
    const lnBwd = ops.filter((x) => /^triton_per_fused_.*_add_.*native_layer_norm_backward/.test(x.name) && (x.args!['Input Dims'] as number[][]).some((d) => d.length === 1 && d[0] === 768));
    expect(lnBwd.length).toBeGreaterThan(0);
    const e = await explain('gpt2_train_compile');
    expect(sentences(e, 'bias.separate-add')).toEqual([]);
    expect(sentences(e, 'action.bias-epilogue')).toEqual([]);
    // Its forward Linears are addmm with the bias in the nvjet kernel's epilogue (raw: each addmm's kernel says _bias_).
    const addmm = ops.filter((x) => x.name === 'aten::addmm');
    const kernelsOf = (x: RawEvent) => raw.filter((k) => k.cat === 'kernel' && k.args!['External id'] === x.args!['External id']);
    expect(addmm.length).toBeGreaterThan(0);
    expect(addmm.every((x) => kernelsOf(x).some((k) => /_bias_/.test(k.name)))).toBe(true);
    expect(sentences(e, 'bias.epilogue').reduce((a, x) => a + num(x, 'calls'), 0)).toBe(addmm.length);
  });

  it('S9: max-autotune template GEMMs read as the GEMM they compute, the ReLU in the epilogue; the ReLU kernel alone is no fusion (relu_mlp_compile_ma_nograd)', async () => {
    const e = await explain('relu_mlp_compile_ma_nograd');
    const names = [...new Set(rawTrace('relu_mlp_compile_ma_nograd').events.filter((x) => x.cat === 'kernel' && x.name.startsWith('triton_')).map((x) => x.name))].sort();
    const said = sentences(e, 'fusion.inductor');
    expect(said.map((x) => x.numbers['kernel']).sort()).toEqual(names);
    for (const x of said) {
      const name = x.numbers['kernel'] as string;
      if (name.startsWith('triton_tem_')) {
        expect(x.numbers['gemmOps']).toEqual(['addmm']);
        expect(x.numbers['epilogueOps']).toEqual(name.includes('_relu_') ? ['relu'] : []);
        expect(x.numbers['viewOps']).toEqual(['t', 'view']);
      } else expect(renderSentence(x)).toMatch(/no fusion across ops/);
    }
  });

  it('S1: a caveat that with_stack / profile_memory / with_flops inflate host times, only where the trace shows them on', async () => {
    const raw = loadRawJson(h200Trace('gpt2_train'));
    const frames = raw.traceEvents.filter((x) => x['cat'] === 'python_function').length;
    const records = raw.traceEvents.filter((x) => x['name'] === '[memory]').length;
    expect([raw['with_stack'], raw['profile_memory'], raw['with_flops']]).toEqual([1, 1, 1]);
    const s = one(await explain('gpt2_train'), 'steps.profiler-options');
    expect(s.numbers['options']).toEqual(['with_stack', 'profile_memory', 'with_flops']);
    // The header says so (torch 2.11 writes the flags); the raw frames and records agree.
    expect(s.numbers['evidence']).toEqual(['the trace header', 'the trace header', 'the trace header']);
    expect([frames > 0, records > 0]).toEqual([true, true]);
    expect(renderSentence(s)).toMatch(/host times .* read longer .*; GPU activity durations are not affected/);
    for (const name of ['linear', 'relu_mlp_compile']) {
      const r = loadRawJson(h200Trace(name));
      expect([r['with_stack'], r['profile_memory'], r['with_flops']].every((x) => !x)).toBe(true);
      expect(r.traceEvents.some((x) => x['cat'] === 'python_function' || x['name'] === '[memory]')).toBe(false);
      expect(sentences(await explain(name), 'steps.profiler-options')).toEqual([]);
    }
  });

  it('S4: the eager GPT-2 training step: its backward mm calls get no bias sentence', async () => {
    const e = await explain('gpt2_train');
    const raw = rawTrace('gpt2_train').events;
    expect(raw.some((x) => x.name.startsWith('autograd::engine::evaluate_function: AddmmBackward'))).toBe(true);
    expect(sentences(e, 'bias.separate-add')).toEqual([]);
    expect(sentences(e, 'action.bias-epilogue')).toEqual([]);
  });

  it('what to do: no_grad only on a compiled graph that keeps backward work; CUDA graphs only where the steps launch none yet; fuse only with a chain', async () => {
    const relu = await explain('relu_mlp_compile');
    expect(one(relu, 'action.no-grad').numbers['finding']).toBe('BACKWARD_OPS_WITHOUT_BACKWARD');
    expect(rawTrace('relu_mlp_compile').events.some((x) => x.name.includes('threshold_backward'))).toBe(true);
    const eager = await explain('relu_mlp');
    expect(sentences(eager, 'action.no-grad')).toEqual([]);
    // The workloads' no-grad capture: no CompiledFunction, no backward ops, no advice.
    const nograd = computeExplanation({ label: 'relu_mlp_compile_nograd', model: await load(workloadTrace('relu_mlp_compile_nograd')) });
    const raw = (loadRawJson(workloadTrace('relu_mlp_compile_nograd')).traceEvents as unknown as RawEvent[]).filter((x) => x.ph === 'X');
    expect(raw.some((x) => x.name === 'CompiledFunction' || x.name.includes('threshold_backward'))).toBe(false);
    expect(sentences(nograd, 'action.no-grad')).toEqual([]);

    const tiny = await explain('tiny_ops');
    one(tiny, 'action.cuda-graph');
    expect(sentences(tiny, 'verdict.gpu-bound')).toEqual([]);
    // A trace that replays CUDA graphs already gets no CUDA-graph action; the verdict says what the GPU waits for.
    const ro = await explain('tiny_ops_compile_ro');
    expect(rawTrace('tiny_ops_compile_ro').events.some((x) => x.name === 'cudaGraphLaunch')).toBe(true);
    expect(sentences(ro, 'action.cuda-graph')).toEqual([]);
    one(ro, 'verdict.graphs-replayed');
    // Workload geglu_mlp: every step GPU-bound, said with the GEMMs' share; gelu and mul are not back to
    // back there (the up GEMM runs between them) but gelu's output still round-trips HBM: a chain to fuse.
    const wg = computeExplanation({ label: 'geglu_mlp', model: await load(workloadTrace('geglu_mlp')) });
    expect(String(one(wg, 'verdict.summary').numbers['verdict'])).toMatch(/^gpu-bound/);
    expect(sentences(wg, 'verdict.step')).toEqual([]);
    one(wg, 'verdict.gpu-bound');
    const wmul = (loadRawJson(workloadTrace('geglu_mlp')).traceEvents as unknown as RawEvent[]).find((x) => x.name === 'aten::mul')!;
    const wdims = (wmul.args!['Input Dims'] as number[][])[0]!;
    expect((wmul.args!['Input type'] as string[])[0]).toBe('c10::BFloat16');
    const wfuse = one(wg, 'action.fuse-chain');
    expect(wfuse.numbers['chain']).toBe('gelu·mul');
    expect(num(wfuse, 'intermediateBytes')).toBe(wdims.reduce((p, d) => p * d, 1) * 2);

    const g = await explain('geglu_mlp');
    const fuse = one(g, 'action.fuse-chain');
    expect(fuse.numbers['chain']).toBe('gelu·mul');
    expect(num(fuse, 'intermediateBytes')).toBe(64 * 128 * 3072 * 2);
    const compiled = await explain('geglu_mlp_compile');
    expect(sentences(compiled, 'action.fuse-chain')).toEqual([]);
    expect(sentences(compiled, 'fusion.inductor').map((s) => s.numbers['ops'])).toEqual([['_unsafe_view', 'gelu', 'mul']]);
  });

  it('S9: the fused-ops sentence lists only ops that launch a kernel when run eagerly: views and Inductor prims named apart; a template GEMM is a GEMM; one op is no fusion', async () => {
    const path = join(ROOT, 'test/fixtures/micro/inductor-template-gemm.json');
    const e = computeExplanation({ label: 'tem', model: await load(path) });
    const by = new Map(sentences(e, 'fusion.inductor').map((x) => [x.numbers['kernel'] as string, x]));
    const tem = by.get('triton_tem_fused_addmm_t_view_0')!;
    expect([tem.numbers['gemmOps'], tem.numbers['epilogueOps'], tem.numbers['viewOps']]).toEqual([['addmm'], [], ['t', 'view']]);
    expect(renderSentence(tem)).not.toMatch(/fusing|one kernel for ops/);
    const relu = by.get('triton_poi_fused_relu_view_1')!;
    expect([relu.numbers['launchingOps'], relu.numbers['viewOps']]).toEqual([['relu'], ['view']]);
    expect(renderSentence(relu)).toMatch(/no fusion across ops/);
    const addMul = by.get('triton_poi_fused_add_mul_2')!;
    expect(renderSentence(addMul)).toMatch(/fusing `add`, `mul`: one kernel for ops that each launch a kernel of their own when run eagerly/);

    // Real captures: every op a "fusing" sentence lists is a non-view op in the kernel's raw name.
    for (const name of ['geglu_mlp_compile', 'relu_mlp_compile']) {
      const ex = await explain(name);
      const kernels = new Set(rawTrace(name).events.filter((x) => x.cat === 'kernel' && x.name.startsWith('triton_')).map((x) => x.name));
      for (const x of sentences(ex, 'fusion.inductor')) {
        expect(kernels.has(x.numbers['kernel'] as string)).toBe(true);
        for (const op of x.numbers['launchingOps'] as string[]) {
          expect((x.numbers['kernel'] as string).includes(`_${op}_`)).toBe(true);
          expect(['view', '_unsafe_view', 't', 'transpose', 'expand', 'permute', 'reshape']).not.toContain(op);
        }
      }
    }
    const g = sentences(await explain('geglu_mlp_compile'), 'fusion.inductor');
    expect(g.map((x) => [x.numbers['launchingOps'], x.numbers['viewOps']])).toEqual([[['gelu', 'mul'], ['_unsafe_view']]]);
  });

  it('.item() advice only where a sync sits under aten::item / _local_scalar_dense (sync_loop)', async () => {
    const e = await explain('sync_loop');
    const s = one(e, 'action.host-sync.item');
    const raw = rawTrace('sync_loop').events;
    const items = raw.filter((x) => x.name === 'aten::_local_scalar_dense');
    const steps = raw.filter((x) => x.name.startsWith('ProfilerStep#')).length;
    expect(num(s, 'callsPerStep')).toBe(items.length / steps);
    expect(sentences(await explain('linear'), 'action.host-sync.item')).toEqual([]);
  });

  it('comparison and conclusions only with --vs', async () => {
    const e = await explain('linear');
    expect(e.sections.map((s) => s.id)).not.toContain('comparison');
    expect(e.sections.map((s) => s.id)).not.toContain('conclusions');
  });
});

describe('explain: rendering', () => {
  it('every placeholder of every sentence resolves to a number or name, on every H200 capture', async () => {
    const resolve = (numbers: ExplainSentence['numbers'], path: string): ExplainValue | undefined => {
      let v: unknown = numbers;
      for (const seg of path.split('.')) v = v === null || typeof v !== 'object' ? undefined : (v as Record<string, unknown>)[seg];
      return v as ExplainValue | undefined;
    };
    let checked = 0;
    const workloads = readdirSync(WORKLOADS_DIR).filter((f) => f.endsWith('.pt.trace.json.gz')).map((f) => workloadTrace(f.replace('.pt.trace.json.gz', '')));
    const paths = [...H200_NAMES.map(h200Trace), ...workloads];
    for (const path of paths) {
      const name = path;
      const e = computeExplanation({ label: name, model: await load(path) });
      for (const s of e.sections.flatMap((x) => x.sentences)) {
        for (const m of s.template.matchAll(/\{([A-Za-z0-9_.]+)(?:\|[^}]*)?\}/g)) {
          expect(resolve(s.numbers, m[1]!), `${name} ${s.id} {${m[1]}}`).not.toBeUndefined();
          checked++;
        }
        expect(renderSentence(s)).not.toMatch(/\{[A-Za-z]|undefined|NaN/);
      }
    }
    expect(paths.length).toBeGreaterThanOrEqual(H200_NAMES.length + 12);
    expect(checked).toBeGreaterThan(1000);
  });

  it('units follow the key: µs, bytes, shares, plurals', () => {
    const s = (template: string, numbers: Record<string, ExplainValue>) => renderSentence({ id: 't', template, numbers });
    expect(s('{gpuUs}', { gpuUs: 56.645 })).toBe('56.645 µs');
    expect(s('{x|kernel}, {y|kernel}, {z|launch|launches}', { x: 1, y: 5, z: 2 })).toBe('1 kernel, 5 kernels, 2 launches');
    expect(s('{intermediateBytes}', { intermediateBytes: 50_331_648 })).toBe('50,331,648 B = 48.0 MiB');
    expect(s('{gpuIdleShare}', { gpuIdleShare: 0.246 })).toBe('24.6%');
    expect(s('{m}·{n}·{k}', { m: 8192, n: 3072, k: 768 })).toBe('8192·3072·768');
    expect(s('{cpuDeltaUs} {gpuDeltaUs}', { cpuDeltaUs: 178.482, gpuDeltaUs: -0.021 })).toBe('+178.482 µs -0.021 µs');
    expect(s('{list.1.name}', { list: [{ name: 'a' }, { name: 'b' }] })).toBe('b');
  });

  it('JSON: stable keys, µs rounded to the ns, rendered text beside the template', async () => {
    const j = explainJson(await explain('linear_compile', ['linear']));
    expect(Object.keys(j)).toEqual(['trace', 'vs', 'verdict', 'actions', 'facts', 'sections']);
    expect(j.trace).toMatchObject({ label: 'linear_compile', scope: 'linear_fwd', instances: 3 });
    for (const s of j.sections) {
      expect(EXPLAIN_SECTIONS).toContain(s.id);
      expect(Object.keys(s)).toEqual(['id', 'title', 'readings', ...('lead' in s ? ['lead'] : []), 'sentences', 'tables', 'more']);
      for (const x of s.sentences) expect(Object.keys(x)).toEqual(['id', 'text', 'template', 'numbers']);
    }
    const row = j.sections.find((s) => s.id === 'conclusions')!.tables[0]!.rows[0] as Record<string, number>;
    expect(row['gpuUs']).toBe(Math.round(row['gpuUs']! * 1000) / 1000);
  });
});

describe('explain: the command', () => {
  const run = (...args: string[]) => runCli(['explain', ...args]);

  it('prints the first screen by default, every section with --full, --only the named ones, --json one document with everything', async () => {
    const md = await run(h200Trace('geglu_mlp'));
    expect(md.status).toBe(0);
    expect(md.stdout).toMatch(/^# What geglu_mlp shows/);
    expect(md.stdout.match(/^## .*/gm)).toEqual(['## Verdict: overhead-bound (borderline)', "## What to do, by time at stake per step (each action's alone: they overlap)", '## The facts behind them']);
    const full = await run(h200Trace('geglu_mlp'), '--full');
    for (const h of ['## Verdict: what bounds the step', '## What to do, by time at stake per step', '## Steps and annotations', '## The dispatch chain: each top-level op down to its kernels', '## The GEMMs: FLOPs, rate and % of peak']) expect(full.stdout).toContain(h);
    // Headings say what they hold: no reading labels (the JSON's `readings` keeps them for scripts).
    expect(full.stdout).not.toMatch(/^## .*\(S\d/m);
    expect(full.stdout.indexOf('## Verdict')).toBeLessThan(full.stdout.indexOf('## Steps and annotations'));
    const only = await run(h200Trace('geglu_mlp'), '--only', 'gemms');
    expect(only.stdout.match(/^## /gm)).toEqual(['## ']);
    const j = await run(h200Trace('linear_compile'), '--vs', h200Trace('linear'), '--json');
    expect(j.status).toBe(0);
    const doc = JSON.parse(j.stdout);
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'trace', 'vs', 'verdict', 'actions', 'facts', 'sections', 'diagnostics', 'vsDiagnostics']);
    expect(doc.vs[0].label).toBe('linear');
    // --full is for text: the JSON holds every section either way.
    const jFull = JSON.parse((await run(h200Trace('linear_compile'), '--vs', h200Trace('linear'), '--json', '--full')).stdout);
    expect(jFull.sections.map((s: { id: string }) => s.id)).toEqual(doc.sections.map((s: { id: string }) => s.id));
  });

  it('bad --only, bad --limit and a missing file exit 2 with one line', async () => {
    for (const args of [[h200Trace('linear'), '--only', 'nope'], [h200Trace('linear'), '--limit', '-1'], [join(ROOT, 'no-such.json')]]) {
      const r = await run(...args);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await run('--help')).status).toBe(0);
  });
});

describe('explain: padding a misaligned GEMM dimension (action pad-gemm)', () => {
  const padAdvice = async (name: string) => {
    const e = computeExplanation({ model: await loadModel(h200Trace(name)), label: name });
    return [...e.actions.advice, ...e.actions.minor].filter((a) => a.id === 'pad-gemm').map((a) => a.sentence);
  };

  it('gpt2_train: the vocabulary 50257 → 50264, its GEMM calls counted from the raw events', async () => {
    // raw: GEMM ops with 50257 among their Input Dims whose kernel (by External id) is align1/align2
    const raw = loadRawJson(h200Trace('gpt2_train')).traceEvents;
    const kernelsByExt = new Map<number, string[]>();
    for (const e of raw) {
      if (e['cat'] !== 'kernel') continue;
      const ext = (e['args'] as Record<string, number>)['External id']!;
      kernelsByExt.set(ext, [...(kernelsByExt.get(ext) ?? []), String(e['name'])]);
    }
    const misaligned = raw.filter((e) => {
      if (e['cat'] !== 'cpu_op' || !/^aten::(mm|addmm|bmm)$/.test(String(e['name']))) return false;
      const a = e['args'] as Record<string, unknown>;
      if (!JSON.stringify(a['Input Dims']).includes('50257')) return false;
      return (kernelsByExt.get(a['External id'] as number) ?? []).some((k) => /align[12]\b|_align[12]_/.test(k) || /align[12]$/.test(k));
    });
    const advice = await padAdvice('gpt2_train');
    expect(advice).toHaveLength(1);
    expect(advice[0]!.numbers['sizes']).toBe('50257 → 50264');
    expect(advice[0]!.numbers['multiple']).toBe(8);
    expect(advice[0]!.numbers['calls']).toBe(misaligned.length);
    expect(misaligned.length).toBe(9);
  });

  it('says nothing where every GEMM dimension is aligned', async () => {
    for (const name of ['relu_mlp', 'geglu_mlp', 'attention', 'scaled_mm', 'gpt2_train_compile']) expect(await padAdvice(name), name).toEqual([]);
  });

  it('cnn_train: its 10-class head (10 → 16) is below 1% of the step: an action, not advice', async () => {
    const e = computeExplanation({ model: await loadModel(h200Trace('cnn_train')), label: 'cnn_train' });
    expect(e.actions.advice.filter((a) => a.id === 'pad-gemm')).toEqual([]);
    const minor = e.actions.minor.filter((a) => a.id === 'pad-gemm');
    expect(minor.map((a) => a.sentence.numbers['sizes'])).toEqual(['10 → 16']);
    expect(minor[0]!.stepShare).toBeLessThan(0.01);
  });
});

describe('explain --vs: the same work past eight kernels in one sentence (comparison.same-kernels-more)', () => {
  it('cnn_train → cnn_train_compile: eight listed, the rest summed; linear → linear_compile: silent', async () => {
    const cnn = await explain('cnn_train', ['cnn_train_compile']);
    const listed = sentences(cnn, 'comparison.same-kernel');
    const more = sentences(cnn, 'comparison.same-kernels-more');
    expect(listed).toHaveLength(8);
    expect(more).toHaveLength(1);
    // the rows that run in both on each side: the raw kernel names present in both traces' train_step
    const namesA = new Set(rawTrace('cnn_train').instances('train_step').flatMap((i) => i.kernels.map((k) => k.name)));
    const namesB = new Set(rawTrace('cnn_train_compile').instances('train_step').flatMap((i) => i.kernels.map((k) => k.name)));
    const shared = [...namesA].filter((n) => namesB.has(n)).length;
    expect(8 + (more[0]!.numbers['more'] as number)).toBeGreaterThanOrEqual(shared); // per shape: at least one row per shared name
    const linear = await explain('linear', ['linear_compile']);
    expect(sentences(linear, 'comparison.same-kernels-more')).toEqual([]);
  });
});

describe('explain: what to try when the GPU waits for data', () => {
  it('dataloader_train: the step that waited for its batch gets the input-pipeline advice', async () => {
    const e = await explain('dataloader_train');
    const raw = loadRawJson(h200Trace('dataloader_train')).traceEvents;
    // The step with the longest DataLoader wait, from the raw annotations (the loader's __next__ inside each step).
    const steps = raw.filter((x) => String(x['name']).startsWith('ProfilerStep#'));
    const loads = raw.filter((x) => String(x['name']).startsWith('enumerate(DataLoader)#'));
    const waitOf = (s: Record<string, unknown>) =>
      loads.filter((l) => (l['ts'] as number) >= (s['ts'] as number) && (l['ts'] as number) < (s['ts'] as number) + (s['dur'] as number)).reduce((t, l) => t + (l['dur'] as number), 0);
    const longest = [...steps].sort((a, b) => waitOf(b) - waitOf(a))[0]!;
    const d = one(e, 'action.dataloader');
    expect(d.numbers['step']).toBe(longest['name']);
    expect(d.numbers['steps']).toBe(1);
    // the wait counted is at most the raw annotation's, and more than half the step's GPU idle time
    expect(num(d, 'dataLoaderUs')).toBeLessThanOrEqual(waitOf(longest));
    expect(num(d, 'dataLoaderUs')).toBeGreaterThan(num(d, 'gpuIdleUs') / 2);
    // the launches of the steps get the CUDA-graph action beside it
    one(e, 'action.cuda-graph');
  });

  it('a trace with no DataLoader gets no input-pipeline advice (tiny_ops: overhead-bound on launches)', async () => {
    const e = await explain('tiny_ops');
    expect(loadRawJson(h200Trace('tiny_ops')).traceEvents.some((x) => String(x['name']).startsWith('enumerate(DataLoader)'))).toBe(false);
    expect(sentences(e, 'action.dataloader')).toEqual([]);
    expect(renderSentence(one(e, 'action.cuda-graph'))).toMatch(/a launch costs more than the kernel it launches/);
  });
});

describe('explain: a stream waiting on an event is not a host synchronization', () => {
  it('lstm_train: its cudaStreamWaitEvent calls are said to wait on the GPU, not to block the host', async () => {
    const e = await explain('lstm_train');
    const raw = loadRawJson(h200Trace('lstm_train')).traceEvents.filter((x) => x['cat'] === 'cuda_runtime' && x['name'] === 'cudaStreamWaitEvent');
    expect(raw.length).toBeGreaterThan(0);
    const waits = sentences(e, 'launches.stream-wait');
    expect(waits.reduce((n, x) => n + num(x, 'count'), 0)).toBe(raw.length);
    expect(waits.every((x) => x.numbers['api'] === 'cudaStreamWaitEvent')).toBe(true);
    // the call time, summed from the raw events (µs, within a ns per call)
    expect(waits.reduce((t, x) => t + num(x, 'callUs'), 0)).toBeCloseTo(raw.reduce((t, x) => t + (x['dur'] as number), 0), 2);
    expect(sentences(e, 'launches.sync').filter((x) => x.numbers['api'] === 'cudaStreamWaitEvent')).toEqual([]);
    expect(renderExplainMarkdown(e)).not.toMatch(/cudaStreamWaitEvent[^\n]*blocked the host/);
    // a true host synchronization keeps its sentence
    expect(sentences(e, 'launches.sync').map((x) => x.numbers['api'])).toContain('cudaDeviceSynchronize');
  });

  it('a trace with no cudaStreamWaitEvent has no such sentence (linear)', async () => {
    expect(loadRawJson(h200Trace('linear')).traceEvents.some((x) => x['name'] === 'cudaStreamWaitEvent')).toBe(false);
    expect(sentences(await explain('linear'), 'launches.stream-wait')).toEqual([]);
  });
});

describe("explain: CUPTI's own work", () => {
  it("llm_decode: the overhead events' names, counts and time from the raw JSON, and the op torch's table counts one in", async () => {
    const e = await explain('llm_decode');
    const raw = loadRawJson(h200Trace('llm_decode')).traceEvents;
    const over = raw.filter((x) => x['cat'] === 'overhead');
    expect(over.length).toBe(3);
    const s = one(e, 'steps.cupti-overhead');
    const byName = new Map<string, number>();
    for (const x of over) byName.set(String(x['name']), (byName.get(String(x['name'])) ?? 0) + 1);
    expect((s.numbers['overhead'] as { name: string; count: number }[]).map((x) => [x.name, x.count])).toEqual([...byName]);
    expect(num(s, 'overheadUs')).toBeCloseTo(over.reduce((t, x) => t + (x['dur'] as number), 0), 2);
    // torch's oracle: the buffer request inside aten::_cudnn_attention_forward (its parent there) — 3,584.978 µs
    const inside = s.numbers['inside'] as { name: string; durUs: number; op: string }[];
    const inOp = inside.find((x) => x.op === 'aten::_cudnn_attention_forward')!;
    const rawIn = over.find((x) => Math.abs((x['dur'] as number) - inOp.durUs) < 0.001)!;
    expect(rawIn['name']).toBe('Activity Buffer Request');
    const opAround = raw.filter((x) => x['cat'] === 'cpu_op' && x['name'] === 'aten::_cudnn_attention_forward' && (x['ts'] as number) <= (rawIn['ts'] as number) && (x['ts'] as number) + (x['dur'] as number) >= (rawIn['ts'] as number) + (rawIn['dur'] as number));
    expect(opAround).toHaveLength(1);
  });

  it('a trace without overhead events has no such sentence (gpt2_train)', async () => {
    const e = await explain('gpt2_train');
    expect(loadRawJson(h200Trace('gpt2_train')).traceEvents.some((x) => x['cat'] === 'overhead')).toBe(false);
    expect(sentences(e, 'steps.cupti-overhead')).toEqual([]);
  });
});
