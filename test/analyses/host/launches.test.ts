/**
 * `launches` against figures computed here from the raw events (JSON.parse of each capture,
 * launch call ↔ GPU activity joined by `correlation`, op ↔ call by `External id`) and against
 * HTA's published launch statistics (docs/readings.md, "HTA's published test values").
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { computeLaunches, type LaunchAnatomy } from '../../../src/analyses/host/launches.js';
import { gpuBusyDuring, gpuBusyUnion } from '../../../src/analyses/facts/gpu-time-index.js';
import { unionLengthInNs } from '../../../src/analyses/helpers/intervals.js';
import type { TraceModel } from '../../../src/model/trace-model.js';
import { loadTrace } from '../../../src/load-trace.js';
import { H200_NAMES, HAS_HTA, HTA_DIR, h200Trace, loadRawJson, loadModel } from '../../fixtures.js';

type Raw = { name: string; cat?: string; ph?: string; ts: number; dur: number; args?: Record<string, unknown> };

const LAUNCH_NAMES = new Set(['cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel', 'cuLaunchKernelEx', 'cudaGraphLaunch']);
const isApi = (e: Raw) => e.cat === 'cuda_runtime' || e.cat === 'cuda_driver';
const isGpu = (e: Raw) => e.cat === 'kernel' || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset';

function rawEvents(name: string): Raw[] {
  return (loadRawJson(h200Trace(name)).traceEvents as Raw[]).filter((e) => e.ph === 'X');
}

/** GPU activities per launching call, joined by correlation. */
function byCorrelation(raw: Raw[]) {
  const calls = new Map<number, Raw>();
  for (const e of raw) if (isApi(e)) calls.set(e.args!['correlation'] as number, e);
  const pairs: { call: Raw; gpu: Raw }[] = [];
  for (const g of raw) {
    if (!isGpu(g)) continue;
    const call = calls.get(g.args!['correlation'] as number);
    if (call) pairs.push({ call, gpu: g });
  }
  return pairs;
}

const analyses = new Map<string, LaunchAnatomy>();
beforeAll(async () => {
  for (const name of H200_NAMES) analyses.set(name, computeLaunches(await loadModel(h200Trace(name))));
});

describe('launches: calls per API, launches, kernels per launch, latency per kernel (all H200 captures)', () => {
  for (const name of H200_NAMES) {
    it(name, () => {
      const raw = rawEvents(name);
      const a = analyses.get(name)!;
      // Calls per API name.
      const want = new Map<string, number>();
      for (const e of raw) if (isApi(e)) want.set(e.name, (want.get(e.name) ?? 0) + 1);
      expect(new Map(a.byApi.map((r) => [r.api, r.calls]))).toEqual(want);
      expect(a.totals.launches).toBe(raw.filter((e) => isApi(e) && LAUNCH_NAMES.has(e.name)).length);
      expect(a.totals.kernels).toBe(raw.filter((e) => e.cat === 'kernel').length);
      // Memsets and copies are counted beside the launches, never as launches.
      expect([a.totals.memsets, a.totals.memcpys]).toEqual([raw.filter((e) => e.cat === 'gpu_memset').length, raw.filter((e) => e.cat === 'gpu_memcpy').length]);
      // CPU time per API.
      for (const r of a.byApi) {
        const total = raw.filter((e) => isApi(e) && e.name === r.api).reduce((t, e) => t + e.dur, 0);
        expect(r.cpu.totalUs).toBeCloseTo(total, 2);
      }
      // Per kernel name: count, launching APIs, mean latency (start − call end) and start-to-start.
      const pairs = byCorrelation(raw);
      const perName = new Map<string, { n: number; apis: Record<string, number>; lat: number; s2s: number }>();
      for (const { call, gpu } of pairs) {
        let p = perName.get(gpu.name);
        if (!p) perName.set(gpu.name, (p = { n: 0, apis: {}, lat: 0, s2s: 0 }));
        p.n++;
        p.apis[call.name] = (p.apis[call.name] ?? 0) + 1;
        p.lat += gpu.ts - (call.ts + call.dur);
        p.s2s += gpu.ts - call.ts;
      }
      expect(a.byKernel.length).toBe(perName.size);
      for (const r of a.byKernel) {
        const p = perName.get(r.name)!;
        expect(r.count).toBe(p.n);
        expect(r.apis).toEqual(p.apis);
        expect(Math.abs(r.latency.meanUs - p.lat / p.n)).toBeLessThanOrEqual(0.002);
        expect(Math.abs(r.startToStart.meanUs - p.s2s / p.n)).toBeLessThanOrEqual(0.002);
      }
    });
  }
});

describe("launches: each op's runtime/driver calls, grouped as torch links them (External id)", () => {
  for (const name of H200_NAMES) {
    it(name, () => {
      const raw = rawEvents(name);
      const a = analyses.get(name)!;
      const opByExt = new Map<number, Raw>();
      for (const e of raw) if (e.cat === 'cpu_op') opByExt.set(e.args!['External id'] as number, e);
      const callsOf = new Map<Raw, string[]>();
      const outside = new Map<string, number>();
      for (const e of raw) {
        if (!isApi(e)) continue;
        const op = opByExt.get(e.args!['External id'] as number);
        if (!op) outside.set(e.name, (outside.get(e.name) ?? 0) + 1);
        else callsOf.set(op, [...(callsOf.get(op) ?? []), e.name]);
      }
      // (op name, calls per instance as sorted "api×n") → instances
      const key = (op: string, calls: Record<string, number>) => `${op} | ${Object.entries(calls).map(([k, v]) => `${k}×${v}`).sort().join(', ')}`;
      const want = new Map<string, number>();
      for (const [op, names] of callsOf) {
        const counts: Record<string, number> = {};
        for (const n of names) counts[n] = (counts[n] ?? 0) + 1;
        const k = key(op.name, counts);
        want.set(k, (want.get(k) ?? 0) + 1);
      }
      for (const [api, n] of outside) want.set(key('(outside any cpu_op)', { [api]: 1 }), n);
      const got = new Map<string, number>();
      for (const p of a.ops) {
        const k = key(p.op, Object.fromEntries(p.calls.map((c) => [c.api, c.count])));
        got.set(k, (got.get(k) ?? 0) + p.instances);
      }
      expect(got).toEqual(want);
    });
  }

  it('sync_loop: an aten::mm is 1× cudaMemsetAsync (+1 memset), 2× cudaFuncGetAttributes, 1× cudaLaunchKernelExC (+1 kernel)', () => {
    const mm = analyses.get('sync_loop')!.ops.filter((p) => p.op === 'aten::mm');
    expect(mm.map((p) => [p.pattern, p.instances])).toEqual([['1× cudaMemsetAsync (+1 memset), 2× cudaFuncGetAttributes, 1× cudaLaunchKernelExC (+1 kernel)', 15]]);
  });
});

describe('launches: host synchronizations', () => {
  it('sync_loop: 4 cudaDeviceSynchronize and 15 .item() syncs (cudaStreamSynchronize after a DtoH copy), with the time the host was blocked', () => {
    const raw = rawEvents('sync_loop');
    const a = analyses.get('sync_loop')!;
    const deviceSyncs = raw.filter((e) => e.name === 'cudaDeviceSynchronize');
    const streamSyncs = raw.filter((e) => e.name === 'cudaStreamSynchronize');
    const items = raw.filter((e) => e.cat === 'cpu_op' && e.name === 'aten::item');
    expect(deviceSyncs.length).toBe(4);
    expect(items.length).toBe(15);
    const item = a.syncs.filter((s) => s.item);
    expect(item.length).toBe(items.length);
    expect(item.every((s) => s.api === 'cudaStreamSynchronize' && s.kind === 'stream' && s.afterDtoH && s.topOp === 'aten::item')).toBe(true);
    // Every .item() sync lies inside an aten::item op of the raw trace.
    for (const s of item) {
      const sync = streamSyncs.find((e) => Math.abs(e.ts - streamSyncs[0]!.ts - (s.startUs - item[0]!.startUs)) < 0.002)!;
      expect(items.some((i) => i.ts <= sync.ts && sync.ts + sync.dur <= i.ts + i.dur)).toBe(true);
    }
    const byCause = new Map(a.syncsByCause.map((r) => [`${r.api}|${r.cause}`, r]));
    const itemRow = byCause.get('cudaStreamSynchronize|.item()')!;
    expect(itemRow.count).toBe(15);
    expect(itemRow.blockedUs).toBeCloseTo(streamSyncs.reduce((t, e) => t + e.dur, 0), 2);
    expect(itemRow.gpuBusyDuringUs).toBeLessThanOrEqual(itemRow.blockedUs);
    const dev = byCause.get('cudaDeviceSynchronize|torch.cuda.synchronize() (outside any op)')!;
    expect(dev.count).toBe(4);
    expect(dev.blockedUs).toBeCloseTo(deviceSyncs.reduce((t, e) => t + e.dur, 0), 2);
    expect(a.totals.hostSyncs).toBe(19);
  });

  it('copy_overlap: cudaStreamWaitEvent is listed but does not block the host', () => {
    const a = analyses.get('copy_overlap')!;
    const waits = a.syncs.filter((s) => s.api === 'cudaStreamWaitEvent');
    expect(waits.length).toBe(rawEvents('copy_overlap').filter((e) => e.name === 'cudaStreamWaitEvent').length);
    expect(waits.every((s) => s.kind === 'stream-wait')).toBe(true);
    expect(a.totals.hostSyncs).toBe(4);
  });
});

describe('launches: CUDA-graph launches', () => {
  it('tiny_ops_compile_ro: each cudaGraphLaunch is one launch running the kernels CUPTI correlated with it', () => {
    const raw = rawEvents('tiny_ops_compile_ro');
    const a = analyses.get('tiny_ops_compile_ro')!;
    const graphs = raw.filter((e) => e.name === 'cudaGraphLaunch');
    const graphCorr = new Set(graphs.map((e) => e.args!['correlation']));
    const viaGraph = raw.filter((e) => e.cat === 'kernel' && graphCorr.has(e.args!['correlation']));
    expect(a.totals.graphLaunches).toBe(graphs.length);
    expect(a.totals.kernelsViaGraphs).toBe(viaGraph.length);
    const row = a.byApi.find((r) => r.api === 'cudaGraphLaunch')!;
    expect(row.role).toBe('graph-launch');
    expect(row.calls).toBe(3);
    expect(row.kernels).toBe(viaGraph.length);
    for (const k of new Set(viaGraph.map((e) => e.name))) {
      expect(a.byKernel.find((r) => r.name === k)!.viaGraph).toBe(viaGraph.filter((e) => e.name === k).length);
    }
    const compiled = a.ops.find((p) => p.op === 'Torch-Compiled Region: 0/0')!;
    expect(compiled.pattern).toBe('1× cudaStreamIsCapturing, 1× cudaGraphLaunch (+1 kernel)');
  });
});

describe("launches: HTA's launch statistics (runtime_cutoff 50 µs, launch_delay_cutoff 100 µs)", () => {
  for (const name of H200_NAMES) {
    it(name, () => {
      const pairs = byCorrelation(rawEvents(name)).filter(({ call }) => LAUNCH_NAMES.has(call.name) || /^cuda(Memcpy|Memset)Async$/.test(call.name));
      const rows = pairs.map(({ call, gpu }) => ({ cpu: call.dur, gpu: gpu.dur, delay: Math.max(0, gpu.ts - (call.ts + call.dur)) }));
      const o = analyses.get(name)!.outliers;
      expect(o.rows).toBe(rows.length);
      expect(o.shortKernels).toBe(rows.filter((r) => r.cpu <= 50 && r.gpu < r.cpu).length);
      expect(o.runtimeOutliers).toBe(rows.filter((r) => r.cpu > 50).length);
      expect(o.launchDelayOutliers).toBe(rows.filter((r) => r.delay > 100).length);
    });
  }

  it.skipIf(!HAS_HTA)("mtia_trace_single_rank: HTA's published row for correlation 423 (cpu 435.2, gpu 124.768, delay 0)", async () => {
    const a = computeLaunches(await loadTrace(`${HTA_DIR}/mtia_trace_single_rank/mtia_rank_0.json.gz`), { keepRows: true });
    const rows = a.rows!.filter((r) => r.correlation === 423);
    expect(rows.length).toBe(1);
    // HTA's test asserts these with delta=2.0.
    expect(Math.abs(rows[0]!.cpuDurationUs - 435.2)).toBeLessThanOrEqual(2);
    expect(Math.abs(rows[0]!.gpuDurationUs - 124.768)).toBeLessThanOrEqual(2);
    expect(Math.abs(rows[0]!.launchDelayUs - 0)).toBeLessThanOrEqual(2);
  });
});

describe('launches: the GPU busy time during a call', () => {
  // A small deterministic generator (no Math.random: the same cases every run).
  let seed = 12345;
  const next = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  it('is the length of the union of all GPU work inside the call, as gpuBusyUnion + unionLengthInNs say (overlaps, touching, empty, negative and unreadable times)', () => {
    for (let t = 0; t < 400; t++) {
      const n = next(40);
      const gs = new Float64Array(n);
      const gd = new Float64Array(n);
      for (let g = 0; g < n; g++) {
        gs[g] = next(30) === 0 && t % 3 === 0 ? NaN : next(1000);
        gd[g] = next(10) === 0 ? -1 : next(20) === 0 ? NaN : next(t % 2 ? 400 : 60);
      }
      const h = 1 + next(8);
      const hs = new Float64Array(h);
      const hd = new Float64Array(h);
      for (let i = 0; i < h; i++) {
        hs[i] = next(1100) - 50;
        hd[i] = next(10) === 0 ? -1 : next(20) === 0 ? NaN : next(300);
      }
      const model = () => ({ gpu: { length: n, startNs: gs, durNs: gd }, host: { length: h, startNs: hs, durNs: hd } }) as unknown as TraceModel;
      const calls = Array.from({ length: h }, (_, i) => i);
      const got = gpuBusyDuring(model(), calls);
      const union = gpuBusyUnion(model());
      for (let i = 0; i < h; i++) expect(got[i]).toBe(unionLengthInNs(union, hs[i]!, hs[i]! + hd[i]!));
    }
  });
});
