/**
 * Compiled regions on the H200 captures, recomputed from the raw events (JSON.parse, nesting by
 * interval on one thread, kernels tied to their launch by correlation): each region's wait from
 * its cache lookup to its first kernel launch (a memset is no launch; a region nested in another
 * counted once in the step's sum), and the GPU idle between a step's regions (graph breaks) with
 * what the host was doing. gpt2_train_compile holds nested regions (0/0 ⊃ 1/0 ⊃ 2/0, 3/0, 4/0: the
 * rest of a frame after a break runs as a region inside it); attention_compile's first GPU work is
 * a memset; llm_decode_compile's regions are split by `.item()` syncs.
 */
import { describe, expect, it } from 'vitest';
import { computeCompileOverhead } from '../../../src/analyses/host/compile-overhead.js';
import { computeGraphBreaks } from '../../../src/analyses/host/graph-breaks.js';
import { context } from '../../../src/analyses/explain/context.js';
import { graphBreakActions } from '../../../src/analyses/explain/actions/graph-break.js';
import { h200Trace, loadModel, loadRawJson } from '../../fixtures.js';

type Ev = { name: string; ph?: string; cat?: string; ts: number; dur: number; tid: number; args?: Record<string, unknown> };
/** Raw µs floats (3 decimals) as integer ns, so that sums are exact. */
const ns = (us: number) => Math.round(us * 1000);
const HOST = new Set(['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver']);
const GPU = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);

function raw(name: string) {
  const events = loadRawJson(h200Trace(name)).traceEvents as unknown as Ev[];
  const host = events.filter((e) => e.ph === 'X' && HOST.has(e.cat!));
  const gpu = events.filter((e) => e.ph === 'X' && GPU.has(e.cat!));
  const steps = host.filter((e) => /^ProfilerStep#\d+$/.test(e.name)).sort((a, b) => a.ts - b.ts);
  const byCorr = new Map<unknown, Ev[]>();
  for (const g of gpu) byCorr.set(g.args!['correlation'], [...(byCorr.get(g.args!['correlation']) ?? []), g]);
  const calls = host.filter((e) => e.cat === 'cuda_runtime' || e.cat === 'cuda_driver');
  const inside = (outer: Ev, e: Ev) => e.tid === outer.tid && e !== outer && ns(e.ts) >= ns(outer.ts) && ns(e.ts) + ns(e.dur) <= ns(outer.ts) + ns(outer.dur);
  const inStep = (s: Ev, e: Ev) => ns(e.ts) >= ns(s.ts) && ns(e.ts) < ns(s.ts) + ns(s.dur);
  return { events, host, gpu, steps, byCorr, calls, inside, inStep };
}

describe('compiled regions: the wait from the cache lookup to the first kernel launch', () => {
  it('gpt2_train_compile: per region, nested regions counted once in the step sum, the step\'s from its first lookup', async () => {
    const r = raw('gpt2_train_compile');
    const co = computeCompileOverhead(await loadModel(h200Trace('gpt2_train_compile')));
    for (const [k, step] of r.steps.entries()) {
      const regions = r.host.filter((e) => e.name.startsWith('Torch-Compiled Region: ') && r.inStep(step, e)).sort((a, b) => a.ts - b.ts);
      const lookups = r.host.filter((e) => e.name === 'TorchDynamo Cache Lookup' && r.inStep(step, e));
      // kernel launches: calls whose correlation has a kernel
      const launches = r.calls.filter((c) => r.inStep(step, c) && (r.byCorr.get(c.args!['correlation']) ?? []).some((g) => g.cat === 'kernel'));
      const intervals: [number, number][] = [];
      const rows = co.steps[k]!.regionCalls;
      expect(rows.map((x) => x.name)).toEqual(regions.map((e) => e.name.slice('Torch-Compiled Region: '.length)));
      for (const [j, region] of regions.entries()) {
        // its lookup: the last one ending before it starts, on its thread, with the same enclosing region
        const enclosing = (e: Ev) => regions.filter((o) => r.inside(o, e)).sort((a, b) => b.ts - a.ts)[0];
        const lookup = lookups.filter((l) => l.tid === region.tid && ns(l.ts) + ns(l.dur) <= ns(region.ts) && enclosing(l) === enclosing(region)).sort((a, b) => b.ts - a.ts)[0]!;
        const first = launches.filter((c) => r.inside(region, c)).sort((a, b) => a.ts - b.ts)[0];
        if (!first) {
          expect(rows[j]!.toFirstLaunchUs).toBeUndefined();
          continue;
        }
        const waitNs = ns(first.ts) - ns(lookup.ts);
        expect(ns(rows[j]!.toFirstLaunchUs!)).toBe(waitNs);
        intervals.push([ns(lookup.ts), ns(first.ts)]);
      }
      // 0/0's first launch is in 1/0 (nested): their waits overlap
      expect(rows[0]!.firstLaunchIn).toBe('1/0');
      intervals.sort((a, b) => a[0] - b[0]);
      let union = 0;
      let [cs, ce] = intervals[0]!;
      for (const [s, e] of intervals.slice(1)) {
        if (s <= ce) ce = Math.max(ce, e);
        else {
          union += ce - cs;
          [cs, ce] = [s, e];
        }
      }
      union += ce - cs;
      expect(ns(co.steps[k]!.regionsBeforeFirstLaunchUs)).toBe(union);
      expect(union).toBeLessThan(intervals.reduce((s, [a, b]) => s + b - a, 0));
      expect(ns(co.steps[k]!.beforeFirstLaunchUs)).toBe(intervals[0]![1] - intervals[0]![0]);
    }
  });

  it('attention_compile: a memset is no launch — the wait runs to the first kernel launch', async () => {
    const r = raw('attention_compile');
    const co = computeCompileOverhead(await loadModel(h200Trace('attention_compile')));
    let memsetFirst = 0;
    for (const [k, step] of r.steps.entries()) {
      const region = r.host.find((e) => e.name.startsWith('Torch-Compiled Region: ') && r.inStep(step, e))!;
      const lookup = r.host.filter((e) => e.name === 'TorchDynamo Cache Lookup' && r.inStep(step, e) && e.ts < region.ts).sort((a, b) => b.ts - a.ts)[0]!;
      const work = r.calls.filter((c) => r.inside(region, c) && r.byCorr.has(c.args!['correlation'])).sort((a, b) => a.ts - b.ts);
      const firstKernel = work.find((c) => r.byCorr.get(c.args!['correlation'])!.some((g) => g.cat === 'kernel'))!;
      if (r.byCorr.get(work[0]!.args!['correlation'])![0]!.cat === 'gpu_memset') memsetFirst++;
      expect(ns(co.steps[k]!.beforeFirstLaunchUs)).toBe(ns(firstKernel.ts) - ns(lookup.ts));
    }
    expect(memsetFirst).toBe(r.steps.length);
  });
});

/** The GPU idle between two regions' own work, from the raw events: the window less every GPU activity in it, as pieces. */
function idlePieces(gpu: readonly Ev[], lo: number, hi: number): [number, number][] {
  const busy = gpu
    .map((g) => [ns(g.ts), ns(g.ts) + ns(g.dur)] as [number, number])
    .filter(([s, e]) => e > lo && s < hi)
    .sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let at = lo;
  for (const [s, e] of busy) {
    if (s > at) out.push([at, Math.min(s, hi)]);
    at = Math.max(at, e);
  }
  if (at < hi) out.push([at, hi]);
  return out.filter(([s, e]) => e > s);
}

describe('graph breaks: the GPU idle between compiled regions', () => {
  it('gpt2_train_compile: 1/0 → 3/0 per step from raw kernel timestamps, the guards and launch parts from the raw host events', async () => {
    const r = raw('gpt2_train_compile');
    const m = await loadModel(h200Trace('gpt2_train_compile'));
    const gb = computeGraphBreaks(m);
    expect(gb.steps.map((s) => s.step)).toEqual(r.steps.map((s) => s.name));
    const idles: number[] = [];
    for (const [k, step] of r.steps.entries()) {
      const regions = r.host.filter((e) => e.name.startsWith('Torch-Compiled Region: ') && r.inStep(step, e));
      const innermost = (c: Ev) => regions.filter((o) => r.inside(o, c)).sort((a, b) => b.ts - a.ts)[0];
      // each region's own GPU work: activities of calls whose innermost region it is
      const own = new Map<string, Ev[]>();
      for (const c of r.calls.filter((c) => r.inStep(step, c) && r.byCorr.has(c.args!['correlation']))) {
        const reg = innermost(c);
        if (reg) own.set(reg.name, [...(own.get(reg.name) ?? []), ...r.byCorr.get(c.args!['correlation'])!]);
      }
      expect([...own.keys()].sort()).toEqual(['Torch-Compiled Region: 1/0', 'Torch-Compiled Region: 3/0']);
      const a = own.get('Torch-Compiled Region: 1/0')!;
      const b = own.get('Torch-Compiled Region: 3/0')!;
      const lo = Math.max(...a.map((g) => ns(g.ts) + ns(g.dur)));
      const hi = Math.min(...b.map((g) => ns(g.ts)));
      const pieces = idlePieces(r.gpu, lo, hi);
      const idle = pieces.reduce((s, [x, y]) => s + y - x, 0);
      const gap = gb.steps[k]!.gaps[0]!;
      expect([gap.from, gap.to, gap.kind]).toEqual(['1/0', '3/0', 'graph-break']);
      expect(ns(gap.gpuIdleUs)).toBe(idle);
      // the launch part: from 3/0's first launching call to its first activity
      const firstB = b.sort((x, y) => x.ts - y.ts)[0]!;
      const call = r.calls.find((c) => c.args!['correlation'] === firstB.args!['correlation'])!;
      expect(ns(gap.idleBy.launch)).toBe(pieces.reduce((s, [x, y]) => s + Math.max(0, y - Math.max(x, ns(call.ts))), 0));
      // guards: the cache lookups (leaf events) inside the idle, before that call
      const lookups = r.host.filter((e) => e.name === 'TorchDynamo Cache Lookup' && r.inStep(step, e));
      const inIdle = (s: number, e: number) => pieces.reduce((t, [x, y]) => t + Math.max(0, Math.min(e, y, ns(call.ts)) - Math.max(s, x)), 0);
      expect(ns(gap.idleBy.guards)).toBe(lookups.reduce((t, l) => t + inIdle(ns(l.ts), ns(l.ts) + ns(l.dur)), 0));
      expect(gap.idleBy.guards).toBeGreaterThan(0);
      // the parts sum to the idle; no sync lies between the regions
      expect(Object.values(gap.idleBy).reduce((s, x) => s + ns(x), 0)).toBe(idle);
      expect(gap.idleBy.sync).toBe(0);
      expect(gap.syncs).toEqual([]);
      idles.push(idle);
    }
    expect(ns(gb.meanIdleUs * r.steps.length)).toBe(idles.reduce((s, x) => s + x, 0));
    const f = computeCompileOverhead(m).findings.find((x) => x.code === 'GPU_IDLE_BETWEEN_REGIONS')!;
    expect(f.message).toMatch(/^Between compiled regions \(1\/0 → 3\/0\) the GPU idles 49\d\.\d µs per step/);
    expect(f.message).toMatch(/no sync between them.*TORCH_LOGS=graph_breaks.*CUDA graphs do not remove this idle/);
    // the action: the idle per step at stake, an upper bound, remedied by one graph (not CUDA graphs)
    const [action] = graphBreakActions(context({ label: 'gpt2_train_compile', model: m }));
    expect(action!.id).toBe('graph-break');
    expect(action!.sentence.id).toBe('action.graph-break.host');
    expect(action!.atStakeUs).toBe(gb.meanIdleUs);
    expect(action!.bound).toBe('upper-bound');
  });

  it('llm_decode_compile: the idle after a `.item()` between regions is the sync\'s, with the advice that keeps the value on the GPU', async () => {
    const m = await loadModel(h200Trace('llm_decode_compile'));
    const gb = computeGraphBreaks(m);
    const withSync = gb.steps.flatMap((s) => s.gaps).filter((g) => g.syncs.length > 0);
    expect(withSync.length).toBeGreaterThan(0);
    for (const g of withSync) expect(g.syncs.every((x) => x.item && x.api === 'cudaStreamSynchronize')).toBe(true);
    const f = computeCompileOverhead(m).findings.find((x) => x.code === 'GPU_IDLE_BETWEEN_REGIONS')!;
    expect(f.message).toMatch(/follows a host sync between the regions: `\.item\(\)` \(cudaStreamSynchronize, \d+×\).*torch\.cond/);
    const [action] = graphBreakActions(context({ label: 'llm_decode_compile', model: m }));
    expect(action!.sentence.id).toBe('action.graph-break.sync');
    expect(action!.sentence.numbers['sync']).toBe('.item()');
    expect(action!.toolchain).toBe('the model code');
  });

  it('is silent where each step runs one compiled region, and on eager traces', async () => {
    for (const name of ['relu_mlp_compile', 'geglu_mlp_compile', 'cnn_train_compile', 'attention_compile', 'mlp_train_compile_ro', 'tiny_ops_compile_ro', 'gpt2_train', 'sync_loop']) {
      const m = await loadModel(h200Trace(name));
      const gb = computeGraphBreaks(m);
      expect(gb.steps, name).toEqual([]);
      expect(gb.meanIdleUs).toBe(0);
      expect(computeCompileOverhead(m).findings.map((f) => f.code), name).not.toContain('GPU_IDLE_BETWEEN_REGIONS');
      expect(graphBreakActions(context({ label: name, model: m })), name).toEqual([]);
    }
  });
});
