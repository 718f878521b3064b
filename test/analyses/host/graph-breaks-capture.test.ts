/**
 * Issue 40 item 3 on a real capture: `graph_break` (test/fixtures/traces/h100-torch2.11), a
 * compiled forward split by a `.item()` — two compiled regions per step, 1/1 (the rest of the
 * frame after the break) nested in 0/0. `kinetoscope compile --json`'s `graphBreaks` against the
 * raw events, recomputed here by `compile --help`'s definition: per step, from the end of one
 * region's last GPU activity to the start of the next region's first (a region's own work: the
 * activities launched by calls whose innermost region it is), less any GPU activity in between;
 * each idle instant by what the thread that called the next region was doing there (the innermost
 * event, a compile layer's activity passed down to what it holds).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRawJson } from '../../fixtures.js';
import { runCli } from '../../helpers/cli.js';
import { TEST_DIR } from '../../helpers/paths.js';

const TRACE = join(TEST_DIR, 'fixtures/traces/h100-torch2.11/graph_break.pt.trace.json.gz');

type Ev = { name: string; ph?: string; cat?: string; ts: number; dur: number; tid: number; args?: Record<string, unknown> };
/** Raw µs floats (3 decimals) as integer ns, so that sums are exact. */
const ns = (us: number) => Math.round(us * 1000);
const end = (e: Ev) => ns(e.ts) + ns(e.dur);
const HOST = new Set(['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver']);
const GPU = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);
const REGION = 'Torch-Compiled Region: ';
const ITEM = new Set(['aten::item', 'aten::_local_scalar_dense']);
const ACTS = ['sync', 'guards', 'callLayers', 'wrapper', 'ops', 'python', 'launch'] as const;
type Act = (typeof ACTS)[number];

const events = loadRawJson(TRACE).traceEvents as unknown as Ev[];
const host = events.filter((e) => e.ph === 'X' && HOST.has(e.cat!));
const gpu = events.filter((e) => e.ph === 'X' && GPU.has(e.cat!));
const steps = host.filter((e) => /^ProfilerStep#\d+$/.test(e.name)).sort((a, b) => a.ts - b.ts);
const byCorr = new Map<unknown, Ev[]>();
for (const g of gpu) byCorr.set(g.args!['correlation'], [...(byCorr.get(g.args!['correlation']) ?? []), g]);
const calls = host.filter((e) => e.cat === 'cuda_runtime' || e.cat === 'cuda_driver');
const inside = (outer: Ev, e: Ev) => e.tid === outer.tid && e !== outer && ns(e.ts) >= ns(outer.ts) && end(e) <= end(outer);
const inStep = (s: Ev, e: Ev) => ns(e.ts) >= ns(s.ts) && ns(e.ts) < end(s);
/** A call that blocks the host: a synchronize (not a stream wait), or a copy into pageable memory. */
const blocks = (c: Ev) =>
  /Synchronize$/.test(c.name) || (byCorr.get(c.args?.['correlation']) ?? []).some((g) => g.cat === 'gpu_memcpy' && /Pageable/.test(g.name));
const blockingCalls = calls.filter(blocks);

/** The parts of [lo, hi) no GPU activity covers. */
function idlePieces(lo: number, hi: number): [number, number][] {
  const busy = gpu.map((g) => [ns(g.ts), end(g)] as [number, number]).filter(([s, e]) => e > lo && s < hi).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let at = lo;
  for (const [s, e] of busy) {
    if (s > at) out.push([at, Math.min(s, hi)]);
    at = Math.max(at, e);
  }
  if (at < hi) out.push([at, hi]);
  return out.filter(([s, e]) => e > s);
}

/** What an event's own time counts as (compile --help's parts), given what an enclosing compile layer or sync passes down. */
function activityOf(e: Ev, inherited: Act | undefined): Act {
  if (inherited === 'sync') return 'sync';
  if (e.cat === 'cuda_runtime' || e.cat === 'cuda_driver') return blocks(e) ? 'sync' : (inherited ?? 'ops');
  // an op holding a blocking call: a `.item()` whose copy-back synchronizes, or an op with one directly inside
  const holds = blockingCalls.filter((c) => inside(e, c));
  if (e.cat === 'cpu_op' && holds.length > 0 && (ITEM.has(e.name) || holds.some((c) => !host.some((x) => x !== c && x.cat === 'cpu_op' && inside(e, x) && inside(x, c))))) return 'sync';
  if (e.name === 'TorchDynamo Cache Lookup' || /guard/i.test(e.name)) return 'guards';
  if (/^## Call CompiledFxGraph .* ##$/.test(e.name)) return 'wrapper';
  if (e.name.startsWith(REGION)) return 'python';
  if (e.name === 'Pregraph bytecode' || e.name.startsWith('AOTDispatcher ') || e.name === 'CompiledFunction' || e.name === 'CompiledFunctionBackward') return 'callLayers';
  return inherited ?? (e.cat === 'cpu_op' ? 'ops' : 'python');
}

/** The host activity at an instant on a thread: the chain of events holding it, outermost first. */
function activityAt(tid: number, t: number): Act {
  const chain = host.filter((e) => e.tid === tid && ns(e.ts) <= t && t < end(e)).sort((a, b) => ns(a.ts) - ns(b.ts) || ns(b.dur) - ns(a.dur));
  let act: Act = 'python';
  let inherited: Act | undefined;
  for (const e of chain) {
    act = activityOf(e, inherited);
    inherited = act === 'sync' || act === 'guards' || act === 'callLayers' || act === 'wrapper' ? act : undefined;
  }
  return act;
}

describe('graph breaks on the graph_break capture (H100): the GPU idle between the two compiled regions', async () => {
  const run = await runCli(['compile', '--json', TRACE]);
  const gb = JSON.parse(run.stdout).graphBreaks;

  it('per step, the idle from 0/0\'s last GPU activity to 1/1\'s first, by host activity, equals the raw events\' — and follows the `.item()` sync', () => {
    expect(run.status).toBe(0);
    expect(gb.steps.map((s: { step: string }) => s.step)).toEqual(steps.map((s) => s.name));
    const idles: number[] = [];
    const parts = Object.fromEntries(ACTS.map((a) => [a, 0])) as Record<Act, number>;
    for (const [k, step] of steps.entries()) {
      const regions = host.filter((e) => e.name.startsWith(REGION) && inStep(step, e));
      const innermost = (c: Ev) => regions.filter((o) => inside(o, c)).sort((a, b) => b.ts - a.ts)[0];
      // each region's own GPU work and launching calls
      const own = new Map<Ev, { work: Ev[]; calls: Ev[] }>();
      for (const c of calls.filter((c) => inStep(step, c) && byCorr.has(c.args!['correlation']))) {
        const reg = innermost(c);
        if (!reg) continue;
        const o = own.get(reg) ?? { work: [], calls: [] };
        o.work.push(...byCorr.get(c.args!['correlation'])!);
        o.calls.push(c);
        own.set(reg, o);
      }
      const [a, b] = [...own.entries()].sort((x, y) => Math.min(...x[1].work.map((g) => ns(g.ts))) - Math.min(...y[1].work.map((g) => ns(g.ts))));
      expect(own.size).toBe(2);
      expect([a![0].name, b![0].name]).toEqual([`${REGION}0/0`, `${REGION}1/1`]);
      expect(inside(a![0], b![0])).toBe(true); // the rest of the frame runs inside the frame that broke
      const lo = Math.max(...a![1].work.map(end));
      const firstB = b![1].work.reduce((x, y) => (ns(y.ts) < ns(x.ts) ? y : x));
      const hi = ns(firstB.ts);
      const pieces = idlePieces(lo, hi);
      const idle = pieces.reduce((s, [x, y]) => s + y - x, 0);

      const gap = gb.steps[k].gaps[0];
      expect(gb.steps[k].gaps).toHaveLength(1);
      expect([gap.from, gap.to, gap.kind]).toEqual(['0/0', '1/1', 'graph-break']);
      expect(ns(gap.windowUs)).toBe(hi - lo);
      expect(ns(gap.gpuIdleUs)).toBe(idle);
      expect(ns(gb.steps[k].gpuIdleUs)).toBe(idle);
      expect(idle).toBeGreaterThan(100_000); // over 100 µs a step

      // by activity: each elementary piece between host event boundaries, at its start
      const launchAt = ns(calls.find((c) => c.args!['correlation'] === firstB.args!['correlation'])!.ts);
      const by = Object.fromEntries(ACTS.map((x) => [x, 0])) as Record<Act, number>;
      const cuts = host.filter((e) => e.tid === b![0].tid).flatMap((e) => [ns(e.ts), end(e)]);
      for (const [s, e] of pieces) {
        const points = [...new Set([s, e, launchAt, ...cuts].filter((t) => t >= s && t <= e))].sort((x, y) => x - y);
        for (let j = 0; j + 1 < points.length; j++) by[points[j]! >= launchAt ? 'launch' : activityAt(b![0].tid, points[j]!)] += points[j + 1]! - points[j]!;
      }
      for (const x of ACTS) expect(ns(gap.idleBy[x]), `${step.name} ${x}`).toBe(by[x]);
      for (const x of ACTS) parts[x] += by[x];

      // the cause: the `.item()` in 0/0 — its copy back is 0/0's last GPU work, its cudaStreamSynchronize the one sync before 1/1
      const lastA = a![1].work.reduce((x, y) => (end(y) > end(x) ? y : x));
      const copyCall = calls.find((c) => c.args!['correlation'] === lastA.args!['correlation'])!;
      expect(lastA.cat).toBe('gpu_memcpy');
      const lastCallA = a![1].calls.reduce((x, y) => (ns(y.ts) > ns(x.ts) ? y : x));
      const syncs = blockingCalls.filter((c) => c.tid === b![0].tid && ns(c.ts) >= ns(lastCallA.ts) && ns(c.ts) < launchAt);
      expect(syncs.map((c) => c.name)).toEqual(['cudaStreamSynchronize']);
      const item = host.find((e) => e.name === 'aten::item' && inside(e, syncs[0]!))!;
      expect(inside(item, copyCall)).toBe(true);
      expect(end(syncs[0]!)).toBeGreaterThan(lo); // the host was still blocked when the GPU went idle
      expect(gap.syncs).toEqual([{ api: 'cudaStreamSynchronize', op: 'aten::_local_scalar_dense', topOp: `${REGION}0/0`, item: true, blockedUs: ns(syncs[0]!.dur) / 1000 }]);
      expect(by.sync).toBeGreaterThan(0);
      idles.push(idle);
    }
    const n = steps.length;
    const sum = idles.reduce((s, x) => s + x, 0);
    // the means print to the ns (3 decimals of µs)
    expect(ns(gb.meanIdleUs)).toBe(Math.round(sum / n));
    expect(ns(gb.meanIdleAfterSyncUs)).toBe(Math.round(sum / n));
    for (const x of ACTS) expect(ns(gb.meanIdleBy[x]), x).toBe(Math.round(parts[x] / n));
  });

  it('names the `.item()` sync as the cause, with the advice that keeps the value on the GPU', async () => {
    const f = JSON.parse(run.stdout).findings.find((x: { code: string }) => x.code === 'GPU_IDLE_BETWEEN_REGIONS');
    expect(f.message).toMatch(/^Between compiled regions \(0\/0 → 1\/1\) the GPU idles \d+\.\d µs per step/);
    expect(f.message).toMatch(/follows a host sync between the regions: `\.item\(\)` \(cudaStreamSynchronize, 3×\).*capture_scalar_outputs.*CUDA graphs do not remove this idle/);
  });
});
