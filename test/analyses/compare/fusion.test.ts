/**
 * Fusion (S9, S11) on the H200 captures. Every expected figure is computed here from the raw
 * events (JSON.parse of the fixture): kernels found by name, their ops by `External id`, bytes
 * from the ops' raw `Input Dims` × the element size of their raw `Input type`.
 * Readings S9, S11: docs/readings.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { computeFusion, type FusionResult } from '../../../src/analyses/compare/fusion.js';
import { computeFusionMatch } from '../../../src/analyses/compare/fusion-match.js';
import { fusionJson } from '../../../src/report/fusion-view.js';
import { h200Trace, loadRawJson, loadModel } from '../../fixtures.js';

type Ev = Record<string, any>;

interface Raw {
  events: Ev[];
  kernels: Ev[];
  ops: Ev[];
  opByExt: Map<number, Ev>;
  annotations: (name: string) => Ev[];
}

const raws = new Map<string, Raw>();
function raw(name: string): Raw {
  let r = raws.get(name);
  if (r) return r;
  const events = loadRawJson(h200Trace(name)).traceEvents as Ev[];
  const kernels = events.filter((e) => e.ph === 'X' && e.cat === 'kernel');
  const ops = events.filter((e) => e.ph === 'X' && e.cat === 'cpu_op');
  r = {
    events,
    kernels,
    ops,
    opByExt: new Map(ops.map((o) => [o.args['External id'], o])),
    annotations: (n) => events.filter((e) => e.ph === 'X' && e.cat === 'user_annotation' && e.name === n),
  };
  raws.set(name, r);
  return r;
}

/** Kernels whose owning op (by External id) has this name. */
const kernelsOfOp = (r: Raw, op: string) => r.kernels.filter((k) => r.opByExt.get(k.args['External id'])?.name === op);
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const BYTES: Record<string, number> = { 'c10::BFloat16': 2, float: 4, bool: 1 };
const bytesOf = (dims: number[], type: string) => dims.reduce((p, d) => p * d, 1) * BYTES[type]!;

const model = (name: string) => loadModel(h200Trace(name));

describe('fusion opportunities in an eager trace', () => {
  let fusion: FusionResult;
  beforeAll(async () => {
    fusion = computeFusion(await model('geglu_mlp'));
  });

  it('geglu_mlp: GeLU then mul, the gelu output [64,128,3072] bf16 written and read back', () => {
    const r = raw('geglu_mlp');
    const gelu = r.ops.filter((o) => o.name === 'aten::gelu');
    const mul = r.ops.filter((o) => o.name === 'aten::mul');
    // The raw shapes: gelu's input is mul's input (elementwise: same shape, same dtype out).
    expect(gelu[0].args['Input Dims'][0]).toEqual(mul[0].args['Input Dims'][0]);
    const expectedBytes = bytesOf(mul[0].args['Input Dims'][0], mul[0].args['Input type'][0]);
    expect(expectedBytes).toBe(50_331_648);

    expect(fusion.opportunities).toHaveLength(1);
    const o = fusion.opportunities[0]!;
    expect(o.annotation).toBe('mlp_fwd');
    expect(o.kernels.map((k) => k.op)).toEqual(['aten::gelu', 'aten::mul']);
    expect(o.intermediates).toHaveLength(1);
    expect(o.intermediates[0]!.dims).toEqual(mul[0].args['Input Dims'][0]);
    expect(o.intermediates[0]!.dtype).toBe('c10::BFloat16');
    expect(o.intermediateBytes).toBe(expectedBytes);
    expect(o.roundTripBytes).toBe(2 * expectedBytes);
    expect(o.instances).toBe(r.annotations('mlp_fwd').length);

    const geluK = kernelsOfOp(r, 'aten::gelu');
    const mulK = kernelsOfOp(r, 'aten::mul');
    expect(geluK).toHaveLength(o.instances);
    expect(o.kernels[0]!.name).toBe(geluK[0].name);
    expect(o.kernels[0]!.meanUs).toBeCloseTo(mean(geluK.map((k) => k.dur)), 3);
    expect(o.kernels[1]!.meanUs).toBeCloseTo(mean(mulK.map((k) => k.dur)), 3);
    expect(o.timeUs).toBeCloseTo(mean(geluK.map((k) => k.dur)) + mean(mulK.map((k) => k.dur)), 3);
    // traffic: gelu reads 1 and writes 1 tensor, mul reads 2 and writes 1, each 50,331,648 bytes
    expect(o.trafficBytes).toBe(5 * expectedBytes);
    expect(o.estimatedFusedUs).toBeCloseTo((o.timeUs * 3) / 5, 6);
  });

  it('geglu_mlp: no fused kernels', () => {
    expect(fusion.fusedKernels).toEqual([]);
  });

  it('gpt2_train: each link runs producer, the activities listed between, consumer on one stream, and the consumer reads the intermediate', async () => {
    const r = raw('gpt2_train');
    const res = computeFusion(await model('gpt2_train'));
    expect(res.opportunities.length).toBeGreaterThan(0);
    // per stream, the GPU activities in start order (kernels, copies, memsets), each with its op's name
    const gpuActs = r.events.filter((e) => e.ph === 'X' && ['kernel', 'gpu_memcpy', 'gpu_memset'].includes(e.cat));
    const byStream = new Map<number, Ev[]>();
    for (const e of gpuActs) (byStream.get(e.tid) ?? byStream.set(e.tid, []).get(e.tid)!).push(e);
    for (const list of byStream.values()) list.sort((a, b) => a.ts - b.ts);
    const opName = (e: Ev) => r.opByExt.get(e.args['External id'])?.name;
    for (const o of res.opportunities) {
      const stream = byStream.get(o.stream)!;
      o.intermediates.forEach((m, j) => {
        const between = o.between[j]!;
        // an activity of the producer's op, then exactly the listed activities, then the consumer's op
        let found = 0;
        for (let i = 0; i + between.length + 1 < stream.length; i++) {
          // the producer's last activity: the next one is another op's (ops by External id)
          if (opName(stream[i]!) !== m.producer || stream[i + 1]!.args['External id'] === stream[i]!.args['External id']) continue;
          if (!between.every((b, k) => stream[i + 1 + k]!.name === b.name && (opName(stream[i + 1 + k]!) ?? '') === b.op)) continue;
          const c = stream[i + 1 + between.length]!;
          if (opName(c) !== m.consumer) continue;
          // the consumer op's raw Input Dims/type hold the intermediate
          const consumer = r.opByExt.get(c.args['External id'])!;
          if (consumer.args['Input Dims'].some((d: unknown, a: number) => JSON.stringify(d) === JSON.stringify(m.dims) && consumer.args['Input type'][a] === m.dtype)) found++;
        }
        expect(found, `${m.producer} → ${m.consumer}`).toBeGreaterThanOrEqual(o.instances);
        expect(m.bytes).toBe(m.dims.reduce((p, d) => p * d, 1) * ({ 'c10::BFloat16': 2, float: 4, 'long int': 8, bool: 1 } as Record<string, number>)[m.dtype]!);
        expect([m.strength, m.evidence]).toEqual(['likely', ['shape-and-order']]);
      });
      expect(o.strength).toBe('likely');
    }
  });
});

describe('fused kernels in a compiled trace', () => {
  it('geglu_mlp_compile: the Inductor kernel decoded, its op list and figures from the raw events', async () => {
    const r = raw('geglu_mlp_compile');
    const res = computeFusion(await model('geglu_mlp_compile'));
    const triton = r.kernels.filter((k) => k.name.startsWith('triton_'));
    const names = [...new Set(triton.map((k) => k.name))];
    expect(names).toEqual(['triton_poi_fused__unsafe_view_gelu_mul_0']);
    expect(res.fusedKernels).toHaveLength(1);
    const k = res.fusedKernels[0]!;
    expect(k.name).toBe(names[0]);
    expect(k.generator).toBe('inductor');
    expect(k.kind).toBe('pointwise');
    expect(k.prefix).toBe('poi');
    expect(k.ops).toEqual(['_unsafe_view', 'gelu', 'mul']);
    expect(k.index).toBe(0);
    expect(k.calls).toBe(triton.length);
    expect(k.meanUs).toBeCloseTo(mean(triton.map((x) => x.dur)), 3);
    expect(k.totalUs).toBeCloseTo(triton.reduce((s, x) => s + x.dur, 0), 3);
    expect(k.annotations).toEqual(['mlp_fwd']);
    expect(k.outsideOp).toBe(false);
    // Inductor's launch op, named after the kernel, records the kernel's tensor arguments
    const launchOp = r.ops.find((o) => o.name === names[0])!;
    const argBytes = (launchOp.args['Input Dims'] as number[][]).reduce(
      (s, d, i) => s + (BYTES[launchOp.args['Input type'][i]] ? bytesOf(d, launchOp.args['Input type'][i]) : 0),
      0,
    );
    expect(k.argBytes).toBe(argBytes);
    expect(argBytes).toBe(3 * 50_331_648);
    expect(res.opportunities).toEqual([]);
  });

  it('geglu_mlp_hand: the hand-written Triton kernel geglu_fwd, launched outside any op', async () => {
    const r = raw('geglu_mlp_hand');
    const res = computeFusion(await model('geglu_mlp_hand'));
    const geglu = r.kernels.filter((k) => k.name === 'geglu_fwd');
    expect(geglu.length).toBeGreaterThan(0);
    expect(geglu.every((k) => k.args['External id'] === undefined || !r.opByExt.has(k.args['External id']))).toBe(true);
    expect(res.fusedKernels.map((k) => k.name)).toEqual(['geglu_fwd']);
    const k = res.fusedKernels[0]!;
    expect(k.generator).toBe('hand-written');
    expect(k.ops).toEqual([]);
    expect(k.outsideOp).toBe(true);
    expect(k.calls).toBe(geglu.length);
    expect(k.meanUs).toBeCloseTo(mean(geglu.map((x) => x.dur)), 3);
    expect(k.launchedBy).toEqual(['cuLaunchKernelEx']);
    expect(k.annotations).toEqual(['mlp_fwd']);
  });

  it('relu_mlp_compile: threshold_backward in the fused op list', async () => {
    const res = computeFusion(await model('relu_mlp_compile'));
    expect(res.fusedKernels.map((k) => [k.name, k.ops])).toEqual([['triton_poi_fused_relu_threshold_backward_view_0', ['relu', 'threshold_backward', 'view']]]);
    expect(res.fusedKernels[0]!.calls).toBe(raw('relu_mlp_compile').kernels.filter((k) => k.name === 'triton_poi_fused_relu_threshold_backward_view_0').length);
  });

  it('tiny_ops_compile_ro: a kernel replayed by a CUDA graph', async () => {
    const res = computeFusion(await model('tiny_ops_compile_ro'));
    const k = res.fusedKernels.find((x) => x.name === 'triton_poi_fused_add_mul_0')!;
    expect(k.ops).toEqual(['add', 'mul']);
    expect(k.inCudaGraph).toBe(true);
    expect(k.launchedBy).toEqual(['cudaGraphLaunch']);
  });
});

describe('--vs: each fused kernel matched to the eager kernels it replaced', () => {
  const eagerGeluMul = () => {
    const r = raw('geglu_mlp');
    return {
      geluUs: mean(kernelsOfOp(r, 'aten::gelu').map((k) => k.dur)),
      mulUs: mean(kernelsOfOp(r, 'aten::mul').map((k) => k.dur)),
    };
  };

  it('geglu_mlp_compile vs geglu_mlp: gelu + mul → triton_poi_fused__unsafe_view_gelu_mul_0', async () => {
    const m = computeFusionMatch(await model('geglu_mlp_compile'), await model('geglu_mlp'));
    expect(m.replacements).toHaveLength(1);
    const x = m.replacements[0]!;
    const { geluUs, mulUs } = eagerGeluMul();
    const fused = raw('geglu_mlp_compile').kernels.filter((k) => k.name === 'triton_poi_fused__unsafe_view_gelu_mul_0');
    expect(x.annotation).toBe('mlp_fwd');
    expect(x.fused.name).toBe('triton_poi_fused__unsafe_view_gelu_mul_0');
    expect(x.matchedBy).toBe('ops');
    expect(x.replaced.map((k) => k.op)).toEqual(['aten::gelu', 'aten::mul']);
    expect(x.eagerUs).toBeCloseTo(geluUs + mulUs, 3);
    expect(x.fusedUs).toBeCloseTo(mean(fused.map((k) => k.dur)), 3);
    expect(x.timeSavedUs).toBeCloseTo(geluUs + mulUs - mean(fused.map((k) => k.dur)), 3);
    expect(x.intermediateBytes).toBe(50_331_648);
    expect(x.hbmBytesSaved).toBe(2 * 50_331_648);
    expect(m.unmatchedEager).toEqual([]);
    expect(m.unmatchedFused).toEqual([]);
    expect(m.annotations).toEqual([{ name: 'mlp_fwd', compiledInstances: 3, eagerInstances: 3 }]);
  });

  it('geglu_mlp_hand vs geglu_mlp: the hand-written geglu_fwd replaced gelu + mul, matched by position between the GEMMs', async () => {
    const m = computeFusionMatch(await model('geglu_mlp_hand'), await model('geglu_mlp'));
    expect(m.replacements).toHaveLength(1);
    const x = m.replacements[0]!;
    const { geluUs, mulUs } = eagerGeluMul();
    const hand = raw('geglu_mlp_hand').kernels.filter((k) => k.name === 'geglu_fwd');
    expect(x.fused.name).toBe('geglu_fwd');
    expect(x.fused.generator).toBe('hand-written');
    expect(x.matchedBy).toBe('position');
    expect(x.replaced.map((k) => k.op)).toEqual(['aten::gelu', 'aten::mul']);
    expect(x.eagerUs).toBeCloseTo(geluUs + mulUs, 3);
    expect(x.fusedUs).toBeCloseTo(mean(hand.map((k) => k.dur)), 3);
    expect(x.hbmBytesSaved).toBe(2 * 50_331_648);
  });

  it('relu_mlp_compile vs relu_mlp: each fused ReLU kernel takes one eager clamp_min kernel, in order', async () => {
    const m = computeFusionMatch(await model('relu_mlp_compile'), await model('relu_mlp'));
    const r = raw('relu_mlp');
    // eager ReLU: aten::relu → aten::clamp_min owns the kernel; per instance the first and the second
    const clamp = kernelsOfOp(r, 'aten::clamp_min').sort((a, b) => a.ts - b.ts);
    const n = r.annotations('mlp_fwd').length;
    expect(clamp).toHaveLength(2 * n);
    // The two ReLUs have the same shapes: one row, twice per instance, each fused kernel taking one clamp_min.
    expect(m.replacements.map((x) => [x.count, x.replaced.map((k) => k.op)])).toEqual([[2, ['aten::clamp_min']]]);
    expect(m.replacements[0]!.eagerUs).toBeCloseTo(mean(clamp.map((k) => k.dur)), 3);
    for (const x of m.replacements) expect(x.hbmBytesSaved).toBe(0);
  });

  it('tiny_ops_compile_ro vs tiny_ops: one replayed kernel replaced every eager kernel of tiny_fwd', async () => {
    const m = computeFusionMatch(await model('tiny_ops_compile_ro'), await model('tiny_ops'));
    const r = raw('tiny_ops');
    const n = r.annotations('tiny_fwd').length;
    const perInstance = r.kernels.length / n;
    expect(m.replacements).toHaveLength(1);
    const x = m.replacements[0]!;
    expect(x.fused.name).toBe('triton_poi_fused_add_mul_0');
    expect(x.replaced).toHaveLength(perInstance);
    expect(new Set(x.replaced.map((k) => k.op))).toEqual(new Set(['aten::add', 'aten::mul']));
    // each intermediate is a [256] float tensor (the raw Input Dims of the eager ops)
    const dims = new Set(r.ops.filter((o) => o.name === 'aten::add').map((o) => JSON.stringify(o.args['Input Dims'][0])));
    expect([...dims]).toEqual(['[256]']);
    expect(x.intermediates).toHaveLength(perInstance - 1);
    expect(x.hbmBytesSaved).toBe(2 * (perInstance - 1) * 256 * 4);
    expect(x.eagerUs).toBeCloseTo(r.kernels.reduce((s, k) => s + k.dur, 0) / n, 3);
  });
});

describe('fusion JSON', () => {
  it('has the documented keys', async () => {
    const doc = fusionJson(computeFusion(await model('geglu_mlp_compile')), computeFusionMatch(await model('geglu_mlp_compile'), await model('geglu_mlp')));
    expect(Object.keys(doc)).toEqual(['fusedKernels', 'opportunities', 'linkEvidence', 'steps', 'refusedLinks', 'replacements', 'unmatchedEager', 'unmatchedFused', 'matchedAnnotations', 'onlyInCompiled', 'onlyInEager', 'matchNotes']);
    expect(Object.keys(doc.fusedKernels[0]!)).toEqual(expect.arrayContaining(['name', 'generator', 'kind', 'ops', 'calls', 'meanUs']));
    expect(Object.keys(doc.replacements![0]!)).toEqual(expect.arrayContaining(['fused', 'replaced', 'eagerUs', 'fusedUs', 'timeSavedUs', 'hbmBytesSaved']));
    const eager = fusionJson(computeFusion(await model('geglu_mlp')));
    expect(Object.keys(eager)).toEqual(['fusedKernels', 'opportunities', 'linkEvidence', 'steps', 'refusedLinks']);
    expect(Object.keys(eager.opportunities[0]!)).toEqual(expect.arrayContaining(['kernels', 'intermediateBytes', 'timeUs', 'strength', 'toolchain', 'estimatedSavingUsPerStep']));
    expect(Object.keys(eager.opportunities[0]!.intermediates[0]!)).toEqual(expect.arrayContaining(['evidence', 'strength']));
  });
});
