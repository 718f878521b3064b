/**
 * `ops`: views and ops that launched no GPU work (S3) against torch's own rows and the raw
 * durations; GEMM epilogues (S4) against the raw events (kernels by External id, the ops under
 * `aten::linear`, the `aten::add` after the matmul).
 * Readings S3, S4: docs/readings.md.
 */
import { describe, expect, it } from 'vitest';
import { describeEpilogue } from '../../../src/analyses/gemm/epilogues.js';
import { computeOps } from '../../../src/analyses/host/ops.js';
import { h200Trace, loadOracle, loadRawJson, loadModel } from '../../fixtures.js';

interface RawEvent {
  ph?: string;
  cat?: string;
  name: string;
  ts: number;
  dur: number;
  tid: number | string;
  args?: Record<string, unknown>;
}

const HOST_CATS = new Set(['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver']);
const raw = (name: string) => (loadRawJson(h200Trace(name)).traceEvents as unknown as RawEvent[]).filter((e) => e.ph === 'X');
const inside = (e: RawEvent, outer: RawEvent) => e !== outer && e.tid === outer.tid && e.ts >= outer.ts && e.ts + e.dur <= outer.ts + outer.dur;
const xid = (e: RawEvent) => e.args?.['External id'];

/** torch's self CPU from the raw events: duration minus the direct children's durations. */
function selfUs(events: RawEvent[], e: RawEvent): number {
  const under = events.filter((c) => HOST_CATS.has(c.cat ?? '') && inside(c, e));
  const direct = under.filter((c) => !under.some((o) => o !== c && inside(c, o)));
  return e.dur - direct.reduce((s, c) => s + c.dur, 0);
}

describe('ops: views (S3)', () => {
  it('linear: aten::t, aten::transpose, aten::as_strided are views, with torch\'s CPU times', async () => {
    const events = raw('linear');
    const report = computeOps(await loadModel(h200Trace('linear')));
    expect(report.views.map((v) => v.name).sort()).toEqual(['aten::as_strided', 'aten::t', 'aten::transpose']);
    expect(report.noGpuWork).toEqual([]);
    const oracle = loadOracle('linear').key_averages;
    for (const v of report.views) {
      const mine = events.filter((e) => e.cat === 'cpu_op' && e.name === v.name);
      expect(v.calls).toBe(mine.length);
      expect(v.cpuTotalUs).toBeCloseTo(mine.reduce((s, e) => s + e.dur, 0), 6);
      expect(v.selfCpuUs).toBeCloseTo(mine.reduce((s, e) => s + selfUs(events, e), 0), 6);
      // and torch's own row: no device time, same counts and CPU times
      const t = oracle.find((k) => k.key === v.name && k.device_type === 'DeviceType.CPU')!;
      expect(t.device_time_total_us ?? 0).toBe(0);
      expect(v.calls).toBe(t.count);
      expect(v.cpuTotalUs).toBeCloseTo(t.cpu_time_total_us, 2);
      expect(v.selfCpuUs).toBeCloseTo(t.self_cpu_time_total_us, 2);
    }
    expect(report.totals.viewSelfCpuUs).toBeCloseTo(report.views.reduce((s, v) => s + v.selfCpuUs, 0), 9);
  });

  it('geglu_mlp: every view op in torch\'s table with zero device time is listed, nothing else', async () => {
    const report = computeOps(await loadModel(h200Trace('geglu_mlp')));
    const oracle = loadOracle('geglu_mlp').key_averages.filter((k) => k.device_type === 'DeviceType.CPU');
    const zeroDeviceAtenViews = oracle
      .filter((k) => ['aten::t', 'aten::transpose', 'aten::as_strided', 'aten::reshape', 'aten::view', 'aten::_unsafe_view'].includes(k.key))
      .filter((k) => (k.device_time_total_us ?? 0) === 0);
    expect(zeroDeviceAtenViews).toHaveLength(6);
    expect(report.views.map((v) => v.name).sort()).toEqual(zeroDeviceAtenViews.map((k) => k.key).sort());
    for (const k of zeroDeviceAtenViews) {
      const v = report.views.find((x) => x.name === k.key)!;
      expect(v.calls).toBe(k.count);
      expect(v.selfCpuUs).toBeCloseTo(k.self_cpu_time_total_us, 2);
    }
  });
});

describe('ops: epilogues (S4)', () => {
  it('linear: the addmm bias rides in the GEMM epilogue, and no add runs under the linear', async () => {
    const events = raw('linear');
    const report = computeOps(await loadModel(h200Trace('linear')));
    expect(report.epilogues).toHaveLength(1);
    const e = report.epilogues[0]!;
    // independent: the raw linear, its addmm and the only kernel launched under it
    const linears = events.filter((x) => x.cat === 'cpu_op' && x.name === 'aten::linear');
    for (const lin of linears) {
      const under = events.filter((x) => x.cat === 'cpu_op' && inside(x, lin));
      expect(under.some((x) => x.name === 'aten::add' || x.name === 'aten::add_')).toBe(false);
      const ids = new Set([xid(lin), ...under.map(xid)]);
      const kernels = events.filter((x) => x.cat === 'kernel' && ids.has(xid(x)));
      expect(kernels).toHaveLength(1);
      expect(kernels[0]!.name).toMatch(/_bias_/);
      expect(e.kernel).toBe(kernels[0]!.name);
      const addmm = under.find((x) => x.name === 'aten::addmm')!;
      expect((addmm.args!['Input Dims'] as number[][])[0]).toEqual([64]); // the bias operand
    }
    expect(e.op).toBe('aten::addmm');
    expect(e.carried).toEqual(['bias']);
    expect(e.evidence).toBe('op and kernel name');
    expect(e.separateAddKernel).toBe(false);
    expect(e.calls).toBe(linears.length);
    expect(describeEpilogue(e)).toBe(
      "aten::addmm [1024,32]×[32,64] + bias[64]: the bias is added in the GEMM's epilogue (nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT); no separate add kernel",
    );
  });

  it('matmul_add: eager torch.add(torch.matmul(x, w), b) — the add is a separate kernel, no epilogue', async () => {
    const events = raw('matmul_add');
    const report = computeOps(await loadModel(h200Trace('matmul_add')));
    expect(report.epilogues).toHaveLength(1);
    const e = report.epilogues[0]!;
    expect(e.op).toBe('aten::mm');
    expect(e.carried).toEqual([]);
    expect(e.separateAddKernel).toBe(true);
    expect(e.separateAdd?.op).toBe('aten::add');
    const adds = events.filter((x) => x.cat === 'cpu_op' && x.name === 'aten::add');
    expect(adds.length).toBe(e.calls);
    for (const add of adds) expect(add.args!['Input Dims']).toEqual([[1024, 64], [64], []]);
    const addKernels = events.filter((x) => x.cat === 'kernel' && adds.some((a) => xid(a) === xid(x)));
    expect(e.separateAdd?.kernels).toEqual([addKernels[0]!.name]);
    expect(e.separateAdd?.meanUs).toBeCloseTo(addKernels.reduce((s, k) => s + k.dur, 0) / adds.length, 6);
    const mmKernel = events.find((x) => x.cat === 'kernel' && /^nvjet/.test(x.name))!;
    expect(mmKernel.name).not.toMatch(/_bias_/);
    expect(e.kernel).toBe(mmKernel.name);
  });

  it('matmul_add_compile: Inductor turns matmul + add into addmm, the bias in the epilogue', async () => {
    const report = computeOps(await loadModel(h200Trace('matmul_add_compile')));
    expect(report.epilogues).toHaveLength(1);
    expect(report.epilogues[0]!.op).toBe('aten::addmm');
    expect(report.epilogues[0]!.carried).toEqual(['bias']);
    expect(report.epilogues[0]!.compiled).toBe(true);
    expect(report.epilogues[0]!.separateAddKernel).toBe(false);
  });

  it('relu_mlp: three biased GEMMs carry their bias; the ReLU is not in the epilogue', async () => {
    const events = raw('relu_mlp');
    const report = computeOps(await loadModel(h200Trace('relu_mlp')));
    const addmmShapes = new Set(events.filter((x) => x.cat === 'cpu_op' && x.name === 'aten::addmm').map((x) => JSON.stringify(x.args!['Input Dims'])));
    expect(report.epilogues).toHaveLength(addmmShapes.size);
    for (const e of report.epilogues) {
      expect(e.carried).toEqual(['bias']);
      expect(e.kernel).toMatch(/_bias_/);
      expect(addmmShapes.has(JSON.stringify(JSON.parse(e.inputDims)))).toBe(true);
    }
    // the ReLU ran as its own kernel (clamp_min), so nothing claims it
    expect(events.some((x) => x.cat === 'cpu_op' && x.name === 'aten::clamp_min')).toBe(true);
    expect(report.epilogues.some((e) => e.carried.includes('relu'))).toBe(false);
  });
});
