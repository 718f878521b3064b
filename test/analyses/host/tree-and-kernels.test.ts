/**
 * S2, S3 and S6 on the fixtures: the dispatch chain of nn.Linear, views that launch
 * nothing, and the kernel catalog — checked against the raw events (JSON.parse) and
 * torch's oracle.
 * Readings S2, S3, S6: docs/readings.md.
 */
import { describe, expect, it } from 'vitest';
import { computeDispatchTree, type DispatchNode } from '../../../src/analyses/host/dispatch-tree.js';
import { computeKernelCatalog } from '../../../src/analyses/kernels/kernel-catalog.js';
import { H200_NAMES, h200Trace, loadRawJson, loadModel } from '../../fixtures.js';

const find = (n: DispatchNode, name: string): DispatchNode | undefined =>
  n.name === name ? n : n.children.map((c) => find(c, name)).find(Boolean);

describe('tree (S2, S3)', () => {
  it('linear: aten::linear → aten::t → transpose → as_strided (views) and aten::addmm → cuLaunchKernelEx → nvjet …_bias_TNT', async () => {
    const m = await loadModel(h200Trace('linear'));
    const tree = computeDispatchTree(m, { annotation: 'linear_fwd' });
    if ('error' in tree) throw new Error(tree.error);
    expect(tree.instances).toBe(3);
    const linear = find(tree.roots[0]!, 'aten::linear')!;
    expect(linear.children.map((c) => c.name)).toEqual(['aten::t', 'aten::addmm']);
    const t = linear.children[0]!;
    expect(t.view).toBe(true);
    expect(t.children.map((c) => c.name)).toEqual(['aten::transpose']);
    expect(t.children[0]!.view).toBe(true);
    expect(t.children[0]!.children.map((c) => [c.name, c.view])).toEqual([['aten::as_strided', true]]);
    const addmm = linear.children[1]!;
    expect(addmm.view).toBeUndefined();
    expect(addmm.children.map((c) => c.name)).toEqual(['cuLaunchKernelEx']);
    const kernel = addmm.children[0]!.children[0]!;
    expect(kernel.name).toBe('nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT');
    expect(kernel.stream).toBe(7);

    // Times against the raw events of the first linear_fwd instance.
    const raw = loadRawJson(h200Trace('linear')).traceEvents;
    const rawT = raw.filter((e) => e['name'] === 'aten::t')[0]!;
    expect(t.durUs).toBeCloseTo(Number(rawT['dur']), 3);
    const rawKernel = raw.filter((e) => e['cat'] === 'kernel').sort((a, b) => Number(a['ts']) - Number(b['ts']))[0]!;
    expect(kernel.durUs).toBeCloseTo(Number(rawKernel['dur']), 3);
  });

  it('unknown step or annotation is an error in words', async () => {
    const m = await loadModel(h200Trace('linear'));
    expect(computeDispatchTree(m, { step: 9 })).toEqual({ error: 'no ProfilerStep#9 in the trace (steps: 2, 3, 4)' });
    expect(computeDispatchTree(m, { annotation: 'nope' })).toEqual({ error: 'no host event named "nope" in the trace' });
  });
});

describe('kernels (S6)', () => {
  for (const name of H200_NAMES) {
    it(`${name}: calls and time per name equal the raw events`, async () => {
      const m = await loadModel(h200Trace(name));
      const cat = computeKernelCatalog(m);
      const raw = loadRawJson(h200Trace(name)).traceEvents.filter((e) => ['kernel', 'gpu_memcpy', 'gpu_memset'].includes(String(e['cat'])));
      const expected = new Map<string, { calls: number; totalUs: number; max: number }>();
      for (const e of raw) {
        const x = expected.get(String(e['name'])) ?? { calls: 0, totalUs: 0, max: 0 };
        x.calls++;
        x.totalUs += Number(e['dur']);
        x.max = Math.max(x.max, Number(e['dur']));
        expected.set(String(e['name']), x);
      }
      expect(cat.entries.length).toBe(expected.size);
      for (const e of cat.entries) {
        const x = expected.get(e.name)!;
        expect(e.calls).toBe(x.calls);
        expect(e.totalUs).toBeCloseTo(x.totalUs, 3);
        expect(e.maxUs).toBeCloseTo(x.max, 3);
      }
    });
  }

  it('linear: the GEMM is a cuBLAS nvjet sm90 kernel with its bias in the epilogue, launched by aten::addmm', async () => {
    const cat = computeKernelCatalog(await loadModel(h200Trace('linear')));
    const e = cat.entries.find((x) => x.name.startsWith('nvjet'))!;
    expect(e.ops).toEqual([{ name: 'aten::addmm', calls: 3 }]);
    expect(e.launchedBy).toEqual([{ name: 'cuLaunchKernelEx', calls: 3 }]);
    expect(e.decoded.generator).toBe('nvjet');
    expect(e.decoded.arch).toBe('sm90');
    expect(e.decoded.layout).toBe('TNT');
    expect(e.decoded.epilogue).toEqual(['bias']);
  });

  it('geglu_mlp_compile: the fused Inductor kernel decodes to its op list', async () => {
    const cat = computeKernelCatalog(await loadModel(h200Trace('geglu_mlp_compile')));
    const e = cat.entries.find((x) => x.name.startsWith('triton_'))!;
    expect(e.name).toBe('triton_poi_fused__unsafe_view_gelu_mul_0');
    expect(e.decoded.inductor?.kind).toBe('pointwise');
    expect(e.decoded.inductor?.ops).toEqual(['_unsafe_view', 'gelu', 'mul']);
  });
});
