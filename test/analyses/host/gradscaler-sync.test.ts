/**
 * Issue 40 item 7 (GradScaler and library syncs) on a real capture: gradscaler_train (H100, GPT-2
 * in fp16 with `torch.amp.GradScaler`, no python frames). The scaler's inf check reads
 * `found_inf` back with `.item()` once a step; `steps --json` and `launches --json` must name that
 * sync as the scaler's and give the GPU idle it causes — recomputed here from the raw events
 * (JSON.parse), following sync-costs.ts' definition: from the sync's start to the start of the
 * first GPU activity (kernel, memcpy, memset, any stream) starting at or after the sync returned,
 * the step's end at the latest, less the union of GPU activity in that window. Not the host's
 * blocked time: most of the wait the GPU spends running the queued backward pass.
 *
 * graph_break (the program's own `.item()`, no scaler) is the capture where the cause is absent.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadRawJson } from '../../fixtures.js';
import { runCli } from '../../helpers/cli.js';

const DIR = join(import.meta.dirname, '../../fixtures/traces/h100-torch2.11');
const trace = (name: string) => join(DIR, `${name}.pt.trace.json.gz`);

type Ev = { name: string; ph?: string; cat?: string; ts: number; dur: number; tid: number };
const ns = (us: number) => Math.round(us * 1000);
const GPU = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);
const BLOCKING = new Set(['cudaStreamSynchronize', 'cudaDeviceSynchronize', 'cudaEventSynchronize']);
const UNSCALE = 'aten::_amp_foreach_non_finite_check_and_unscale_';

interface RawSync {
  readonly ev: Ev;
  /** Its profiler step's index; -1 outside every step (no idle reckoned: it belongs to no step). */
  readonly step: number;
  readonly idleNs: number;
  readonly blockedNs: number;
  /** Under an `aten::item` that follows the scaler's unscale op on its thread in its step, no other `.item()` between. */
  readonly scalers: boolean;
}

/** Every blocking sync, with the GPU idle it causes (ns) and whether the ops say it is GradScaler's. */
function rawSyncs(name: string): { syncs: RawSync[]; steps: Ev[] } {
  const events = (loadRawJson(trace(name)).traceEvents as unknown as Ev[]).filter((e) => e.ph === 'X');
  const gpu = events.filter((e) => GPU.has(e.cat!)).map((g) => [ns(g.ts), ns(g.ts) + ns(g.dur)] as const);
  const steps = events.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name)).sort((a, b) => a.ts - b.ts);
  const ops = events.filter((e) => e.cat === 'cpu_op').sort((a, b) => a.ts - b.ts);
  const syncs: RawSync[] = [];
  for (const ev of events.filter((e) => e.cat === 'cuda_runtime' && BLOCKING.has(e.name)).sort((a, b) => a.ts - b.ts)) {
    const start = ns(ev.ts);
    const end = start + ns(ev.dur);
    const step = steps.findIndex((st) => start >= ns(st.ts) && start < ns(st.ts) + ns(st.dur));
    if (step < 0) {
      syncs.push({ ev, step, idleNs: NaN, blockedNs: ns(ev.dur), scalers: false });
      continue;
    }
    const stepEnd = ns(steps[step]!.ts) + ns(steps[step]!.dur);
    const until = Math.min(Math.min(...gpu.filter(([a]) => a >= end).map(([a]) => a)), stepEnd);
    const parts = gpu
      .filter(([a, b]) => b > start && a < until)
      .map(([a, b]) => [Math.max(a, start), Math.min(b, until)] as const)
      .sort((x, y) => x[0] - y[0]);
    let busy = 0;
    let covered = -Infinity;
    for (const [a, b] of parts) {
      if (b <= covered) continue;
      busy += b - Math.max(a, covered);
      covered = b;
    }
    // the .item() around the sync, and the ops on its thread in its step before it
    const st = steps[step]!;
    const item = ops.find((o) => o.name === 'aten::item' && o.tid === ev.tid && o.ts <= ev.ts && o.ts + o.dur >= ev.ts + ev.dur);
    let scalers = false;
    if (item) {
      const before = ops.filter((o) => o.tid === ev.tid && o.ts >= st.ts && o.ts < item.ts && (o.name === UNSCALE || o.name === 'aten::item'));
      scalers = before.length > 0 && before[before.length - 1]!.name === UNSCALE;
    }
    syncs.push({ ev, step, idleNs: until - start - busy, blockedNs: ns(ev.dur), scalers });
  }
  return { syncs, steps };
}

interface LaunchesJson {
  syncs: { events: { api: string; startUs: number; blockedUs: number; gpuIdleAfterUs: number; cause?: string; caller?: { name: string; evidence: string; strength: string } }[] };
}
interface StepsJson {
  hostSyncs: {
    steps: { step: string; syncs: number; blockedUs: number; gpuIdleUs: number }[];
    groups: { cause: string; api: string; caller?: { name: string; evidence: string; strength: string }; perStep: { calls: number; blockedUs: number; gpuIdleUs: number } }[];
  };
}

async function json<T>(args: string[]): Promise<T> {
  const r = await runCli(args);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

describe('GradScaler\'s inf check on a real capture (issue 40 item 7)', () => {
  it('gradscaler_train: launches --json names each step\'s .item() sync as torch.amp.GradScaler\'s (likely, by its ops) with the GPU idle the raw events give', async () => {
    const { syncs: raw, steps } = rawSyncs('gradscaler_train');
    expect(steps.map((s) => s.name)).toEqual(['ProfilerStep#2', 'ProfilerStep#3', 'ProfilerStep#4']);
    const scaler = raw.filter((s) => s.scalers);
    // one scaler sync per step, a cudaStreamSynchronize under the .item()
    expect(scaler.map((s) => s.step)).toEqual([0, 1, 2]);
    expect(scaler.every((s) => s.ev.name === 'cudaStreamSynchronize')).toBe(true);

    const launches = await json<LaunchesJson>(['launches', '--json', trace('gradscaler_train')]);
    const events = [...launches.syncs.events].sort((a, b) => a.startUs - b.startUs);
    // every blocking sync, in time order, the same calls (one time origin for all)
    expect(events.map((e) => e.api)).toEqual(raw.map((r) => r.ev.name));
    const origin = ns(raw[0]!.ev.ts) - ns(events[0]!.startUs);
    for (const [k, e] of events.entries()) {
      const r = raw[k]!;
      expect(ns(r.ev.ts) - ns(e.startUs)).toBe(origin);
      expect(ns(e.blockedUs)).toBe(r.blockedNs);
      if (r.step >= 0) expect(ns(e.gpuIdleAfterUs), `${r.ev.name} at ${r.ev.ts}`).toBe(r.idleNs);
      if (r.scalers) expect(e.caller).toEqual({ name: 'torch.amp.GradScaler', evidence: 'op-sequence', strength: 'likely' });
      else expect(e.caller?.name).not.toBe('torch.amp.GradScaler');
    }
    // the idle is not the blocked time: the GPU runs the queued backward pass through most of the wait
    for (const s of scaler) expect(s.blockedNs).toBeGreaterThan(10 * s.idleNs);
  });

  it('gradscaler_train: steps --json gives the scaler\'s GPU idle per step and each step\'s sync idle as the raw events do', async () => {
    const { syncs: raw, steps } = rawSyncs('gradscaler_train');
    const out = await json<StepsJson>(['steps', '--json', trace('gradscaler_train')]);
    const n = steps.length;

    // per step: every blocking sync of the step, summed in ns (the output's µs with 3 decimals is exact ns)
    expect(out.hostSyncs.steps.map((r) => r.step)).toEqual(steps.map((s) => s.name));
    for (const [k, row] of out.hostSyncs.steps.entries()) {
      const mine = raw.filter((r) => r.step === k);
      expect(row.syncs).toBe(mine.length);
      expect(ns(row.gpuIdleUs)).toBe(mine.reduce((t, r) => t + r.idleNs, 0));
      expect(ns(row.blockedUs)).toBe(mine.reduce((t, r) => t + r.blockedNs, 0));
    }

    // the scaler's group: its .item(), the mean over the steps (rounded to the output's ns)
    const scaler = raw.filter((r) => r.scalers);
    const groups = out.hostSyncs.groups.filter((g) => g.caller?.name === 'torch.amp.GradScaler');
    expect(groups).toHaveLength(1);
    const g = groups[0]!;
    expect(g.cause).toBe('.item()');
    expect(g.api).toBe('cudaStreamSynchronize');
    expect(g.caller).toEqual({ name: 'torch.amp.GradScaler', evidence: 'op-sequence', strength: 'likely' });
    expect(g.perStep.calls).toBe(scaler.length / n);
    expect(Math.abs(g.perStep.gpuIdleUs * 1000 - scaler.reduce((t, r) => t + r.idleNs, 0) / n)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(g.perStep.blockedUs * 1000 - scaler.reduce((t, r) => t + r.blockedNs, 0) / n)).toBeLessThanOrEqual(0.5);
    // the other group (the capture tool's torch.cuda.synchronize(), outside any op) is no one's by the ops
    for (const other of out.hostSyncs.groups.filter((x) => x !== g)) expect(other.caller).toBeUndefined();
  });

  it('graph_break: the program\'s own .item() syncs, no scaler op — not named GradScaler\'s', async () => {
    const { syncs: raw } = rawSyncs('graph_break');
    expect(raw.some((r) => r.ev.name === 'cudaStreamSynchronize')).toBe(true);
    expect(raw.some((r) => r.scalers)).toBe(false);
    const launches = await json<LaunchesJson>(['launches', '--json', trace('graph_break')]);
    expect(launches.syncs.events.length).toBeGreaterThan(0);
    expect(launches.syncs.events.some((e) => e.caller?.name === 'torch.amp.GradScaler')).toBe(false);
    const steps = await json<StepsJson>(['steps', '--json', trace('graph_break')]);
    expect(steps.hostSyncs.groups.some((x) => x.caller?.name === 'torch.amp.GradScaler')).toBe(false);
  });
});
