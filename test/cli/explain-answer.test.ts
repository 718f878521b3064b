/**
 * `explain`'s answer first (issue 37 item 6): the action rules of `explain/actions/`, each with
 * its time at stake per step recomputed here from the raw events (JSON.parse, no kinetoscope code)
 * where its cause is present and silence where it is absent; the ranking; the first screen (one
 * screen, the top action first) on every shared capture; every thread of a step counted
 * (`tree --step`, the dispatch section, the step fact); a truncated trace's verdict.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { computeExplanation, type Action, type Explanation } from '../../src/analyses/explain/explain.js';
import { renderExplainMarkdown } from '../../src/report/explain-markdown.js';
import { formatUs } from '../../src/report/format.js';
import { H200_NAMES, h200Trace, loadModel, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import type { RawEvent } from '../raw-scopes.js';

const ROOT = join(import.meta.dirname, '../..');
const WORKLOADS = join(ROOT, 'test/fixtures/traces/h200-workloads');
const workloads = readdirSync(WORKLOADS).filter((f) => f.endsWith('.pt.trace.json.gz')).map((f) => join(WORKLOADS, f));

async function explainOf(path: string, label = path.split('/').pop()!.replace('.pt.trace.json.gz', '')): Promise<Explanation> {
  return computeExplanation({ label, model: await loadModel(path) });
}
const all = (e: Explanation): Action[] => [...e.actions.advice, ...e.actions.minor];
const actionsOf = (e: Explanation, id: string) => all(e).filter((a) => a.id === id);

// ------------------------------------------------------------------------------------------------
// The raw events, read here (no kinetoscope code): times in integer ns, as the model keeps them.

interface Raw {
  readonly events: RawEvent[];
  readonly steps: { name: string; lo: number; hi: number }[];
  readonly gpu: RawEvent[];
  /** A GPU activity's launching runtime/driver call, by correlation. */
  launcher(g: RawEvent): RawEvent | undefined;
}

const ns = (us: number) => Math.round(us * 1000);
const GPU = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);
const API = new Set(['cuda_runtime', 'cuda_driver']);

function raw(path: string): Raw {
  const events = (loadRawJson(path).traceEvents as unknown as RawEvent[]).filter((e) => e.ph === 'X');
  const calls = new Map<unknown, RawEvent>();
  for (const e of events) if (API.has(e.cat ?? '')) calls.set(e.args?.['correlation'], e);
  const steps = events
    .filter((e) => e.cat === 'user_annotation' && e.name.startsWith('ProfilerStep#'))
    .map((e) => ({ name: e.name, lo: ns(e.ts), hi: ns(e.ts) + ns(e.dur) }))
    .sort((a, b) => a.lo - b.lo);
  return { events, steps, gpu: events.filter((e) => GPU.has(e.cat ?? '')), launcher: (g) => calls.get(g.args?.['correlation']) };
}

/** The union of [s, e) intervals (ns), merged and sorted. */
function union(xs: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [s, e] of [...xs].filter(([a, b]) => b > a).sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Length of a merged union inside [lo, hi). */
function inside(u: [number, number][], lo: number, hi: number): number {
  return u.reduce((t, [s, e]) => t + Math.max(0, Math.min(e, hi) - Math.max(s, lo)), 0);
}

const busyOf = (r: Raw) => union(r.gpu.map((g) => [ns(g.ts), ns(g.ts) + ns(g.dur)]));
const meanStepUs = (r: Raw) => r.steps.reduce((t, s) => t + s.hi - s.lo, 0) / r.steps.length / 1000;

/** Synchronizations that block the host, by name (the CUDA runtime's and driver's device, stream and event syncs, synchronous copies). */
const BLOCKING = /^(?:cudaDeviceSynchronize|cuCtxSynchronize|cu(?:da)?StreamSynchronize|cu(?:da)?EventSynchronize|cudaMemcpy(?:2D|3D)?|cuMemcpy(?:DtoH|HtoD|DtoD)?(?:_v2)?)$/;

/**
 * Σ over the steps of the GPU idle between each step's first and last GPU activity that a CUDA
 * graph could close (ns): less the host's waits (blocking syncs, copies into pageable memory,
 * DataLoader `__next__`), less each such sync's idle window — from its start to the first GPU
 * activity starting after it returned, its step's end at the latest — and less `more` windows.
 */
function rawLaunchGapNs(r: Raw, more: [number, number][] = []): number {
  const busy = busyOf(r);
  const pageable = new Set(r.gpu.filter((g) => /DtoH.*Pageable/.test(g.name)).map((g) => r.launcher(g)).filter(Boolean));
  const syncs = r.events.filter((e) => API.has(e.cat ?? '') && (BLOCKING.test(e.name) || pageable.has(e)));
  const gpuStarts = r.gpu.map((g) => ns(g.ts)).sort((x, y) => x - y);
  const syncWindows = syncs.map((e): [number, number] => {
    const lo = ns(e.ts);
    const next = gpuStarts.find((t) => t >= lo + ns(e.dur)) ?? Infinity;
    const step = r.steps.find((st) => lo >= st.lo && lo < st.hi);
    return [lo, Math.min(next, step ? step.hi : Infinity)];
  });
  const waits = union([
    ...r.events.filter((e) => syncs.includes(e) || /^enumerate\(DataLoader\)#.*\.__next__$/.test(e.name)).map((e): [number, number] => [ns(e.ts), ns(e.ts) + ns(e.dur)]),
    ...syncWindows,
    ...more,
  ]);
  let gapNs = 0;
  for (const s of r.steps) {
    const b = busy.map(([x, y]) => [Math.max(x, s.lo), Math.min(y, s.hi)] as [number, number]).filter(([x, y]) => y > x);
    for (let k = 1; k < b.length; k++) gapNs += b[k]![0] - b[k - 1]![1] - inside(waits, b[k - 1]![1], b[k]![0]);
  }
  return gapNs;
}

// ------------------------------------------------------------------------------------------------

describe('the action rules: time at stake per step from the raw events, and silence where the cause is absent', () => {
  it('cuda-graph: the GPU idle between a step\'s first and last GPU activity, less the host\'s blocking syncs and DataLoader waits, less each sync\'s idle until the GPU\'s next work (host-sync\'s µs, not offered twice) (tiny_ops, mlp_train, sync_loop, cnn_train)', async () => {
    for (const name of ['tiny_ops', 'mlp_train', 'sync_loop', 'cnn_train']) {
      const r = raw(h200Trace(name));
      const [a] = actionsOf(await explainOf(h200Trace(name)), 'cuda-graph');
      expect(a, name).toBeDefined();
      expect(a!.atStakeUs, name).toBeCloseTo(rawLaunchGapNs(r) / r.steps.length / 1000, 3);
      expect(a!.bound).toBe('upper-bound');
      expect(a!.stepShare, name).toBeCloseTo(a!.atStakeUs / meanStepUs(r), 9);
    }
    // Silent where the steps replay CUDA graphs already, and where a step makes a single launch.
    for (const name of ['tiny_ops_compile_ro', 'mlp_train_compile_ro', 'linear']) expect(actionsOf(await explainOf(h200Trace(name)), 'cuda-graph'), name).toEqual([]);
  });

  it('cuda-graph leaves out the idle between compiled regions (graph-break\'s µs, not offered twice), nor does host-sync offer that idle: the three idle actions never add up to more than the idle inside the steps (llm_decode_compile, gpt2_train_compile, sync_loop)', async () => {
    for (const name of ['llm_decode_compile', 'gpt2_train_compile', 'sync_loop']) {
      const r = raw(h200Trace(name));
      const e = await explainOf(h200Trace(name));
      const [a] = actionsOf(e, 'cuda-graph');
      // the windows between compiled regions: graph-breaks.ts's (its own tests recompute them)
      const { computeGraphBreaks, allGaps } = await import('../../src/analyses/host/graph-breaks.js');
      const m = await loadModel(h200Trace(name));
      // the model's clock starts at the profiler's start: moved onto the file's by the first step
      const shift = r.steps[0]!.lo - m.steps[0]!.startNs;
      const windows = allGaps(computeGraphBreaks(m)).map((g) => [g.startNs + shift, g.endNs + shift] as [number, number]);
      if (name !== 'sync_loop') expect(windows.some(([x, y]) => y > x), name).toBe(true);
      expect(a!.atStakeUs, name).toBeCloseTo(rawLaunchGapNs(r, windows) / r.steps.length / 1000, 3);
      // disjoint from each: cuda-graph's idle and another's sum to no more than the GPU's idle inside the steps
      const busy = busyOf(r);
      const idleUs = r.steps.reduce((t, s) => t + (s.hi - s.lo) - inside(busy, s.lo, s.hi), 0) / r.steps.length / 1000;
      // and host-sync leaves graph-break the idle between regions: the three never add up to more than the idle
      const idleActions = all(e).filter((x) => ['cuda-graph', 'graph-break', 'host-sync'].includes(x.id));
      expect(idleActions.reduce((t, x) => t + x.atStakeUs, 0), name).toBeLessThanOrEqual(idleUs + 1e-6);
      // host-sync's own idle and the part it leaves to graph-break make the sync's whole idle (host-syncs.test.ts recomputes it)
      const { computeStepSyncs } = await import('../../src/analyses/host/step-syncs.js');
      for (const x of actionsOf(e, 'host-sync')) {
        const group = computeStepSyncs(m).groups.find((g) => g.cause === x.sentence.numbers['cause'] && g.api === x.sentence.numbers['api'])!;
        expect(x.atStakeUs + Number(x.sentence.numbers['betweenRegionsUs'] ?? 0), name).toBeCloseTo(group.perStep.gpuIdleUs, 6);
      }
      if (name === 'llm_decode_compile') expect(actionsOf(e, 'host-sync').some((x) => Number(x.sentence.numbers['betweenRegionsUs']) > 0)).toBe(true);
    }
  });

  it('no-grad: the Inductor kernels computing *_backward ops with no backward in the trace, their time per step (relu_mlp_compile); silent on eager and no-grad captures', async () => {
    const r = raw(h200Trace('relu_mlp_compile'));
    expect(r.events.some((e) => e.name.startsWith('autograd::engine::evaluate_function'))).toBe(false);
    const backwardKernels = r.gpu.filter((g) => g.cat === 'kernel' && /^triton_\w+_fused_\w*_backward/.test(g.name));
    const [a] = actionsOf(await explainOf(h200Trace('relu_mlp_compile')), 'no-grad');
    expect(a!.atStakeUs).toBeCloseTo(backwardKernels.reduce((t, g) => t + ns(g.dur), 0) / r.steps.length / 1000, 3);
    expect(a!.bound).toBe('upper-bound');
    for (const path of [h200Trace('relu_mlp'), h200Trace('relu_mlp_compile_ma_nograd'), join(WORKLOADS, 'relu_mlp_compile_nograd.pt.trace.json.gz')]) expect(actionsOf(await explainOf(path), 'no-grad'), path).toEqual([]);
  });

  it('bias-epilogue: the separate add kernels after a bias-less forward GEMM, per step (matmul_add); silent where the bias rides in the epilogue (linear)', async () => {
    const r = raw(h200Trace('matmul_add'));
    const addIds = new Set(r.events.filter((e) => e.cat === 'cpu_op' && e.name === 'aten::add').map((e) => e.args?.['External id']));
    const addKernels = r.gpu.filter((g) => g.cat === 'kernel' && addIds.has(g.args?.['External id']));
    expect(addKernels.length).toBeGreaterThan(0);
    const [a] = actionsOf(await explainOf(h200Trace('matmul_add')), 'bias-epilogue');
    expect(a!.atStakeUs).toBeCloseTo(addKernels.reduce((t, g) => t + ns(g.dur), 0) / r.steps.length / 1000, 3);
    expect(a!.bound).toBe('estimate');
    expect(actionsOf(await explainOf(h200Trace('linear')), 'bias-epilogue')).toEqual([]);
  });

  it('pad-gemm: the align1/align2 GEMM kernels\' time above their FLOPs at the bf16 dense peak, per step (gpt2_train); silent where every dimension is aligned (relu_mlp)', async () => {
    const r = raw(h200Trace('gpt2_train'));
    const ops = new Map(r.events.filter((e) => e.cat === 'cpu_op' && /^aten::(mm|addmm)$/.test(e.name)).map((e) => [e.args?.['External id'], e]));
    // H200 SXM's bf16 dense peak, 989.5 TFLOP/s (NVIDIA's datasheet: 1,979 with sparsity).
    const PEAK = 989.5e12;
    let aboveNs = 0;
    let calls = 0;
    for (const g of r.gpu) {
      const op = ops.get(g.args?.['External id']);
      if (g.cat !== 'kernel' || !op || !/align[12](?!\d)/.test(g.name) || !JSON.stringify(op.args?.['Input Dims']).includes('50257')) continue;
      const dims = (op.args!['Input Dims'] as number[][]).filter((d) => d.length === 2);
      const [a, b] = op.name === 'aten::addmm' ? [dims[1]!, dims[2]!] : [dims[0]!, dims[1]!];
      const flops = 2 * a[0]! * a[1]! * b[1]!;
      aboveNs += ns(g.dur) - (flops / PEAK) * 1e9;
      calls++;
    }
    expect(calls).toBe(9);
    const [a] = actionsOf(await explainOf(h200Trace('gpt2_train')), 'pad-gemm');
    expect(a!.sentence.numbers['calls']).toBe(calls);
    expect(a!.atStakeUs).toBeCloseTo(aboveNs / r.steps.length / 1000, 1);
    expect(actionsOf(await explainOf(h200Trace('relu_mlp')), 'pad-gemm')).toEqual([]);
  });

  it('dataloader: the DataLoader time no GPU work and no runtime call covers, in the steps whose GPU waited mostly for it (dataloader_train); silent without a DataLoader (tiny_ops)', async () => {
    const r = raw(h200Trace('dataloader_train'));
    const busy = busyOf(r);
    // The breakdown's rule: a DataLoader instant counts where no GPU activity and no runtime/driver call covers it.
    const covered = union([...busy, ...r.events.filter((e) => API.has(e.cat ?? '')).map((e) => [ns(e.ts), ns(e.ts) + ns(e.dur)] as [number, number])]);
    const loads = union(r.events.filter((e) => /^enumerate\(DataLoader\)#.*\.__next__$/.test(e.name)).map((e) => [ns(e.ts), ns(e.ts) + ns(e.dur)]));
    let totalNs = 0;
    let waiting = 0;
    for (const s of r.steps) {
      const load = loads.reduce((t, [a, b]) => {
        const lo = Math.max(a, s.lo);
        const hi = Math.min(b, s.hi);
        return hi > lo ? t + (hi - lo) - inside(covered, lo, hi) : t;
      }, 0);
      const idle = s.hi - s.lo - inside(busy, s.lo, s.hi);
      if (load > 0 && load > idle / 2) {
        totalNs += load;
        waiting++;
      }
    }
    expect(waiting).toBe(1);
    const [a] = actionsOf(await explainOf(h200Trace('dataloader_train')), 'dataloader');
    expect(a!.atStakeUs).toBeCloseTo(totalNs / r.steps.length / 1000, 3);
    expect(a!.stepShare).toBeLessThan(1);
    expect(actionsOf(await explainOf(h200Trace('tiny_ops')), 'dataloader')).toEqual([]);
  });

  it('fuse-chain: gelu·mul\'s round trip at the chain\'s own bandwidth — the kernels\' time × the intermediate\'s two passes over their bytes — per step (geglu_mlp); silent once fused (geglu_mlp_compile)', async () => {
    const r = raw(h200Trace('geglu_mlp'));
    const opOf = new Map(r.events.filter((e) => e.cat === 'cpu_op').map((e) => [e.args?.['External id'], e]));
    const kernelsOf = (op: string) => r.gpu.filter((g) => g.cat === 'kernel' && opOf.get(g.args?.['External id'])?.name === op);
    const gelu = kernelsOf('aten::gelu');
    const mul = kernelsOf('aten::mul');
    expect(gelu.length).toBe(mul.length);
    // Bytes: gelu reads its input and writes one as large; mul reads two and writes one, all [64,128,3072] bf16.
    const t = 64 * 128 * 3072 * 2;
    const traffic = 2 * t + 3 * t;
    const roundTrip = 2 * t;
    const chainNs = [...gelu, ...mul].reduce((s, g) => s + ns(g.dur), 0);
    const [a] = actionsOf(await explainOf(h200Trace('geglu_mlp')), 'fuse-chain');
    expect(a!.sentence.numbers['chain']).toBe('gelu·mul');
    expect(a!.atStakeUs).toBeCloseTo(((chainNs * roundTrip) / traffic / r.steps.length) / 1000, 3);
    expect(a!.bound).toBe('estimate');
    expect(actionsOf(await explainOf(h200Trace('geglu_mlp_compile')), 'fuse-chain')).toEqual([]);
  });
});

describe('the ranking', () => {
  it.each(H200_NAMES)('%s: advice most time at stake first, all of it at least 1% of the mean step; the rest minor', async (name) => {
    const e = await explainOf(h200Trace(name));
    const r = raw(h200Trace(name));
    const stepUs = r.steps.length ? meanStepUs(r) : undefined;
    const stakes = e.actions.advice.map((a) => a.atStakeUs);
    expect(stakes).toEqual([...stakes].sort((x, y) => y - x));
    for (const a of e.actions.advice) expect(a.stepShare).toBeGreaterThanOrEqual(0.01);
    for (const a of e.actions.minor) expect(a.stepShare).toBeLessThan(0.01);
    if (stepUs) for (const a of all(e)) expect(a.stepShare).toBeCloseTo(a.atStakeUs / stepUs, 9);
  });

  it('what the µs are: idle removed for the idle rules, GPU work for the others; GPU work in overhead-bound steps says it shortens them only once the host no longer bounds them (cnn_train), and says nothing of it where the GPU bounds them (gpt2_train)', async () => {
    const IDLE = new Set(['cuda-graph', 'dataloader', 'graph-break', 'host-sync']);
    const STEP_TIME = new Set(['channels-last', 'lower-precision', 'latency-bound-conv', 'latency-bound-gemm']);
    const PREMISE = 'This is GPU time: the steps are overhead-bound';
    for (const [name, overhead] of [['cnn_train', true], ['gpt2_train', false]] as const) {
      const e = await explainOf(h200Trace(name));
      expect(e.verdict?.text.startsWith('overhead-bound'), name).toBe(overhead);
      const work = all(e).filter((a) => a.saves === 'gpu-time');
      expect(work.length, name).toBeGreaterThan(0);
      for (const a of all(e)) {
        if (IDLE.has(a.id)) expect(a.saves, `${name} ${a.id}`).toBe('gpu-idle');
        // the GPU-saving rules whose time is the critical-path what-if (gpu-saving.ts)
        else if (STEP_TIME.has(a.id)) expect(a.saves, `${name} ${a.id}`).toBe('step-time');
        else if (a.id !== 'no-grad') expect(a.saves, `${name} ${a.id}`).toBe('gpu-time');
        expect(a.sentence.template.includes(PREMISE), `${name} ${a.id}`).toBe(overhead && a.saves === 'gpu-time');
      }
    }
  });
});

describe('the first screen', () => {
  /** Rows a text takes in a terminal of `width` columns (a longer line wraps). */
  const rows = (text: string, width: number) => text.trimEnd().split('\n').reduce((n, l) => n + Math.max(1, Math.ceil([...l].length / width)), 0);
  const traces = [...H200_NAMES.map(h200Trace), ...workloads];

  it.each(traces.map((p) => [p.split('/').slice(-2).join('/'), p]))('%s: at most 60 rows at 100 columns, the verdict first, the action with the most time at stake named first', async (_n, path) => {
    const e = await explainOf(path);
    // (the paths as a user in the repository types them: the hints repeat them)
    const text = renderExplainMarkdown(e, { tracePath: relative(ROOT, path), width: 100 });
    expect(rows(text, 100)).toBeLessThanOrEqual(60);
    const headings = text.match(/^## .*/gm)!;
    expect(headings[0]).toMatch(/^## Verdict: /);
    expect(headings[1]).toMatch(/^## What to do, by time at stake per step/);
    // The top action, first: its time at stake leads the first item.
    const top = e.actions.advice[0];
    if (top) expect(text).toContain(`\n1. **${top.bound === 'upper-bound' ? 'At most' : 'About'} ${formatUs(top.atStakeUs)} per step (`);
    expect(text.match(/^\d\. /gm)?.length ?? 0).toBe(Math.min(3, e.actions.advice.length));
  });

  it('with --vs, the comparison\'s bottom line on the first screen (the conclusions\' sentences), within 60 rows', async () => {
    const path = h200Trace('geglu_mlp');
    const e = computeExplanation({ label: 'geglu_mlp', model: await loadModel(path) }, { vs: [{ label: 'geglu_mlp_compile', model: await loadModel(h200Trace('geglu_mlp_compile')) }] });
    const text = renderExplainMarkdown(e, { tracePath: relative(ROOT, path), vsPaths: [relative(ROOT, h200Trace('geglu_mlp_compile'))], width: 100 });
    expect(text).toContain('## Conclusions, trace by trace');
    expect(text).toMatch(/GPU time is least in `geglu_mlp_compile`/);
    expect(rows(text, 100)).toBeLessThanOrEqual(60);
  });
});

// ------------------------------------------------------------------------------------------------

/** Per step of the raw trace, the GPU work (ns) each thread launched: by the launching call's tid, the call inside the step. */
function gpuByThread(r: Raw): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const s of r.steps) out.set(s.name, new Map());
  for (const g of r.gpu) {
    const call = r.launcher(g);
    if (!call) continue;
    const s = r.steps.find((x) => ns(call.ts) >= x.lo && ns(call.ts) < x.hi);
    if (!s) continue;
    const m = out.get(s.name)!;
    m.set(String(call.tid), (m.get(String(call.tid)) ?? 0) + ns(g.dur));
  }
  return out;
}

describe('every thread of a step counted', () => {
  it.each(['mlp_train', 'cnn_train', 'gpt2_train', 'dataloader_train', 'lstm_train'])('%s: tree --step shows the other threads\' GPU work; its sum is the step\'s GPU work on every thread, from the raw events', async (name) => {
    const r = raw(h200Trace(name));
    const byThread = gpuByThread(r);
    const mainTid = String(r.events.find((e) => e.name === r.steps[0]!.name)!.tid);
    for (const s of r.steps) {
      const n = s.name.replace('ProfilerStep#', '');
      const doc = JSON.parse((await runCli(['tree', h200Trace(name), '--step', n, '--depth', '1', '--json'])).stdout);
      const want = byThread.get(s.name)!;
      const totalNs = [...want.values()].reduce((a, b) => a + b, 0);
      expect(doc.gpuUsAllThreads, s.name).toBeCloseTo(totalNs / 1000, 3);
      expect(doc.roots[0].gpuUs, s.name).toBeCloseTo((want.get(mainTid) ?? 0) / 1000, 3);
      const others = [...want].filter(([tid]) => tid !== mainTid);
      expect(others.length, `${name}: another thread launched GPU work`).toBeGreaterThan(0);
      for (const [tid, gpuNs] of others) {
        const t = doc.otherThreads.find((x: { thread: string }) => x.thread.includes(`thread ${tid} `) || x.thread === `tid ${tid}`);
        expect(t, `${s.name}: thread ${tid}`).toBeDefined();
        expect(t.gpuUs).toBeCloseTo(gpuNs / 1000, 3);
      }
    }
    // The text says where the work went.
    const text = (await runCli(['tree', h200Trace(name), '--depth', '1'])).stdout;
    expect(text).toMatch(/Other threads inside ProfilerStep#\d+'s window: the instance launched [\d.]+ [µm]?s of GPU work on every thread/);
    expect(text).toContain('(pt_autograd_0)');
  });

  it('explain: the dispatch section names the other thread\'s GPU work and the total on every thread; the step fact splits the median step\'s GPU work by thread (mlp_train, from the raw events)', async () => {
    const r = raw(h200Trace('mlp_train'));
    const e = await explainOf(h200Trace('mlp_train'));
    const dispatch = e.sections.find((s) => s.id === 'dispatch')!;
    const other = dispatch.sentences.filter((x) => x.id === 'dispatch.other-thread');
    expect(other).toHaveLength(1);
    expect(other[0]!.numbers['thread']).toMatch(/\(pt_autograd_0\)$/);
    // the first train_step's window, on every thread
    const first = r.events.filter((x) => x.name === 'train_step').sort((a, b) => a.ts - b.ts)[0]!;
    const lo = ns(first.ts);
    const hi = lo + ns(first.dur);
    let allNs = 0;
    let autogradNs = 0;
    for (const g of r.gpu) {
      const call = r.launcher(g);
      if (!call || ns(call.ts) < lo || ns(call.ts) >= hi) continue;
      allNs += ns(g.dur);
      if (call.tid !== first.tid) autogradNs += ns(g.dur);
    }
    expect(other[0]!.numbers['allGpuUs'] as number).toBeCloseTo(allNs / 1000, 3);
    expect(other[0]!.numbers['gpuUs'] as number).toBeCloseTo(autogradNs / 1000, 3);
    const step = e.facts.find((f) => f.sentence.id === 'facts.step')!;
    const median = step.sentence.numbers['step'] as string;
    const want = gpuByThread(r).get(median)!;
    const got = step.sentence.numbers['threads'] as { thread: string; gpuUs: number }[];
    expect(got.map((t) => t.gpuUs).sort()).toEqual([...want.values()].map((x) => Math.round(x) / 1000).sort());
  });
});

describe('a truncated trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-cut-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('mlp_train cut at 60% of its bytes: the verdict is "unknown (truncated)" in explain and steps, never no-gpu-work, exit 0 (lenient reader) and 1 with --strict', async () => {
    const text = gunzipSync(readFileSync(h200Trace('mlp_train'))).toString('utf8');
    const path = join(dir, 'mlp_train_cut.json');
    writeFileSync(path, text.slice(0, Math.floor(text.length * 0.6)));
    // what the cut left: host events, and fewer GPU activities than the whole trace has
    const whole = (JSON.parse(text).traceEvents as RawEvent[]).filter((e) => GPU.has(e.cat ?? '')).length;
    const kept = (text.slice(0, Math.floor(text.length * 0.6)).match(/"cat": ?"(kernel|gpu_memcpy|gpu_memset)"/g) ?? []).length;
    expect(kept).toBeLessThan(whole);

    const ex = await runCli(['explain', path]);
    expect(ex.status).toBe(0);
    expect(ex.stdout).toContain('## Verdict: unknown (truncated)');
    expect(ex.stdout).not.toContain('no-gpu-work');
    expect(ex.stderr).toMatch(/TRUNCATED/);
    const j = JSON.parse((await runCli(['explain', path, '--json'])).stdout);
    expect(j.verdict).toMatchObject({ verdict: 'unknown', text: 'unknown (truncated)' });
    const st = await runCli(['steps', path]);
    expect(st.status).toBe(0);
    expect(st.stdout).toMatch(/^Verdict over \d+ steps: unknown \(truncated\) — the trace file is truncated/);
    expect(st.stdout).not.toContain('no-gpu-work');
    const sj = JSON.parse((await runCli(['steps', path, '--json'])).stdout);
    expect(sj.stats.overall.verdict).toBe('unknown');
    expect(sj.steps.every((s: { verdict: string }) => s.verdict === 'unknown')).toBe(true);
    expect((await runCli(['explain', path, '--strict'])).status).toBe(1);
  });

  it('a whole trace keeps its verdict (mlp_train)', async () => {
    const e = await explainOf(h200Trace('mlp_train'));
    expect(e.verdict!.verdict).not.toBe('unknown');
  });
});
