/**
 * The critical path and its what-if on hand-made micro traces, each answer worked out by hand
 * in the comments (times in µs), and on the H200 captures, where the path's length must equal
 * each step's span computed from the raw events.
 */
import { describe, expect, it } from 'vitest';
import { loadTrace } from '../../../src/load-trace.js';
import { analyzeInstance, parseWhatIf, selectInstances } from '../../../src/analyses/critical-path/critical-path.js';
import type { TraceModel } from '../../../src/model/trace-model.js';
import { H200_NAMES, h200Trace, loadRawJson } from '../../fixtures.js';

type Ev = Record<string, unknown>;
const op = (name: string, ts: number, dur: number, ext = 0): Ev => ({ ph: 'X', cat: 'cpu_op', name, pid: 1, tid: 1, ts, dur, args: { 'External id': ext } });
const step = (n: number, ts: number, dur: number): Ev => ({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${n}`, pid: 1, tid: 1, ts, dur, args: {} });
const rt = (name: string, ts: number, dur: number, corr: number, ext = 0): Ev => ({ ph: 'X', cat: 'cuda_runtime', name, pid: 1, tid: 1, ts, dur, args: { 'External id': ext, correlation: corr } });
const kernel = (name: string, ts: number, dur: number, corr: number, ext = 0, stream = 7): Ev => ({ ph: 'X', cat: 'kernel', name, pid: 0, tid: stream, ts, dur, args: { 'External id': ext, correlation: corr, device: 0, stream } });
const streamSync = (ts: number, dur: number, corr: number, stream = 7): Ev => ({ ph: 'X', cat: 'cuda_sync', name: 'Stream Sync', pid: 0, tid: stream, ts, dur, args: { correlation: corr, device: 0, stream } });

async function load(events: Ev[]): Promise<TraceModel> {
  return loadTrace(Buffer.from(JSON.stringify({ schemaVersion: 1, traceEvents: events })));
}

async function read(events: Ev[], whatIf: string[] = []) {
  const m = await load(events);
  const [inst] = selectInstances(m, {});
  return analyzeInstance(m, inst!, whatIf.map((w) => parseWhatIf(m, w)));
}

/*
 * The step of the GPU-bound and the overlap graphs: mm 10–30 launches gemm_a (launch 15–25 →
 * gemm_a 30–130), add 40–50 launches add_b (launch 42–47 → add_b `addB`–`addB`+20), the host
 * waits in cudaDeviceSynchronize from 60 to `syncEnd`; step 0–`stepEnd`.
 */
function mmThenAdd(at: { addB: number; syncEnd: number; stepEnd: number }): Ev[] {
  return [
    step(1, 0, at.stepEnd),
    op('aten::mm', 10, 20, 1),
    rt('cudaLaunchKernel', 15, 10, 1, 1),
    kernel('gemm_a', 30, 100, 1, 1),
    op('aten::add', 40, 10, 2),
    rt('cudaLaunchKernel', 42, 5, 2, 2),
    kernel('add_b', at.addB, 20, 2, 2),
    rt('cudaDeviceSynchronize', 60, at.syncEnd - 60, 3),
  ];
}

/*
 * GPU-bound step: add_b queued behind gemm_a (100 µs); the host waits in cudaDeviceSynchronize,
 * then runs 40 µs more.
 *   step 0–200; mm 10–30 (launch 15–25 → gemm_a 30–130); add 40–50 (launch 42–47 → add_b 135–155)
 *   cudaDeviceSynchronize 60–160
 * Path: 0 →cpu 10→ mm 10 →cpu 5→ launch 15 →launch 15→ gemm_a 30 →gpu 100→ 130 →gap 5→ add_b 135
 *   →gpu 20→ 155 →sync 5→ sync end 160 →cpu 40→ step end 200.
 */
const GPU_BOUND = mmThenAdd({ addB: 135, syncEnd: 160, stepEnd: 200 });

describe('critical path on a GPU-bound micro step', () => {
  it('runs launch → gemm → gap → add → sync → host, as long as the step', async () => {
    const r = await read(GPU_BOUND);
    expect(r.spanUs).toBe(200);
    expect(r.lengthUs).toBe(200);
    expect(r.reading.bounds).toEqual({ cpuUs: 55, kernelUs: 120, launchUs: 15, kernelGapUs: 5, syncUs: 5, unexplainedUs: 0 });
    expect(r.reading.gpuActivities).toBe(2);
    expect(r.diagnostics).toEqual([]);
  });

  it("what if gemm took half: gemm_a ends at 80, add_b 85–105, sync 110, step 150", async () => {
    const r = await read(GPU_BOUND, ['gemm=0.5']);
    expect(r.whatIf!.rules[0]!.matchedEvents).toBe(1);
    expect(r.whatIf!.lengthUs).toBe(150);
    expect(r.whatIf!.deltaUs).toBe(-50);
  });

  it('what if gemm took nothing: add_b waits for its launch (42 + the median launch delay 15 = 57), the host chain becomes critical', async () => {
    const r = await read(GPU_BOUND, ['gemm_a=0']);
    // add_b 57–77, sync end 82, step end 122
    expect(r.whatIf!.lengthUs).toBe(122);
    expect(r.whatIf!.reading.bounds.launchUs).toBe(15);
    // the new chain: the host from the first launch call's start to add's launch call
    // (launch call 15–25, mm end 30, add 40, launch call 42: 27 µs), then add's 15 µs launch
    const fresh = r.whatIf!.newlyCritical;
    expect(fresh.map((s) => [s.bound, s.durUs])).toEqual([
      ['cpuUs', 27],
      ['launchUs', 15],
    ]);
  });

  it('launch=0: launch calls take no host time and kernels start when launched', async () => {
    // host: mm 10, launch1 15–15, mm end 20, add 30, launch2 32–32, add end 35, sync start 45
    // GPU: gemm_a 15–115, add_b 120–140, sync end 145, step end 185
    const r = await read(GPU_BOUND, ['launch=0']);
    expect(r.whatIf!.rules[0]!.matchedEvents).toBe(2);
    expect(r.whatIf!.lengthUs).toBe(185);
  });

  it("an op off the path changes nothing: aten::add's host time", async () => {
    const r = await read(GPU_BOUND, ['aten::add=0']);
    expect(r.whatIf!.rules[0]!.target).toBe('op aten::add');
    expect(r.whatIf!.lengthUs).toBe(200);
    expect(r.whatIf!.newlyCritical).toEqual([]);
  });
});

/*
 * A CUDA-graph replay: one cudaGraphLaunch (10–25) runs triton_a 30–80, triton_b 82–182,
 * triton_c 184–214 (Kineto gives the three the launch's correlation); the host waits in
 * cudaStreamSynchronize 40–220 (its cuda_sync record names stream 7); step 0–300.
 * Path: 0 →5→ region 5 →5→ graph launch 10 →launch 20→ a 30 →50→ 80 →2→ b 82 →100→ 182 →2→ c 184
 *   →30→ 214 →sync 6→ 220 →cpu 80→ 300.
 */
const GRAPH: Ev[] = [
  step(1, 0, 300),
  op('Torch-Compiled Region: 0/0', 5, 30, 1),
  rt('cudaGraphLaunch', 10, 15, 10, 1),
  kernel('triton_a', 30, 50, 10, 1),
  kernel('triton_b', 82, 100, 10, 1),
  kernel('triton_c', 184, 30, 10, 1),
  rt('cudaStreamSynchronize', 40, 180, 11),
  streamSync(41, 178, 11),
];

describe('critical path through a CUDA-graph launch', () => {
  it("puts each kernel the graph ran on the path, after the graph launch's launch edge", async () => {
    const r = await read(GRAPH);
    expect(r.lengthUs).toBe(300);
    expect(r.reading.bounds).toEqual({ cpuUs: 90, kernelUs: 180, launchUs: 20, kernelGapUs: 4, syncUs: 6, unexplainedUs: 0 });
    expect(r.reading.gpuActivities).toBe(3);
    expect(r.reading.graphLaunchedActivities).toBe(3);
  });

  it('what if triton_b took half: b ends at 132, c 134–164, sync 170, step 250', async () => {
    const r = await read(GRAPH, ['triton_b=0.5']);
    expect(r.whatIf!.lengthUs).toBe(250);
  });

  it('what if every graph kernel took nothing: the host chain (sync start at 40 + 80) is the step', async () => {
    const r = await read(GRAPH, ['^triton_=0']);
    expect(r.whatIf!.rules[0]!.matchedEvents).toBe(3);
    expect(r.whatIf!.lengthUs).toBe(120);
  });
});

/*
 * CPU-bound: foo 10–70 launches nothing; bar 75–95 launches a 2 µs kernel (launch 80–85,
 * kernel 90–92) nobody waits for; step 0–100. The path is the host; foo at half → 100 − 30.
 */
const CPU_BOUND: Ev[] = [step(1, 0, 100), op('aten::foo', 10, 60, 1), op('aten::bar', 75, 20, 2), rt('cudaLaunchKernel', 80, 5, 5, 2), kernel('k', 90, 2, 5, 2)];

describe('critical path on a CPU-bound micro step', () => {
  it('is the host thread', async () => {
    const r = await read(CPU_BOUND);
    expect(r.lengthUs).toBe(100);
    expect(r.reading.bounds.cpuUs).toBe(100);
    expect(r.reading.gpuActivities).toBe(0);
  });

  it("an op's host time at half shortens the step by half of it", async () => {
    const r = await read(CPU_BOUND, ['aten::foo=0.5']);
    expect(r.whatIf!.rules[0]!.target).toBe('op aten::foo');
    expect(r.whatIf!.lengthUs).toBe(70);
  });

  it('a kernel off the path changes nothing', async () => {
    const r = await read(CPU_BOUND, ['^k$=0']);
    expect(r.whatIf!.lengthUs).toBe(100);
  });
});

/*
 * Programmatic dependent launch: add_b (launched 42–47) starts at 128, while gemm_a (30–130)
 * still runs. It is tied to gemm_a's start: that 98 µs is gemm_a's time.
 *   step 0–160; mm 10–30 (launch 15–25 → gemm_a 30–130); add 40–50 (launch 42–47 → add_b 128–148)
 *   cudaDeviceSynchronize 60–150
 * Path: 0 →10→ mm →5→ launch →15→ gemm_a start 30 →98 (gemm_a)→ add_b 128 →20→ 148 →sync 2→ 150 →10→ 160.
 */
const OVERLAP = mmThenAdd({ addB: 128, syncEnd: 150, stepEnd: 160 });

describe('critical path with kernels that overlap on a stream', () => {
  it("counts the time add_b waited for gemm_a as gemm_a's, not as launch overhead", async () => {
    const r = await read(OVERLAP);
    expect(r.lengthUs).toBe(160);
    expect(r.reading.bounds).toEqual({ cpuUs: 25, kernelUs: 118, launchUs: 15, kernelGapUs: 0, syncUs: 2, unexplainedUs: 0 });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['CP_OVERLAPPING_ON_STREAM']);
  });

  it('what if gemm_a took half: add_b starts 49 µs after gemm_a starts (79), ends 99, sync 101, step 111', async () => {
    const r = await read(OVERLAP, ['gemm_a=0.5']);
    expect(r.whatIf!.lengthUs).toBe(111);
  });
});

describe('critical path where the graph cannot be built', () => {
  it('says when a kernel has no launch call, and still builds the rest', async () => {
    // kernel correlation 99 has no runtime call: it hangs from the trace's start
    const r = await read([op('aten::mm', 0, 50, 1), rt('cudaLaunchKernel', 10, 5, 1, 1), kernel('gemm', 20, 10, 1, 1), kernel('orphan', 100, 10, 99, 1, 9)]);
    expect(r.diagnostics.map((d) => d.code).sort()).toEqual(['CP_NO_LAUNCH', 'CP_UNEXPLAINED_START']);
    expect(r.lengthUs).toBe(r.spanUs);
    expect(r.spanUs).toBe(110);
  });

  it('leaves out an edge that would run back in time (ops that overlap without nesting) and keeps the rest reachable', async () => {
    // step 0–100; foo 10–50 and bar 40–80 on one thread: bar starts inside foo and ends after it
    const r = await read([step(1, 0, 100), op('aten::foo', 10, 40, 1), op('aten::bar', 40, 40, 2), op('aten::baz', 85, 10, 3)]);
    expect(r.diagnostics.map((d) => d.code)).toContain('CP_NEGATIVE_EDGE');
    expect(r.graph.unreachableNodes).toBe(0);
    expect(r.lengthUs).toBe(100);
  });

  it('rejects a what-if that is neither an op nor a regex', async () => {
    const m = await load(GPU_BOUND);
    expect(() => parseWhatIf(m, 'gemm')).toThrow(/TARGET=FACTOR/);
    expect(() => parseWhatIf(m, 'gemm=-1')).toThrow(/≥ 0/);
    expect(() => parseWhatIf(m, '(=0.5')).toThrow(/regular expression/);
  });
});

describe('critical path on the H200 captures', () => {
  // the span of each step from the raw events: the step's start to the last end of its host
  // events (on any thread, starting inside it) and of the GPU work they launched
  for (const name of H200_NAMES) {
    it(`${name}: every step's critical path is as long as the step's span`, async () => {
      const file = h200Trace(name);
      const m = await loadTrace(file);
      const insts = selectInstances(m, {});
      expect(insts.length).toBeGreaterThan(0);
      const raw = loadRawJson(file).traceEvents as { ph?: string; cat?: string; name?: string; ts?: number; dur?: number; tid?: unknown; args?: Record<string, unknown> }[];
      const rawSteps = raw.filter((e) => e.ph === 'X' && e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name!)).sort((a, b) => a.ts! - b.ts!);
      if (rawSteps.length === 0) {
        // No ProfilerStep#N (mlp_train_cuda_only: the profiler's CUDA activity alone, no annotation
        // at all): selectInstances takes the whole trace, one instance from its first event (not
        // from time zero, the profiler's span start, before which nothing ran) holding every host
        // event and GPU activity; its path is as long as its span, first start to last end, from
        // the raw events.
        expect(raw.filter((e) => e.cat === 'user_annotation')).toEqual([]);
        const profilerSpan = raw.find((e) => e.ph === 'X' && e.cat === 'Trace');
        const events = raw.filter((e) => e.ph === 'X' && ['cpu_op', 'cuda_runtime', 'cuda_driver', 'kernel', 'gpu_memcpy', 'gpu_memset'].includes(e.cat!));
        const host = events.filter((e) => e.cat === 'cpu_op' || e.cat === 'cuda_runtime' || e.cat === 'cuda_driver');
        expect(profilerSpan).toBeDefined();
        const t0 = Math.min(...events.map((e) => e.ts!));
        const end = Math.max(...events.map((e) => e.ts! + e.dur!));
        expect(t0).toBeGreaterThan(profilerSpan!.ts!); // the gap the window leaves out
        expect(insts.map((i) => [i.name, i.root])).toEqual([['trace', -1]]);
        // (µs as doubles here, exact ns in the model: within 1 ns)
        expect(Math.abs(insts[0]!.startNs - (t0 - profilerSpan!.ts!) * 1000)).toBeLessThanOrEqual(1);
        const r = analyzeInstance(m, insts[0]!, []);
        expect(r.diagnostics.filter((d) => d.code === 'CP_LENGTH_NOT_SPAN')).toEqual([]);
        expect(r.lengthUs).toBeCloseTo(r.spanUs, 6);
        expect(r.spanUs).toBeCloseTo(end - t0, 3);
        expect([r.graph.hostEvents, r.graph.gpuActivities]).toEqual([host.length, events.length - host.length]);
        return;
      }
      // one instance per ProfilerStep#N, in order
      expect(insts.map((i) => i.name)).toEqual(rawSteps.map((e) => e.name));
      for (const inst of insts) {
        const r = analyzeInstance(m, inst, []);
        expect(r.diagnostics.filter((d) => d.code === 'CP_LENGTH_NOT_SPAN')).toEqual([]);
        expect(r.lengthUs).toBeCloseTo(r.spanUs, 6);
        // the span from the raw JSON
        const s = raw.find((e) => e.cat === 'user_annotation' && e.name === inst.name)!;
        const t0 = s.ts!;
        const t1 = t0 + s.dur!;
        const corr = new Set<unknown>();
        let end = t1;
        for (const e of raw) {
          if (e.ph !== 'X' || e.ts === undefined || e.dur === undefined) continue;
          const host = e.cat === 'cpu_op' || e.cat === 'user_annotation' || e.cat === 'cuda_runtime' || e.cat === 'cuda_driver';
          if (host && e.ts >= t0 && e.ts < t1) {
            end = Math.max(end, e.ts + e.dur);
            if (e.args?.correlation !== undefined) corr.add(e.args.correlation);
          }
        }
        for (const e of raw) if ((e.cat === 'kernel' || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset') && corr.has(e.args?.correlation)) end = Math.max(end, e.ts! + e.dur!);
        expect(r.spanUs).toBeCloseTo(end - t0, 3);
      }
    });
  }
});

describe('critical path of a reduce-overhead training step (CUDA-graph replays) on the H200', () => {
  it('host=0 puts every GPU activity of the step on the path, the graph-launched kernels among them', async () => {
    const file = h200Trace('mlp_train_compile_ro');
    const m = await loadTrace(file);
    const [inst] = selectInstances(m, { step: 3 });
    const r = analyzeInstance(m, inst!, [parseWhatIf(m, 'host=0')]);
    // from the raw events: the GPU work launched by calls that start inside ProfilerStep#3
    const raw = loadRawJson(file).traceEvents as { ph?: string; cat?: string; name?: string; ts?: number; dur?: number; args?: Record<string, unknown> }[];
    const s = raw.find((e) => e.cat === 'user_annotation' && e.name === 'ProfilerStep#3')!;
    const calls = new Map<unknown, string>();
    for (const e of raw) if ((e.cat === 'cuda_runtime' || e.cat === 'cuda_driver') && e.ts! >= s.ts! && e.ts! < s.ts! + s.dur!) calls.set(e.args?.correlation, e.name!);
    const gpu = raw.filter((e) => (e.cat === 'kernel' || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset') && calls.has(e.args?.correlation));
    const viaGraph = gpu.filter((e) => calls.get(e.args?.correlation) === 'cudaGraphLaunch');
    expect(viaGraph.length).toBeGreaterThan(0);
    // without host time the host no longer sets the length: the stream does, through every activity
    expect(r.whatIf!.reading.bounds.cpuUs).toBe(0);
    expect(r.whatIf!.reading.gpuActivities).toBe(gpu.length);
    expect(r.whatIf!.reading.graphLaunchedActivities).toBe(viaGraph.length);
    expect(r.whatIf!.reading.bounds.kernelUs).toBeCloseTo(gpu.reduce((a, e) => a + e.dur!, 0), 3);
    expect(r.whatIf!.lengthUs).toBeLessThan(r.lengthUs);
  });
});
