/**
 * The GEMM table against the raw events: M, N, K from the Input Dims read here with JSON.parse,
 * FLOPs and bytes computed here, calls counted per annotation instance here, kernel times summed
 * here from the kernels whose External id is the op's — never against numbers the code printed.
 */
import { describe, expect, it } from 'vitest';
import { computeGemmTable, type GemmRow } from '../../../src/analyses/gemm/gemm.js';
import { loadTrace } from '../../../src/load-trace.js';
import { join } from 'node:path';
import { HAS_HTA, HTA_DIR, h200Trace, loadRawJson, loadModel } from '../../fixtures.js';

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

const raw = (name: string) => loadRawJson(h200Trace(name)).traceEvents as unknown as RawEvent[];
const xs = (events: RawEvent[], cat: string, name?: string | RegExp) =>
  events.filter((e) => e.ph === 'X' && e.cat === cat && (name === undefined || (typeof name === 'string' ? e.name === name : name.test(e.name))));
const dims = (e: RawEvent) => e.args!['Input Dims'] as number[][];
const xid = (e: RawEvent) => e.args!['External id'] as number;
const inside = (e: RawEvent, outer: RawEvent) => e.tid === outer.tid && e.ts >= outer.ts && e.ts + e.dur <= outer.ts + outer.dur;
const key = (a: number[], b: number[]) => `[${a.join(',')}]×[${b.join(',')}]`;
/** Kernels whose External id is the op's (torch ≥ 2.3 owner rule), summed, in µs. */
const kernelUs = (events: RawEvent[], op: RawEvent) => xs(events, 'kernel').filter((k) => k.args?.['External id'] === xid(op)).reduce((s, k) => s + k.dur, 0);
const kernelsOf = (events: RawEvent[], op: RawEvent) => xs(events, 'kernel').filter((k) => k.args?.['External id'] === xid(op));

function rowFor(rows: GemmRow[], op: string, a: number[], b: number[]): GemmRow {
  const r = rows.filter((x) => x.op === op && x.shape && key([...x.shape.a], [...x.shape.b]) === key(a, b));
  expect(r).toHaveLength(1);
  return r[0]!;
}

describe('gemm: geglu_mlp (the article\'s GEMM table)', async () => {
  const events = raw('geglu_mlp');
  const model = await loadModel(h200Trace('geglu_mlp'));
  const report = computeGemmTable(model);
  const mms = xs(events, 'cpu_op', 'aten::mm');
  const forwards = xs(events, 'user_annotation', 'mlp_fwd');

  it('two [8192,768]×[768,3072] and one [8192,3072]×[3072,768] per forward, 38,654,705,664 FLOPs each', () => {
    expect(forwards.length).toBe(3);
    for (const f of forwards) {
      const perShape = new Map<string, number>();
      for (const mm of mms.filter((e) => inside(e, f))) {
        const [a, b] = dims(mm);
        perShape.set(key(a!, b!), (perShape.get(key(a!, b!)) ?? 0) + 1);
      }
      expect(Object.fromEntries(perShape)).toEqual({ '[8192,768]×[768,3072]': 2, '[8192,3072]×[3072,768]': 1 });
    }
    expect(report.rows).toHaveLength(2);
    for (const mm of mms) {
      const [a, b] = dims(mm);
      const [M, K] = a!;
      const N = b![1]!;
      const flops = 2 * M! * N * K!;
      expect(flops).toBe(38_654_705_664);
      const row = rowFor(report.rows, 'aten::mm', a!, b!);
      expect([row.shape!.m, row.shape!.n, row.shape!.k, row.shape!.batch]).toEqual([M, N, K, 1]);
      expect(row.shape!.flops).toBe(flops);
      // bf16 (2 bytes): A and B read once, C written once
      expect(row.shape!.bytes).toBe((M! * K! + K! * N + M! * N) * 2);
      expect(row.shape!.dtype).toBe('bf16');
      const sameShape = mms.filter((e) => key(dims(e)[0]!, dims(e)[1]!) === key(a!, b!));
      expect(row.calls).toBe(sameShape.length);
      expect(row.callsPerStep).toBe(sameShape.length / forwards.length);
    }
    expect(report.totals.calls).toBe(mms.length); // aten::linear and aten::matmul are not counted again
  });

  it('mean kernel time, TFLOP/s and % of the H200 bf16 peak from the raw kernels', () => {
    for (const row of report.rows) {
      const calls = mms.filter((e) => key(dims(e)[0]!, dims(e)[1]!) === key([...row.shape!.a], [...row.shape!.b]));
      const meanUs = calls.reduce((s, e) => s + kernelUs(events, e), 0) / calls.length;
      expect(row.meanUs).toBeCloseTo(meanUs, 6);
      const tflops = row.shape!.flops / (meanUs * 1e-6) / 1e12;
      expect(row.tflops).toBeCloseTo(tflops, 6);
      expect(row.peakDtype).toBe('bf16');
      expect(row.peakTflops).toBe(1979 / 2); // NVIDIA's 1,979 TFLOPS "with sparsity", halved
      expect(row.percentOfPeak).toBeCloseTo((100 * tflops) / (1979 / 2), 6);
      // 571.5 FLOP/B against a ridge of 989.5e12 / 4.8e12 = 206.1 FLOP/B
      expect(row.ridgePoint).toBeCloseTo(989.5e12 / 4.8e12, 9);
      expect(row.bound).toBe('compute');
    }
    expect(report.device?.name).toBe('NVIDIA H200');
    expect(report.device?.numSms).toBe(132);
  });

  it('the kernel and its tile answer "why does down_proj pick another tile?"', () => {
    for (const row of report.rows) {
      const call = mms.find((e) => key(dims(e)[0]!, dims(e)[1]!) === key([...row.shape!.a], [...row.shape!.b]))!;
      const [k] = kernelsOf(events, call);
      expect(row.kernel?.name).toBe(k!.name);
      const t = /^nvjet_sm90_tst_(\d+)x(\d+)_(\d+)x/.exec(k!.name)!;
      expect(row.kernel?.decoded.tile).toBe(`${t[1]}x${t[2]}x${t[3]}`);
      expect(row.kernel?.grid).toEqual(k!.args!['grid']);
    }
    const up = rowFor(report.rows, 'aten::mm', [8192, 768], [768, 3072]);
    const down = rowFor(report.rows, 'aten::mm', [8192, 3072], [3072, 768]);
    expect(up.kernel?.decoded.tile).toBe('256x128x64');
    expect(down.kernel?.decoded.tile).toBe('192x128x64');
    expect(up.via).toEqual(['aten::linear → aten::matmul']);
  });
});

describe('gemm: other shapes and operand orders', () => {
  it('linear: addmm(bias, mat1, mat2) — one row per kernel launch, bias read once, via aten::linear', async () => {
    const events = raw('linear');
    const report = computeGemmTable(await loadModel(h200Trace('linear')));
    const addmms = xs(events, 'cpu_op', 'aten::addmm');
    expect(report.totals.calls).toBe(addmms.length);
    expect(report.rows).toHaveLength(1);
    const [bias, a, b] = dims(addmms[0]!);
    const [M, K] = a!;
    const N = b![1]!;
    const row = report.rows[0]!;
    expect([row.shape!.m, row.shape!.n, row.shape!.k]).toEqual([M, N, K]);
    expect(row.shape!.bias).toEqual(bias);
    expect(row.shape!.flops).toBe(2 * M! * N * K!);
    expect(row.shape!.bytes).toBe((bias![0]! + M! * K! + K! * N + M! * N) * 2);
    expect(row.via).toEqual(['aten::linear']);
    // 20.9 FLOP/B is far below the ridge: under the memory roof — but a kernel of a few µs moving
    // 0.2 MB reaches less than 10% of that roof (H200: 4.8 TB/s), so it is latency-bound.
    const intensity = (2 * M! * N * K!) / ((bias![0]! + M! * K! + K! * N + M! * N) * 2);
    expect(row.arithmeticIntensity).toBeCloseTo(intensity, 9);
    expect(row.roof).toBe('memory');
    const meanUs = addmms.reduce((s, op) => s + kernelUs(events, op), 0) / addmms.length;
    const ofRoof = (2 * M! * N * K!) / meanUs / 1e6 / ((intensity * 4800) / 1000);
    expect(ofRoof).toBeLessThan(0.1);
    expect(row.bound).toBe('latency');
    expect(row.attainableTflops).toBeCloseTo((row.arithmeticIntensity! * 4800) / 1000, 9);
  });

  it('compiled graphs: extern_kernels.mm/addmm with out= — out is the output, not an operand read', async () => {
    for (const [name, op] of [
      ['geglu_mlp_compile', 'aten::mm'],
      ['relu_mlp_compile', 'aten::addmm'],
      ['matmul_add_compile', 'aten::addmm'],
    ] as const) {
      const events = raw(name);
      const report = computeGemmTable(await loadModel(h200Trace(name)));
      const ops = xs(events, 'cpu_op', op);
      expect(ops.length).toBeGreaterThan(0);
      expect(report.totals.calls).toBe(ops.length);
      for (const e of ops) {
        const d = dims(e);
        const hasBias = op === 'aten::addmm';
        const [a, b] = hasBias ? [d[1]!, d[2]!] : [d[0]!, d[1]!];
        const out = d[hasBias ? 5 : 2]!;
        expect(out).toEqual([a[0], b[1]]);
        const row = rowFor(report.rows, op, a, b);
        expect(row.compiled).toBe(true);
        const biasN = hasBias ? d[0]![0]! : 0;
        expect(row.shape!.bytes).toBe((a[0]! * a[1]! + b[0]! * b[1]! + a[0]! * b[1]! + biasN) * 2);
      }
    }
  });

  it('sync_loop: fp32 on a kernel named tf32 is held against the TF32 peak', async () => {
    const events = raw('sync_loop');
    const report = computeGemmTable(await loadModel(h200Trace('sync_loop')));
    const mm = xs(events, 'cpu_op', 'aten::mm')[0]!;
    expect(mm.args!['Input type']).toEqual(['float', 'float']);
    expect(kernelsOf(events, mm)[0]!.name).toMatch(/tf32/);
    expect(report.rows).toHaveLength(1);
    expect(report.rows[0]!.shape!.dtype).toBe('fp32');
    expect(report.rows[0]!.peakDtype).toBe('tf32');
    expect(report.rows[0]!.shape!.bytes).toBe(3 * 4096 * 4096 * 4);
  });

  it.skipIf(!HAS_HTA)('HTA call_stack trace: fp32 on a CUTLASS tensorop kernel is TF32 math; --device gives peaks without deviceProperties', async () => {
    const path = join(HTA_DIR, 'call_stack/backward_thread.json');
    const events = loadRawJson(path).traceEvents as unknown as RawEvent[];
    const mm = xs(events, 'cpu_op', 'aten::mm')[0]!;
    expect(mm.args!['Input type']).toEqual(['float', 'float']);
    const report = computeGemmTable(await loadTrace(path), { deviceName: 'nvidia-a100-sxm4-80gb' });
    const row = rowFor(report.rows, 'aten::mm', dims(mm)[0]!, dims(mm)[1]!);
    expect(row.kernel?.name).toMatch(/tensorop/);
    expect(row.peakDtype).toBe('tf32');
    expect(row.peakTflops).toBe(156);
    // this trace predates torch 2.3: a kernel belongs to the op around its launching runtime call
    const launches = xs(events, 'cuda_runtime').filter((r) => inside(r, mm));
    const corr = new Set(launches.map((r) => r.args!['correlation']));
    const mine = xs(events, 'kernel').filter((k) => corr.has(k.args!['correlation']));
    expect(mine.map((k) => k.name)).toEqual([row.kernel!.name]);
    expect(row.meanUs).toBeCloseTo(mine[0]!.dur, 6);
    expect(report.notes.join(' ')).toMatch(/no deviceProperties/);
  });

  it.skipIf(!HAS_HTA)('HTA MI250 trace: fp32 on AMD matrix cores stays fp32; an MI250 (104 CUs) has no peaks in the table', async () => {
    const path = join(HTA_DIR, 'amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz');
    const report = computeGemmTable(await loadTrace(path));
    const events = loadRawJson(path).traceEvents as unknown as RawEvent[];
    expect(report.totals.calls).toBe(xs(events, 'cpu_op', /^aten::(mm|addmm)$/).length);
    for (const row of report.rows) {
      expect(row.kernel?.name).toMatch(/^Cijk_/);
      expect(row.peakDtype).toBe('fp32');
      expect(row.peakTflops).toBeUndefined();
    }
    expect(report.notes.join(' ')).toMatch(/"AMD Radeon Graphics" is not in the peaks table/);
  });

  it('gpt2_train: one call per innermost GEMM op (autocast and linear wrappers not counted twice)', async () => {
    const events = raw('gpt2_train');
    const report = computeGemmTable(await loadModel(h200Trace('gpt2_train')));
    const GEMM = /^aten::(mm|addmm|bmm|baddbmm|matmul|linear|_scaled_mm|_addmm_activation)$/;
    const gemms = xs(events, 'cpu_op', GEMM);
    const innermost = gemms.filter((g) => !gemms.some((o) => o !== g && inside(o, g)));
    expect(innermost.length).toBeLessThan(gemms.length);
    expect(report.totals.calls).toBe(innermost.length);
    let flops = 0;
    for (const g of innermost) {
      const d = dims(g);
      const [a, b] = g.name === 'aten::addmm' ? [d[1]!, d[2]!] : [d[0]!, d[1]!];
      flops += 2 * a[0]! * a[1]! * b[1]!;
    }
    expect(report.totals.flops).toBe(flops);
    // GEMM time = the kernels whose External id is an innermost GEMM op's
    const torchKernelUs = innermost.reduce((s, g) => s + kernelUs(events, g), 0);
    expect(report.totals.kernelUs).toBeCloseTo(torchKernelUs, 3);
  });

  it('--peaks: measured peaks replace the datasheet figures', async () => {
    const report = computeGemmTable(await loadModel(h200Trace('geglu_mlp')), {
      peaks: { label: 'test', denseTflops: { bf16: 500 }, memoryBandwidthGBs: 2000 },
    });
    for (const row of report.rows) {
      expect(row.peakTflops).toBe(500);
      expect(row.ridgePoint).toBeCloseTo(250, 9);
      expect(row.percentOfPeak).toBeCloseTo((100 * row.tflops!) / 500, 9);
    }
    expect(report.device?.peaks?.origin).toBe('datasheet+file');
  });
});
