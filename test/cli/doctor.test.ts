/**
 * `doctor`: one hand-made micro trace per finding (test/fixtures/micro/README.md, values worked
 * out by hand), and the real captures, where every count and GPU-time share is computed here
 * from the raw JSON (JSON.parse): launches matched to GPU work by correlation, overlaps on a
 * stream, torch's id collision (linear_compile), graph-replayed kernels (tiny_ops_compile_ro).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeDoctor, type DoctorReport, type Finding } from '../../src/analyses/trace/doctor.js';
import { loadTrace } from '../../src/load-trace.js';
import { H200_NAMES, HAS_HTA, HTA_DIR, MICRO_DIR, h200Trace, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { peerTraceSweep } from '../helpers/sweep-size.js';

type Raw = Record<string, any>;

const doctor = async (path: string) => computeDoctor(await loadTrace(path));
const micro = (f: string) => doctor(join(MICRO_DIR, f));
const find = (r: DoctorReport, code: string) => r.findings.find((f) => f.code === code);
const pick = (f: Finding | undefined) => f && { severity: f.severity, count: f.count, gpuTimeShare: f.gpuTimeShare };

describe('doctor on micro traces, one per finding', () => {
  it('doctor-overlapping-kernels.json: one kernel starts 2 µs before its predecessor ends', async () => {
    const r = await micro('doctor-overlapping-kernels.json');
    expect(pick(find(r, 'OVERLAPPING_KERNELS'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: 10 / 50 });
    expect(find(r, 'OVERLAPPING_KERNELS')!.message).toContain('largest overlap 2.000 µs');
    expect(r.findings.filter((f) => f.severity !== 'info').map((f) => f.code)).toEqual(['OVERLAPPING_KERNELS']);
  });

  it('doctor-pdl-overlap-h200.json: on compute capability 9, a kernel starting 2 µs before its predecessor ends is PDL (info); one ending inside it and a memset are not', async () => {
    const r = await micro('doctor-pdl-overlap-h200.json');
    expect(pick(find(r, 'PDL_OVERLAP'))).toEqual({ severity: 'info', count: 1, gpuTimeShare: 10 / 53 });
    expect(find(r, 'PDL_OVERLAP')!.message).toContain('`nvjet_gemm` → `add_kernel` ×1');
    expect(find(r, 'PDL_OVERLAP')!.message).toContain('largest overlap 2.000 µs');
    expect(pick(find(r, 'OVERLAPPING_KERNELS'))).toEqual({ severity: 'warning', count: 2, gpuTimeShare: 3 / 53 });
    expect(find(r, 'OVERLAPPING_KERNELS')!.message).toContain('largest overlap 1.000 µs');
  });

  it('doctor-overlapping-kernels.json: without deviceProperties the same 2 µs overlap is not read as PDL', async () => {
    const r = await micro('doctor-overlapping-kernels.json');
    expect(find(r, 'PDL_OVERLAP')).toBeUndefined();
  });

  it('doctor-kernel-without-launch.json: a kernel whose correlation no call has', async () => {
    const r = await micro('doctor-kernel-without-launch.json');
    expect(pick(find(r, 'KERNEL_WITHOUT_LAUNCH'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: 10 / 50 });
    expect(find(r, 'KERNEL_WITHOUT_LAUNCH')!.message).toContain('1 of them belong to no op');
    expect(r.findings.filter((f) => f.severity !== 'info').map((f) => f.code)).toEqual(['KERNEL_WITHOUT_LAUNCH']);
  });

  it('doctor-launch-without-kernel.json: two launches without kernels, one before and one after the last recorded one', async () => {
    const r = await micro('doctor-launch-without-kernel.json');
    expect(pick(find(r, 'LAUNCH_WITHOUT_KERNEL'))).toEqual({ severity: 'warning', count: 2, gpuTimeShare: null });
    expect(find(r, 'LAUNCH_WITHOUT_KERNEL')!.message).toContain('1 of them come after the last launch whose kernel was recorded, 1 earlier');
    // cudaStreamIsCapturing launches nothing and is not counted
    expect(find(r, 'LAUNCH_WITHOUT_KERNEL')!.message).toContain('(2 cudaLaunchKernel)');
  });

  it('doctor-zero-and-negative-duration.json: dur 0 and dur −1 (read as 0)', async () => {
    const r = await micro('doctor-zero-and-negative-duration.json');
    expect(pick(find(r, 'NEGATIVE_DURATION'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: null });
    expect(pick(find(r, 'ZERO_DURATION_GPU_ACTIVITIES'))).toEqual({ severity: 'info', count: 2, gpuTimeShare: 0 });
    expect(find(r, 'NEGATIVE_DURATION')!.meaning).toMatch(/0 ns/);
  });

  it('doctor-longer-than-capture.json: a 500 µs kernel in a 100 µs capture', async () => {
    const r = await micro('doctor-longer-than-capture.json');
    expect(pick(find(r, 'GPU_ACTIVITY_LONGER_THAN_CAPTURE'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: 500 / 520 });
    expect(find(r, 'GPU_ACTIVITY_LONGER_THAN_STEP')).toBeUndefined();
  });

  it('doctor-longer-than-step.json: a 150 µs kernel, steps of 100 µs', async () => {
    const r = await micro('doctor-longer-than-step.json');
    expect(pick(find(r, 'GPU_ACTIVITY_LONGER_THAN_STEP'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: 150 / 200 });
    expect(find(r, 'GPU_ACTIVITY_LONGER_THAN_CAPTURE')).toBeUndefined();
  });

  it('doctor-non-nesting.json: aten::copy_ starts inside `outer` and ends after it', async () => {
    const r = await micro('doctor-non-nesting.json');
    expect(pick(find(r, 'NON_NESTING_CPU_RANGES'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: 10 / 20 });
    expect(find(r, 'NON_NESTING_CPU_RANGES')!.message).toContain('1× aten::copy_');
  });

  it('doctor-graph-launch.json: three kernels from two graph replays, one outside any op', async () => {
    const r = await micro('doctor-graph-launch.json');
    expect(pick(find(r, 'GRAPH_HIDDEN_KERNELS'))).toEqual({ severity: 'warning', count: 3, gpuTimeShare: 90 / 100 });
    const m = find(r, 'GRAPH_HIDDEN_KERNELS')!.message;
    expect(m).toContain('1 of them (50.0% of GPU time) belong to no op');
    expect(m).toContain('`Torch-Compiled Region: 0/0`');
  });

  it('doctor-kernel-before-launch.json: a kernel 10 µs before its launch', async () => {
    const r = await micro('doctor-kernel-before-launch.json');
    expect(pick(find(r, 'KERNEL_BEFORE_LAUNCH'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: 5 / 25 });
    expect(find(r, 'KERNEL_BEFORE_LAUNCH')!.message).toContain('by up to 10.000 µs');
  });

  it('doctor-missing-step.json: ProfilerStep#3 is missing', async () => {
    const r = await micro('doctor-missing-step.json');
    expect(pick(find(r, 'STEP_NUMBERS_MISSING'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: null });
    expect(find(r, 'NO_PROFILER_STEPS')).toBeUndefined();
  });

  it('doctor-partial-last-step.json: the last step launches a kernel the trace does not have', async () => {
    const r = await micro('doctor-partial-last-step.json');
    expect(pick(find(r, 'PARTIAL_LAST_STEP'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: 10 / 40 });
    expect(find(r, 'PARTIAL_LAST_STEP')!.message).toContain('ProfilerStep#2');
    expect(pick(find(r, 'LAUNCH_WITHOUT_KERNEL'))).toEqual({ severity: 'warning', count: 1, gpuTimeShare: null });
  });

  it("doctor-id-collision.json: cudaDeviceSynchronize's correlation 7 = aten::addmm's External id", async () => {
    const r = await micro('doctor-id-collision.json');
    expect(pick(find(r, 'TORCH_ID_COLLISION'))).toEqual({ severity: 'info', count: 1, gpuTimeShare: 20 / 40 });
    expect(r.findings.filter((f) => f.severity !== 'info')).toEqual([]);
  });

  it('truncated-mid-event.json: TRUNCATED is passed through with what it means', async () => {
    const r = await micro('truncated-mid-event.json');
    const t = find(r, 'TRUNCATED')!;
    expect(t.severity).toBe('warning');
    expect(t.meaning).toMatch(/events after the cut are missing/);
  });

  it('a trace without ProfilerStep#N says so (info)', async () => {
    expect(pick(find(await micro('doctor-id-collision.json'), 'NO_PROFILER_STEPS'))).toEqual({ severity: 'info', count: 1, gpuTimeShare: null });
  });
});

// ------------------------------------------------------------------------------------------------
// Real captures: every figure recomputed from the raw JSON

const GPU_CATS = new Set(['kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events']);
const LAUNCH = /^(?:cuda|hip)(?:LaunchKernel(?:ExC)?|GraphLaunch)$|^cuLaunchKernel(?:Ex)?$/;

function rawFigures(raw: Raw) {
  const ev: Raw[] = raw.traceEvents.filter((e: Raw) => e.ph === 'X');
  const gpu = ev.filter((e) => GPU_CATS.has(e.cat));
  const calls = ev.filter((e) => e.cat === 'cuda_runtime' || e.cat === 'cuda_driver' || e.cat === 'mtia_runtime');
  const callByCorr = new Map<number, Raw>();
  for (const c of calls) if (c.args?.correlation !== undefined && !callByCorr.has(c.args.correlation)) callByCorr.set(c.args.correlation, c);
  const gpuCorr = new Set(gpu.map((g) => g.args?.correlation));
  const total = gpu.reduce((s, g) => s + g.dur, 0);
  const share = (list: Raw[]) => list.reduce((s, g) => s + g.dur, 0) / total;
  const withoutLaunch = gpu.filter((g) => !callByCorr.has(g.args?.correlation));
  const launchesWithout = calls.filter((c) => LAUNCH.test(c.name) && !gpuCorr.has(c.args?.correlation));
  // overlaps: per (device, stream) in start order, against the latest end so far
  const streams = new Map<string, Raw[]>();
  for (const g of gpu) {
    const k = `${g.pid}/${g.args?.stream ?? g.tid}`;
    if (!streams.has(k)) streams.set(k, []);
    streams.get(k)!.push(g);
  }
  // PDL: on a device of compute capability ≥ 9, a kernel overlapping the kernel right before it
  // (no earlier, longer one) and ending at or after its end; every other overlap is not.
  const sm90 = new Set((raw.deviceProperties ?? []).filter((d: Raw) => d.computeMajor >= 9).map((d: Raw) => d.id));
  let overlaps = 0;
  let pdl = 0;
  for (const list of streams.values()) {
    list.sort((a, b) => a.ts - b.ts);
    let maxEnd = -Infinity;
    for (let i = 0; i < list.length; i++) {
      const g = list[i]!;
      if (g.ts < maxEnd) {
        const p = list[i - 1]!;
        if (sm90.has(g.args?.device) && g.cat === 'kernel' && p.cat === 'kernel' && p.ts + p.dur === maxEnd && g.ts + g.dur >= maxEnd) pdl++;
        else overlaps++;
      }
      maxEnd = Math.max(maxEnd, g.ts + g.dur);
    }
  }
  const graph = gpu.filter((g) => /GraphLaunch/.test(callByCorr.get(g.args?.correlation)?.name ?? ''));
  // torch's id collision: a runtime call whose correlation equals the External id of an op owning GPU work
  const ops = new Set(ev.filter((e) => e.cat === 'cpu_op').map((e) => e.args?.['External id']));
  const owned = (ext: number) => gpu.filter((g) => g.args?.['External id'] === ext && g.args?.['External id'] !== g.args?.correlation);
  const collisions = calls.filter((c) => ops.has(c.args?.correlation) && owned(c.args.correlation).length > 0);
  const collided = collisions.flatMap((c) => owned(c.args.correlation));
  return { share, withoutLaunch, launchesWithout, overlaps, pdl, graph, collisions, collided };
}

describe('doctor on the H200 captures agrees with the raw JSON', () => {
  for (const name of H200_NAMES) {
    it(name, async () => {
      const raw = rawFigures(loadRawJson(h200Trace(name)));
      const r = await doctor(h200Trace(name));
      expect(find(r, 'KERNEL_WITHOUT_LAUNCH')?.count ?? 0).toBe(raw.withoutLaunch.length);
      expect(find(r, 'LAUNCH_WITHOUT_KERNEL')?.count ?? 0).toBe(raw.launchesWithout.length);
      expect(find(r, 'OVERLAPPING_KERNELS')?.count ?? 0).toBe(raw.overlaps);
      expect(find(r, 'PDL_OVERLAP')?.count ?? 0).toBe(raw.pdl);
      expect(find(r, 'GRAPH_HIDDEN_KERNELS')?.count ?? 0).toBe(raw.graph.length);
      expect(find(r, 'TORCH_ID_COLLISION')?.count ?? 0).toBe(raw.collisions.length);
      if (raw.graph.length) expect(find(r, 'GRAPH_HIDDEN_KERNELS')!.gpuTimeShare).toBeCloseTo(raw.share(raw.graph), 9);
      if (raw.collisions.length) expect(find(r, 'TORCH_ID_COLLISION')!.gpuTimeShare).toBeCloseTo(raw.share(raw.collided), 9);
    });
  }

  it('linear_compile: the id collision (cudaDeviceSynchronize credited with the GEMM)', async () => {
    const raw = rawFigures(loadRawJson(h200Trace('linear_compile')));
    expect(raw.collisions.map((c) => c.name)).toEqual(['cudaDeviceSynchronize']);
    const f = find(await doctor(h200Trace('linear_compile')), 'TORCH_ID_COLLISION')!;
    expect(f.count).toBe(1);
    expect(f.gpuTimeShare).toBeCloseTo(raw.share(raw.collided), 9);
    expect(f.message).toContain('`cudaDeviceSynchronize`');
  });

  it('tiny_ops_compile_ro: kernels hidden behind cudaGraphLaunch, with their share of GPU time', async () => {
    const raw = rawFigures(loadRawJson(h200Trace('tiny_ops_compile_ro')));
    expect(raw.graph.length).toBe(3);
    const f = find(await doctor(h200Trace('tiny_ops_compile_ro')), 'GRAPH_HIDDEN_KERNELS')!;
    expect(pick(f)).toEqual({ severity: 'warning', count: 3, gpuTimeShare: f.gpuTimeShare });
    expect(f.gpuTimeShare).toBeCloseTo(raw.share(raw.graph), 9);
  });
});

describe.skipIf(!HAS_HTA)("doctor on HTA's fixtures agrees with the raw JSON", () => {
  // every one under `npm run test:full`, those under 1 MB in `npm test` (peerTraceSweep)
  it.each(
    [
      ['mtia_trace_single_rank/mtia_rank_0.json.gz'],
      ['cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz'],
      ['trace_diff/test/test.json.gz'],
    ].filter(([file]) => !HAS_HTA || peerTraceSweep(join(HTA_DIR, file!))),
  )('%s', async (file) => {
    const raw = rawFigures(loadRawJson(join(HTA_DIR, file)));
    const r = await doctor(join(HTA_DIR, file));
    expect(find(r, 'KERNEL_WITHOUT_LAUNCH')?.count ?? 0).toBe(raw.withoutLaunch.length);
    expect(find(r, 'LAUNCH_WITHOUT_KERNEL')?.count ?? 0).toBe(raw.launchesWithout.length);
    expect(find(r, 'OVERLAPPING_KERNELS')?.count ?? 0).toBe(raw.overlaps);
    expect(find(r, 'GRAPH_HIDDEN_KERNELS')?.count ?? 0).toBe(raw.graph.length);
    if (raw.withoutLaunch.length) expect(find(r, 'KERNEL_WITHOUT_LAUNCH')!.gpuTimeShare).toBeCloseTo(raw.share(raw.withoutLaunch), 9);
  });

  it('cupti_profiler: all 77 cudaLaunchKernel calls lack a kernel (its kernels are cuda_profiler_range counters; docs/readings.md, HTA published test values)', async () => {
    const f = find(await doctor(join(HTA_DIR, 'cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz')), 'LAUNCH_WITHOUT_KERNEL')!;
    expect(f.count).toBe(77);
    expect(f.message).toContain('no launch call has one');
  });
});

// ------------------------------------------------------------------------------------------------

describe('kinetoscope doctor (CLI)', () => {

  it('--json: findings with code, severity, count, gpuTimeShare, message, meaning', async () => {
    const r = await runCli(['doctor', join(MICRO_DIR, 'doctor-graph-launch.json'), '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'findings', 'checked', 'gpuTimeUs']);
    const g = doc.findings.find((f: { code: string }) => f.code === 'GRAPH_HIDDEN_KERNELS');
    expect(Object.keys(g)).toEqual(['code', 'severity', 'count', 'gpuTimeShare', 'message', 'meaning']);
    expect(g.gpuTimeShare).toBe(0.9);
    expect(doc.gpuTimeUs).toBe(100);
  });

  it('--strict: exit 1 when a warning is found, 0 when only informational findings are', async () => {
    expect((await runCli(['doctor', join(MICRO_DIR, 'doctor-overlapping-kernels.json'), '--strict'])).status).toBe(1);
    expect((await runCli(['doctor', join(MICRO_DIR, 'doctor-id-collision.json'), '--strict'])).status).toBe(0);
    expect((await runCli(['doctor', join(MICRO_DIR, 'doctor-overlapping-kernels.json')])).status).toBe(0);
  });

  it('cnn_train and cnn_train_compile (H200): their same-stream overlaps are all PDL pairs (raw rule above); --strict exits 0', async () => {
    for (const name of ['cnn_train', 'cnn_train_compile']) {
      const raw = rawFigures(loadRawJson(h200Trace(name)));
      expect([raw.pdl > 0, raw.overlaps]).toEqual([true, 0]);
      expect((await runCli(['summary', h200Trace(name), '--strict'])).status).toBe(0);
    }
  });

  it('--strict: a PDL overlap on an H200 is information, not a failure, in doctor and in the other commands', async () => {
    for (const cmd of ['doctor', 'summary', 'steps', 'kernels']) expect((await runCli([cmd, join(MICRO_DIR, 'pdl-only-h200.json'), '--strict'])).status).toBe(0);
    expect((await runCli(['summary', join(MICRO_DIR, 'doctor-pdl-overlap-h200.json'), '--strict'])).status).toBe(1);
  });

  it('--help defines every finding', async () => {
    const r = await runCli(['doctor', '--help']);
    expect(r.status).toBe(0);
    for (const code of ['OVERLAPPING_KERNELS', 'PDL_OVERLAP', 'LAUNCH_WITHOUT_KERNEL', 'GRAPH_HIDDEN_KERNELS', 'KERNEL_BEFORE_LAUNCH', 'PARTIAL_LAST_STEP', 'TORCH_ID_COLLISION'])
      expect(r.stdout).toContain(code);
  });

  it('breakdown --json keys, and --help defines the numbers', async () => {
    const r = await runCli(['breakdown', h200Trace('gpt2_train'), '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'mode', 'temporal', 'kernelTypes', 'kernelTypeTotals', 'idle', 'consecutiveKernelDelayUs', 'definitions', 'diagnostics']);
    expect(Object.keys(doc.temporal)).toEqual(expect.arrayContaining(['idleUs', 'computeUs', 'nonComputeUs']));
    expect(Object.keys(doc.kernelTypes[0])).toEqual(expect.arrayContaining(['type', 'sumUs']));
    expect(Object.keys(doc.idle[0])).toEqual(expect.arrayContaining(['stream', 'hostWaitUs', 'kernelWaitUs', 'otherUs']));
    const hta = await runCli(['breakdown', h200Trace('gpt2_train'), '--hta-compat', '--strict']);
    expect(hta.status).toBe(1); // HTA_TEMPORAL_ASSERTION is a warning
    const help = (await runCli(['breakdown', '--help'])).stdout;
    for (const w of ['Idle', 'Non-compute', 'Host wait', 'Kernel wait', 'consecutive_kernel_delay', '--hta-compat']) expect(help).toContain(w);
  });
});
