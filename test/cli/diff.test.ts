/**
 * `diff` on the seed's pairs, every expected figure read from the raw events (JSON.parse)
 * or torch's oracle: eager vs compiled nn.Linear (S8: the same GEMM kernel, the view chain
 * gone, compile pre-ops added), eager vs compiled GeGLU (S9: gelu and mul replaced by one
 * fused kernel), eager vs hand-written GeGLU (S11), and a stand-in for two GPUs (the GEMM
 * kernels renamed in the raw trace).
 * Readings S8, S9, S11: docs/readings.md.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeTraceDiff } from '../../src/analyses/compare/diff.js';
import { loadTrace } from '../../src/load-trace.js';
import { diffJson } from '../../src/report/diff-view.js';
import { h200Trace, loadOracle, loadRawJson, loadModel } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { mean, rawTrace, type RawInstance } from '../raw-scopes.js';

const load = (name: string) => loadModel(h200Trace(name));

/** Per-instance counts of (category, name) of the cpu_op / user_annotation events inside the instances. */
function rawOpCounts(instances: RawInstance[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const inst of instances) {
    for (const e of inst.host) {
      if (e.cat !== 'cpu_op' && e.cat !== 'user_annotation') continue;
      out.set(e.name, (out.get(e.name) ?? 0) + 1 / instances.length);
    }
  }
  return out;
}

/** Mean over instances of the durations of the instance's kernels that `pick` selects. */
function rawKernelUs(instances: RawInstance[], pick: (k: RawInstance['kernels'][number]) => boolean): number {
  return mean(instances.map((i) => i.kernels.filter(pick).reduce((s, k) => s + k.dur, 0)));
}

describe('diff linear vs linear_compile (S8)', () => {
  it('the same GEMM kernel, byte for byte; the view chain removed; compile pre-ops added', async () => {
    const d = computeTraceDiff(await load('linear'), await load('linear_compile'));
    expect(d.scope).toEqual({ per: 'annotation', name: 'linear_fwd', instancesA: 3, instancesB: 3 });

    const ra = rawTrace('linear').instances('linear_fwd');
    const rb = rawTrace('linear_compile').instances('linear_fwd');
    const kernelsA = new Set(ra.flatMap((i) => i.kernels.map((k) => k.name)));
    const kernelsB = new Set(rb.flatMap((i) => i.kernels.map((k) => k.name)));
    const shared = [...kernelsA].filter((k) => kernelsB.has(k));
    expect(shared).toEqual(['nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT']);
    expect(d.kernels.same.map((s) => s.name)).toEqual(shared);
    expect(d.kernels.same[0]!.a.count).toBe(1);
    expect(d.kernels.same[0]!.b.count).toBe(1);
    expect(d.kernels.same[0]!.a.meanUs).toBeCloseTo(rawKernelUs(ra, () => true), 6);
    expect(d.kernels.same[0]!.b.meanUs).toBeCloseTo(rawKernelUs(rb, () => true), 6);
    expect(d.kernels.onlyA).toEqual([]);
    expect(d.kernels.onlyB).toEqual([]);
    expect(d.kernels.replaced).toEqual([]);

    const opsA = rawOpCounts(ra);
    const opsB = rawOpCounts(rb);
    const removed = [...opsA.keys()].filter((n) => !opsB.has(n));
    const added = [...opsB.keys()].filter((n) => !opsA.has(n));
    expect(new Set(removed)).toEqual(new Set(['aten::linear', 'aten::t', 'aten::transpose', 'aten::as_strided']));
    expect(d.ops.removed.map((o) => o.name).sort()).toEqual([...removed].sort());
    expect(d.ops.added.map((o) => o.name).sort()).toEqual([...added].sort());
    for (const n of ['Torch-Compiled Region: 0/0', 'TorchDynamo Cache Lookup', 'Pregraph bytecode', 'AOTDispatcher Runtime Wrapper Prologue', 'CompiledFunction']) {
      expect(d.ops.added.map((o) => o.name)).toContain(n);
    }
    expect(d.ops.added.find((o) => o.name.startsWith('## Call CompiledFxGraph'))?.category).toBe('user_annotation');
    for (const o of [...d.ops.removed, ...d.ops.added]) {
      expect(o.a).toBeCloseTo(opsA.get(o.name) ?? 0, 9);
      expect(o.b).toBeCloseTo(opsB.get(o.name) ?? 0, 9);
    }
    // aten::addmm is in both, called once per instance in both: neither removed nor changed.
    expect(d.ops.changed).toEqual([]);
  });

  it('per annotation: CPU and GPU time as torch measured them, with the spread over instances', async () => {
    const d = computeTraceDiff(await load('linear'), await load('linear_compile'));
    const row = d.perAnnotation.find((a) => a.name === 'linear_fwd')!;
    for (const [side, name] of [['a', 'linear'], ['b', 'linear_compile']] as const) {
      const torch = loadOracle(name).events.filter((e) => e.name === 'linear_fwd' && e.cpu_total_us > 0).sort((x, y) => x.start_us - y.start_us);
      const s = row[side];
      expect(s.instances).toBe(3);
      expect(s.cpuUs).toBeCloseTo(mean(torch.map((e) => e.cpu_total_us)), 3);
      expect(s.gpuUs).toBeCloseTo(mean(torch.map((e) => e.device_total_us)), 3);
      expect(s.spread.cpuUs.min).toBeCloseTo(Math.min(...torch.map((e) => e.cpu_total_us)), 3);
      expect(s.spread.cpuUs.max).toBeCloseTo(Math.max(...torch.map((e) => e.cpu_total_us)), 3);
      expect(s.kernels).toBe(1);
      expect(s.launches).toBe(1);
    }
    expect(row.delta.cpuUs).toBeCloseTo(row.b.cpuUs - row.a.cpuUs, 9);
    expect(d.perAnnotation.map((a) => a.name)).toEqual(['ProfilerStep*', 'linear_fwd']);
  });
});

describe('diff geglu_mlp vs geglu_mlp_compile (S9)', () => {
  it('the three GEMM kernels the same; gelu and mul replaced by the fused Inductor kernel, with both times', async () => {
    const d = computeTraceDiff(await load('geglu_mlp'), await load('geglu_mlp_compile'));
    const ra = rawTrace('geglu_mlp').instances('mlp_fwd');
    const rb = rawTrace('geglu_mlp_compile').instances('mlp_fwd');
    const gemmNames = [...new Set(ra.flatMap((i) => i.kernels.map((k) => k.name)).filter((n) => n.startsWith('nvjet_')))];
    // Memsets are GPU work too: cuBLAS's workspace memsets under the GEMMs' ops, the same in both.
    const kernelsSame = d.kernels.same.filter((s) => s.name !== 'Memset (Device)');
    expect(kernelsSame.map((s) => s.name)).toEqual(gemmNames);
    expect(kernelsSame.map((s) => [s.a.count, s.b.count])).toEqual([
      [2, 2],
      [1, 1],
    ]);
    const memsets = (name: string) => loadRawJson(h200Trace(name)).traceEvents.filter((e) => e['cat'] === 'gpu_memset').length;
    const memsetRow = d.kernels.same.filter((s) => s.name === 'Memset (Device)');
    expect(memsetRow.reduce((n, s) => n + s.a.count, 0)).toBe(memsets('geglu_mlp') / ra.length);
    expect(memsetRow.reduce((n, s) => n + s.b.count, 0)).toBe(memsets('geglu_mlp_compile') / rb.length);
    expect(d.kernels.onlyA).toEqual([]);
    expect(d.kernels.onlyB).toEqual([]);
    expect(d.kernels.replaced).toHaveLength(1);
    const r = d.kernels.replaced[0]!;
    expect(r.by).toBe('fused-ops');
    expect(r.count).toBe(1);
    expect(r.b.name).toBe('triton_poi_fused__unsafe_view_gelu_mul_0');
    // A's side: the kernels the aten::gelu and aten::mul ops own (by External id).
    const ownedBy = (op: string) => (k: RawInstance['kernels'][number]) => rawTrace('geglu_mlp').ownerOf(k)?.name === op;
    const gelu = ra[0]!.kernels.find(ownedBy('aten::gelu'))!;
    const mul = ra[0]!.kernels.find(ownedBy('aten::mul'))!;
    expect(r.a.map((x) => [x.name, x.op])).toEqual([
      [gelu.name, 'aten::gelu'],
      [mul.name, 'aten::mul'],
    ]);
    expect(r.a[0]!.durUs).toBeCloseTo(rawKernelUs(ra, ownedBy('aten::gelu')), 6);
    expect(r.a[1]!.durUs).toBeCloseTo(rawKernelUs(ra, ownedBy('aten::mul')), 6);
    expect(r.aUs).toBeCloseTo(rawKernelUs(ra, (k) => k.name === gelu.name || k.name === mul.name), 6);
    expect(r.bUs).toBeCloseTo(rawKernelUs(rb, (k) => k.name === 'triton_poi_fused__unsafe_view_gelu_mul_0'), 6);
    expect(r.bUs).toBeLessThan(r.aUs);

    // The eager pointwise launches (cudaLaunchKernel) are gone; Triton's driver launch is new.
    expect(d.apiCalls.removed.map((c) => [c.name, c.a])).toEqual([['cudaLaunchKernel', 2]]);
    expect(d.apiCalls.added.map((c) => [c.name, c.b])).toEqual([['cuLaunchKernel', 1]]);
    const mlp = d.perAnnotation.find((a) => a.name === 'mlp_fwd')!;
    expect(mlp.a.kernels).toBe(mean(ra.map((i) => i.kernels.length)));
    expect(mlp.b.kernels).toBe(mean(rb.map((i) => i.kernels.length)));
    expect(mlp.delta.kernels).toBe(-1);
    expect(mlp.a.launches).toBe(mean(ra.map((i) => i.launches)));
    expect(mlp.b.launches).toBe(mean(rb.map((i) => i.launches)));
    // torch's device total of mlp_fwd (every kernel here is owned by an op).
    const torch = loadOracle('geglu_mlp').events.filter((e) => e.name === 'mlp_fwd' && e.cpu_total_us > 0);
    expect(mlp.a.gpuUs).toBeCloseTo(mean(torch.map((e) => e.device_total_us)), 3);
  });
});

describe('diff geglu_mlp vs geglu_mlp_hand (S11)', () => {
  it('the hand-written geglu_fwd takes the place of the gelu and mul kernels, matched by position', async () => {
    const d = computeTraceDiff(await load('geglu_mlp'), await load('geglu_mlp_hand'));
    const ra = rawTrace('geglu_mlp').instances('mlp_fwd');
    const rb = rawTrace('geglu_mlp_hand').instances('mlp_fwd');
    expect(d.kernels.same.filter((s) => s.name !== 'Memset (Device)')).toHaveLength(2);
    expect(d.kernels.replaced).toHaveLength(1);
    const r = d.kernels.replaced[0]!;
    expect(r.by).toBe('position');
    expect(r.b.name).toBe('geglu_fwd');
    expect(r.b.op).toBeUndefined(); // launched outside any cpu_op
    expect(r.a.map((x) => x.op)).toEqual(['aten::gelu', 'aten::mul']);
    expect(r.bUs).toBeCloseTo(rawKernelUs(rb, (k) => k.name === 'geglu_fwd'), 6);
    expect(r.aUs).toBeCloseTo(rawKernelUs(ra, (k) => !k.name.startsWith('nvjet_')), 6);
    expect(d.kernels.onlyA).toEqual([]);
    expect(d.kernels.onlyB).toEqual([]);
    expect(d.ops.removed.map((o) => o.name)).toEqual(['aten::gelu', 'aten::mul']);
    // Both sides launch the same number of kernels per instance (3 GEMMs + 2 vs 3 GEMMs + 1: 5 vs 4).
    const mlp = d.perAnnotation.find((a) => a.name === 'mlp_fwd')!;
    expect([mlp.a.kernels, mlp.b.kernels]).toEqual([5, 4]);
  });
});

describe('diff: more of the seed\'s pairs', () => {
  it('relu_mlp vs relu_mlp_compile: each ReLU kernel (owned by aten::clamp_min under aten::relu) replaced by the fused relu kernel', async () => {
    const d = computeTraceDiff(await load('relu_mlp'), await load('relu_mlp_compile'));
    const ra = rawTrace('relu_mlp').instances('mlp_fwd');
    const rb = rawTrace('relu_mlp_compile').instances('mlp_fwd');
    expect(d.kernels.replaced).toHaveLength(1);
    const r = d.kernels.replaced[0]!;
    expect([r.by, r.count, r.b.name]).toEqual(['fused-ops', 2, 'triton_poi_fused_relu_threshold_backward_view_0']);
    expect(r.a.map((x) => x.op)).toEqual(['aten::clamp_min']);
    const relu = (k: RawInstance['kernels'][number]) => rawTrace('relu_mlp').ownerOf(k)?.name === 'aten::clamp_min';
    // Per occurrence: the instance's two ReLU kernels, averaged.
    expect(r.aUs).toBeCloseTo(rawKernelUs(ra, relu) / 2, 6);
    expect(r.bUs).toBeCloseTo(rawKernelUs(rb, (k) => k.name === r.b.name) / 2, 6);
    expect(r.a[0]!.durUs).toBeCloseTo(r.aUs, 9);
  });

  it('matmul_add vs matmul_add_compile: the GEMM with the bias in its epilogue takes the place of the GEMM and the add kernel', async () => {
    const d = computeTraceDiff(await load('matmul_add'), await load('matmul_add_compile'));
    const ra = rawTrace('matmul_add').instances('matmul_add_fwd');
    const rb = rawTrace('matmul_add_compile').instances('matmul_add_fwd');
    expect(d.kernels.same).toEqual([]);
    expect(d.kernels.replaced).toHaveLength(1);
    const r = d.kernels.replaced[0]!;
    expect(r.by).toBe('position');
    expect(r.a.map((x) => [x.name, x.op])).toEqual(ra[0]!.kernels.map((k) => [k.name, rawTrace('matmul_add').ownerOf(k)!.name]));
    expect(r.b.name).toBe(rb[0]!.kernels[0]!.name);
    expect(r.b.name).toContain('_bias_');
    expect(r.aUs).toBeCloseTo(rawKernelUs(ra, () => true), 6);
    expect(r.bUs).toBeCloseTo(rawKernelUs(rb, () => true), 6);
    expect(d.ops.removed.map((o) => o.name)).toContain('aten::add');
  });

  it('--per step: aligned on ProfilerStep#N, host calls outside the annotation included', async () => {
    const d = computeTraceDiff(await load('geglu_mlp'), await load('geglu_mlp_compile'), { per: 'step' });
    expect(d.scope).toEqual({ per: 'step', instancesA: 3, instancesB: 3 });
    expect(d.perAnnotation.map((a) => a.name)).toEqual(['ProfilerStep*']);
    expect(d.kernels.replaced.map((r) => r.b.name)).toEqual(['triton_poi_fused__unsafe_view_gelu_mul_0']);
    // mlp_fwd itself is inside each step, in both traces: not a change.
    expect([...d.ops.removed, ...d.ops.added].map((o) => o.name)).not.toContain('mlp_fwd');
    // torch's key_averages row for the steps: CPU total over its 3 calls.
    const torch = loadOracle('geglu_mlp').key_averages.find((k) => k.key === 'ProfilerStep*')!;
    expect(d.perAnnotation[0]!.a.cpuUs).toBeCloseTo(torch.cpu_time_total_us / torch.count, 3);
    expect(d.perAnnotation[0]!.a.gpuUs).toBeCloseTo(torch.device_time_total_us / torch.count, 3);
  });
});

describe('diff across GPUs: different kernel names for the same op and shape', () => {
  it('each GEMM is matched to the other trace\'s GEMM by owning op and Input Dims', async () => {
    // A stand-in for another GPU: the eager GeGLU trace with its GEMM kernels renamed.
    const raw = structuredClone(loadRawJson(h200Trace('geglu_mlp')));
    for (const e of raw.traceEvents) {
      if (e['cat'] === 'kernel' && String(e['name']).startsWith('nvjet_sm90_')) e['name'] = String(e['name']).replace('nvjet_sm90_tst_', 'sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize');
    }
    const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-diff-'));
    const path = join(dir, 'geglu_mlp_other_gpu.json');
    writeFileSync(path, JSON.stringify(raw));
    const d = computeTraceDiff(await load('geglu_mlp'), await loadTrace(path));
    expect(d.kernels.same.filter((s) => s.name !== 'Memset (Device)').map((s) => s.name)).toHaveLength(2); // the gelu and mul kernels
    expect(d.kernels.onlyA).toEqual([]);
    expect(d.kernels.onlyB).toEqual([]);
    expect(d.kernels.replaced.map((r) => [r.by, r.count, r.a.map((x) => x.name), r.b.name])).toEqual([
      ['op-and-shape', 2, ['nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT'], 'sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128_64x4_1x2_h_bz_coopA_TNT'],
      ['op-and-shape', 1, ['nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_TNT'], 'sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize192x128_64x5_1x2_h_bz_coopB_TNT'],
    ]);
    for (const r of d.kernels.replaced) {
      expect(r.a[0]!.op).toBe('aten::mm');
      expect(r.b.op).toBe('aten::mm');
      expect(r.aUs).toBeCloseTo(r.bUs, 9); // the same durations, renamed
    }
  });
});

describe('kinetoscope diff (CLI)', () => {
  it('--json has the documented keys; exit 0', async () => {
    const r = await runCli(['diff', h200Trace('geglu_mlp'), h200Trace('geglu_mlp_compile'), '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc.kernels)).toEqual(['same', 'onlyA', 'onlyB', 'replaced', 'refused']);
    expect(Object.keys(doc.ops)).toEqual(expect.arrayContaining(['removed', 'added']));
    expect(Object.keys(doc.kernels.replaced[0])).toEqual(expect.arrayContaining(['a', 'b']));
    expect(doc.kernels.replaced[0].b.name).toBe('triton_poi_fused__unsafe_view_gelu_mul_0');
    const mlp = doc.perAnnotation.find((a: { name: string }) => a.name === 'mlp_fwd');
    expect(Object.keys(mlp.a)).toEqual(expect.arrayContaining(['cpuUs', 'gpuUs', 'kernels', 'launches']));
  });

  it('terminal view names the replacement and both times', async () => {
    const r = await runCli(['diff', h200Trace('geglu_mlp'), h200Trace('geglu_mlp_hand')]);
    expect(r.status).toBe(0);
    const d = computeTraceDiff(await load('geglu_mlp'), await load('geglu_mlp_hand'));
    const json = diffJson(d);
    expect(r.stdout).toContain('geglu_fwd');
    expect(r.stdout).toContain(`${json.kernels.replaced[0]!.bUs.toFixed(3)} µs`);
    expect(r.stdout).toContain(`${json.kernels.replaced[0]!.aUs.toFixed(3)} µs`);
  });

  it('--per with an annotation one trace lacks: exit 2, one line', async () => {
    const r = await runCli(['diff', h200Trace('linear'), h200Trace('geglu_mlp'), '--per', 'linear_fwd']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: trace B has no instance of "linear_fwd"/);
  });
});
