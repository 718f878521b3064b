/**
 * HTA parity for the critical path (docs/readings.md, "HTA's critical path" and "HTA's published
 * test values"): HTA's own fixtures, read from ../shared (never copied), and the figures HTA's
 * tests assert, through the library and through `critical-path --hta-compat`. HTA names events by
 * their position in `traceEvents`; the test maps each to the model's event through the raw JSON.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadTrace } from '../../src/load-trace.js';
import { buildCriticalPathGraph, EDGE_KINDS, EK, type CriticalPathGraph } from '../../src/analyses/critical-path/critical-path-graph.js';
import { selectInstances } from '../../src/analyses/critical-path/critical-path.js';
import { htaLongestPath, longestPath, topologicalOrder } from '../../src/analyses/critical-path/longest-path.js';
import type { TraceModel } from '../../src/model/trace-model.js';
import { HAS_HTA, HTA_DIR, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

const CP = join(HTA_DIR, 'critical_path');
const SIMPLE_ADD = join(CP, 'simple_add/benchmark_result_493459_1694039959_trace.json.gz');
const ANNOTATION = '[param|pytorch.model.alex_net|0|0|0|measure|forward]';

type Raw = Record<string, unknown> & { name: string; ts: number; dur?: number; cat?: string; args?: Record<string, unknown> };

/** The model's host or GPU index of raw event `i` (HTA's event index): same name, same start. */
function modelEvent(m: TraceModel, raw: Raw[], i: number): { gpu: boolean; index: number } {
  const e = raw[i]!;
  // ts µs → model ns: the offset is fixed by the first cpu_op, in both
  const first = raw.filter((x) => x.cat === 'cpu_op').sort((a, b) => a.ts - b.ts)[0]!;
  let firstNs = Infinity;
  for (let k = 0; k < m.host.length; k++) if (m.strings.get(m.host.name[k]!) === first.name) firstNs = Math.min(firstNs, m.host.startNs[k]!);
  const startNs = Math.round((e.ts - first.ts) * 1000 + firstNs);
  const gpu = e.cat === 'kernel' || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset';
  const table = gpu ? m.gpu : m.host;
  for (let k = 0; k < table.length; k++) {
    if (m.strings.get(table.name[k]!) === e.name && Math.abs(table.startNs[k]! - startNs) < 1) return { gpu, index: k };
  }
  throw new Error(`raw event ${i} (${e.name}) not found in the model`);
}

function nodesOf(g: CriticalPathGraph, ev: { gpu: boolean; index: number }): readonly [number, number] {
  return ev.gpu ? g.gpuNodes(ev.index) : g.hostNodes(ev.index);
}

function edge(g: CriticalPathGraph, a: number, b: number): number {
  for (let e = 0; e < g.edgeCount; e++) if (g.edgeSrc[e] === a && g.edgeDst[e] === b) return e;
  return -1;
}

describe.skipIf(!HAS_HTA)('critical path: HTA parity on simple_add (A14)', () => {
  let m: TraceModel;
  let raw: Raw[];
  let g: CriticalPathGraph;
  beforeAll(async () => {
    m = await loadTrace(SIMPLE_ADD);
    raw = loadRawJson(SIMPLE_ADD).traceEvents as Raw[];
    // HTA's instance_id=1: the second occurrence (here nested in the first), 0-based
    const [inst] = selectInstances(m, { annotation: ANNOTATION, instance: 1 });
    g = buildCriticalPathGraph(m, inst!, { hta: true });
  });

  it('names the events HTA names', () => {
    expect(raw[286]!.name).toBe('aten::relu_');
    expect(raw[287]!.name).toBe('aten::clamp_min_');
    expect(raw[1005]!.name).toBe('cudaLaunchKernel');
  });

  it('relu_ → clamp_min_ → cudaLaunchKernel nesting edges weigh 15/14/17/15/32, attributed as HTA does', () => {
    const relu = modelEvent(m, raw, 286);
    const clamp = modelEvent(m, raw, 287);
    const launch = modelEvent(m, raw, 1005);
    const [rs, re] = nodesOf(g, relu);
    const [cs, ce] = nodesOf(g, clamp);
    const [ls, le] = nodesOf(g, launch);
    const expectEdge = (a: number, b: number, w: number, attr: number) => {
      const e = edge(g, a, b);
      expect(e).toBeGreaterThanOrEqual(0);
      expect(g.edgeKind[e]).toBe(EK.Cpu);
      expect(g.edgeWeightNs[e]).toBe(w * 1000);
      expect(g.edgeAttr[e]).toBe(attr);
    };
    expectEdge(rs, cs, 15, relu.index);
    expectEdge(cs, ls, 14, clamp.index);
    expectEdge(ls, le, 17, launch.index);
    expectEdge(le, ce, 15, clamp.index);
    expectEdge(ce, re, 32, relu.index);
  });

  it('the fft kernel (1051) has a launch edge of 27 µs, then a kernel-kernel gap of 7 µs to 1067, whose own launch edge weighs 0', () => {
    const fft = modelEvent(m, raw, 1051);
    const gemm = modelEvent(m, raw, 1067);
    expect(fft.gpu && gemm.gpu).toBe(true);
    const [fs, fe] = nodesOf(g, fft);
    const [gs] = nodesOf(g, gemm);
    const fftLaunch = g.hostNodes(m.gpu.launcher[fft.index]!)[0];
    const e1 = edge(g, fftLaunch, fs);
    expect(g.edgeKind[e1]).toBe(EK.Launch);
    expect(g.edgeWeightNs[e1]).toBe(27_000);
    // the raw events say the same: kernel ts − runtime ts
    const corr = raw[1051]!.args!.correlation;
    const rt = raw.find((e) => e.cat === 'cuda_runtime' && e.args?.correlation === corr)!;
    expect(raw[1051]!.ts - rt.ts).toBe(27);
    const e2 = edge(g, fe, gs);
    expect(g.edgeKind[e2]).toBe(EK.KernelGap);
    expect(g.edgeWeightNs[e2]).toBe(7_000);
    const e3 = edge(g, g.hostNodes(m.gpu.launcher[gemm.index]!)[0], gs);
    expect(g.edgeKind[e3]).toBe(EK.Launch);
    expect(g.edgeWeightNs[e3]).toBe(0);
  });

  it('the epilogue kernel (1275) ends into cudaDeviceSynchronize (1281) with a sync edge of weight 0', () => {
    const [, ke] = nodesOf(g, modelEvent(m, raw, 1275));
    const [, se] = nodesOf(g, modelEvent(m, raw, 1281));
    const e = edge(g, ke, se);
    expect(g.edgeKind[e]).toBe(EK.Sync);
    expect(g.edgeWeightNs[e]).toBe(0);
  });

  it('critical path: 315 nodes, 314 edges over 159 events (A14, A15)', () => {
    const p = htaLongestPath(g, topologicalOrder(g));
    expect(p.nodes.length).toBe(315);
    expect(p.edges.length).toBe(314);
    const events = new Set<string>();
    for (const n of p.nodes) events.add(`${g.nodeGpu[n]}:${g.nodeEvent[n]}`);
    expect(events.size).toBe(159);
  });
});

describe.skipIf(!HAS_HTA)('critical path: HTA parity on alexnet (A16)', () => {
  it('has sync edges (Kineto cuda_sync records), every one of weight 0 under HTA weights, and a path as long as the instance', async () => {
    const file = join(CP, 'alexnet/benchmark_result_2869224_1695835535_trace.json.gz');
    const m = await loadTrace(file);
    const [inst] = selectInstances(m, { annotation: ANNOTATION, instance: 1 });
    const g = buildCriticalPathGraph(m, inst!, { hta: true });
    let syncs = 0;
    for (let e = 0; e < g.edgeCount; e++) {
      if (g.edgeKind[e] !== EK.Sync) continue;
      syncs++;
      expect(g.edgeWeightNs[e]).toBe(0);
    }
    expect(syncs).toBeGreaterThanOrEqual(1);
    // kinetoscope's own weights: the path is the instance's span
    const own = buildCriticalPathGraph(m, inst!);
    const p = longestPath(own);
    expect(p.lengthNs).toBe(own.endNs - own.startNs);
  });
});

describe.skipIf(!HAS_HTA)('critical path: HTA parity on cuda_event_sync_multi_stream (A17)', () => {
  it('resolves the three recorded events to the GPU work launched on their streams before each cudaEventRecord', async () => {
    const file = join(CP, 'cuda_event_sync_multi_stream/event_sync_trace.json.gz');
    const m = await loadTrace(file);
    const raw = loadRawJson(file).traceEvents as Raw[];
    const [inst] = selectInstances(m, {});
    expect(inst!.name).toBe('trace');
    const g = buildCriticalPathGraph(m, inst!, { hta: true });
    // From the raw events: each waiter (Event Sync / Stream Wait Event with a record id) → the
    // record call → the last kernel launched on wait_on_stream before the record call.
    const corrOf = (e: Raw) => e.args?.correlation as number;
    const runtime = raw.filter((e) => e.cat === 'cuda_runtime');
    // GPU activities: kernels, memsets and copies (HTA's launches include cudaMemsetAsync)
    const kernels = raw.filter((e) => e.cat === 'kernel' || e.cat === 'gpu_memset' || e.cat === 'gpu_memcpy');
    const waiters = raw.filter((e) => e.cat === 'cuda_sync' && typeof e.args?.wait_on_cuda_event_record_corr_id === 'number' && (e.args.wait_on_cuda_event_record_corr_id as number) >= 0);
    expect(waiters.length).toBe(3);
    const findModel = (table: 'host' | 'gpu', corr: number) => {
      const t = table === 'host' ? m.host : m.gpu;
      for (let k = 0; k < t.length; k++) if (t.correlation[k] === corr) return k;
      return -1;
    };
    for (const w of waiters) {
      const rec = runtime.find((e) => corrOf(e) === w.args!.wait_on_cuda_event_record_corr_id)!;
      expect(rec.name).toBe('cudaEventRecord');
      const launchedBefore = kernels
        .filter((k) => k.args!.stream === w.args!.wait_on_stream)
        .map((k) => ({ k, launch: runtime.find((r) => corrOf(r) === corrOf(k))! }))
        .filter((x) => x.launch.ts < rec.ts)
        .sort((a, b) => b.launch.ts - a.launch.ts)[0]!.k;
      const src = g.gpuNodes(findModel('gpu', corrOf(launchedBefore)))[1];
      let dst: number;
      if (w.name === 'Stream Wait Event') {
        // the next kernel launched on the waiting stream after cudaStreamWaitEvent
        const call = runtime.find((r) => corrOf(r) === corrOf(w))!;
        const next = kernels
          .filter((k) => k.args!.stream === w.args!.stream)
          .map((k) => ({ k, launch: runtime.find((r) => corrOf(r) === corrOf(k))! }))
          .filter((x) => x.launch.ts >= call.ts)
          .sort((a, b) => a.launch.ts - b.launch.ts)[0]!.k;
        dst = g.gpuNodes(findModel('gpu', corrOf(next)))[0];
      } else dst = g.hostNodes(findModel('host', corrOf(w)))[1];
      const e = edge(g, src, dst);
      expect(e).toBeGreaterThanOrEqual(0);
      expect(g.edgeKind[e]).toBe(EK.Sync);
      expect(g.edgeWeightNs[e]).toBe(0);
    }
  });
});

describe.skipIf(!HAS_HTA)('critical path on an AMD trace (HTA #219: HTA fails there)', () => {
  it('MI250 ROCm 6.2: hipLaunchKernel launches are edges, every step is as long as its span', async () => {
    const file = join(HTA_DIR, 'amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz');
    const m = await loadTrace(file);
    const raw = loadRawJson(file).traceEvents as Raw[];
    const insts = selectInstances(m, {});
    expect(insts.map((i) => i.name)).toEqual(raw.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name)).map((e) => e.name).sort());
    for (const inst of insts) {
      const g = buildCriticalPathGraph(m, inst);
      const p = longestPath(g);
      expect(p.lengthNs).toBe(g.endNs - g.startNs);
      // one launch edge per GPU activity whose launch call (hip*, by correlation) is in the step
      let launchEdges = 0;
      for (let e = 0; e < g.edgeCount; e++) if (g.edgeKind[e] === EK.Launch) launchEdges++;
      const launched = inst.gpu.filter((x) => m.gpu.launcher[x]! >= 0).length;
      expect(launchEdges).toBe(launched);
      expect(g.diagnostics.filter((d) => d.code === 'CP_NO_LAUNCH')).toEqual([]);
    }
    // the launch calls are HIP's
    expect(raw.some((e) => e.cat === 'cuda_runtime' && e.name === 'hipLaunchKernel')).toBe(true);
  });
});

describe.skipIf(!HAS_HTA)('critical path on cuda_event_sync: cudaEventSynchronize waits for the recorded kernel', () => {
  it("the spin kernel's end binds the call's end, weighing the wake-up the raw events show", async () => {
    const file = join(CP, 'cuda_event_sync/event_sync_trace.json.gz');
    const m = await loadTrace(file);
    const raw = loadRawJson(file).traceEvents as Raw[];
    const [inst] = selectInstances(m, {});
    const g = buildCriticalPathGraph(m, inst!);
    // from the raw events: the Event Sync record of cudaEventSynchronize names the cudaEventRecord;
    // the kernel is the last one launched on its stream before that record call
    const call = raw.find((e) => e.name === 'cudaEventSynchronize')!;
    const rec = raw.find((e) => e.cat === 'cuda_sync' && e.args?.correlation === call.args!.correlation)!;
    const record = raw.find((e) => e.cat === 'cuda_runtime' && e.args?.correlation === rec.args!.wait_on_cuda_event_record_corr_id)!;
    const kernels = raw.filter((e) => e.cat === 'kernel' && e.args!.stream === rec.args!.wait_on_stream);
    const launchOf = (k: Raw) => raw.find((e) => e.cat === 'cuda_runtime' && e.args?.correlation === k.args!.correlation)!;
    const kernel = kernels.filter((k) => launchOf(k).ts < record.ts).sort((a, b) => launchOf(b).ts - launchOf(a).ts)[0]!;
    const wakeUs = call.ts + call.dur! - (kernel.ts + kernel.dur!);
    expect(wakeUs).toBeGreaterThan(0);
    const k = modelEvent(m, raw, raw.indexOf(kernel));
    const c = modelEvent(m, raw, raw.indexOf(call));
    const e = edge(g, g.gpuNodes(k.index)[1], g.hostNodes(c.index)[1]);
    expect(g.edgeKind[e]).toBe(EK.Sync);
    expect(g.edgeBinding[e]).toBe(1);
    expect(g.edgeWeightNs[e]).toBe(wakeUs * 1000);
    // and the host's own edge into the call's end, a wait, weighs nothing unless it binds
    const own = edge(g, g.hostNodes(c.index)[0], g.hostNodes(c.index)[1]);
    expect(g.edgeBinding[own]).toBe(0);
    expect(g.edgeWeightNs[own]).toBe(0);
  });
});

describe.skipIf(!HAS_HTA)('critical path: HTA end to end on simple_add (A18)', () => {
  it("marks as many events critical as HTA's overlaid output, within HTA's own 1 %", async () => {
    const dir = join(CP, 'end_to_end/simple_add');
    const m = await loadTrace(join(dir, 'input/trace.json.gz'));
    // HTA: annotation "" = the whole trace
    const [inst] = selectInstances(m, {});
    expect(inst!.name).toBe('trace');
    const g = buildCriticalPathGraph(m, inst!, { hta: true });
    const p = htaLongestPath(g, topologicalOrder(g));
    const events = new Set<string>();
    for (const n of p.nodes) events.add(`${g.nodeGpu[n]}:${g.nodeEvent[n]}`);
    // the oracle: HTA's overlaid trace, X events with args.critical = 1
    const out = loadRawJson(join(dir, 'output/overlaid_critical_path_trace.json.gz')).traceEvents as Raw[];
    const hta = out.filter((e) => e.ph === 'X' && e.args?.critical === 1).length;
    expect(hta).toBe(624);
    expect(Math.abs(events.size - hta)).toBeLessThanOrEqual(0.01 * hta);
  });
});

describe.skipIf(!HAS_HTA)('critical-path --hta-compat on the command line (A14)', () => {
  it("prints HTA's path on simple_add: 315 nodes, HTA's weights edge by edge", async () => {
    const r = await runCli(['critical-path', SIMPLE_ADD, '--annotation', ANNOTATION, '--instance', '2', '--hta-compat', '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.mode).toBe('hta-compat');
    expect(doc.instances).toHaveLength(1);
    const inst = doc.instances[0];
    // HTA's published figure: len(critical_path_nodes) == 315 (test_critical_path_analysis.py)
    expect(inst.pathNodes).toBe(315);
    const edges = inst.pathEdges as { kind: string; weightUs: number; fromUs: number; toUs: number; event: string | null; gpu: boolean }[];
    expect(edges).toHaveLength(314);
    // HTA's weights: host gaps, syncs and a blocking call's wait (here cudaDeviceSynchronize's
    // own time) weigh 0, every other edge its time difference; the length is their sum
    const zero = (e: (typeof edges)[number]) => e.kind === 'host-gap' || e.kind === 'sync' || (e.kind === 'cpu' && e.event === 'cudaDeviceSynchronize');
    for (const e of edges) expect(e.weightUs).toBe(zero(e) ? 0 : Math.round((e.toUs - e.fromUs) * 1000) / 1000);
    expect(edges.filter((e) => e.kind === 'cpu' && e.event === 'cudaDeviceSynchronize' && e.toUs > e.fromUs)).toHaveLength(1);
    expect(edges.reduce((t, e) => t + e.weightUs, 0)).toBeCloseTo(inst.lengthUs, 6);
    expect(inst.lengthUs).toBeLessThan(inst.spanUs); // gaps zeroed: shorter than the span, by design
    // the one launch edge on the path: kernel start − its cudaLaunchKernel start, from the raw events
    const launch = edges.filter((e) => e.kind === 'launch');
    expect(launch).toHaveLength(1);
    const kernelAt = raw.filter((e) => e.cat === 'kernel' && e.name === launch[0]!.event);
    const delays = kernelAt.map((k) => k.ts - raw.find((x) => x.cat === 'cuda_runtime' && x.args?.correlation === k.args!.correlation)!.ts);
    expect(delays).toContain(launch[0]!.weightUs);
    // the same path as the library's (HTA's graph and networkx's longest path), edge by edge
    const p = htaLongestPath(g, topologicalOrder(g));
    expect(edges.map((e) => e.kind)).toEqual(Array.from(p.edges, (e) => EDGE_KINDS[g.edgeKind[e]!]));
    expect(edges.map((e) => e.weightUs)).toEqual(Array.from(p.edges, (e) => g.edgeWeightNs[e]! / 1000));
    // no warning that the path is not the span: HTA's path is not meant to be
    expect(doc.criticalPathDiagnostics.map((d: { code: string }) => d.code)).not.toContain('CP_LENGTH_NOT_SPAN');
  });

  it("says so in the text; kinetoscope's own weights (no flag) give a path as long as the span; no --what-if with it", async () => {
    const text = await runCli(['critical-path', SIMPLE_ADD, '--annotation', ANNOTATION, '--instance', '2', '--hta-compat']);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^HTA-compatible critical path \(--hta-compat\)/);
    expect(text.stdout).toMatch(/critical path 241\.724 ms through 315 of /);
    const own = JSON.parse((await runCli(['critical-path', SIMPLE_ADD, '--annotation', ANNOTATION, '--instance', '2', '--json'])).stdout);
    expect(own.mode).toBe('kinetoscope');
    expect(own.instances[0].lengthUs).toBe(own.instances[0].spanUs);
    expect(own.instances[0]).not.toHaveProperty('pathEdges');
    const bad = await runCli(['critical-path', SIMPLE_ADD, '--hta-compat', '--what-if', 'launch=0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: --what-if needs kinetoscope's weights/);
  });

  let g: CriticalPathGraph;
  let raw: Raw[];
  beforeAll(async () => {
    const m = await loadTrace(SIMPLE_ADD);
    raw = loadRawJson(SIMPLE_ADD).traceEvents as Raw[];
    const [inst] = selectInstances(m, { annotation: ANNOTATION, instance: 1 });
    g = buildCriticalPathGraph(m, inst!, { hta: true });
  });
});
